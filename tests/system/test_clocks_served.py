"""Clocks on real server processes (docs/clocks.md): a seat that never plays is timed
out, marked absent and played by the bot to the end of the game — by the embedded
default's in-process scheduler, and by a real worker on PostgreSQL and Redis (its
own timer, each deadline also on rq's schedule) — and a timeout racing the player's move on two processes has
exactly one winner, the loser told so."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta

from redis import Redis
from rq import Queue
from rq.registry import ScheduledJobRegistry

from tests.servers import ROOT, Http, embedded, production
from tests.service.test_notify import Receiver

MOVE_SECONDS = 5


def timed_game(http: Http, **options: object) -> tuple[str, dict[str, str], dict[str, str]]:
    """ann (blue, seat 1) and bob (red, seat 2) in a started game with a clock:
    (game id, name -> token, name -> account id)."""
    tokens, ids = {}, {}
    for name in ("ann", "bob"):
        made = http.call("POST", "/accounts", {"name": name}).json
        tokens[name], ids[name] = made["token"], made["account_id"]
    body = {"max_players": 2, "time_control": "move", "move_seconds": MOVE_SECONDS, **options}
    reply = http.call("POST", "/games", body, tokens["ann"])
    assert reply.status == 201, reply.json
    gid = reply.json["game_id"]
    for name, colour in (("ann", "blue"), ("bob", "red")):
        seat = http.call("POST", f"/games/{gid}/seats", {"colour": colour}, tokens[name])
        assert seat.status == 201, seat.json
    assert http.call("POST", f"/games/{gid}/start", None, tokens["ann"]).status == 200
    return gid, tokens, ids


def ann_plays_bob_never(
    https: list[Http], gid: str, tokens: dict[str, str], ids: dict[str, str], seconds: float
) -> int:
    """ann answers each of her decisions at once (from a process chosen at random);
    bob's are left to the service. Returns ann's moves; fails past ``seconds``."""
    rng = random.Random(11)
    moves = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        http = rng.choice(https)
        legal = http.call("GET", f"/games/{gid}/legal").json
        if legal["decision"] is None:
            return moves
        if legal["player_id"] != ids["ann"]:
            time.sleep(0.05)
            continue
        reply = http.call(
            "POST",
            f"/games/{gid}/commands",
            rng.choice(legal["commands"]),
            tokens["ann"],
            {"If-Match": f'"{legal["version"]}"'},
        )
        assert reply.status in (200, 409), reply.json  # 409: a bot move landed meanwhile
        moves += reply.status == 200
    raise AssertionError("the game did not end in time")


def check_finished_by_the_bot(
    http: Http, gid: str, tokens: dict[str, str], late: float = 5.0
) -> None:
    """One timeout, no more than ``late`` seconds after its deadline, then the absent
    seat played by the bot to the end; it verifies."""
    events: list[dict] = []
    while True:  # a long game is more than one page (1,000 events)
        page = http.call("GET", f"/games/{gid}/events?after={len(events)}&limit=1000").json
        events += page["events"]
        if not page["has_more"]:
            break
    kinds = [e["type"] for e in events]
    assert kinds.count("TurnTimedOut") == 1 and kinds.count("SeatMarkedAbsent") == 1
    assert kinds.count("SeatPlayedByBot") > 3 and "GameEnded" in kinds
    timed_out = events[kinds.index("TurnTimedOut")]
    assert timed_out["data"]["seat"] == 2
    actor = timed_out["metadata"]["actor"]
    assert actor["bot"] == "greedy" and actor["reason"] == "timeout" and actor["seat"] == 2
    # not before the deadline the clock recorded with the transaction before it (C3)
    before = events[kinds.index("TurnTimedOut") - 1]["metadata"]["clock"]
    at = datetime.fromisoformat(timed_out["metadata"]["recorded_at"])
    deadline = datetime.fromisoformat(before["deadline"])
    assert deadline <= at <= deadline + timedelta(seconds=late), (deadline, at)
    # and the absent seat's decisions at once (C5): each soon after the event before it
    waits = [
        (
            datetime.fromisoformat(e["metadata"]["recorded_at"])
            - datetime.fromisoformat(events[i - 1]["metadata"]["recorded_at"])
        ).total_seconds()
        for i, e in enumerate(events)
        if e["type"] == "SeatPlayedByBot"
    ]
    assert max(waits) < late, sorted(waits)[-5:]
    verified = http.call("GET", f"/games/{gid}/verify", None, tokens["ann"]).json
    assert verified["ok"] is True, verified


def test_an_absent_seat_is_played_to_the_end_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        http = server.http()
        gid, tokens, ids = timed_game(http, absent_after=1)
        began = time.monotonic()
        ann_plays_bob_never([http], gid, tokens, ids, seconds=120)
        assert time.monotonic() - began >= MOVE_SECONDS  # bob's first decision timed out
        check_finished_by_the_bot(http, gid, tokens)
        lobby = http.call("GET", "/lobby").json["games"]
        seats = next(g for g in lobby if g["game_id"] == gid)["seats"]
        assert [s.get("bot") for s in seats] == [None, "absent"]
        # bob's outbox: his move, the timeout that made him absent, the end
        told = http.call("GET", "/me/notifications", None, tokens["bob"]).json["notifications"]
        kinds = [n["kind"] for n in told]
        assert {"your_move", "replaced_by_bot", "game_over"} <= set(kinds), kinds
        replaced = next(n for n in told if n["kind"] == "replaced_by_bot")
        assert "you are now absent" in replaced["text"]


def test_an_absent_seat_is_played_to_the_end_by_the_rq_scheduler(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    receiver = Receiver(fail=1)
    # the sweeper only once a minute: every timeout must come from rq's scheduler
    extra = {
        "TONGIAKI_WEBHOOKS_PRIVATE": "1",
        "TONGIAKI_NOTIFY_BACKOFF": "0.5",
        "TONGIAKI_SWEEP_EVERY": "60",
    }
    try:
        queue_name = f"c-{tmp_path.name[-8:]}"
        with production(tmp_path, url, redis_url, queue=queue_name, **extra) as servers:
            web = [s.http() for s in servers[:2]]
            gid, tokens, ids = timed_game(web[0], absent_after=1)
            hook = {"webhook_url": receiver.url, "kinds": ["replaced_by_bot"]}
            reply = web[1].call("PUT", "/me/notifications/settings", hook, tokens["bob"])
            assert reply.status == 200, reply.json
            ann_plays_bob_never(web, gid, tokens, ids, seconds=180)
            # the worker's own timer keeps each deadline to the millisecond (rq's
            # scheduler alone looked once a second, behind the projections' jobs)
            check_finished_by_the_bot(web[1], gid, tokens, late=1.0)
            # rq's schedule held the pending decision's tick only, and nothing once the
            # game is over
            queue = Queue(queue_name, connection=Redis.from_url(redis_url))
            assert ScheduledJobRegistry(queue=queue).count == 0
            # the worker told bob by webhook: refused once (500), then delivered
            deadline = time.monotonic() + 30
            while len(receiver.received) < 2:
                assert time.monotonic() < deadline, receiver.received
                time.sleep(0.1)
            bodies = [json.loads(body) for _, body in receiver.received]
            assert [b["kind"] for b in bodies] == ["replaced_by_bot"] * 2
            assert bodies[0] == bodies[1] and bodies[0]["account_id"] == ids["bob"]
    finally:
        receiver.close()


TICKER = """
import sys
from workers.jobs import timekeeper
keeper = timekeeper()
for line in sys.stdin:
    gid = line.strip()
    keeper.tick(gid)
    print(gid, flush=True)
