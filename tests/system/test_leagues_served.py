"""Leagues on real server processes (docs/leagues.md): the embedded default, and two
gunicorn web processes on one PostgreSQL database with Redis and a worker. Two starts
sent at once to the two processes start the league once (L4); a join racing the start
is scheduled or refused, never lost (L3); when round 1 is over, two looks at once on
the two processes open round 2 once: every table one game, each seat taken once (L7,
L8); the standings follow the results the worker projects (L9); and round 3 opens by
itself, with nobody looking at the league (the keeper, L7)."""

from __future__ import annotations

import random
import threading
import time

from tests.servers import Http, Server, embedded, production
from tests.system.test_tables_served import accounts, at_once

WAIT = 60.0  # seconds the worker has to project a result


def play_out(http: Http, gid: str, tokens: dict[str, str]) -> None:
    """The game to its end, each player taking a legal command (seeded)."""
    rng = random.Random(gid)
    for _ in range(3000):
        legal = http.call("GET", f"/games/{gid}/legal").json
        if legal["decision"] is None:
            return
        headers = {"If-Match": f'"{legal["version"]}"'}
        move, token = rng.choice(legal["commands"]), tokens[legal["player_id"]]
        sent = http.call("POST", f"/games/{gid}/commands", move, token, headers)
        assert sent.status == 200, sent.json
    raise AssertionError("the game did not end")


def opened_once(http: Http, table: dict, size: int) -> None:
    """A table's game: opened once, each of its players seated once, started once."""
    events = http.call("GET", f"/games/{table['game_id']}/events?limit=1000").json["events"]
    kinds = [e["type"] for e in events]
    assert kinds.count("GameCreated") == 1 and kinds.count("GameStarted") == 1, kinds
    joined = [e["data"]["player_id"] for e in events if e["type"] == "PlayerJoined"]
    assert joined == table["players"] and len(joined) == size


def two_starts_and_the_next_round_open_once(a: Server, b: Server) -> None:
    http = a.http()
    made = accounts(http, ("lea", "max", "ned", "ola"))
    tokens = dict(made)
    (_, lea), *others = made
    body = {"name": "Served league", "table_size": 2, "players": [i for i, _ in others]}
    league = http.call("POST", "/leagues", body, lea)
    assert league.status == 201, league.json
    lid = league.json["league_id"]
    # L4: two starts at once on the two processes: one starts it
    answers = at_once((a, f"/leagues/{lid}/start", lea, ""), (b, f"/leagues/{lid}/start", lea, ""))
    assert sorted(r.status for r in answers) == [200, 409], [r.json for r in answers]
    refused = next(r for r in answers if r.status == 409)
    assert refused.json["code"] == "already_started" and refused.json["rule"] == "L4"
    view = b.http().call("GET", f"/leagues/{lid}").json
    round_one = view["schedule"][0]["tables"]
    for table in round_one:
        opened_once(http, table, 2)
    for table in round_one:
        play_out(http, table["game_id"], tokens)
    # L7, L8: two looks at once open round 2, once
    looks = at_once_get(a, b, f"/leagues/{lid}")
    assert [r.json["current_round"] for r in looks] == [2, 2]
    view = http.call("GET", f"/leagues/{lid}").json
    for table in view["schedule"][1]["tables"]:
        opened_once(http, table, 2)
    # L9: the standings follow the results the worker projects
    deadline = time.monotonic() + WAIT
    while sum(s["games"] for s in view["standings"]) < 4:
        assert time.monotonic() < deadline, view["standings"]
        time.sleep(0.1)
        view = b.http().call("GET", f"/leagues/{lid}").json
    assert sum(s["rank_points"] for s in view["standings"]) == 2
    # L7: round 2 played out and nobody looks at the league: its keeper (a thread of the
    # embedded default, of the worker beside PostgreSQL) opens round 3 by itself
    for table in view["schedule"][1]["tables"]:
        play_out(http, table["game_id"], tokens)
    # (each player's own games list: neither it nor a game's page opens a round)
    before = {t["game_id"] for r in view["schedule"][:2] for t in r["tables"]}
    deadline = time.monotonic() + WAIT
    while not all(new_game(http, token, before) for token in tokens.values()):
        assert time.monotonic() < deadline, f"round 3 did not open by itself:\n{a.output()}"
        time.sleep(0.2)
    view = http.call("GET", f"/leagues/{lid}").json
    assert view["current_round"] == 3
    for table in view["schedule"][2]["tables"]:
        assert table["game_id"] in {new_game(http, t, before) for t in tokens.values()}
        opened_once(http, table, 2)


