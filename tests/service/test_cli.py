"""The ``tongiaki`` commands: db upgrade, verify, export / import, auditor, projections."""

from __future__ import annotations

import sqlite3

from click.testing import CliRunner

from service.app import create_app
from service.cli import main
from service.settings import Settings
from tests.service.api import open_game, play_to_the_end


def finished_game(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, rate_limits={}))
    client = app.test_client()
    game_id, players = open_game(client, ["blue", "red"])
    play_to_the_end(client, game_id, players, seed=5)
    app.extensions["tongiaki.games"].store.close()
    return game_id


def run(tmp_path, *args, input=None):
    env = {"TONGIAKI_DATA_DIR": str(tmp_path), "DATABASE_URL": "", "REDIS_URL": ""}
    return CliRunner().invoke(main, list(args), env=env, input=input, catch_exceptions=False)


def test_db_upgrade_is_idempotent(tmp_path):
    assert run(tmp_path, "db", "upgrade").output.strip() == "schema at version 3"
    assert run(tmp_path, "db", "upgrade").exit_code == 0


def test_verify_passes_a_true_record_and_fails_a_tampered_one(tmp_path):
    game_id = finished_game(tmp_path)
    ok = run(tmp_path, "verify", game_id)
    assert (
        ok.exit_code == 0
        and "hash chain       ok" in ok.output
        and "fair draws       ok" in ok.output
    )
    conn = sqlite3.connect(tmp_path / "tongiaki.db")
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute(
        "UPDATE events SET data = replace(data, 'ocean', 'OCEAN') WHERE type = 'TileDrawn'"
    )
    conn.commit()
    conn.close()
    bad = run(tmp_path, "verify", game_id)
    assert bad.exit_code == 1 and "BROKEN" in bad.output


def test_verify_an_unknown_game_is_an_error(tmp_path):
    result = CliRunner().invoke(main, ["verify", "nope"], env={"TONGIAKI_DATA_DIR": str(tmp_path)})
    assert result.exit_code == 1 and "no game" in result.output


def test_export_then_import_elsewhere_gives_the_same_verified_game(tmp_path):
    game_id = finished_game(tmp_path / "a")
    exported = run(tmp_path / "a", "export", game_id).output
    assert exported.count("\n") > 50
    imported = run(tmp_path / "b", "import", "-", input=exported)
    assert imported.exit_code == 0 and f"imported game {game_id}" in imported.output
    assert run(tmp_path / "b", "export", game_id).output == exported
    again = CliRunner().invoke(
        main, ["import", "-"], input=exported, env={"TONGIAKI_DATA_DIR": str(tmp_path / "b")}
    )
    assert again.exit_code != 0


def test_import_refuses_a_broken_chain(tmp_path):
    game_id = finished_game(tmp_path / "a")
    lines = run(tmp_path / "a", "export", game_id).output.splitlines()
    lines[3] = lines[3].replace('"version": 4', '"version": 40')
    result = CliRunner().invoke(
        main,
        ["import", "-"],
        input="\n".join(lines),
        env={"TONGIAKI_DATA_DIR": str(tmp_path / "b")},
    )
    assert result.exit_code == 1 and "hash chain broken" in result.output


def test_auditor_create_prints_a_token_once(tmp_path):
    result = run(tmp_path, "auditor", "create", "Audrey")
    assert result.exit_code == 0 and result.output.count("token: ") == 1


def test_projections_rebuild_replaces_every_read_model_and_status_shows_no_lag(tmp_path):
    game_id = finished_game(tmp_path)
    db = sqlite3.connect(tmp_path / "tongiaki.db")
    before = db.execute("SELECT * FROM rm_steps ORDER BY version").fetchall()
    db.execute("DELETE FROM rm_scoreboard")  # a read model gone astray
    db.commit()
    rebuilt = run(tmp_path, "projections", "rebuild", "--quiet")
    assert rebuilt.exit_code == 0 and "rebuilt scoreboard, lobby" in rebuilt.output
    assert db.execute("SELECT COUNT(*) FROM rm_scoreboard").fetchone() == (1,)
    assert db.execute("SELECT * FROM rm_steps ORDER BY version").fetchall() == before
    status = run(tmp_path, "projections", "status")
    assert status.exit_code == 0
    rows = [line.split() for line in status.output.splitlines()[1:]]
    assert {r[0] for r in rows} == {"scoreboard", "lobby", "leaderboard", "timeline", "audit"}
    assert all(r[1:] == ["1", "0", "0", "0"] for r in rows)
    assert run(tmp_path, "projections", "rebuild", "nope").exit_code == 2
    assert game_id


def test_projections_status_names_a_halted_game_and_fails(tmp_path):
    game_id = finished_game(tmp_path)
    db = sqlite3.connect(tmp_path / "tongiaki.db")
    db.execute(
        "UPDATE projection_checkpoints SET error = 'ValueError: bad', failures = 3"
        " WHERE projection = 'audit'"
    )
    db.commit()
    status = run(tmp_path, "projections", "status")
    assert status.exit_code == 1
    assert f"halted on {game_id}: ValueError: bad" in status.output
    resumed = run(tmp_path, "projections", "resume", "audit", game_id)
    assert resumed.exit_code == 0
    assert run(tmp_path, "projections", "status").exit_code == 0


def test_a_worker_needs_redis(tmp_path):
    result = run(tmp_path, "worker", "--burst")
    assert result.exit_code == 2 and "REDIS_URL" in result.output
