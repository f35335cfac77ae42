"""Ratings benchmark on SQLite and the local PostgreSQL (figures, not a test).

    python bench/ratings.py [--url postgresql://postgres@127.0.0.1:5432/test]
        [--accounts 10000] [--games 50000] [--requests 400] [--only sqlite|postgres]

For each store: ``--accounts`` accounts and ``--games`` finished rated games of 2 to 6
random accounts, their ratings folded with the real model (``projections.skill.rate``,
in the order the games ended) and written **by direct inserts** into the read model's
tables (``rm_rating_games``, ``rm_rating_history``, ``rm_ratings``): the volume, not
the catch-up, is what is measured here. Then, through the web app in this process (the
Flask app over the store, as a served process runs it; no network), the time of:

- ``GET /api/v1/ratings?min_games=5`` (the first page of 100, and a page deep in it);
- ``GET /api/v1/accounts/{id}/ratings`` (the latest 50 games) of random accounts;

p50 and p99 of ``--requests`` each (the target: p99 <= 50 ms). PostgreSQL runs in a
throw-away schema, SQLite in a temporary folder; both are removed at the end.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.store import pct, throwaway_schema  # noqa: E402
from projections.readmodels.ratings import HISTORY  # noqa: E402
from projections.skill import INITIAL, Skill, rate  # noqa: E402
from projections.store import ReadModels  # noqa: E402
from service.app import create_app  # noqa: E402
from service.runtime.settings import Settings  # noqa: E402
from service.store.postgres import PostgresEventStore  # noqa: E402
from service.store.sql import SqlEventStore  # noqa: E402
from service.store.sqlite import SQLiteEventStore  # noqa: E402

Row = tuple[Any, ...]
CHUNK = 5_000


def folded(accounts: int, games: int, seed: int = 1) -> tuple[list[Row], list[Row], list[Row]]:
    """Rated games of random accounts, folded in the order they ended: the rows of
    rm_rating_games, rm_rating_history and rm_ratings."""
    rng = random.Random(seed)
    ids = [f"acct{i:05d}" for i in range(accounts)]
    skills: dict[str, Skill] = {}
    game_rows: list[Row] = []
    history: list[Row] = []
    for n in range(games):
        game_id = f"g{n:06d}"
        ended_at = f"2026-{1 + n // 5000:02d}-01T00:00:00.{n:06d}+00:00"
        players = rng.sample(ids, rng.randint(2, 6))
        ranking = [(p, i) for i, p in enumerate(players, start=1)]
        after = rate(skills, ranking)
        for player, rank in ranking:
            start, end = skills.get(player, INITIAL), after[player]
            history.append(
                (player, ended_at, game_id, len(players), rank, start.mu, start.sigma,
                 end.mu, end.sigma, end.ordinal, end.games)
            )  # fmt: skip
        skills.update(after)
        game_rows.append((game_id, ended_at, json.dumps(ranking)))
    current = [(a, s.mu, s.sigma, s.ordinal, s.games) for a, s in skills.items()]
    return game_rows, history, current


def fill(store: SqlEventStore, accounts: int, rows: tuple[list[Row], list[Row], list[Row]]) -> None:
    """Accounts and the ratings' rows, inserted directly, a chunk per transaction."""
    people = [
        (f"acct{i:05d}", f"Player {i}", "player", f"hash{i}", "2026-01-01T00:00:00+00:00")
        for i in range(accounts)
    ]
    tables = [
        ("accounts", ("account_id", "name", "kind", "token_hash", "created_at"), people),
        ("rm_rating_games", ("game_id", "ended_at", "ranking"), rows[0]),
        ("rm_rating_history", HISTORY, rows[1]),
        ("rm_ratings", ("account_id", "mu", "sigma", "ordinal", "games"), rows[2]),
    ]
    for table, columns, values in tables:
        marks = ", ".join(["%s"] * len(columns))
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
        for start in range(0, len(values), CHUNK):
            with store._tx() as tx:
                tx.executemany(sql, values[start : start + CHUNK])
    with store._tx() as tx:
        tx.execute("ANALYZE")


def timed(get: Callable[[str], Any], paths: Iterator[str], n: int) -> tuple[float, float]:
    """p50 and p99 in ms of ``n`` GETs (each answered 200)."""
    spent = []
    for _ in range(n):
        path = next(paths)
        started = time.perf_counter()
        answer = get(path)
        spent.append((time.perf_counter() - started) * 1000)
        assert answer.status_code == 200, (path, answer.status_code, answer.json)
    return pct(spent, 0.5), pct(spent, 0.99)


def measure(name: str, store: SqlEventStore, args: argparse.Namespace, rows: Any) -> None:
    ReadModels(store, store).upgrade()
    started = time.perf_counter()
    fill(store, args.accounts, rows)
    print(f"{name}: filled in {time.perf_counter() - started:.1f} s")
    settings = Settings(data_dir=Path(args.tmp), testing=True, rate_limits={})
    client = create_app(settings, store=store).test_client()
    rng = random.Random(2)
    ranked = client.get("/api/v1/ratings?min_games=5&limit=1").json or {}
    assert ranked.get("players"), "nobody has 5 rated games"
    deep = rng.randrange(1000, 4000)
    cases = {
        "GET /ratings?min_games=5 (first 100)": iter(lambda: "/api/v1/ratings?min_games=5", None),
        f"GET /ratings?min_games=5&offset={deep}": iter(
            lambda: f"/api/v1/ratings?min_games=5&offset={deep}", None
        ),
        "GET /accounts/{id}/ratings (latest 50)": iter(
            lambda: f"/api/v1/accounts/acct{rng.randrange(args.accounts):05d}/ratings", None
        ),
    }
    for label, paths in cases.items():
        timed(client.get, paths, 20)  # warm: the first requests open connections
        p50, p99 = timed(client.get, paths, args.requests)
        verdict = "ok" if p99 <= 50 else "OVER 50 ms"
        print(f"{name}: {label}: p50 {p50:.1f} ms, p99 {p99:.1f} ms ({verdict})")


@contextmanager
def sqlite_store(folder: str) -> Iterator[SqlEventStore]:
    store = SQLiteEventStore(Path(folder) / "ratings.db")
    store.upgrade()
    try:
        yield store
    finally:
        store.close()


@contextmanager
def postgres_store(url: str) -> Iterator[SqlEventStore]:
    with throwaway_schema(url) as schema_url:
        store = PostgresEventStore(schema_url)
        try:
            yield store
        finally:
            store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--accounts", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--only", choices=("sqlite", "postgres"))
    args = parser.parse_args()
    started = time.perf_counter()
    rows = folded(args.accounts, args.games)
    print(
        f"folded {args.games:,} rated games of {args.accounts:,} accounts"
        f" ({len(rows[1]):,} history rows) in {time.perf_counter() - started:.1f} s"
    )
    with tempfile.TemporaryDirectory() as tmp:
        args.tmp = tmp
        if args.only in (None, "sqlite"):
            with sqlite_store(tmp) as store:
                measure("sqlite", store, args, rows)
        if args.only in (None, "postgres"):
            with postgres_store(args.url) as store:
                measure("postgres", store, args, rows)


if __name__ == "__main__":
    main()
