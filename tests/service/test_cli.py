"""The ``tongiaki`` commands: db upgrade, verify, export / import, auditor, projections."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest
from click.testing import CliRunner
from gevent import monkey

from projections.store import PROJECTIONS
from service.app import create_app
from service.cli import main
from service.runtime.settings import Settings
from service.transparency.integrator import Integrator
from tests.service.api import open_game, play_to_the_end


def finished_game(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, rate_limits={}))
    client = app.test_client()
    game_id, players = open_game(client, ["blue", "red"])
    play_to_the_end(client, game_id, players, seed=5)
    services = app.extensions["tongiaki.services"]
    Integrator(services.store.log, services.log.signer).drain()  # every commit logged
    services.store.close()
    return game_id


# the in-memory store makes a log key of its own: the run's (tests/conftest.py) unset
MEMORY = {"DATABASE_URL": "memory:", "TONGIAKI_LOG_KEY": ""}
PG2 = "postgresql://postgres@127.0.0.1:5480,127.0.0.1:5481/tongiaki"  # a primary and standby
PG1 = "postgresql://postgres@127.0.0.1:1/tongiaki"  # nothing listens there


def run(tmp_path, *args, input=None):
    env = {"TONGIAKI_DATA_DIR": str(tmp_path), "DATABASE_URL": "", "REDIS_URL": ""}
    return CliRunner().invoke(main, list(args), env=env, input=input, catch_exceptions=False)


@pytest.fixture(autouse=True)
def no_service_settings(monkeypatch):
    for name in (
        "DATABASE_URL",
        "REDIS_URL",
        "TONGIAKI_PORT",
        "TONGIAKI_RATE_LIMITS",
    ):
        monkeypatch.delenv(name, raising=False)


def test_db_upgrade_is_idempotent(tmp_path):
    assert run(tmp_path, "db", "upgrade").output.strip() == "schema at version 6"
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
    assert run(tmp_path, "db", "upgrade").exit_code == 0
    result = CliRunner().invoke(main, ["verify", "nope"], env={"TONGIAKI_DATA_DIR": str(tmp_path)})
    assert result.exit_code == 1 and "no game" in result.output


def test_export_then_import_elsewhere_gives_the_same_verified_game(tmp_path):
    game_id = finished_game(tmp_path / "a")
    exported = run(tmp_path / "a", "export", game_id).output
    assert exported.count("\n") > 50
    imported = run(tmp_path / "b", "import", "-", input=exported)
    assert imported.exit_code == 0 and f"imported game {game_id}" in imported.output
    # the export says where the source's log holds each commit (issue 28)
    header = json.loads(exported.split("\n", 1)[0])
    logged = header.pop("log")
    versions = [v for stream, v, _ in logged["entries"] if stream == f"game/{game_id}"]
    assert versions == sorted(versions) and versions[-1] == header["head_version"]
    assert [i for _, _, i in logged["entries"]] == sorted({i for _, _, i in logged["entries"]})
    # the import logs the same commits in its own log, the rest of the export unchanged
    b = create_app(Settings(data_dir=tmp_path / "b", rate_limits={}), sweep=False)
    services = b.extensions["tongiaki.services"]
    Integrator(services.store.log, services.log.signer).drain()
    again_logged = services.store.log.log_stream(f"game/{game_id}")
    assert [e.version for e in again_logged] == versions
    services.store.close()
    re_exported = run(tmp_path / "b", "export", game_id).output.split("\n", 1)
    assert json.loads(re_exported[0])["log"]["checkpoint"] != logged["checkpoint"]
    assert re_exported[1] == exported.split("\n", 1)[1]
    again = CliRunner().invoke(
        main, ["import", "-"], input=exported, env={"TONGIAKI_DATA_DIR": str(tmp_path / "b")}
    )
    assert again.exit_code != 0


def test_import_refuses_a_broken_chain(tmp_path):
    game_id = finished_game(tmp_path / "a")
    lines = run(tmp_path / "a", "export", game_id).output.splitlines()
    row = json.loads(lines[4])  # line 1 is the header
    row["data"] = row["data"].replace('"R', '"X', 1)  # the event says another rule
    lines[4] = json.dumps(row)
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
    assert {r[0] for r in rows} == set(PROJECTIONS)
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
    assert result.exit_code == 2 and result.output.startswith("Error: REDIS_URL is not set")


def tampered(tmp_path, change):
    """An export of a finished game with ``change(lines)`` applied, imported elsewhere."""
    game_id = finished_game(tmp_path / "a")
    lines = run(tmp_path / "a", "export", game_id).output.splitlines()
    change(lines)
    return run(tmp_path / "b", "import", "-", input="\n".join(lines) + "\n")


def journal_line(lines, outcome="accepted", index=3):
    at = [i for i, line in enumerate(lines) if f'"outcome": "{outcome}"' in line][index]
    return at, json.loads(lines[at])


def test_import_refuses_a_journal_that_does_not_match_the_events(tmp_path):
    def payload(lines):
        at, row = journal_line(lines)
        row["journal"]["payload"]["beach"] = 5 if row["journal"]["payload"].get("beach") != 5 else 4
        lines[at] = json.dumps(row)

    def outcome(lines):
        at, row = journal_line(lines)
        row["journal"]["outcome"] = "rejected"
        lines[at] = json.dumps(row)

    def actor(lines):
        at, row = journal_line(lines)
        row["journal"]["actor"] = {"account": "someone", "name": "else"}
        lines[at] = json.dumps(row)

    for n, change in enumerate((payload, outcome, actor)):
        result = tampered(tmp_path / str(n), change)
        assert result.exit_code == 1 and "the journal does not match the events" in result.output


def test_import_names_a_journal_line_given_twice_and_a_line_of_nothing_known(tmp_path):
    def twice(lines):
        at, _ = journal_line(lines)
        lines[at + 1] = lines[at]

    result = tampered(tmp_path / "1", twice)
    assert result.exit_code == 1 and "was journalled before (line" in result.output

    def stranger(lines):
        lines[5] = json.dumps({"x": 1})

    result = tampered(tmp_path / "2", stranger)
    assert result.exit_code == 1 and "line 6: neither an event" in result.output


def test_import_names_a_line_that_is_not_utf8_or_nested_too_deeply(tmp_path):
    game_id = finished_game(tmp_path / "a")
    lines = run(tmp_path / "a", "export", game_id).output.encode().splitlines(keepends=True)
    for n, bad in enumerate((b"\xff\xfe\n", b"[" * 100_000 + b"\n")):
        mangled = b"".join([*lines[:4], bad, *lines[5:]])
        result = CliRunner().invoke(
            main, ["import", "-"], input=mangled, env={"TONGIAKI_DATA_DIR": str(tmp_path / str(n))}
        )
        assert result.exit_code == 1 and "Error: line 5: " in result.output, result.output
        assert "Traceback" not in result.output


def test_verify_finds_an_event_whose_command_is_not_accepted_in_the_journal(tmp_path):
    game_id = finished_game(tmp_path)
    db = sqlite3.connect(tmp_path / "tongiaki.db")
    db.execute(
        "UPDATE journal SET outcome = 'rejected' WHERE rowid ="
        " (SELECT rowid FROM journal WHERE outcome = 'accepted' ORDER BY seq LIMIT 1 OFFSET 5)"
    )
    db.commit()
    result = run(tmp_path, "verify", game_id)
    assert result.exit_code == 1 and "do not follow version" in result.output


def test_more_operator_mistakes_are_one_line(tmp_path):
    cases = [
        (["simulate", "--games", "0"], {}, 2, "--games"),
        (["serve", "--workers", "-1"], {}, 2, "--workers"),
        (["projections", "resume", "nosuch", "nosuch"], {}, 2, "NAME"),
        (["projections", "resume", "audit", "nosuch"], {}, 1, "no game"),
        (["serve"], {"DATABASE_URL": " "}, 2, "DATABASE_URL is blank"),
        (["serve"], {"TONGIAKI_DATA_DIR": "/proc/nope"}, 2, "TONGIAKI_DATA_DIR"),
        # the service in memory is one process: no gunicorn workers, nothing to read later
        (["serve", "--workers", "2"], MEMORY, 2, "without --workers"),
        (["verify", "abc"], MEMORY, 1, "holds nothing outside"),
        (["export", "abc"], MEMORY, 1, "holds nothing outside"),
        # nor would one that writes: the game or the auditor would end with the command
        (["import", "/dev/null"], MEMORY, 1, "holds nothing outside"),
        (["auditor", "create", "Ana"], MEMORY, 1, "holds nothing outside"),
        (["db", "upgrade"], MEMORY, 1, "holds nothing outside"),
    ]
    assert run(tmp_path, "db", "upgrade").exit_code == 0
    for args, env, code, words in cases:
        result = CliRunner().invoke(main, args, env={"TONGIAKI_DATA_DIR": str(tmp_path), **env})
        assert result.exit_code == code and words in result.output, (args, result.output)
        assert "Traceback" not in result.output
    # a refused serve --workers refuses before it patches this process for gevent
    assert not monkey.is_module_patched("threading")


def test_a_password_in_the_database_url_is_never_printed(tmp_path):
    url = "postgresql://postgres@127.0.0.1:1/test?password=s3cret&sslmode=disable"
    result = CliRunner().invoke(
        main, ["serve"], env={"TONGIAKI_DATA_DIR": str(tmp_path), "DATABASE_URL": url}
    )
    assert (
        result.exit_code == 1 and "s3cret" not in result.output and "password=***" in result.output
    )


def test_a_taken_port_is_one_line_naming_the_setting(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            main, ["serve", "--port", str(port)], env={"TONGIAKI_DATA_DIR": str(tmp_path)}
        )
    assert result.exit_code == 1 and "TONGIAKI_PORT" in result.output
    assert result.output.count("\n") == 1, result.output


def unfinished_game(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, rate_limits={}))
    client = app.test_client()
    game_id, players = open_game(client, ["blue", "red"])
    app.extensions["tongiaki.games"].store.close()
    return game_id, client, players


def test_import_names_the_line_of_a_malformed_export(tmp_path):
    game_id = finished_game(tmp_path / "a")
    lines = run(tmp_path / "a", "export", game_id).output.splitlines()
    lines[6] = lines[6][:-9]
    result = run(tmp_path / "b", "import", "-", input="\n".join(lines) + "\n")
    assert result.exit_code == 1 and "Error: line 7: not JSON" in result.output
    assert "Traceback" not in result.output
    assert run(tmp_path / "b", "verify", game_id).exit_code == 1  # nothing was imported


def test_import_refuses_a_truncated_export(tmp_path):
    game_id = finished_game(tmp_path / "a")
    lines = run(tmp_path / "a", "export", game_id).output.splitlines(keepends=True)
    for cut in (len(lines) - 1, len(lines) // 2, 1):
        result = run(tmp_path / "b", "import", "-", input="".join(lines[:cut]))
        assert result.exit_code == 1 and "truncated" in result.output, result.output
    assert run(tmp_path / "b", "import", "-", input="".join(lines[1:])).exit_code == 1  # no header


def test_an_import_builds_the_read_models_of_the_game(tmp_path):
    game_id = finished_game(tmp_path / "a")
    exported = run(tmp_path / "a", "export", game_id).output
    imported = run(tmp_path / "b", "import", "-", input=exported)
    assert imported.exit_code == 0 and "read models built" in imported.output
    client = create_app(Settings(data_dir=tmp_path / "b", rate_limits={})).test_client()
    assert client.get(f"/api/v1/games/{game_id}/scoreboard").status_code == 200
    report = run(tmp_path / "b", "verify", "--json", game_id)
    assert report.exit_code == 0 and '"commands_rerun": 0' not in report.output


def test_an_import_without_accounts_still_names_the_players_who_cannot_sign_in_until_moved(
    tmp_path,
):
    """The players' names come from the events; such an account has no token here,
    and a later import of one of their games with the accounts (--with-secret)
    gives it its own, so they play on."""
    app = create_app(Settings(data_dir=tmp_path / "a", rate_limits={}))
    client = app.test_client()
    game_id, players = open_game(client, ["blue", "red"])
    play_to_the_end(client, game_id, players, seed=5)
    second = players[0].post("/games", {"max_players": 2}).json["game_id"]
    for p, colour in zip(players, ("blue", "red"), strict=True):
        assert p.post(f"/games/{second}/seats", {"colour": colour}).status_code == 201
    assert players[1].post(f"/games/{second}/start").status_code == 200
    app.extensions["tongiaki.games"].store.close()

    plain = run(tmp_path / "a", "export", game_id).output
    assert run(tmp_path / "b", "import", "-", input=plain).exit_code == 0
    there = create_app(Settings(data_dir=tmp_path / "b", rate_limits={})).test_client()
    names = {p["name"] for p in there.get("/api/v1/leaderboard").json["players"]}
    assert names == {"player-blue", "player-red"}
    me = {"Authorization": f"Bearer {players[0].token}"}
    assert there.get("/api/v1/me/games", headers=me).status_code == 401  # no token here yet

    moved = run(tmp_path / "a", "export", "--with-secret", second).stdout
    assert run(tmp_path / "b", "import", "-", input=moved).exit_code == 0
    there = create_app(Settings(data_dir=tmp_path / "b", rate_limits={})).test_client()
    assert there.get("/api/v1/me/games", headers=me).status_code == 200


def test_export_refuses_a_game_whose_chain_is_broken_unless_asked(tmp_path):
    game_id = finished_game(tmp_path)
    conn = sqlite3.connect(tmp_path / "tongiaki.db")
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute(
        "UPDATE events SET data = replace(data, 'ocean', 'OCEAN') WHERE type = 'TileDrawn'"
    )
    conn.commit()
    conn.close()
    refused = run(tmp_path, "export", game_id)
    assert refused.exit_code == 1 and "hash chain is broken" in refused.output
    assert "--allow-broken" in refused.output and '"format"' not in refused.output
    evidence = run(tmp_path, "export", "--allow-broken", game_id)
    assert evidence.exit_code == 0 and '"format"' in evidence.output


def test_import_names_a_repeated_event_line_and_a_header_that_is_not_one(tmp_path):
    game_id = finished_game(tmp_path / "a")
    lines = run(tmp_path / "a", "export", game_id).output.splitlines()
    twice = [*lines[:4], lines[3], *lines[4:]]  # event 3 (line 4) again as line 5
    result = run(tmp_path / "b", "import", "-", input="\n".join(twice) + "\n")
    assert (
        "Error: line 5: event version 3 where version 4 comes next; version 3 is at line 4"
        in result.output
    )
    header = json.loads(lines[0])
    for change, words in (
        ({"events": -1}, "line 1: 'events' is a count from 0, not -1"),
        ({"format": "tongiaki-export/0"}, "format 'tongiaki-export/0' is not"),
    ):
        bad = [json.dumps({**header, **change}), *lines[1:]]
        result = run(tmp_path / "b", "import", "-", input="\n".join(bad) + "\n")
        assert result.exit_code == 1 and words in result.output, result.output
    result = run(tmp_path / "b", "import", "-", input="\n".join(lines[1:]) + "\n")
    assert "line 1: the file does not begin with an export header" in result.output


def test_a_game_not_over_moves_only_with_its_secret_and_plays_on(tmp_path):
    game_id, _, players = unfinished_game(tmp_path / "a")
    plain = run(tmp_path / "a", "export", game_id).output
    refused = run(tmp_path / "b", "import", "-", input=plain)
    assert refused.exit_code == 1 and "--with-secret" in refused.output
    secret = run(tmp_path / "a", "export", "--with-secret", game_id)
    assert secret.exit_code == 0
    moved = run(tmp_path / "b", "import", "-", input=secret.stdout)
    assert moved.exit_code == 0 and "setup" in moved.output
    client = create_app(Settings(data_dir=tmp_path / "b", rate_limits={})).test_client()
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    token = next(p.token for p in players if p.id == legal["player_id"])  # the old token
    played = client.post(
        f"/api/v1/games/{game_id}/commands",
        json=legal["commands"][0],
        headers={"Authorization": f"Bearer {token}"},
    )
    assert played.status_code == 200, played.json  # the player plays on, on the new server
    assert run(tmp_path / "b", "verify", game_id).exit_code == 0


@pytest.mark.parametrize(
    "env, words",
    [
        ({"DATABASE_URL": "garbage"}, "DATABASE_URL must be"),
        ({"DATABASE_URL": "mysql://root@127.0.0.1/test"}, "DATABASE_URL must be"),
        ({"DATABASE_URL": "memory"}, "DATABASE_URL must be"),
        ({"DATABASE_URL": " memory:"}, "spaces around it"),
        ({"DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/test "}, "spaces around it"),
        (
            {**MEMORY, "REDIS_URL": "redis://127.0.0.1:6379/5"},
            "keeps everything in one process",
        ),
        ({"REDIS_URL": "garbage"}, "REDIS_URL must be"),
        ({"TONGIAKI_PORT": "abc"}, "TONGIAKI_PORT must be"),
        ({"TONGIAKI_RATE_LIMITS": "commands=lots"}, "TONGIAKI_RATE_LIMITS"),
        # found by a new operator's probe: each was a traceback, a connection error or
        # accepted in silence
        ({"REDIS_URL": "redis://127.0.0.1:99999/5"}, "REDIS_URL must be"),
        ({"REDIS_URL": "redis://127.0.0.1:abc/5"}, "REDIS_URL must be"),
        ({"REDIS_URL": "redis://[::1/5"}, "REDIS_URL must be"),
        ({"REDIS_URL": "redis://127.0.0.1:6379/5?socket_timeout=abc"}, "socket_timeout"),
        ({"REDIS_URL": "redis://127.0.0.1:0/5"}, "port 0 is not a port number"),
        ({"DATABASE_URL": "postgresql://postgres@127.0.0.1:99999/x"}, "'99999' is not a port"),
        ({"DATABASE_URL": "postgresql://postgres@127.0.0.1/x?sslmode=bogus"}, "sslmode 'bogus'"),
        ({"TONGIAKI_RATE_LIMITS": "accounts=0/minute"}, "1 to 1,000,000 requests"),
        ({"TONGIAKI_RATE_LIMITS": "commands=99999999999999999999999/second"}, "1,000,000"),
        ({"TONGIAKI_PORT": " 8000"}, "TONGIAKI_PORT must be"),
        # and from a second probe
        ({"DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/"}, "names no database"),
        ({"DATABASE_URL": "postgresql://postgres@127.0.0.1: 5432/test"}, "no spaces"),
        ({"REDIS_URL": "redis://127.0.0.1:6379/6?socket_timeout=-1"}, "from 0"),
        ({"REDIS_URL": "redis://127.0.0.1:6379/6?foo=bar"}, "'foo'"),
        ({"REDIS_URL": "redis://127.0.0.1:6379/6?db=7"}, "name it once"),
        ({"REDIS_URL": "redis://127.0.0.1:6379/6?retry_on_timeout=maybe"}, "true or false"),
        ({"REDIS_URL": "redis://127.0.0.1:6379/6?max_connections=0"}, "at least 1"),
        # and from the clocks' probe
        ({"TONGIAKI_NOTIFY_BACKOFF": "5, 30"}, "TONGIAKI_NOTIFY_BACKOFF must be"),
        ({"TONGIAKI_NOTIFY_BACKOFF": "5,,30"}, "TONGIAKI_NOTIFY_BACKOFF must be"),
        ({"TONGIAKI_FEED_POLL": " 2"}, "TONGIAKI_FEED_POLL must be"),
        ({"TONGIAKI_FEED_POLL": "1e3"}, "TONGIAKI_FEED_POLL must be"),
        ({"TONGIAKI_PUBLIC_URL": "tongiaki.example.org"}, "TONGIAKI_PUBLIC_URL must be"),
        ({"TONGIAKI_PUBLIC_URL": "https://x.org/?a=1"}, "TONGIAKI_PUBLIC_URL must be"),
        # replication (docs/replication.md)
        ({"DATABASE_URL": f"{PG2}?target_session_attrs=rw"}, "target_session_attrs 'rw'"),
        ({"DATABASE_URL": "postgresql://p@/x?host=a,b,c&port=1,2"}, "3 hosts and 2 ports"),
        ({"DATABASE_URL": PG2}, "2 hosts need target_session_attrs=read-write"),
        ({"DATABASE_URL": f"{PG2}?target_session_attrs=standby"}, "need target_session_attrs"),
        ({"TONGIAKI_CHANGE_FEED": "redis "}, "TONGIAKI_CHANGE_FEED must be listen or redis"),
        ({"DATABASE_REPLICA_URL": PG1}, "DATABASE_URL to the primary first"),
        ({"DATABASE_URL": PG1, "DATABASE_REPLICA_URL": "redis://x/1"}, "REPLICA_URL must be"),
        ({"DATABASE_URL": PG1, "DATABASE_REPLICA_URL": " "}, "DATABASE_REPLICA_URL is blank"),
        ({"DATABASE_URL": PG1, "DATABASE_REPLICA_URL": "postgresql://p@h:1/"}, "names no database"),
        ({"TONGIAKI_CHANGE_FEED": "kafka"}, "TONGIAKI_CHANGE_FEED must be listen or redis"),
        ({"TONGIAKI_CHANGE_FEED": "redis"}, "TONGIAKI_CHANGE_FEED=redis needs REDIS_URL"),
    ],
)
def test_a_bad_setting_stops_the_service_with_one_line(tmp_path, env, words):
    result = CliRunner().invoke(main, ["serve"], env={"TONGIAKI_DATA_DIR": str(tmp_path), **env})
    assert result.exit_code == 2
    assert result.output.startswith("Error: ") and words in result.output
    assert result.output.count("\n") == 1


@pytest.mark.parametrize(
    "env, words",
    [
        (
            {"DATABASE_URL": "postgresql://postgres@127.0.0.1:1/test"},
            "cannot connect to PostgreSQL",
        ),
        ({"REDIS_URL": "redis://127.0.0.1:1/0"}, "cannot reach Redis"),
    ],
)
def test_an_unreachable_service_stops_the_service_within_seconds_with_its_cause(
    tmp_path, env, words
):
    started = time.monotonic()
    result = CliRunner().invoke(main, ["serve"], env={"TONGIAKI_DATA_DIR": str(tmp_path), **env})
    assert time.monotonic() - started < 6
    assert result.exit_code == 1 and words in result.output and "refused" in result.output
    assert "Traceback" not in result.output


def test_user_mistakes_on_the_command_line_print_no_traceback(tmp_path):
    for args in (["auditor", "create", ""], ["auditor", "create", "x" * 99], ["verify", "nope"]):
        result = run(tmp_path, *args)
        assert result.exit_code == 1 and result.output.startswith("Error: "), result.output
    game_id = finished_game(tmp_path / "a")
    exported = run(tmp_path / "a", "export", game_id).output
    assert run(tmp_path / "b", "import", "-", input=exported).exit_code == 0
    again = run(tmp_path / "b", "import", "-", input=exported)
    assert again.exit_code == 1 and "already here" in again.output


def test_import_checks_the_header_head_version_and_names_a_second_header_and_twice_keys(tmp_path):
    game_id = finished_game(tmp_path / "a")
    lines = run(tmp_path / "a", "export", game_id).output.splitlines()
    header = json.loads(lines[0])
    for n, (bad, words) in enumerate(
        (
            ([json.dumps({**header, "head_version": 400}), *lines[1:]], "head_version 400 is not"),
            ([lines[0], lines[0], *lines[1:]], "line 2: a second header"),
            (
                [lines[0], lines[1][:-1] + ', "version": 1}', *lines[2:]],
                "line 2: the key 'version' appears twice",
            ),
        )
    ):
        result = run(tmp_path / f"b{n}", "import", "-", input="\n".join(bad) + "\n")
        assert result.exit_code == 1 and words in result.output, result.output
    row = json.loads(lines[5])
    row["hash"] = "0" * 64
    broken = [*lines[:5], json.dumps(row), *lines[6:]]
    result = run(tmp_path / "c", "import", "-", input="\n".join(broken) + "\n")
    assert "hash chain broken: event 5 (line 6): hash does not match its bytes" in result.output


def test_disputes_list_show_and_rule_as_an_auditor(tmp_path):
    """docs/disputes.md: the auditors' commands (D4): list the queue, show one, rule."""
    app = create_app(Settings(data_dir=tmp_path, rate_limits={}))
    client = app.test_client()
    game_id, players = open_game(client, ["blue", "red"])
    play_to_the_end(client, game_id, players, seed=5)
    version = client.get(f"/api/v1/games/{game_id}").json["version"]
    r = players[0].post(
        f"/games/{game_id}/disputes", {"reason": "unfair_draw", "version": version, "text": "hm"}
    )
    dispute_id = r.json["dispute_id"]
    ranking = [
        x["player_id"]
        for x in client.get(f"/api/v1/games/{game_id}/scoreboard").json["final"]["ranking"]
    ]
    app.extensions["tongiaki.games"].store.close()

    listed = run(tmp_path, "disputes", "list", "--status", "open")
    assert listed.exit_code == 0 and dispute_id in listed.output and "unfair_draw" in listed.output
    assert "no disputes" in run(tmp_path, "disputes", "list", "--status", "ruled").output
    shown = run(tmp_path, "disputes", "show", dispute_id)
    assert shown.exit_code == 0 and "player-blue" in shown.output and "hm" in shown.output
    evidence = json.loads(run(tmp_path, "disputes", "show", dispute_id, "--evidence").output)
    assert evidence["draws"]["ok"] is True and evidence["draws"]["seed_revealed"] is True

    made = run(tmp_path, "auditor", "create", "Audrey").output
    auditor_id = made.split("(")[1].split(")")[0]
    not_auditor = run(
        tmp_path, "disputes", "rule", dispute_id, "--as", players[0].id,
        "--decision", "stands", "--reasoning", "x", "--rule", "R2",
    )  # fmt: skip
    assert not_auditor.exit_code == 1 and "not an auditor" in not_auditor.output
    refused = run(
        tmp_path, "disputes", "rule", dispute_id, "--as", auditor_id,
        "--decision", "result_amended", "--reasoning", "x", "--rule", "D4",
    )  # fmt: skip
    assert refused.exit_code == 1 and "annulled or a stated ranking" in refused.output
    ruled = run(
        tmp_path, "disputes", "rule", dispute_id, "--as", auditor_id,
        "--decision", "result_amended", "--reasoning", "the draw was misread",
        "--rule", "R2", "--rule", "D4", "--ranking", ",".join(reversed(ranking)),
    )  # fmt: skip
    assert ruled.exit_code == 0, ruled.output
    assert "ruled" in run(tmp_path, "disputes", "list", "--status", "ruled").output
    verified = run(tmp_path, "verify", game_id)
    assert verified.exit_code == 0, verified.output
    app = create_app(Settings(data_dir=tmp_path, rate_limits={}))
    board = app.test_client().get(f"/api/v1/games/{game_id}/scoreboard").json
    assert [x["player_id"] for x in board["final"]["ranking"]] == list(reversed(ranking))
    app.extensions["tongiaki.games"].store.close()


