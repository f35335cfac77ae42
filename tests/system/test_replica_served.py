"""Reads from a standby on real processes (issue 33, service/replication/reads.py): two web
processes and a worker with ``DATABASE_REPLICA_URL``; the standby's replay paused, so it
lags as far as a test wants. Nothing read shows a version older than one the reader
was given: events pages are whole (the primary's when the standby lacks them), a read
model waits for ``min_version`` on the standby and refuses past its wait, then serves
once the standby replays; a standby that is away costs no read."""

from __future__ import annotations

import random
import time
from pathlib import Path

import psycopg
import pytest

from tests.servers import Http, production
from tests.system.test_disputes_served import play, started
from tests.system.test_failover_served import PORT, pair, pg_ctl, where  # noqa: F401

pytestmark = pytest.mark.alone

A, B = PORT + 6, PORT + 7  # the primary's port and the standby's


def replica_reads(http: Http) -> dict[str, float]:
    text = Http(http.port, prefix="").call("GET", "/metrics").raw.decode()
    found = {}
    for line in text.splitlines():
        if line.startswith("tongiaki_replica_reads_total{"):
            served_by = line.split('served_by="')[1].split('"')[0]
            found[served_by] = float(line.rsplit(" ", 1)[1])
    return found


def all_events(http: Http, gid: str) -> list[int]:
    versions: list[int] = []
    while True:
        page = http.call("GET", f"/games/{gid}/events?after={len(versions)}&limit=7")
        assert page.status == 200, page.json
        versions += [e["version"] for e in page.json["events"]]
        if not page.json["has_more"]:
            return versions


def test_a_lagging_standby_never_shows_less_than_was_given(where: Path, redis_url):  # noqa: F811
    pair("up", where, "--port", str(A))
    primary = f"postgresql://postgres@127.0.0.1:{A},127.0.0.1:{B}/tongiaki"
    replica = f"postgresql://postgres@127.0.0.1:{B}/tongiaki"
    try:
        with production(
            where / "stack",
            f"{primary}?target_session_attrs=read-write",
            redis_url,
            f"replica-{where.name[-6:]}",
            DATABASE_REPLICA_URL=replica,
        ) as servers:
            a, b = servers[0].http(), servers[1].http()
            gid, tokens = started(a)
            rng = random.Random(5)
            head = play([a, b], gid, tokens, rng, 10)[-1]
            board = level(a, gid, head)
            assert board["version"] == head
            before = replica_reads(a)
            assert before.get("replica", 0) > 0, before  # the standby serves the read side

            with psycopg.connect(replica, autocommit=True) as standby:
                standby.execute("SELECT pg_wal_replay_pause()")
                head = play([a, b], gid, tokens, rng, 12)[-1]  # acknowledged: on its disk
                # events: every version given, from either process
                assert all_events(a, gid) == list(range(1, head + 1))
                assert all_events(b, gid) == list(range(1, head + 1))
                assert replica_reads(a)["primary"] > before.get("primary", 0)
                # a read model: waited for on the standby, then refused, never older
                asked = b.call("GET", f"/games/{gid}/scoreboard?min_version={head}")
                assert asked.status == 503 and asked.code == "projection_lagging", asked.json
                assert "retry-after" in asked.headers
                older = b.call("GET", f"/games/{gid}/scoreboard")  # asks for no version
                assert older.status == 200 and older.json["version"] < head
                standby.execute("SELECT pg_wal_replay_resume()")
            assert level(b, gid, head)["version"] == head

            pg_ctl(where, "b", "stop")  # the standby away: the primary serves the reads
            served = [a.call("GET", "/lobby").status for _ in range(3)]
            assert served[-1] == 200 and set(served) <= {200, 503}, served
            assert all_events(a, gid) == list(range(1, head + 1))
            assert level(a, gid, head)["version"] == head
            pg_ctl(where, "b", "start")
    finally:
        pair("down", where)


def level(http: Http, gid: str, version: int) -> dict:
    deadline = time.monotonic() + 60
    while True:
        board = http.call("GET", f"/games/{gid}/scoreboard?min_version={version}")
        if board.status == 200:
            return board.json
        assert board.status == 503 and time.monotonic() < deadline, board.json
        time.sleep(0.2)
