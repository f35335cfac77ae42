"""Rematches and private tables on real server processes (docs/invitations.md): the
embedded default, and two gunicorn web processes on one PostgreSQL database with Redis.
Races leave one outcome (RM8): two acceptances sent at once to the two processes open
one game; an acceptance racing a decline either opens the game or declines it, never
both. A private table stays out of the lobby a worker projects (I1) and seats only its
invitees, whichever process is asked (I4)."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

from tests.servers import Http, Server, embedded, production

WAIT = 60.0  # seconds the lobby's worker has to project a game


def accounts(http: Http, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """New players: (account id, token) each."""
    made = [http.call("POST", "/accounts", {"name": n}).json for n in names]
    return [(m["account_id"], m["token"]) for m in made]


def finished_game(http: Http, players: list[tuple[str, str]], seed: int) -> str:
    """A game of ``players`` played to its end by bots through ``http``."""
    colours = ("blue", "red", "green")
    first = players[0][1]
    gid = http.call("POST", "/games", {"max_players": len(players)}, first).json["game_id"]
    for (_, token), colour in zip(players, colours, strict=False):
        assert http.call("POST", f"/games/{gid}/seats", {"colour": colour}, token).status == 201
    assert http.call("POST", f"/games/{gid}/start", None, first).status == 200
    tokens, rng = dict(players), random.Random(seed)
    for _ in range(3000):
        legal = http.call("GET", f"/games/{gid}/legal").json
        if legal["decision"] is None:
            return gid
        move = rng.choice(legal["commands"])
        headers = {"If-Match": f'"{legal["version"]}"'}
        sent = http.call(
            "POST", f"/games/{gid}/commands", move, tokens[legal["player_id"]], headers
        )
        assert sent.status == 200, sent.json
    raise AssertionError("the game did not end")


def at_once(*calls: tuple[Server, str, str, Any]) -> list[Any]:
    """Send POSTs (server, path, token, body: "" for none) from threads released
    together."""
    gate = threading.Barrier(len(calls))
    answers: list[Any] = [None] * len(calls)

    def send(i: int, server: Server, path: str, token: str, body: Any) -> None:
        http = server.http()
        http.call("GET", "/games?limit=1")  # the connection is open before the gate
        gate.wait()
        answers[i] = http.call("POST", path, body or {}, token)
        http.close()

    threads = [
        threading.Thread(target=send, args=(i, s, p, t, b)) for i, (s, p, t, b) in enumerate(calls)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def two_acceptances_open_one_game(a: Server, b: Server) -> None:
    """RM8: the last two players accept at once, on the two processes."""
    http = a.http()
    players = accounts(http, ("ann", "bob", "cy"))
    gid = finished_game(http, players, seed=11)
    (ann_id, ann), (bob_id, bob), (cy_id, cy) = players
    assert http.call("POST", f"/games/{gid}/rematch", {}, ann).status == 201
    path = f"/games/{gid}/rematch/accept"
    answers = at_once((a, path, bob, ""), (b, path, cy, ""))
    assert [r.status for r in answers] == [200, 200], [r.json for r in answers]
    proposal = http.call("GET", f"/games/{gid}/rematch").json["proposal"]
    new_id = proposal["next_game_id"]
    assert proposal["status"] == "opened" and new_id
    # exactly one new game, every seat taken once, rotated (RM4)
    seats = http.call("GET", f"/games/{new_id}").json["players"]
    assert [p["player_id"] for p in seats] == [bob_id, cy_id, ann_id]
    listed = b.http().call("GET", "/games?limit=500").json["games"]
    assert sorted(g["game_id"] for g in listed) == sorted([gid, new_id])  # the first test's
    assert http.call("GET", f"/games/{new_id}/rematch").json["previous_game_id"] == gid


def acceptance_racing_a_decline_has_one_outcome(a: Server, b: Server) -> None:
    """RM8: one player's acceptance and decline at once (two tabs): one of them wins; a
    declined round is proposed again, until a round is accepted."""
    http = a.http()
    players = accounts(http, ("dee", "eve"))
    gid = finished_game(http, players, seed=12)
    (_, dee), (_, eve) = players
    before = {g["game_id"] for g in http.call("GET", "/games?limit=500").json["games"]}
    outcomes = set()
    for round_ in range(1, 9):
        assert http.call("POST", f"/games/{gid}/rematch", {}, dee).status == 201
        accept, decline = f"/games/{gid}/rematch/accept", f"/games/{gid}/rematch/decline"
        first, second = (a, b) if round_ % 2 else (b, a)
        yes, no = at_once((first, accept, eve, ""), (second, decline, eve, ""))
        proposal = http.call("GET", f"/games/{gid}/rematch").json["proposal"]
        assert proposal["round"] == round_
        if yes.status == 200:
            assert no.status == 409 and no.json["code"] == "already_answered", no.json
            assert proposal["status"] == "opened" and proposal["next_game_id"]
            outcomes.add("opened")
            break
        assert yes.status == 409 and yes.json["code"] == "rematch_declined", yes.json
        assert no.status == 200 and proposal["status"] == "declined"
        assert proposal["next_game_id"] is None
        outcomes.add("declined")
    listed = {g["game_id"] for g in http.call("GET", "/games?limit=500").json["games"]}
    assert len(listed - before) == (1 if "opened" in outcomes else 0), outcomes


def private_table_everywhere(a: Server, b: Server) -> None:
    """I1, I4: not in the lobby either process answers, seats for its invitee only."""
    http, other = a.http(), b.http()
    (opener_id, opener), (guest_id, guest), (_, stranger) = accounts(http, ("fa", "gus", "hal"))
    made = http.call("POST", "/tables", {"max_players": 2, "invite": [guest_id]}, opener)
    assert made.status == 201, made.json
    private = made.json["game_id"]
    public = http.call("POST", "/games", {"max_players": 2}, opener).json["game_id"]
    deadline = time.monotonic() + WAIT
    while True:  # the worker projects both; the lobby shows the public one only
        listed = [g["game_id"] for g in other.call("GET", "/lobby?status=open").json["games"]]
        if public in listed:
            break
        assert time.monotonic() < deadline, listed
        time.sleep(0.1)
    assert private not in listed
    refused = other.call("POST", f"/games/{private}/seats", {"colour": "red"}, stranger)
    assert refused.status == 403 and refused.json["code"] == "not_invited"
    assert other.call("POST", f"/games/{private}/seats", {"colour": "red"}, guest).status == 201
    assert http.call("POST", f"/games/{private}/seats", {"colour": "blue"}, opener).status == 201
    assert other.call("GET", f"/games/{private}/verify").json["ok"] is True
    # "my games" is a read model the worker keeps: wait for it (a CI run read it first)
    deadline = time.monotonic() + WAIT
    while True:
        mine = other.call("GET", "/me/games", None, guest).json["games"]
        if private in [g["game_id"] for g in mine]:
            break
        assert time.monotonic() < deadline, mine
        time.sleep(0.1)
    assert opener_id


def a_deletion_racing_a_seat_leaves_one_outcome(a: Server, b: Server) -> None:
    """P6: a player takes a seat on one process as their deletion is sent to the other:
    either the seat is taken and the deletion refused (seated at an open table), or the
    deletion is done and the seat refused; never a deleted account seated."""
    http = a.http()
    seen = set()
    for trial in range(8):
        ((_, host),) = accounts(http, (f"host{trial}",))
        name = f"leaver{trial}"
        ((leaver_id, leaver),) = accounts(http, (name,))
        gid = http.call("POST", "/games", {"max_players": 3}, host).json["game_id"]
        first, second = (a, b) if trial % 2 else (b, a)
        seat, deletion = at_once(
            (first, f"/games/{gid}/seats", leaver, {"colour": "red"}),
            (second, "/me/deletion", leaver, {"confirm": name}),
        )
        seated = [p["player_id"] for p in http.call("GET", f"/games/{gid}").json["players"]]
        if seat.status == 201:
            assert deletion.status == 409, deletion.json
            assert deletion.json["code"] == "seated_at_open_table"
            assert seated == [leaver_id]
            seen.add("seated")
        else:
            assert deletion.status == 200, deletion.json
            assert seat.status in (401, 403), seat.json  # refused, or the token gone
            assert seated == []
            seen.add("deleted")
    assert seen  # (which outcomes came is the processes' timing)


def test_rematch_races_and_private_tables_on_the_embedded_default(tmp_path):
    with embedded(tmp_path) as server:
        two_acceptances_open_one_game(server, server)
        acceptance_racing_a_decline_has_one_outcome(server, server)
        private_table_everywhere(server, server)
        a_deletion_racing_a_seat_leaves_one_outcome(server, server)


def test_rematch_races_and_private_tables_across_two_web_processes(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    queue = f"t-{tmp_path.name[-8:]}"
    with production(tmp_path, url, redis_url, queue=queue) as servers:
        a, b = servers[:2]
        two_acceptances_open_one_game(a, b)
        acceptance_racing_a_decline_has_one_outcome(a, b)
        private_table_everywhere(a, b)
        a_deletion_racing_a_seat_leaves_one_outcome(a, b)
