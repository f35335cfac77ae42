"""The deck is a function of the record alone, in every process (Fair draws, R2).

The scenario that broke it: one seat, a refused start (R1: not enough players),
a second seat, a start, a whole game. Before, the first process derived and kept
the draw order from one player's entropy; a second process derived another.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

from tests.servers import ROOT, Http, embedded, logged_head, production


def accounts(http: Http, names: list[str]) -> list[dict]:
    made = []
    for name in names:
        reply = http.call("POST", "/accounts", {"name": name})
        assert reply.status == 201, reply.json
        made.append(reply.json)
    return made


def refused_start_then_play(https: list[Http], seed: int) -> str:
    """Seat one, a refused start, seat another, start, play to the end across ``https``."""
    rng = random.Random(seed)
    ann, bob = accounts(https[0], ["ann", "bob"])
    tokens = {a["account_id"]: a["token"] for a in (ann, bob)}
    game = https[0].call("POST", "/games", {"max_players": 2}, ann["token"])
    assert game.status == 201, game.json
    gid = game.json["game_id"]
    assert (
        https[0]
        .call("POST", f"/games/{gid}/seats", {"colour": "blue", "entropy": "a"}, ann["token"])
        .status
        == 201
    )
    refused = https[0].call("POST", f"/games/{gid}/start", None, ann["token"])
    assert (refused.status, refused.json["code"], refused.json["rule"]) == (
        409,
        "not_enough_players",
        "R1",
    )
    assert (
        https[-1]
        .call("POST", f"/games/{gid}/seats", {"colour": "red", "entropy": "b"}, bob["token"])
        .status
        == 201
    )
    started = https[-1].call("POST", f"/games/{gid}/start?include=legal", None, bob["token"])
    assert started.status == 200, started.json
    legal = started.json["legal"]
    for _ in range(3000):
        if legal["decision"] is None:
            return gid
        http = rng.choice(https)
        reply = http.call(
            "POST",
            f"/games/{gid}/commands?include=legal",
            rng.choice(legal["commands"]),
            tokens[legal["player_id"]],
            {"If-Match": f'"{legal["version"]}"'},
        )
        assert reply.status == 200, reply.json
        legal = reply.json["legal"]
    raise AssertionError("the game did not end")


def cli_verify(env: dict[str, str], gid: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "verify", "--json", gid],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def draws(http: Http, gid: str) -> list[str]:
    tiles, after = [], 0
    while True:
        page = http.call("GET", f"/games/{gid}/events?after={after}&limit=1000").json
        tiles += [e["data"]["tile"] for e in page["events"] if e["type"] == "TileDrawn"]
        if not page["events"]:
            return tiles
        after = page["next_after"]


def test_a_refused_start_leaves_the_deck_alone_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        http = server.http()
        gid = refused_start_then_play([http], seed=3)
        logged_head(http, gid)
        over_http = http.call("GET", f"/games/{gid}/verify").json
        tiles = draws(http, gid)
        by_cli = cli_verify(server.env, gid)
    assert over_http == by_cli
    assert over_http["ok"] and over_http["deck_ok"] and not over_http["rerun_problems"]
    assert len(tiles) == len(set(tiles)) == over_http["draws_checked"] > 0


def test_two_web_processes_on_postgresql_draw_one_deck(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    with production(tmp_path, url, redis_url, queue=f"t-{tmp_path.name[-8:]}") as servers:
        web = [s.http() for s in servers[:2]]
        gid = refused_start_then_play(web, seed=8)
        logged_head(web[0], gid)
        reports = [h.call("GET", f"/games/{gid}/verify").json for h in web]
        tiles = draws(web[0], gid)
        by_cli = cli_verify(servers[0].env, gid)
    assert reports[0] == reports[1] == by_cli
    assert by_cli["ok"], by_cli
    assert len(tiles) == len(set(tiles)) == by_cli["draws_checked"] > 0


def test_http_and_cli_verification_agree_on_a_tampered_record(tmp_path):
    """Verification reads only the store: a record changed behind the service's back
    is reported the same by the running process (which cached the game) and the CLI."""
    import sqlite3

    with embedded(tmp_path) as server:
        http = server.http()
        gid = refused_start_then_play([http], seed=5)
        logged_head(http, gid)
        assert http.call("GET", f"/games/{gid}/verify").json["ok"]
        conn = sqlite3.connect(tmp_path / "tongiaki.db")
        conn.execute("DROP TRIGGER events_no_update")
        conn.execute(
            "UPDATE events SET data = replace(data, '\"ocean', '\"OCEAN') WHERE type = 'TileDrawn'"
        )
        conn.commit()
        conn.close()
        over_http = http.call("GET", f"/games/{gid}/verify").json
        by_cli = cli_verify(server.env, gid)
    assert over_http == by_cli and not by_cli["ok"]
