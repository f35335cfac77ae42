"""Ratings on real server processes (docs/ratings.md): the embedded default, and two web
processes on one PostgreSQL database with Redis and a worker.

Rated games sharing a player end at about the same moment on different processes; the
ratings the API answers are OpenSkill's folded over the games in the order they ended
(G2, G5), whichever process or worker caught them up first; a result amended by a
ruling on the other process moves them (G4); `tongiaki projections rebuild` gives the
same numbers."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time

from openskill.models import PlackettLuce

from tests.servers import ROOT, Http, Server, embedded, production
from tests.system.test_disputes_served import auditor

COLOURS = ("blue", "red", "green")


def rated_game(http: Http, tokens: dict[str, str]) -> str:
    """A rated game of these accounts, seated and started."""
    first = next(iter(tokens.values()))
    body = {"max_players": len(tokens), "rated": True}
    gid = http.call("POST", "/games", body, first).json["game_id"]
    for token, colour in zip(tokens.values(), COLOURS, strict=False):
        assert http.call("POST", f"/games/{gid}/seats", {"colour": colour}, token).status == 201
    assert http.call("POST", f"/games/{gid}/start", None, first).status == 200
    return gid


def play_out(http: Http, gid: str, tokens: dict[str, str], seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(3000):
        legal = http.call("GET", f"/games/{gid}/legal").json
        if legal["decision"] is None:
            return
        reply = http.call(
            "POST", f"/games/{gid}/commands", rng.choice(legal["commands"]),
            tokens[legal["player_id"]], {"If-Match": f'"{legal["version"]}"'},
        )  # fmt: skip
        assert reply.status == 200, reply.json
    raise AssertionError("the game did not end")


def accounts(http: Http, names: list[str]) -> dict[str, str]:
    made = [http.call("POST", "/accounts", {"name": n}).json for n in names]
    return {m["account_id"]: m["token"] for m in made}


def expected(http: Http, games: list[str], everyone: list[str]) -> dict[str, tuple]:
    """OpenSkill called directly over the games' rankings, in the order they ended."""
    ended = {}
    for player in everyone:
        for g in http.call("GET", f"/accounts/{player}/ratings").json["games"]:
            ended[g["game_id"]] = g["ended_at"]
    model = PlackettLuce()
    skills: dict[str, tuple] = {}
    for gid in sorted(games, key=lambda g: (ended[g], g)):
        ranking = http.call("GET", f"/games/{gid}/scoreboard").json["final"]["ranking"]
        teams = [[model.rating(*skills.get(r["player_id"], (None, None)))] for r in ranking]
        after = model.rate(teams, ranks=[r["rank"] for r in ranking])
        for r, team in zip(ranking, after, strict=True):
            skills[r["player_id"]] = (team[0].mu, team[0].sigma)
    return skills


def board(http: Http) -> dict[str, tuple]:
    players = http.call("GET", "/ratings?min_games=1").json["players"]
    return {p["account_id"]: (p["mu"], p["sigma"]) for p in players}


def until_board(http: Http, want: dict[str, tuple], timeout: float = 60.0) -> None:
    """Cross-game: no min_version; wait until the worker has levelled the ratings."""
    deadline = time.monotonic() + timeout
    while board(http) != want:
        assert time.monotonic() < deadline, (board(http), want)
        time.sleep(0.1)


def two_games_at_once(processes: list[Server]) -> tuple[list[str], dict[str, str]]:
    """Two rated games sharing a player, played out at the same time on two processes
    (each thread with its own connection)."""
    web = [processes[n % len(processes)].http() for n in range(2)]
    tokens = accounts(web[0], ["ann", "bob", "cy", "dee"])
    ids = list(tokens)
    tables = [{i: tokens[i] for i in ids[:3]}, {i: tokens[i] for i in (ids[0], ids[3])}]
    games = [rated_game(web[n % len(web)], t) for n, t in enumerate(tables)]
    threads = [
        threading.Thread(target=play_out, args=(web[n % len(web)], g, t, n))
        for n, (g, t) in enumerate(zip(games, tables, strict=True))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    deadline = time.monotonic() + 60
    for http in web:  # every rated seat in the history: 3 + 2
        while sum(p["games"] for p in http.call("GET", "/ratings?min_games=1").json["players"]) < 5:
            assert time.monotonic() < deadline, "the ratings did not catch up"
            time.sleep(0.1)
    return games, tokens


def rebuild(env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "projections", "rebuild", "--quiet"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_g5_ratings_of_games_ended_together_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        http = server.http()
        games, tokens = two_games_at_once([server])
        want = expected(http, games, list(tokens))
        until_board(http, want)
        rebuild(server.env)
        assert board(http) == want


def test_g4_ratings_across_two_web_processes_and_a_worker(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    with production(tmp_path, url, redis_url, queue=f"r-{tmp_path.name[-8:]}") as servers:
        web = [s.http() for s in servers[:2]]
        games, tokens = two_games_at_once(servers[:2])
        want = expected(web[0], games, list(tokens))
        for http in web:
            until_board(http, want)
        # a ruling on the other process amends the first game: every rating follows (G4)
        gid = games[0]
        final = web[0].call("GET", f"/games/{gid}/scoreboard").json["final"]
        amended = [r["player_id"] for r in final["ranking"]][::-1]
        end = web[0].call("GET", f"/games/{gid}").json["version"]
        opened = web[0].call(
            "POST", f"/games/{gid}/disputes", {"reason": "unfair_draw", "version": end},
            tokens[amended[0]],
        )  # fmt: skip
        assert opened.status == 201, opened.json
        ruled = web[1].call(
            "POST",
            f"/disputes/{opened.json['dispute_id']}/ruling",
            {"decision": "result_amended", "reasoning": "x", "rules": ["D4"], "ranking": amended},
            auditor(servers[0].env),
        )
        assert ruled.status == 200, ruled.json
        for _ in range(600):  # the scoreboard follows the ruling first
            ranking = web[1].call("GET", f"/games/{gid}/scoreboard").json["final"]["ranking"]
            if [r["player_id"] for r in ranking] == amended:
                break
            time.sleep(0.1)
        moved = expected(web[0], games, list(tokens))
        assert moved != want
        for http in web:
            until_board(http, moved)
        rebuild(servers[0].env)
        assert board(web[0]) == moved
