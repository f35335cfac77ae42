"""``tongiaki projections rebuild --jobs N`` (service/cli/rebuild_jobs.py): the games
rebuilt by several processes side by side leave every read-model table as a rebuild
in one process does, ratings' refold included (docs/ratings.md G5); SQLite refuses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from projections.store import ReadModels
from service.cli import rebuild_jobs
from tests.service.api import Player, play_to_the_end
from tests.service.conftest import app_on

ROOT = Path(__file__).resolve().parents[2]


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


def tables(url: str, schema: str) -> dict[str, list[tuple]]:
    """Every read-model row (and the checkpoints' versions), sorted: what a rebuild leaves."""
    with psycopg.connect(url) as conn:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s"
                " AND table_name LIKE 'rm\\_%%'",
                (schema,),
            )
        ]
        found = {n: sorted(map(repr, conn.execute(f"SELECT * FROM {n}"))) for n in names}
        found["checkpoints"] = sorted(
            map(
                repr,
                conn.execute(
                    "SELECT projection, game_id, version, seq, error FROM projection_checkpoints"
                ),
            )
        )
    return found


@pytest.fixture
def games(request, tmp_path, pg_schema):
    """Five games of three recurring accounts on PostgreSQL: two played out, three under
    way (rated results, standings, profiles, steps, notifications)."""
    app, store = app_on("postgres", request, tmp_path)
    client = app.test_client()
    people = [Player(client, name) for name in ("ana", "bo", "cy")]
    for n in range(5):
        host = people[n % 3]
        made = host.post("/games", {"max_players": 3, "rated": n != 4})
        assert made.status_code == 201, made.json
        game_id = made.json["game_id"]
        for p, colour in zip(people, ("blue", "red", "green"), strict=True):
            assert p.post(f"/games/{game_id}/seats", {"colour": colour}).status_code == 201
        assert host.post(f"/games/{game_id}/start").status_code == 200
        if n < 2:
            play_to_the_end(client, game_id, people, seed=n)
    rm = app.extensions["tongiaki.readmodels"]
    rm.rebuild()  # one process: what --jobs must match
    store.close()
    yield pg_schema


def test_a_rebuild_in_two_processes_leaves_the_tables_of_one(games, postgres_url):
    schema, url = games
    expected = tables(url, schema)
    assert expected["rm_steps"] and expected["rm_results"] and expected["rm_rating_history"]
    with psycopg.connect(url, autocommit=True) as conn:  # read models gone astray
        conn.execute("DELETE FROM rm_scoreboard")
        conn.execute("DELETE FROM rm_steps WHERE version % 3 = 0")
        for rated in ("rm_rating_games", "rm_rating_history", "rm_ratings"):
            conn.execute(f"DELETE FROM {rated}")  # refolded once, after every share (G5)
    done = cli({"DATABASE_URL": url, "REDIS_URL": ""}, "projections", "rebuild", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert "rebuilt scoreboard" in done.stdout and "5 games" in done.stdout
    assert "(2 processes)" in done.stdout
    assert tables(url, schema) == expected


def test_the_progress_counts_every_game_once(games):
    from service.store.postgres import PostgresEventStore

    schema, url = games
    expected = tables(url, schema)
    store = PostgresEventStore(url)
    rm = ReadModels(store, store)
    counted: list[int] = []
    try:
        applied = rebuild_jobs.rebuild(rm, url, ["timeline"], rm.all_games(), 3, counted.append)
    finally:
        store.close()
    assert sum(counted) == 5 and applied == len(expected["rm_steps"])
    assert tables(url, schema) == expected


def test_jobs_are_refused_on_sqlite_and_bounded(tmp_path):
    env = {"TONGIAKI_DATA_DIR": str(tmp_path), "DATABASE_URL": "", "REDIS_URL": ""}
    assert cli(env, "db", "upgrade").returncode == 0
    refused = cli(env, "projections", "rebuild", "--jobs", "2")
    assert refused.returncode == 2 and "needs PostgreSQL" in refused.stderr
    assert "Traceback" not in refused.stderr
    for bad in ("0", "65", "x"):
        assert cli(env, "projections", "rebuild", "--jobs", bad).returncode == 2
    assert cli(env, "projections", "rebuild", "--jobs", "1", "-q").returncode == 0


def test_shares_cover_every_game_once_in_order():
    games = [f"g{i}" for i in range(103)]
    for jobs in (1, 2, 3, 8, 64):
        cut = rebuild_jobs.shares(games, jobs)
        assert [g for share in cut for g in share] == games
        assert all(1 <= len(s) <= rebuild_jobs.SHARE for s in cut)
        assert len(cut) >= min(len(games), jobs)  # every process has work
    assert rebuild_jobs.shares([], 2) == []
    assert ReadModels.rebuild.__kwdefaults__ == {"games": None, "settle": True}
