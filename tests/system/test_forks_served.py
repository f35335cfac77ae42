"""Analysis forks on real server processes (docs/forks.md, issue 32): on the embedded
default, and on two gunicorn processes with PostgreSQL and Redis, a fork opened on
one process is played on the other; two moves racing on the same fork version from
two processes: exactly one is taken; forks of a game under way deal the tiles left
afresh, not in the game's order; the original never changes."""

from __future__ import annotations

import random
import threading

from tests.servers import Http, embedded, production


def started(http: Http) -> tuple[str, dict[str, str]]:
    tokens = {}
    for name in ("ann", "bob"):
        made = http.call("POST", "/accounts", {"name": name}).json
        tokens[name] = made["token"]
    gid = http.call("POST", "/games", {"max_players": 2}, tokens["ann"]).json["game_id"]
    for name, colour in (("ann", "blue"), ("bob", "red")):
        assert (
            http.call("POST", f"/games/{gid}/seats", {"colour": colour}, tokens[name]).status == 201
        )
    assert http.call("POST", f"/games/{gid}/start", None, tokens["ann"]).status == 200
    return gid, tokens


def events(http: Http, gid: str) -> list[dict]:
    out: list[dict] = []
    while True:
        page = http.call("GET", f"/games/{gid}/events?after={len(out)}&limit=1000").json
        out += page["events"]
        if not page["has_more"]:
            return out


def first_tile(http: Http, fork: dict, token: str, rng: random.Random) -> str:
    view = fork
    for _ in range(300):
        move = rng.choice(view["legal"])["command"]
        body = {**move, "expected_version": view["version"]}
        reply = http.call("POST", f"/forks/{view['fork_id']}/commands", body, token)
        assert reply.status == 200, reply.json
        view = reply.json
        drawn = [e["tile"] for e in view["moves"][-1]["events"] if e["type"] == "TileDrawn"]
        if drawn:
            return drawn[0]
    raise AssertionError("no tile drawn")


def check_forks(a: Http, b: Http) -> None:
    gid, tokens = started(a)
    before = events(a, gid)
    head = before[-1]["version"]
    opened = a.call("POST", f"/games/{gid}/forks", {"version": head}, tokens["ann"])
    assert opened.status == 201, opened.json
    fid = opened.json["fork_id"]
    move = opened.json["legal"][0]["command"]
    played = b.call("POST", f"/forks/{fid}/commands", move, tokens["ann"])
    assert played.status == 200 and played.json["version"] == 1
    assert a.call("GET", f"/forks/{fid}").json["moves"] == played.json["moves"]
    # two processes, one version: exactly one move is taken
    view = a.call("GET", f"/forks/{fid}").json
    answers: list[int] = []
    go = threading.Barrier(2)

    def send(http: Http, command: dict) -> None:
        go.wait()
        body = {**command, "expected_version": view["version"]}
        answers.append(http.call("POST", f"/forks/{fid}/commands", body, tokens["ann"]).status)

    legal = view["legal"]
    racers = [
        threading.Thread(target=send, args=(h, legal[i % len(legal)]["command"]))
        for i, h in enumerate((a, b))
    ]
    for t in racers:
        t.start()
    for t in racers:
        t.join(60)
    assert sorted(answers) == [200, 409], answers
    assert a.call("GET", f"/forks/{fid}").json["version"] == 2
    assert b.call("POST", f"/forks/{fid}/commands", move, tokens["bob"]).status == 403
    # fresh deals of the tiles left, each fork its own
    rng = random.Random(7)
    firsts = []
    for _ in range(8):
        fork = a.call("POST", f"/games/{gid}/forks", {"version": head}, tokens["bob"]).json
        firsts.append(first_tile(b, fork, tokens["bob"], rng))
    assert len(set(firsts)) > 2, firsts
    assert events(b, gid) == before  # the original never changed


def test_forks_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        http = server.http()
        check_forks(http, server.http())


def test_forks_on_two_processes_with_postgres_and_redis(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    with production(tmp_path, url, redis_url, queue=f"k-{tmp_path.name[-8:]}") as servers:
        check_forks(servers[0].http(), servers[1].http())
