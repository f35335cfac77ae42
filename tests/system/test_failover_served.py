"""Failover on real processes (issue 33, docs/replication.md): a primary and a
synchronous standby made by ``deploy/replication.py``; two web processes and a worker on
the multi-host URL; eight bots playing and a viewer on each game; ``kill -9`` of the
primary's postmaster, the standby promoted: no acknowledged command lost, every game
verifies, commands accepted again within 10 s of the promotion, every viewer got every
version once (the change feed listened again: its safety poll is 10 minutes away), the
read models level on the new primary. And a commit PostgreSQL says it made on the
primary alone is not acknowledged."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from bench.failover import PAIR, drill
from service.store.base import StoreUnavailable
from service.store.postgres import PostgresDatabase
from tests.conftest import _missing

# real processes, two clusters and eight bots: measured alone (pyproject's markers)
pytestmark = pytest.mark.alone

PORT = 5460  # the pair of the unreplicated commit; the drills' on the ports after it


def server_programs() -> None:
    if not any(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")) and not shutil.which("pg_ctl"):
        _missing("PostgreSQL's server programs (pg_ctl, initdb) are not installed")


@pytest.fixture
def where() -> Iterator[Path]:
    """A directory the ``postgres`` user can reach (pytest's own is root's alone)."""
    server_programs()
    path = Path(tempfile.mkdtemp(prefix="tongiaki-pair-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def pair(action: str, root: Path, *args: str) -> str:
    done = subprocess.run(
        [*PAIR, action, "--dir", str(root), *args],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def pg_ctl(root: Path, node: str, action: str) -> None:
    tool = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))), None)
    argv = [str(tool or "pg_ctl"), "-D", str(root / node), "-l", str(root / f"{node}.log")]
    argv += ["-w", "-m", "fast", action] if action == "stop" else ["-w", action]
    if os.geteuid() == 0:
        argv = ["runuser", "-u", "postgres", "--", *argv]
    subprocess.run(argv, capture_output=True, timeout=120, check=True)


def test_a_commit_on_the_primary_alone_is_not_acknowledged(where):
    """With the synchronous standby away a commit waits; cancelled, PostgreSQL keeps it
    on the primary and says so in a warning: the store raises StoreUnavailable (a 503:
    the client's retry with its Idempotency-Key finds it) instead of a success."""
    pair("up", where, "--port", str(PORT))
    try:
        url = f"postgresql://postgres@127.0.0.1:{PORT}/tongiaki"
        db = PostgresDatabase(url)
        with db.transaction() as tx:
            tx.execute("CREATE TABLE said (x INTEGER)")
        pg_ctl(where, "b", "stop")  # the synchronous standby goes away
        failed: list[BaseException] = []

        def write() -> None:
            try:
                with db.reading() as tx:  # an autocommitted statement, as an append is
                    tx.execute("INSERT INTO said VALUES (1)")
            except BaseException as exc:
                failed.append(exc)

        writer = threading.Thread(target=write)
        writer.start()
        with psycopg.connect(url, autocommit=True) as admin:
            deadline = time.monotonic() + 30
            while True:
                waiting = admin.execute(
                    "SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep'"
                ).fetchall()
                if waiting:
                    break
                assert time.monotonic() < deadline, "the commit never waited for the standby"
                time.sleep(0.05)
            admin.execute("SELECT pg_cancel_backend(%s)", (waiting[0][0],))
            writer.join(30)
            assert failed and isinstance(failed[0], StoreUnavailable), failed
            assert "did not confirm" in str(failed[0])
            # it is on the primary (a retry finds it), and the next commit is not refused
            assert admin.execute("SELECT count(*) FROM said").fetchone() == (1,)
        pg_ctl(where, "b", "start")
        with db.transaction() as tx:
            tx.execute("INSERT INTO said VALUES (2)")
        db.pool.close()
    finally:
        pair("down", where)


@pytest.mark.parametrize(("feed", "port"), [("listen", PORT + 2), ("redis", PORT + 4)])
def test_killing_the_primary_under_play_loses_no_acknowledged_command(where, redis_url, feed, port):
    args = argparse.Namespace(
        bots=8,
        before=6.0,
        after=8.0,
        feed=feed,
        redis=redis_url,
        dir=str(where),
        port=port,
        replica=feed == "redis",  # the read side on the standby, then on the new primary
    )
    figures = drill(args, "sync")
    print(figures)  # pytest shows it on failure
    assert figures.acked_before_kill > 100, figures
    assert figures.lost == 0, figures
    assert figures.verified == figures.games and not figures.not_verified
    assert {int(s) for s in figures.answers} <= {200, 409, 503}, figures.answers  # never a 500
    assert {int(s) for s in figures.other_answers} <= {200, 201, 503}, figures.other_answers
    assert 0 <= figures.first_accepted_s <= 10, figures
    assert 0 <= figures.all_bots_back_s <= 10, figures
    assert figures.viewers_complete == figures.games, figures
    assert figures.viewer_gaps == 0 and figures.viewer_repeats == 0, figures
    assert figures.scoreboards_level == figures.games, figures
    assert figures.reads_checked > 100 and not figures.stale_reads, figures


def test_a_command_waits_for_an_absent_standby_at_most_seconds(where, redis_url):
    """The synchronous standby away, a command's commit would wait for ever: it answers
    503 with Retry-After within COMMIT_WAIT and a little, and so do its retry (its stored
    answer is not given while it is on one disk) and a sign-up; the standby back, the
    same request (its Idempotency-Key) gets the receipt of the one commit, and the game
    verifies."""
    from service.store.commit_wait import COMMIT_WAIT
    from tests.servers import production
    from tests.system.test_disputes_served import started

    pair("up", where, "--port", str(PORT + 8))
    url = f"postgresql://postgres@127.0.0.1:{PORT + 8},127.0.0.1:{PORT + 9}/tongiaki"
    try:
        with production(
            where / "stack", f"{url}?target_session_attrs=read-write", redis_url,
            f"absent-{where.name[-6:]}", web=1,
        ) as servers:  # fmt: skip
            http = servers[0].http()
            gid, tokens = started(http)
            legal = http.call("GET", f"/games/{gid}/legal").json
            token = tokens[legal["player_id"]]
            headers = {"If-Match": f'"{legal["version"]}"', "Idempotency-Key": "absent-1"}
            body = legal["commands"][0]
            pg_ctl(where, "b", "stop")
            began = time.monotonic()
            first = http.call("POST", f"/games/{gid}/commands", body, token, headers)
            took = time.monotonic() - began
            assert first.status == 503 and "retry-after" in first.headers, first.json
            assert COMMIT_WAIT - 1 <= took <= COMMIT_WAIT + 10, took
            # the retry is not answered from the journal while the commit is on one disk
            began = time.monotonic()
            retry = http.call("POST", f"/games/{gid}/commands", body, token, headers)
            assert retry.status == 503, retry.json
            assert time.monotonic() - began <= COMMIT_WAIT + 10
            # nor does any other write hang: a sign-up is told too
            began = time.monotonic()
            signup = http.call("POST", "/accounts", {"name": "cleo"})
            assert signup.status == 503 and "retry-after" in signup.headers, signup.json
            assert time.monotonic() - began <= COMMIT_WAIT + 10
            pg_ctl(where, "b", "start")
            again = http.call("POST", f"/games/{gid}/commands", body, token, headers)
            assert again.status == 200, again.json
            assert again.json["receipt"]["version"] == legal["version"] + len(again.json["events"])
            events = http.call("GET", f"/games/{gid}/events?after=0&limit=1000").json["events"]
            assert [e["version"] for e in events] == list(range(1, len(events) + 1))
            assert events[-1]["hash"] == again.json["receipt"]["hash"]
            assert http.call("GET", f"/games/{gid}/verify").json["ok"] is True
    finally:
        pair("down", where)
