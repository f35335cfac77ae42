"""Rematches (docs/invitations.md, RM1–RM8) through the API, on SQLite and PostgreSQL,
the same on both: given a finished game, when its players propose and answer, then
the new game is the same table with the seats rotated, or the answer is refused."""

from __future__ import annotations

import pytest

from tests.service.api import Player, open_game, play_to_the_end
from tests.service.conftest import app_fixture
from tests.service.rematch_helpers import opening_cut_short, stalled

app = app_fixture("sqlite", "postgres")


def finished(client, colours, seed=3, **options):
    """A game of ``colours`` played to its end by bots."""
    game_id, players = open_game(client, colours, **options)
    play_to_the_end(client, game_id, players, seed)
    return game_id, players


@pytest.fixture
def ended(client):
    return finished(client, ["blue", "red"])


def seats(client, game_id):
    players = client.get(f"/api/v1/games/{game_id}").json["players"]
    return [(p["player_id"], p["colours"]) for p in sorted(players, key=lambda p: p["seat"])]


def test_rm4_rm6_when_every_player_accepts_the_same_table_opens_with_the_seats_rotated(client):
    # given a finished three-player game with a first seat and a clock
    options = {"first_seat": 2, "time_control": "move", "move_seconds": 600}
    game_id, (a, b, c) = finished(client, ["blue", "red", "green"], **options)
    # when a proposes, b and c accept
    r = a.post(f"/games/{game_id}/rematch", {"entropy": "a's dice"})
    assert r.status_code == 201, r.json
    assert r.json["proposal"]["status"] == "open"
    answers = {p["player_id"]: p["answer"] for p in r.json["proposal"]["players"]}
    assert answers == {a.id: "accepted", b.id: "waiting", c.id: "waiting"}
    assert b.post(f"/games/{game_id}/rematch/accept", {}).json["proposal"]["next_game_id"] is None
    r = c.post(f"/games/{game_id}/rematch/accept", {"entropy": "c's dice"})
    assert r.status_code == 200, r.json
    # then the new game has the same players, colours and options, rotated by one seat
    proposal = r.json["proposal"]
    new_id = proposal["next_game_id"]
    assert proposal["status"] == "opened" and new_id and new_id != game_id
    assert seats(client, new_id) == [(b.id, ["red"]), (c.id, ["green"]), (a.id, ["blue"])]
    view = client.get(f"/api/v1/games/{new_id}").json
    assert view["status"] == "open"
    assert view["time_control"] == client.get(f"/api/v1/games/{game_id}").json["time_control"]
    events = client.get(f"/api/v1/games/{new_id}/events").json["events"]
    created = events[0]
    assert created["type"] == "GameCreated"
    assert created["data"]["options"]["first_seat"] == 2
    joins = [e for e in events if e["type"] == "PlayerJoined"]
    assert [e["data"]["entropy"] for e in joins] == ["", "c's dice", "a's dice"]
    # each seat was taken in its player's own name (RM6)
    assert [e["metadata"]["actor"]["account"] for e in joins] == [b.id, c.id, a.id]
    # and the two games link to each other (RM7)
    assert client.get(f"/api/v1/games/{new_id}/rematch").json["previous_game_id"] == game_id
    assert client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"]["next_game_id"] == new_id
    # any player starts it
    assert b.post(f"/games/{new_id}/start").status_code == 200


def test_rm5_accepting_twice_is_refused_and_changes_nothing(client):
    game_id, (a, b, _c) = finished(client, ["blue", "red", "green"], seed=4)
    a.post(f"/games/{game_id}/rematch")
    assert b.post(f"/games/{game_id}/rematch/accept").status_code == 200
    r = b.post(f"/games/{game_id}/rematch/accept")
    assert r.status_code == 409 and r.json["code"] == "already_answered" and r.json["rule"] == "RM5"
    r = a.post(f"/games/{game_id}/rematch/accept")
    assert r.json["code"] == "already_answered"
    r = b.post(f"/games/{game_id}/rematch/decline")
    assert r.status_code == 409 and r.json["code"] == "already_answered"
    proposal = client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"]
    assert proposal["status"] == "open"
    assert [p["answer"] for p in proposal["players"]] == ["accepted", "waiting", "accepted"]


def test_rm1_a_stranger_and_an_auditor_cannot_propose_or_answer(client, ended):
    game_id, (a, _) = ended
    stranger = Player(client, "stranger")
    r = stranger.post(f"/games/{game_id}/rematch")
    assert r.status_code == 403 and r.json["code"] == "not_a_player_of_game"
    assert r.json["rule"] == "RM1"
    a.post(f"/games/{game_id}/rematch")
    r = stranger.post(f"/games/{game_id}/rematch/accept")
    assert r.status_code == 403 and r.json["code"] == "not_a_player_of_game"
    assert client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"]["status"] == "open"


def test_rm2_a_game_not_finished_takes_no_rematch(client):
    game_id, (a, _) = open_game(client, ["blue", "red"])
    r = a.post(f"/games/{game_id}/rematch")
    assert (
        r.status_code == 409 and r.json["code"] == "game_not_finished" and r.json["rule"] == "RM2"
    )
    assert client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"] is None