"""


def test_a_timeout_racing_the_move_on_two_processes_has_one_winner(tmp_path, pg_schema, redis_url):
    """No worker runs: a ticker process (the worker's timekeeper) and a web process
    are told at the same moment to time out and to play one overdue decision."""
    _, url = pg_schema
    with production(
        tmp_path, url, redis_url, queue=f"x-{tmp_path.name[-8:]}", workers=0
    ) as servers:
        http = servers[0].http()
        games = [timed_game(http) for _ in range(12)]
        time.sleep(MOVE_SECONDS + 0.5)  # every first decision is overdue
        ticker = subprocess.Popen(
            [sys.executable, "-c", TICKER],
            cwd=ROOT,
            env=servers[0].env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        rng = random.Random(5)
        outcomes = []
        try:
            for gid, tokens, _ in games:
                legal = http.call("GET", f"/games/{gid}/legal").json
                version = legal["version"]
                choice = rng.choice(legal["commands"])
                replies = []
                jitter = rng.random() * 0.02

                def post(
                    gid=gid,
                    tokens=tokens,
                    choice=choice,
                    version=version,
                    jitter=jitter,
                    replies=replies,
                ):
                    time.sleep(jitter)
                    replies.append(
                        Http(servers[1].port).call(
                            "POST",
                            f"/games/{gid}/commands",
                            choice,
                            tokens["ann"],
                            {"If-Match": f'"{version}"'},
                        )
                    )

                mover = threading.Thread(target=post)
                mover.start()
                ticker.stdin.write(gid + "\n")
                ticker.stdin.flush()
                assert ticker.stdout.readline().strip() == gid
                mover.join()
                reply = replies[0]
                events = http.call("GET", f"/games/{gid}/events?after={version}").json["events"]
                bot_won = events[0]["type"] == "TurnTimedOut"
                if bot_won:
                    assert reply.status == 409, reply.json
                    assert reply.json["code"] == "turn_timed_out" and reply.json["rule"] == "C3"
                else:
                    assert reply.status == 200, reply.json
                    assert reply.json["version"] > version
                    assert "TurnTimedOut" not in [e["type"] for e in events]
                    assert events[0]["metadata"]["actor"].get("bot") is None
                outcomes.append(bot_won)
                journal = http.call("GET", f"/games/{gid}/journal", None, tokens["ann"]).json
                mine = [e for e in journal["commands"] if e["actor"].get("bot") is None]
                assert mine[-1]["outcome"] == ("rejected" if bot_won else "accepted")
        finally:
            ticker.stdin.close()
            ticker.wait(timeout=30)
        print(f"bot won {sum(outcomes)} of {len(outcomes)} races")
