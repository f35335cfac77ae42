"""Bots' seats on real server processes (docs/bots.md B1–B4, issue 32): a person opens
a table, seats two bots at two levels, starts, and plays; every decision of the bots'
seats is played by the service at once — the embedded default's scheduler, and a worker
beside two web processes on PostgreSQL and Redis — journalled with the seat's level; the
lobby shows the levels; the game verifies; a refused seat changes nothing."""

from __future__ import annotations

import time

from tests.servers import Http, embedded, production
from tests.system.test_seat_bot_served import ann_plays_to_the_end

LEVELS = {2: "mcts-easy", 3: "greedy"}


def table_with_bots(http: Http) -> tuple[str, str, str]:
    """ann opens a three-seat table, sits at blue, seats the bots, starts: (game, token, id)."""
    made = http.call("POST", "/accounts", {"name": "ann"}).json
    token, ann = made["token"], made["account_id"]
    gid = http.call("POST", "/games", {"max_players": 3}, token).json["game_id"]
    assert http.call("POST", f"/games/{gid}/seats", {"colour": "blue"}, token).status == 201
    before = http.call("GET", f"/games/{gid}").json
    refused = http.call("POST", f"/games/{gid}/bots", {"bot": "deep-blue", "colour": "red"}, token)
    assert refused.status == 422, refused.json
    assert http.call("GET", f"/games/{gid}").json["version"] == before["version"]
    for seat, colour in ((2, "red"), (3, "green")):
        body = {"bot": LEVELS[seat], "colour": colour}
        assert http.call("POST", f"/games/{gid}/bots", body, token).status == 201
    assert http.call("POST", f"/games/{gid}/start", None, token).status == 200
    return gid, token, ann


def lobby_shows_the_levels(http: Http, gid: str) -> None:
    """The lobby's read model may lag the start: wait for the game's row."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        games = http.call("GET", "/lobby?limit=100").json["games"]
        row = next((g for g in games if g["game_id"] == gid), None)
        if row is not None and row["status"] != "open":  # caught up with the start
            assert [s.get("level") for s in row["seats"]] == [None, LEVELS[2], LEVELS[3]], row
            return
        time.sleep(0.2)
    raise AssertionError("the game never reached the lobby")


def check_played_by_their_levels(http: Http, gid: str, token: str) -> None:
    events: list[dict] = []
    while True:
        page = http.call("GET", f"/games/{gid}/events?after={len(events)}&limit=1000").json
        events += page["events"]
        if not page["has_more"]:
            break
    assert events[-1]["type"] in ("GameEnded", "DeckRevealed")
    played = [e for e in events if e["type"] == "SeatPlayedByBot"]
    assert {e["data"]["reason"] for e in played} == {"bot"}
    assert {e["data"]["seat"]: e["metadata"]["actor"]["bot"] for e in played} == LEVELS
    verified = http.call("GET", f"/games/{gid}/verify", None, token).json
    assert verified["ok"] is True, verified


def test_bots_seated_at_a_table_play_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        http = server.http()
        gid, token, ann = table_with_bots(http)
        lobby_shows_the_levels(http, gid)
        ann_plays_to_the_end([http], gid, token, ann)
        check_played_by_their_levels(http, gid, token)


def test_bots_seated_at_a_table_play_from_the_worker(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    queue = f"bs-{tmp_path.name[-8:]}"
    with production(tmp_path, url, redis_url, queue=queue) as servers:
        web = [s.http() for s in servers[:2]]
        gid, token, ann = table_with_bots(web[0])
        lobby_shows_the_levels(web[1], gid)
        ann_plays_to_the_end(web, gid, token, ann)
        check_played_by_their_levels(web[1], gid, token)
