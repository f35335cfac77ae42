"""A Redis outage under a running worker and web process (issue 26, operations).

Found by an operator's probe: an outage killed rq's forked scheduler with ~40 raw
traceback lines, and it stayed dead after Redis returned (rq looks again every ten
minutes); the web process logged a warning per command (326 in 40 s). Now:

- the worker keeps rq's schedule with a thread of its own and rq's loop is
  started again if it gives up, so after an outage of any length a timed game's
  next timeout happens on time, with no restart;
- every line the worker writes is JSON; each process says once that Redis is
  away and once that it is back, with how many operations were affected.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta

import pytest
from redis import Redis
from rq import Queue
from rq.registry import ScheduledJobRegistry

from tests.servers import Http, free_port, production, start_redis
from tests.system.test_clocks_served import MOVE_SECONDS, timed_game

# real deadlines and latencies: measured alone, after the parallel run (pyproject's markers)
pytestmark = pytest.mark.alone

OUTAGE = 8.0  # seconds Redis is away: longer than a decision's clock


def events_of(http: Http, gid: str) -> list[dict]:
    events: list[dict] = []
    while True:
        page = http.call("GET", f"/games/{gid}/events?after={len(events)}&limit=1000").json
        events += page["events"]
        if not page["has_more"]:
            return events


def wait_for(check, seconds: float, what: str):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"{what}: not within {seconds} s"
        time.sleep(0.1)


def test_after_a_redis_outage_the_worker_times_out_on_time_and_logs_it_once(
    tmp_path, pg_schema, redis_server
):
    schema, url = pg_schema
    port = free_port()
    redis = start_redis(redis_server, port)
    redis_url = f"redis://127.0.0.1:{port}/0"
    queue = f"outage-{schema}"
    try:
        with production(
            tmp_path,
            url,
            redis_url,
            queue,
            web=1,
            TONGIAKI_SWEEP_EVERY="1",
            TONGIAKI_RATE_LIMITS="",  # the defaults: the limits speak to Redis too
        ) as servers:
            web, worker = servers
            http = web.http()
            gid, tokens, ids = timed_game(http)
            # the worker has scheduled ann's first deadline (rq's schedule holds it)
            registry = ScheduledJobRegistry(queue=Queue(queue, connection=Redis(port=port)))
            wait_for(lambda: registry.count >= 1, 20, "the first tick on rq's schedule")

            def a_move() -> dict | None:
                """The player to move makes their first legal move (None: a timeout won)."""
                legal = http.call("GET", f"/games/{gid}/legal").json
                mover = next(n for n, i in ids.items() if i == legal["player_id"])
                reply = http.call(
                    "POST",
                    f"/games/{gid}/commands",
                    legal["commands"][0],
                    tokens[mover],
                    {"If-Match": f'"{legal["version"]}"'},
                )
                return reply.json if reply.status == 200 else None

            redis.terminate()  # Redis goes away, and comes back empty (no persistence)
            redis.wait()
            # commands still work (each rings a doorbell in vain), and the worker's own
            # timer times out decisions meanwhile
            gone = time.monotonic()
            moved_meanwhile = 0
            while time.monotonic() - gone < OUTAGE:
                moved_meanwhile += a_move() is not None
                time.sleep(0.3)
            assert moved_meanwhile >= 3
            redis = start_redis(redis_server, port)
            back = time.monotonic()
            # the next decision after Redis is back: made by a move, timed by the worker
            moved = wait_for(a_move, 20, "a move after the outage")
            after = moved["version"]

            def timed_out_after_the_move() -> dict | None:
                found = [
                    e
                    for e in events_of(http, gid)
                    if e["version"] > after and e["type"] == "TurnTimedOut"
                ]
                return found[0] if found else None

            timeout = wait_for(timed_out_after_the_move, MOVE_SECONDS + 30, "the next timeout")
            events = events_of(http, gid)
            clock = next(e for e in events if e["version"] == after)["metadata"]["clock"]
            at = datetime.fromisoformat(timeout["metadata"]["recorded_at"])
            deadline = datetime.fromisoformat(clock["deadline"])
            assert deadline <= at <= deadline + timedelta(seconds=2), (deadline, at, back)
            # rq's schedule works again too: a tick is scheduled, then moved when due
            wait_for(lambda: registry.count >= 1, 20, "a tick on rq's schedule after the outage")
            verified = http.call("GET", f"/games/{gid}/verify", None, tokens["ann"]).json
            assert verified["ok"] is True

            # the last "back" lines: the rate limits try Redis again 5 s after it failed
            # (noticed at the next request they count: one is sent until they say so)
            def limits_back() -> bool:
                http.call("PUT", "/me/notifications/settings", {}, tokens["ann"])
                return web.output().count("Redis is back") >= 2

            wait_for(limits_back, 20, "the rate limits saying Redis is back")
            time.sleep(0.5)
            worker_lines = worker.output().splitlines()
            web_lines = web.output().splitlines()
    finally:
        redis.terminate()
        redis.wait()
    parsed = []
    for line in worker_lines:
        parsed.append(json.loads(line))  # every line the worker writes is JSON
    assert not any("Traceback" in line for line in worker_lines)
    away = [p for p in parsed if p.get("outage") == "Redis" and p.get("state") == "away"]
    back_lines = [p for p in parsed if p.get("outage") == "Redis" and p.get("state") == "back"]
    # once per kind of operation (the worker's loop and schedule; its doorbell), not per try
    assert 1 <= len(away) <= 2 and len(back_lines) == len(away), away + back_lines
    assert all(p["affected"] >= 1 for p in back_lines)
    web_away = [json.loads(line) for line in web_lines if "Redis is away" in line]
    web_back = [json.loads(line) for line in web_lines if "Redis is back" in line]
    # once per kind (the doorbell, the rate limits), however long, however many commands
    assert len(web_away) == 2 and len(web_back) == 2, web_away + web_back
    doorbell = next(p for p in web_back if "doorbells" in p["message"])
    assert doorbell["affected"] >= 3  # the moves made meanwhile
    assert len([line for line in web_lines if '"level": "warning"' in line]) <= 5
