"""The seat's bot is the operator's choice (``TONGIAKI_SEAT_BOT``, docs/clocks.md, issue
32): on real server processes the search plays a resigned seat to the end — the
embedded default's scheduler, and a worker on PostgreSQL and Redis — journalled with
its name, and the game verifies; a name no bot has stops the service at its start."""

from __future__ import annotations

import random
import subprocess
import sys
import time

from tests.servers import ROOT, Http, base_env, embedded, production

BOT = "mcts-easy"


def resigned_game(http: Http) -> tuple[str, dict[str, str], dict[str, str]]:
    """ann (blue) and bob (red) started; bob resigns at once: (game, tokens, ids)."""
    tokens, ids = {}, {}
    for name in ("ann", "bob"):
        made = http.call("POST", "/accounts", {"name": name}).json
        tokens[name], ids[name] = made["token"], made["account_id"]
    gid = http.call("POST", "/games", {"max_players": 2}, tokens["ann"]).json["game_id"]
    for name, colour in (("ann", "blue"), ("bob", "red")):
        assert (
            http.call("POST", f"/games/{gid}/seats", {"colour": colour}, tokens[name]).status == 201
        )
    assert http.call("POST", f"/games/{gid}/start", None, tokens["ann"]).status == 200
    quit_ = {"type": "Resign", "player_id": ids["bob"]}
    assert http.call("POST", f"/games/{gid}/commands", quit_, tokens["bob"]).status == 200
    return gid, tokens, ids


def ann_plays_to_the_end(https: list[Http], gid: str, token: str, ann: str) -> None:
    """ann plays her decisions at random; the service plays bob's."""
    rng = random.Random(3)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        http = rng.choice(https)
        legal = http.call("GET", f"/games/{gid}/legal").json
        if legal["decision"] is None:
            return
        if legal["player_id"] != ann:
            time.sleep(0.05)
            continue
        reply = http.call(
            "POST",
            f"/games/{gid}/commands",
            rng.choice(legal["commands"]),
            token,
            {"If-Match": f'"{legal["version"]}"'},
        )
        assert reply.status in (200, 409), reply.json
    raise AssertionError("the game did not end in time")


def check_played_by_the_search(http: Http, gid: str, token: str) -> None:
    events: list[dict] = []
    while True:
        page = http.call("GET", f"/games/{gid}/events?after={len(events)}&limit=1000").json
        events += page["events"]
        if not page["has_more"]:
            break
    played = [e for e in events if e["type"] == "SeatPlayedByBot"]
    assert len(played) > 3 and events[-1]["type"] in ("GameEnded", "DeckRevealed")
    assert {e["metadata"]["actor"]["bot"] for e in played} == {BOT}
    verified = http.call("GET", f"/games/{gid}/verify", None, token).json
    assert verified["ok"] is True, verified


def test_the_search_plays_a_resigned_seat_on_the_embedded_default(tmp_path):
    with embedded(tmp_path, TONGIAKI_SEAT_BOT=BOT) as server:
        http = server.http()
        gid, tokens, ids = resigned_game(http)
        ann_plays_to_the_end([http], gid, tokens["ann"], ids["ann"])
        check_played_by_the_search(http, gid, tokens["ann"])
    # the process says which bot it plays seats with
    assert f"seats): {BOT} (TONGIAKI_SEAT_BOT)" in (tmp_path / "serve.log").read_text()


def test_the_search_plays_a_resigned_seat_from_the_worker(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    queue = f"b-{tmp_path.name[-8:]}"
    with production(tmp_path, url, redis_url, queue=queue, TONGIAKI_SEAT_BOT=BOT) as servers:
        web = [s.http() for s in servers[:2]]
        gid, tokens, ids = resigned_game(web[0])
        ann_plays_to_the_end(web, gid, tokens["ann"], ids["ann"])
        check_played_by_the_search(web[1], gid, tokens["ann"])


def test_a_seat_bot_nobody_knows_stops_the_service_at_its_start(tmp_path):
    for value, said in (
        ("deep-blue", "is not greedy, random"),
        ("mcts:5000", "at most 2,000"),
        (" mcts", "spaces around it"),
    ):
        env = base_env(TONGIAKI_DATA_DIR=str(tmp_path), TONGIAKI_SEAT_BOT=value)
        done = subprocess.run(
            [sys.executable, "-m", "service.cli", "serve"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode != 0
        assert "TONGIAKI_SEAT_BOT" in done.stderr and said in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