def test_rm3_a_second_proposal_while_one_is_open_is_refused(client, ended):
    game_id, (a, b) = ended
    assert a.post(f"/games/{game_id}/rematch").status_code == 201
    r = b.post(f"/games/{game_id}/rematch")
    assert r.status_code == 409 and r.json["code"] == "rematch_pending" and r.json["rule"] == "RM3"
    r = a.post(f"/games/{game_id}/rematch")
    assert r.json["code"] == "rematch_pending"


def test_rm3_answering_when_nobody_proposed_is_404(client, ended):
    game_id, (_, b) = ended
    r = b.post(f"/games/{game_id}/rematch/accept")
    assert r.status_code == 404 and r.json["code"] == "no_rematch"


def test_rm5_a_declined_proposal_takes_no_acceptance_and_opens_nothing(client):
    game_id, (a, b, c) = finished(client, ["blue", "red", "green"], seed=5)
    a.post(f"/games/{game_id}/rematch")
    r = b.post(f"/games/{game_id}/rematch/decline")
    assert r.status_code == 200 and r.json["proposal"]["status"] == "declined"
    assert [p["answer"] for p in r.json["proposal"]["players"]] == [
        "declined",
        "waiting",
        "accepted",
    ]
    r = c.post(f"/games/{game_id}/rematch/accept")
    assert r.status_code == 409 and r.json["code"] == "rematch_declined" and r.json["rule"] == "RM5"
    assert client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"]["next_game_id"] is None
    # RM3: after a decline, a new proposal is a new round
    r = c.post(f"/games/{game_id}/rematch")
    assert r.status_code == 201 and r.json["proposal"]["round"] == 2
    assert r.json["proposal"]["status"] == "open"


def test_rm3_once_a_rematch_is_opened_no_other_is_proposed(client, ended):
    game_id, (a, b) = ended
    a.post(f"/games/{game_id}/rematch")
    b.post(f"/games/{game_id}/rematch/accept")
    r = b.post(f"/games/{game_id}/rematch")
    assert r.status_code == 409 and r.json["code"] == "rematch_opened"


def test_rm5_bad_entropy_and_unknown_fields_are_422(client, ended):
    game_id, (a, _) = ended
    r = a.post(f"/games/{game_id}/rematch", {"entropy": "x" * 257})
    assert r.status_code == 422
    r = a.post(f"/games/{game_id}/rematch", {"seats": 3})
    assert r.status_code == 422
    assert client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"] is None


def test_rm7_an_unknown_game_has_no_rematch(client):
    assert client.get("/api/v1/games/nosuchgame/rematch").status_code == 404


def test_rm6_an_opening_cut_short_is_finished_by_the_next_look_and_not_repeated(
    client, app, ended, monkeypatch
):
    game_id, (a, b) = ended
    rematches = app.extensions["tongiaki.services"].rematches
    a.post(f"/games/{game_id}/rematch")
    # given the last acceptance counted, but the process dies before the game is opened
    opening_cut_short(rematches, monkeypatch, b, game_id)
    # a look soon after leaves it to the opening that may still run
    assert client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"]["status"] == "accepted"
    r = b.post(f"/games/{game_id}/rematch/accept")
    assert r.status_code == 409 and r.json["code"] == "already_answered"
    # when it has stalled, the next look opens the game, once
    stalled(rematches)
    proposal = client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"]
    assert proposal["status"] == "opened" and proposal["next_game_id"]
    again = client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"]
    assert again["next_game_id"] == proposal["next_game_id"]
    assert seats(client, proposal["next_game_id"]) == [(b.id, ["red"]), (a.id, ["blue"])]


def at_once(app, *calls):
    """POST ``(player, path)`` pairs from threads released together, each with a client
    of its own; their answers in order."""
    import threading

    gate = threading.Barrier(len(calls))
    answers = [None] * len(calls)

    def send(i, player, path):
        own = Player.__new__(Player)
        own.client, own.headers = app.test_client(), player.headers
        gate.wait()
        answers[i] = own.post(path)

    threads = [threading.Thread(target=send, args=(i, *c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def test_rm8_two_acceptances_at_once_open_one_game(client, app):
    game_id, (a, b, c) = finished(client, ["blue", "red", "green"], seed=6)
    a.post(f"/games/{game_id}/rematch")
    path = f"/games/{game_id}/rematch/accept"
    answers = at_once(app, (b, path), (c, path))
    assert [r.status_code for r in answers] == [200, 200], [r.json for r in answers]
    proposal = client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"]
    assert proposal["status"] == "opened"
    games = client.get("/api/v1/games").json["games"]
    assert sorted(g["game_id"] for g in games) == sorted([game_id, proposal["next_game_id"]])
    assert len(seats(client, proposal["next_game_id"])) == 3


def test_rm8_an_acceptance_racing_a_decline_has_one_outcome(client, app, ended):
    game_id, (a, b) = ended
    for round_ in range(1, 6):
        assert a.post(f"/games/{game_id}/rematch").status_code == 201
        yes, no = at_once(
            app, (b, f"/games/{game_id}/rematch/accept"), (b, f"/games/{game_id}/rematch/decline")
        )
        proposal = client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"]
        assert proposal["round"] == round_
        if yes.status_code == 200:
            assert no.json["code"] == "already_answered" and proposal["status"] == "opened"
            break
        assert yes.json["code"] == "rematch_declined" and no.status_code == 200
        assert proposal["status"] == "declined" and proposal["next_game_id"] is None
    games = client.get("/api/v1/games").json["games"]
    assert len(games) == (2 if proposal["status"] == "opened" else 1)