def new_game(http: Http, token: str, before: set[str]) -> str | None:
    """A game of the player's not among ``before``, started (GET /me/games)."""
    games = http.call("GET", "/me/games?limit=50", token=token).json["games"]
    fresh = [g["game_id"] for g in games if g["game_id"] not in before]
    return fresh[0] if fresh and games[0]["status"] in ("setup", "playing") else None


def at_once_get(a: Server, b: Server, path: str) -> list:
    """Two GETs released together, one to each process."""
    gate = threading.Barrier(2)
    answers: list = [None, None]

    def send(i: int, server: Server) -> None:
        http = server.http()
        http.call("GET", "/games?limit=1")
        gate.wait()
        answers[i] = http.call("GET", path)
        http.close()

    threads = [threading.Thread(target=send, args=(i, s)) for i, s in enumerate((a, b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def a_join_racing_the_start_is_scheduled_or_refused(a: Server, b: Server) -> None:
    http = a.http()
    (_, pia), (_, quin), (rae_id, rae) = accounts(http, ("pia", "quin", "rae"))
    made = http.call("POST", "/leagues", {"name": "Race", "table_size": 2, "link": True}, pia)
    lid, token = made.json["league_id"], made.json["link"].split("join=")[1]
    assert http.call("POST", f"/leagues/{lid}/join", {"token": token}, quin).status == 200
    answers = at_once_bodies(
        (a, f"/leagues/{lid}/start", pia, {}), (b, f"/leagues/{lid}/join", rae, {"token": token})
    )
    start, joined = answers
    assert start.status == 200, start.json
    view = http.call("GET", f"/leagues/{lid}").json
    members = [p["account_id"] for p in view["players"]]
    scheduled = {p for r in view["schedule"] for t in r["tables"] for p in t["players"]}
    if joined.status == 200:
        assert rae_id in members and rae_id in scheduled
    else:
        assert joined.json["code"] == "league_started", joined.json
        assert rae_id not in members and rae_id not in scheduled
    assert scheduled == set(members)


def at_once_bodies(*calls: tuple[Server, str, str, dict]) -> list:
    """POSTs with bodies, released together."""
    gate = threading.Barrier(len(calls))
    answers: list = [None] * len(calls)

    def send(i: int, server: Server, path: str, token: str, body: dict) -> None:
        http = server.http()
        http.call("GET", "/games?limit=1")
        gate.wait()
        answers[i] = http.call("POST", path, body, token)
        http.close()

    threads = [threading.Thread(target=send, args=(i, *c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def test_leagues_on_the_embedded_default(tmp_path):
    with embedded(tmp_path, TONGIAKI_LEAGUE_EVERY="1") as server:
        two_starts_and_the_next_round_open_once(server, server)
        a_join_racing_the_start_is_scheduled_or_refused(server, server)


def test_leagues_across_two_web_processes(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    queue = f"t-{tmp_path.name[-8:]}"
    with production(tmp_path, url, redis_url, queue=queue, TONGIAKI_LEAGUE_EVERY="1") as servers:
        a, b = servers[:2]
        two_starts_and_the_next_round_open_once(a, b)
        a_join_racing_the_start_is_scheduled_or_refused(a, b)
