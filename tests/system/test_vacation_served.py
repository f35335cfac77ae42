"""Vacation on real server processes (docs/vacation.md V3, V5, V7): PostgreSQL, rq
projections and a real worker keeping the deadlines. A timed game with vacation whose
decision's own time (a 5 s move clock) runs out is not timed out while its player's
vacation lasts; when the days run out, it is (C3), and the record verifies."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from tests.servers import production
from tests.system.test_clocks_served import timed_game

MOVE_SECONDS = 5
LEFT = 8  # seconds of vacation bob has left once his spell is announced


def events_of(http, gid):
    return http.call("GET", f"/games/{gid}/events?after=0&limit=1000").json["events"]


def test_vacation_holds_off_the_timeout_until_the_days_run_out(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    extra = {"TONGIAKI_VACATION_DAYS": "1"}
    with production(tmp_path, url, redis_url, queue=f"v-{tmp_path.name[-8:]}", **extra) as servers:
        web = [s.http() for s in servers[:2]]
        gid, tokens, ids = timed_game(web[0], vacation=True)
        # given: bob announced a spell that leaves him LEFT seconds of this year's day
        start = datetime.now(UTC) + timedelta(seconds=60)
        spell = {
            "from": start.isoformat(),
            "until": (start + timedelta(days=1, seconds=-LEFT)).isoformat(),
        }
        deadline = time.monotonic() + 30
        while True:  # the lobby's read model (rq) says bob sits at a game with vacation
            reply = web[1].call("POST", "/me/vacation", spell, tokens["bob"])
            if reply.status == 201 or time.monotonic() > deadline:
                break
            assert reply.json["code"] == "no_vacation_games", reply.json
            time.sleep(0.1)
        assert reply.status == 201, reply.json
        assert 0 < reply.json["left_ms"] <= LEFT * 1000
        # when: ann moves, and bob's decision starts with its own 5 s
        legal = web[0].call("GET", f"/games/{gid}/legal").json
        assert legal["player_id"] == ids["ann"]
        moved = web[0].call("POST", f"/games/{gid}/commands", legal["commands"][0], tokens["ann"])
        assert moved.status == 200, moved.json
        clock = moved.json["events"][-1]["metadata"]["clock"]
        assert clock["seat"] == 2 and 0 < clock["vacation"]["reserve_ms"] <= LEFT * 1000
        own = datetime.fromisoformat(clock["vacation"]["starts"])
        final = datetime.fromisoformat(clock["deadline"])
        assert own == datetime.fromisoformat(clock["since"]) + timedelta(seconds=MOVE_SECONDS)
        # then: past his own time, no timeout while his vacation lasts (he is shown on it)
        while datetime.now(UTC) < own + timedelta(seconds=1):
            time.sleep(0.2)
        shown = web[1].call("GET", f"/games/{gid}").json["vacation"]
        assert [(n["seat"], n["kind"]) for n in shown] == [(2, "automatic")]
        while datetime.now(UTC) < final - timedelta(milliseconds=300):
            assert "TurnTimedOut" not in [e["type"] for e in events_of(web[1], gid)]
            time.sleep(0.5)
        # and when the days run out, the normal timeout (C3), by the worker
        deadline = time.monotonic() + 20
        while "TurnTimedOut" not in [e["type"] for e in events_of(web[1], gid)]:
            assert time.monotonic() < deadline, "no timeout once the vacation was spent"
            time.sleep(0.2)
        timed_out = next(e for e in events_of(web[1], gid) if e["type"] == "TurnTimedOut")
        assert timed_out["data"]["seat"] == 2
        assert datetime.fromisoformat(timed_out["metadata"]["recorded_at"]) >= final
        assert web[0].call("GET", f"/games/{gid}/verify").json["ok"] is True
        standing = web[0].call("GET", "/me/vacation", None, tokens["bob"]).json
        assert standing["left_ms"] == 0


def test_a_spell_announced_while_the_decision_runs_stops_it_on_every_process(
    tmp_path, pg_schema, redis_url
):
    """V4: ann leaves in the middle of her decision; the game records her spell, and her
    clock stands still during it as the other process shows it; she moves after it, the
    worker having timed nothing out, and the record verifies."""
    _, url = pg_schema
    extra = {"TONGIAKI_VACATION_DAYS": "1"}
    with production(tmp_path, url, redis_url, queue=f"w-{tmp_path.name[-8:]}", **extra) as servers:
        web = [s.http() for s in servers[:2]]
        gid, tokens, ids = timed_game(web[0], vacation=True, move_seconds=120)
        deadline = time.monotonic() + 60
        while True:  # the lobby's read model (rq) says ann sits at a game with vacation
            until = datetime.now(UTC) + timedelta(seconds=6)
            reply = web[1].call("POST", "/me/vacation", {"until": until.isoformat()}, tokens["ann"])
            if reply.status == 201 or time.monotonic() > deadline:
                break
            assert reply.json["code"] == "no_vacation_games", reply.json
            time.sleep(0.1)
        assert reply.status == 201, reply.json
        recorded = events_of(web[0], gid)[-1]
        assert recorded["type"] == "AwayAnnounced", recorded
        clock = recorded["metadata"]["clock"]
        since = datetime.fromisoformat(clock["since"])
        starts = datetime.fromisoformat(clock["vacation"]["starts"])
        assert clock["seat"] == 1 and [a[1] for a in clock["vacation"]["away"]] == [
            until.astimezone(UTC).isoformat()
        ]
        assert starts > since + timedelta(seconds=120 + 5)  # her own time, the spell counted
        # then: during the spell her time left stands still, on the other process too
        first = web[1].call("GET", f"/games/{gid}").json["clock"]["time_left_ms"]["1"]
        time.sleep(1.0)  # (a span of time to compare: not waiting for anything)
        if datetime.now(UTC) < until - timedelta(milliseconds=200):
            second = web[1].call("GET", f"/games/{gid}").json["clock"]["time_left_ms"]["1"]
            assert second == first
        shown = web[0].call("GET", f"/games/{gid}").json["vacation"]
        if datetime.now(UTC) < until - timedelta(milliseconds=200):
            assert [(n["seat"], n["kind"]) for n in shown] == [(1, "announced")]
        while datetime.now(UTC) < until + timedelta(seconds=1):
            time.sleep(0.2)
        assert "TurnTimedOut" not in [e["type"] for e in events_of(web[1], gid)]
        legal = web[1].call("GET", f"/games/{gid}/legal").json
        assert legal["player_id"] == ids["ann"]
        moved = web[1].call("POST", f"/games/{gid}/commands", legal["commands"][0], tokens["ann"])
        assert moved.status == 200, moved.json
        assert moved.json["events"][-1]["metadata"]["clock"]["vacation_used_ms"] == 0
        assert web[0].call("GET", f"/games/{gid}/verify").json["ok"] is True