def _without_log(export: str) -> list[object]:
    import json as _json

    lines = export.splitlines(keepends=True)
    header = _json.loads(lines[0])
    header.pop("log", None)
    return [header, *lines[1:]]


def test_export_and_import_carry_disputes_rulings_and_the_redeal(tmp_path):
    """docs/disputes.md: a rewound game under way moves with its disputes and every seed
    (--with-secret); on the new server it verifies, its disputes are there as they were
    (same hashes), and its players play on from the re-deal."""
    from datetime import UTC, datetime

    from service.play.accounts import create_account
    from tests.service.test_disputes import moves

    app = create_app(Settings(data_dir=tmp_path / "a", rate_limits={}))
    client = app.test_client()
    game_id, players = open_game(client, ["blue", "red"])
    receipts = moves(client, game_id, players, 12, seed=3)
    r = players[0].post(
        f"/games/{game_id}/disputes", {"reason": "misclick", "version": receipts[6]}
    )
    dispute_id = r.json["dispute_id"]
    store = app.extensions["tongiaki.games"].store
    _, token = create_account(store, "Audrey", datetime.now(UTC), "auditor")
    r = client.post(
        f"/api/v1/disputes/{dispute_id}/ruling",
        json={"decision": "rewind", "reasoning": "x", "rules": ["D6"], "to_version": receipts[4]},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 200, r.json
    store.close()

    plain = run(tmp_path / "a", "export", game_id).output
    refused = run(tmp_path / "b", "import", "-", input=plain)
    assert refused.exit_code == 1 and "--with-secret" in refused.output  # not over: the seeds

    def ndjson(output):  # the warning about the seed goes to stderr, mixed in here
        return "".join(line for line in output.splitlines(keepends=True) if line.startswith("{"))

    exported = ndjson(run(tmp_path / "a", "export", game_id, "--with-secret").output)
    assert '"dispute_event"' in exported and '"redeal_secrets"' in exported
    # the players' accounts travel, not the auditor's: ruling there is no auditor here
    assert '"kind": "auditor"' not in exported and '"accounts": 2' in exported
    imported = run(tmp_path / "b", "import", "-", input=exported)
    assert imported.exit_code == 0, imported.output
    again = ndjson(run(tmp_path / "b", "export", game_id, "--with-secret").output)
    # the same export, but for where each server's own log holds the game ("log" in the
    # header: server a's background integrator may have logged it before its export, and
    # b logs the imported commits only when an integrator runs there)
    assert _without_log(again) == _without_log(exported)
    assert run(tmp_path / "b", "verify", game_id).exit_code == 0
    assert dispute_id in run(tmp_path / "b", "disputes", "list").output
    # a padded or edited dispute line is named and nothing is imported
    lines = exported.splitlines(keepends=True)
    edited = "".join(line.replace('"misclick', '"other') for line in lines)
    assert run(tmp_path / "c", "import", "-", input=edited).exit_code == 1
    assert run(tmp_path / "c", "import", "-", input=exported + lines[-1]).exit_code == 1
    # a ruling changed (and its chain hashed again) no longer matches the game's record
    import json as _json

    from service.store.base import GENESIS, NewEvent, chain_events

    rows = [_json.loads(line) for line in lines]
    mine = [r["dispute_event"] for r in rows if "dispute_event" in r]
    bodies = [_json.loads(e["data"]) for e in mine]
    ruling = next(b for b, e in zip(bodies, mine, strict=True) if e["type"] == "RulingIssued")
    ruling["to_version"] = receipts[3]
    again = chain_events(
        mine[0]["dispute_id"],
        0,
        GENESIS,
        [
            NewEvent(e["type"], b, _json.loads(e["metadata"]))
            for e, b in zip(mine, bodies, strict=True)
        ],
    )
    forged = [
        {"dispute_event": {**e, "data": a.data, "prev_hash": a.prev_hash, "hash": a.hash}}
        if "dispute_event" in r
        else r
        for r, e, a in zip(
            rows,
            [r.get("dispute_event", {}) for r in rows],
            [None] * (len(rows) - len(mine)) + again,
            strict=True,
        )
    ]
    text = "".join(_json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in forged)
    refused = run(tmp_path / "d", "import", "-", input=text)
    assert refused.exit_code == 1 and "disputes do not match the game" in refused.output
    # the players play on there, the draws from the re-deal
    app = create_app(Settings(data_dir=tmp_path / "b", rate_limits={}))
    client = app.test_client()
    for p in players:
        p.client = client
    play_to_the_end(client, game_id, players, seed=4)
    app.extensions["tongiaki.games"].store.close()
    verified = run(tmp_path / "b", "verify", game_id)
    assert verified.exit_code == 0 and "disputes         1" in verified.output, verified.output


@pytest.mark.parametrize(
    "args",
    [
        ("verify", "0123456789ab"),
        ("export", "0123456789ab"),
        ("disputes", "list"),
        ("disputes", "show", "d0123456789a"),
        ("projections", "status"),
    ],
)
def test_a_read_where_there_is_no_database_says_so_and_makes_none(tmp_path, args):
    """Issue 26: run from another folder, these made an empty ./var/tongiaki.db and
    answered "there is no game"."""
    where = tmp_path / "elsewhere"
    result = run(where, *args)
    assert result.exit_code == 1
    assert f"there is no database at {where / 'tongiaki.db'}" in result.output
    assert "TONGIAKI_DATA_DIR" in result.output and "DATABASE_URL" in result.output
    assert not where.exists()


def test_verify_into_a_reader_that_leaves_early_exits_quietly(tmp_path):
    """``tongiaki verify … | head -1`` printed "Error: Broken pipe"."""
    import subprocess
    import sys

    from tests.servers import ROOT, base_env

    game_id = finished_game(tmp_path)
    env = base_env(TONGIAKI_DATA_DIR=str(tmp_path))
    done = subprocess.run(
        f"{sys.executable} -m service.cli verify {game_id} | head -c 10; exit ${{PIPESTATUS[0]}}",
        shell=True,
        executable="/bin/bash",
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.stdout.decode().startswith("game ")
    assert done.stderr.decode() == "", done.stderr.decode()
    assert done.returncode in (0, 141)  # 141: as a program ended by SIGPIPE


def test_check_install_names_every_difference_from_a_lock(tmp_path):
    """``tongiaki check-install``: this environment against a lock (README, Installs)."""
    import importlib.metadata

    click_version = importlib.metadata.version("click")
    flask_version = importlib.metadata.version("flask")
    lock = tmp_path / "some.lock"
    lock.write_text(
        f"click=={click_version} \\\n    --hash=sha256:{'0' * 64}\n"
        f"flask=={flask_version} ; python_version < '3' \\\n    --hash=sha256:{'1' * 64}\n"
    )
    runner = CliRunner()
    found = runner.invoke(main, ["check-install", "--lock", str(lock)])
    assert found.exit_code == 1  # everything else here is not in that lock
    # flask's entry is for another Python: the flask installed here is one it does not name
    assert f"flask: {flask_version} installed, not in the lock" in found.output
    assert "werkzeug: " in found.output and "click" not in found.output.split("Error")[0]
    allowed = runner.invoke(main, ["check-install", "--lock", str(lock), "--allow-extra"])
    assert allowed.exit_code == 0, allowed.output
    assert "1 package(s) as locked" in allowed.output  # the marker leaves flask out here
    lock.write_text(f"click==0.1 \\\n    --hash=sha256:{'0' * 64}\nnothere==1.0\n")
    off = runner.invoke(main, ["check-install", "--lock", str(lock), "--allow-extra"])
    assert off.exit_code == 1
    assert f"click: {click_version} installed, 0.1 locked" in off.output
    assert "nothere: not installed (1.0 locked)" in off.output
    assert "--require-hashes --only-binary :all: -r" in off.output
    empty = tmp_path / "empty.lock"
    empty.write_text("# nothing\n")
    for path in (empty, tmp_path / "missing.lock"):
        bad = runner.invoke(main, ["check-install", "--lock", str(path)])
        assert bad.exit_code == 1 and bad.output.startswith("Error: "), bad.output
        assert "Traceback" not in bad.output


MALFORMED_LOGS = [
    "x",
    {"checkpoint": "n"},
    {"checkpoint": 5, "entries": []},
    {"checkpoint": "n", "entries": [["game/g", 1]]},
    {"checkpoint": "n", "entries": [["game/g", True, 3]]},
    {"checkpoint": "n", "entries": [["game/g", 1, -1]]},
]


def test_import_names_a_malformed_log_in_the_header(tmp_path):
    game_id = finished_game(tmp_path / "a")
    first, rest = run(tmp_path / "a", "export", game_id).output.split("\n", 1)
    for log in MALFORMED_LOGS:
        header = {**json.loads(first), "log": log}
        bad = run(tmp_path / "b", "import", "-", input=json.dumps(header) + "\n" + rest)
        assert bad.exit_code != 0 and "line 1: " in bad.output and "log" in bad.output, log
