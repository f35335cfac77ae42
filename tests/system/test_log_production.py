"""The transparency log in the production setting (issue 28): two web processes and two
workers on PostgreSQL under a crowd of players integrate every acknowledged commit
exactly once; a witness (``tongiaki witness serve``, a process of its own) cosigns each
checkpoint, published beside the log's signature; and when a PostgreSQL superuser
rewrites a game (``session_replication_role = replica``, every hash after the change
recomputed) and forks the log to match, re-signed with the log's own key, the witness
refuses to cosign and keeps the evidence, ``tongiaki log verify --state`` fails, and the
players' promises no longer match the log."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from pathlib import Path

import psycopg
import pytest

from service.transparency.cosignatures import CosignatureVerifier
from service.transparency.entries import HeadEntry
from service.transparency.notes import Signer, Verifier, open_note
from service.transparency.promises import check_promise
from tests.forgery import refork_log, rewrite_history
from tests.servers import Http, free_port, production, seated_game, start
from tests.system.test_log_served import logged, play, tongiaki

# real deadlines and latencies: measured alone, after the parallel run (pyproject's markers)
pytestmark = pytest.mark.alone

PLAYERS = 4
MOVES = 25


def crowd(ports: list[int], seed: int) -> dict[str, tuple[dict, dict]]:
    """``PLAYERS`` games played at once, each command sent to either web process; each
    game's tokens and acknowledged receipts by version."""
    games: dict[str, tuple[dict, dict]] = {}
    errors: list[BaseException] = []

    def one(i: int) -> None:
        try:
            https = [Http(port) for port in ports]
            gid, tokens = seated_game(https[0], (f"p{i}a", f"p{i}b"))
            first = next(iter(tokens.values()))
            assert https[1].call("POST", f"/games/{gid}/start", None, first).status == 200
            rng = random.Random(seed + i)
            receipts: dict = {}
            for _ in range(MOVES // 5):
                receipts.update(play(rng.choice(https), gid, tokens, rng, 5))
            games[gid] = (tokens, receipts)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(PLAYERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return games


def cosigned(http: Http, key: Verifier, witness: CosignatureVerifier, size: int) -> bool:
    note = http.call("GET", "/checkpoint").raw.decode()
    opened = open_note(note, (key, witness))
    return f"\n{size}\n" in opened.text and any(s.name == witness.name for s in opened.verified)


def test_two_web_processes_and_two_workers_log_once_and_a_witness_catches_a_fork(
    tmp_path, pg_schema, redis_url
):
    schema, url = pg_schema
    env_key = Signer.parse(Path(os.environ["TONGIAKI_LOG_KEY"]).read_text())
    key = env_key.verifier
    wport = free_port()
    witness_key = tmp_path / "witness.key"
    with production(
        tmp_path, url, redis_url, f"log-{tmp_path.name[-8:]}", web=2, workers=2,
        TONGIAKI_WITNESSES=f"http://127.0.0.1:{wport}",
    ) as servers:  # fmt: skip
        env = servers[0].env
        made = tongiaki(env, "witness", "keygen", "--name", "w.test", "--out", str(witness_key))
        wkey = CosignatureVerifier.parse(made.stdout.strip())
        witness = start(
            ["witness", "serve", "--key", str(witness_key), "--log", key.text,
             "--state", str(tmp_path / "witness.json"), "--port", str(wport)],
            env, tmp_path / "witness.log",
        )  # fmt: skip
        try:
            web = [s.http() for s in servers[:2]]
            # one worker killed while the crowd plays: the other integrates on, no commit
            # lost or logged twice (an integration is one transaction)
            killer = threading.Timer(2.0, servers[2].process.send_signal, (signal.SIGKILL,))
            killer.start()
            games = crowd([s.port for s in servers[:2]], seed=7)
            killer.join()
            for gid, (_, receipts) in games.items():
                for version, receipt in receipts.items():
                    found = logged(web[version % 2], gid, version)
                    assert found is not None, f"{gid} v{version} acknowledged, never logged"
                    promise = check_promise(receipt["promise"], key)
                    assert promise.matches(HeadEntry.parse(found["entry"].encode()))
            log_url = f"http://127.0.0.1:{servers[0].port}/log"
            state = tmp_path / "kept.json"
            # every commit once: each game's entries are its accepted commands, in order
            checked = tongiaki(env, "log", "verify", log_url, "--key", key.text, "--entries")
            assert checked.returncode == 0, checked.stderr
            with psycopg.connect(url, autocommit=True) as conn:
                commits = conn.execute(
                    "SELECT count(*) FROM journal WHERE outcome = 'accepted'"
                ).fetchone()[0]
                entries = conn.execute("SELECT count(*) FROM log_entries").fetchone()[0]
                pending = conn.execute("SELECT count(*) FROM log_pending").fetchone()[0]
            assert (entries, pending) == (commits, 0)
            assert f"{entries} entries of {len(games)} streams" in checked.stdout
            # the witness cosigns the checkpoint, published beside the log's signature
            log = servers[0].http("/log")
            deadline = time.monotonic() + 60
            while not cosigned(log, key, wkey, entries):
                assert time.monotonic() < deadline, "no cosignature published"
                time.sleep(0.1)
            kept = tongiaki(env, "log", "verify", log_url, "--key", key.text, "--state",
                            str(state), "--witness", wkey.text, "--quorum", "1")  # fmt: skip
            assert kept.returncode == 0, kept.stderr
            # a superuser rewrites a game, and forks the log to match, with the log's key
            gid = next(iter(games))
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f'SET search_path = "{schema}"')
                conn.execute("SET session_replication_role = replica")
                with conn.transaction():
                    rewrite_history(conn, gid, 8)
                    refork_log(conn, env_key)
            # the next commit (another game's) grows the forked tree: the witness refuses it
            other = list(games)[1]
            assert play(web[0], other, games[other][0], random.Random(1), 1)
            receipts = games[gid][1]
            wit = Http(wport, "")
            deadline = time.monotonic() + 60
            while wit.call("GET", "/evidence").json[key.name] == []:
                assert time.monotonic() < deadline, "the witness kept no evidence"
                time.sleep(0.1)
            # the last cosigned checkpoint stays the one published for its grace (10 s);
            # then the newest is, the forked one: a follower with its state sees the fork
            deadline = time.monotonic() + 60
            while True:
                forked = tongiaki(env, "log", "verify", log_url, "--key", key.text, "--state",
                                  str(state))  # fmt: skip
                if forked.returncode != 0 or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            assert forked.returncode == 1 and "INCONSISTENT" in forked.stderr, forked.stderr
            version = max(receipts)
            promise = check_promise(receipts[version]["promise"], key)
            entry = HeadEntry.parse(logged(web[1], gid, version)["entry"].encode())
            assert not promise.matches(entry)
        finally:
            witness.stop()
