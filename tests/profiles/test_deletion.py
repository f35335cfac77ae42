"""An account deleting itself (docs/profiles.md, P6–P9) on SQLite, PostgreSQL and the
in-memory store: confirmed, final, its games kept and still verifying."""

from __future__ import annotations

from datetime import UTC, datetime

from service.audit.verify import verify_game
from service.play.accounts import create_account
from tests.profiles.helpers import delete, move, profile
from tests.service.api import Player, open_game, play_to_the_end


def test_p6_given_a_wrong_confirmation_when_deleting_then_nothing_happens(client):
    _, (ann, _) = open_game(client, ["blue", "red"])
    for confirm in ("", "player-blu", "PLAYER-BLUE", "player-blue "):
        r = delete(ann, confirm)
        assert r.status_code == 422, r.json
        assert r.json["code"] == "confirmation_mismatch" and r.json["rule"] == "P6"
    for bad in ({}, {"confirm": 3}, {"confirm": "x" * 65}, {"confirm": "a", "more": 1}):
        assert ann.post("/me/deletion", bad).status_code == 422
    assert client.post("/api/v1/me/deletion", json={"confirm": "x"}).status_code == 401
    assert ann.get("/me").json["name"] == "player-blue"


def test_p6_an_open_table_or_an_auditor_cannot_be_deleted_this_way(client, app):
    ann = Player(client, "ann")
    game_id = ann.post("/games", {"max_players": 2}).json["game_id"]
    assert ann.post(f"/games/{game_id}/seats", {"colour": "blue"}).status_code == 201
    r = delete(ann, "ann")
    assert r.status_code == 409 and r.json["code"] == "seated_at_open_table"
    assert r.json["rule"] == "P6" and r.json["games"] == [game_id]
    assert ann.get("/me").status_code == 200
    store = app.extensions["tongiaki.games"].store
    _, token = create_account(store, "audrey", datetime.now(UTC), "auditor")
    r = client.post(
        "/api/v1/me/deletion", json={"confirm": "audrey"},
        headers={"Authorization": f"Bearer {token}"},
    )  # fmt: skip
    assert r.status_code == 403 and r.json["code"] == "not_a_player"


def test_p6_a_game_an_auditor_paused_waits_for_its_ruling(client, app):
    game_id, (ann, bob) = open_game(client, ["blue", "red"])
    moved = move(client, game_id, [ann, bob])
    d = ann.post(f"/games/{game_id}/disputes", {"reason": "misclick", "version": moved["version"]})
    store = app.extensions["tongiaki.games"].store
    _, token = create_account(store, "audrey", datetime.now(UTC), "auditor")
    r = client.post(
        f"/api/v1/games/{game_id}/pause", json={"dispute_id": d.json["dispute_id"]},
        headers={"Authorization": f"Bearer {token}"},
    )  # fmt: skip
    assert r.status_code == 200, r.json
    r = delete(bob, "player-red")
    assert r.status_code == 409 and r.json["code"] == "game_paused" and r.json["games"] == [game_id]


def test_p7_to_p9_given_games_when_an_account_deletes_itself_then_they_stay_and_verify(client, app):
    # given: ann finished a game with bob, plays another, keeps a note and a token
    done, (ann, bob) = open_game(client, ["blue", "red"])
    play_to_the_end(client, done, [ann, bob], seed=11)
    running, (cy, dee) = open_game(client, ["green", "yellow"])
    move(client, running, [cy, dee])
    note = cy.client.put(
        f"/api/v1/games/{running}/notes/game", json={"text": "mine"}, headers=cy.headers
    )
    assert note.status_code == 200
    extra = cy.post("/me/tokens", {"name": "bot"}).json["token"]
    # when: cy deletes the account, typing its name
    r = delete(cy, "player-green")
    # then (P7): an anonymous name, the games kept under it
    assert r.status_code == 200, r.json
    anonymous = f"deleted player {cy.id[:4]}"
    assert r.json == {"account_id": cy.id, "name": anonymous, "resigned": [running]}
    page = profile(client, cy.id).json
    assert page["name"] == anonymous and page["deleted"] is True and page["since"] is None
    assert page["counts"]["running"] + page["counts"]["finished"] == 1
    assert anonymous in str(client.get(f"/api/v1/games/{running}").json)
    # (P8) no way in is left: the first token, another, the notes are gone
    for token in (cy.token, extra):
        r = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401 and r.json["code"] == "bad_token"
    store = app.extensions["tongiaki.games"].store
    with store.reading() as tx:
        left = tx.execute(
            "SELECT COUNT(*) FROM player_notes WHERE account_id = %s", (cy.id,)
        ).fetchall()
        creds = tx.execute(
            "SELECT COUNT(*) FROM identity_credentials WHERE account_id = %s", (cy.id,)
        ).fetchall()
    assert left[0][0] == 0 and creds[0][0] == 0
    # (P9) the seat is resigned (the bot plays on for it), the record says by whom
    events = client.get(f"/api/v1/games/{running}/events?limit=1000").json["events"]
    resigned = [e for e in events if e["type"] == "PlayerResigned"]
    assert len(resigned) == 1 and resigned[0]["metadata"]["actor"]["name"] == anonymous
    # every game of the account still verifies, before and after it is played out
    for game_id in (done, running):
        report = verify_game(store, game_id)
        assert report.ok, report.problems
    # a deletion is final: nothing answers for the account again
    assert delete(cy, "player-green").status_code == 401
    # the other players' games go on, and verify
    assert client.get(f"/api/v1/accounts/{ann.id}/profile").json["name"] == "player-blue"


def test_p9_a_deletion_that_leaves_nobody_ends_the_game_and_it_verifies(client, app):
    game_id, (ann, bob) = open_game(client, ["blue", "red"])
    move(client, game_id, [ann, bob])
    assert delete(ann, "player-blue").status_code == 200
    assert delete(bob, "player-red").status_code == 200
    state = client.get(f"/api/v1/games/{game_id}").json
    assert state["status"] == "ended", state.keys()
    report = verify_game(app.extensions["tongiaki.games"].store, game_id)
    assert report.ok, report.problems
