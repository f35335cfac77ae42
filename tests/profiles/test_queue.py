"""The "my move" queue (docs/profiles.md, Q1–Q3) on SQLite, PostgreSQL and the in-memory
store; the profiles' read models rebuilt from the events give the same rows."""

from __future__ import annotations

from datetime import UTC, datetime

from service.play.accounts import create_account
from tests.profiles.helpers import move, whose_turn
from tests.service.api import Player, open_game, play_to_the_end


def table(client, first: Player, second: Player, **options) -> str:
    """A started game of two, ``first`` in seat 1 (its decision pending)."""
    game_id = first.post("/games", {"max_players": 2, **options}).json["game_id"]
    for p, colour in ((first, "blue"), (second, "red")):
        assert p.post(f"/games/{game_id}/seats", {"colour": colour}).status_code == 201
    assert first.post(f"/games/{game_id}/start").status_code == 200
    return game_id


def queue(player: Player, query: str = "") -> dict:
    r = player.get(f"/me/queue{query}")
    assert r.status_code == 200, r.json
    return r.json


def test_q1_q2_given_two_games_waiting_when_one_moves_on_then_the_longest_wait_comes_first(client):
    ann, bob = Player(client, "ann"), Player(client, "bob")
    # given: two games, each waiting for ann's setup placement, one opened before the other
    one = table(client, ann, bob)
    two = table(client, ann, bob)
    mine = queue(ann)
    assert [g["game_id"] for g in mine["games"]] == [one, two]
    assert mine["count"] == 2 and mine["next"] == f"/games/{one}"
    assert queue(bob) == {"count": 0, "next": None, "games": []}
    first = mine["games"][0]
    assert first["decision"] == "setup_placement" and first["colour"] == "blue"
    assert first["deadline"] is None and first["time_left_ms"] is None  # no clock (Q3)
    # when: ann places her boat in game one, then bob his
    move(client, one, [ann, bob])
    assert [g["game_id"] for g in queue(ann)["games"]] == [two]
    assert [g["game_id"] for g in queue(bob)["games"]] == [one]
    move(client, one, [ann, bob])
    # then: game one waits for ann again, since now: game two has waited longer
    again = queue(ann)
    assert [g["game_id"] for g in again["games"]] == [two, one]
    assert again["games"][0]["waiting_since"] < again["games"][1]["waiting_since"]
    limited = queue(ann, "?limit=1")
    assert limited["count"] == 2 and [g["game_id"] for g in limited["games"]] == [two]


def test_q3_a_timed_game_says_its_deadline_and_the_time_left(client):
    ann, bob = Player(client, "ann"), Player(client, "bob")
    game_id = table(client, ann, bob, time_control="move", move_seconds=3600)
    [waiting] = queue(ann)["games"]
    assert waiting["game_id"] == game_id and waiting["deadline"] is not None
    assert 3_590_000 < waiting["time_left_ms"] <= 3_600_000
    assert waiting["deadline"] > waiting["waiting_since"]


def test_q1_a_resigned_seat_a_paused_game_and_a_finished_game_wait_for_nobody(client, app):
    ann, bob = Player(client, "ann"), Player(client, "bob")
    paused = table(client, ann, bob)
    moved = move(client, paused, [ann, bob])  # now bob's
    assert [g["game_id"] for g in queue(bob)["games"]] == [paused]
    d = ann.post(f"/games/{paused}/disputes", {"reason": "misclick", "version": moved["version"]})
    store = app.extensions["tongiaki.games"].store
    _, token = create_account(store, "audrey", datetime.now(UTC), "auditor")
    r = client.post(
        f"/api/v1/games/{paused}/pause", json={"dispute_id": d.json["dispute_id"]},
        headers={"Authorization": f"Bearer {token}"},
    )  # fmt: skip
    assert r.status_code == 200
    assert queue(bob)["games"] == []  # paused (D7)
    cy, dee = Player(client, "cy"), Player(client, "dee")
    resigned = table(client, cy, dee)
    r = cy.post(f"/games/{resigned}/commands", {"type": "Resign", "player_id": cy.id})
    assert r.status_code == 200, r.json
    assert queue(cy)["games"] == []  # the bot plays the seat (C6)
    done, players = open_game(client, ["green", "yellow"])
    play_to_the_end(client, done, players, seed=2)
    assert all(queue(p)["games"] == [] for p in players)


def test_q1_refusals(client):
    ann = Player(client, "ann")
    assert client.get("/api/v1/me/queue").status_code == 401
    for query in ("?limit=0", "?limit=101", "?limit=x"):
        r = ann.get(f"/me/queue{query}")
        assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json"


def test_the_profiles_read_models_rebuilt_from_the_events_give_the_same_rows(client, app):
    ann, bob = Player(client, "ann"), Player(client, "bob")
    timed = table(client, ann, bob, time_control="move", move_seconds=600)
    for _ in range(5):
        move(client, timed, [ann, bob])
    done, players = open_game(client, ["green", "yellow"])
    play_to_the_end(client, done, players, seed=4)
    table(client, bob, ann)
    store = app.extensions["tongiaki.games"].store
    readmodels = app.extensions["tongiaki.readmodels"]

    def rows():
        with store.reading() as tx:
            return [
                sorted(map(tuple, tx.execute(f"SELECT * FROM {t}").fetchall()))
                for t in ("rm_profile_games", "rm_queue")
            ]

    before = rows()
    assert before[0] and before[1]
    readmodels.rebuild(["profiles"])
    assert rows() == before
    assert whose_turn(client, timed) in (ann.id, bob.id)
