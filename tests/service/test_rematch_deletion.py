"""Rematches and deleted accounts (docs/invitations.md, RM9; docs/profiles.md, P7), on
SQLite and PostgreSQL: a rematch is the same table (RM4), so once a player of the game
has deleted their account none is proposed, and a proposal waiting for answers or for
its game is declined in the deleted account's name, never stuck."""

from __future__ import annotations

from tests.service.api import open_game, play_to_the_end
from tests.service.conftest import app_fixture
from tests.service.rematch_helpers import opening_cut_short, stalled

app = app_fixture("sqlite", "postgres")


def finished(client, colours, seed=3):
    game_id, players = open_game(client, colours)
    play_to_the_end(client, game_id, players, seed)
    return game_id, players


def delete(player, colour):
    r = player.post("/me/deletion", {"confirm": f"player-{colour}"})
    assert r.status_code == 200, r.json


def games_of(client):
    return client.get("/api/v1/games?limit=100").json["games"]


def test_rm9_given_a_deleted_player_when_another_proposes_then_it_is_refused(client):
    game_id, (a, b) = finished(client, ["blue", "red"])
    delete(b, "red")
    r = a.post(f"/games/{game_id}/rematch", {"entropy": "dice"})
    assert r.status_code == 409 and r.json["code"] == "player_gone" and r.json["rule"] == "RM9"
    assert client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"] is None


def test_rm9_an_open_proposal_is_declined_in_a_deleted_players_name(client):
    # given a proposal that two of three players accepted
    game_id, (a, b, c) = finished(client, ["blue", "red", "green"], seed=4)
    assert a.post(f"/games/{game_id}/rematch").status_code == 201
    assert b.post(f"/games/{game_id}/rematch/accept").status_code == 200
    listed = len(games_of(client))
    # when the third deletes their account
    delete(c, "green")
    # then the proposal reads declined by them, takes no acceptance and opens nothing
    proposal = client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"]
    assert proposal["status"] == "declined" and proposal["next_game_id"] is None
    answers = {p["player_id"]: p["answer"] for p in proposal["players"]}
    assert answers == {a.id: "accepted", b.id: "accepted", c.id: "declined"}
    r = b.post(f"/games/{game_id}/rematch/accept")
    assert r.status_code == 409 and r.json["code"] == "rematch_declined"
    r = a.post(f"/games/{game_id}/rematch")
    assert r.status_code == 409 and r.json["code"] == "player_gone"
    assert len(games_of(client)) == listed


def test_rm9_a_proposers_deletion_declines_the_proposal_before_the_last_acceptance(client):
    # given a proposal whose proposer then deleted their account
    game_id, (a, b) = finished(client, ["blue", "red"], seed=5)
    assert a.post(f"/games/{game_id}/rematch").status_code == 201
    delete(a, "blue")
    listed = len(games_of(client))
    # when the other player accepts (once the last acceptance, opening a game)
    r = b.post(f"/games/{game_id}/rematch/accept", {"entropy": "dice"})
    # then it is refused as declined, not left agreed and failing on every look
    assert r.status_code == 409 and r.json["code"] == "rematch_declined" and r.json["rule"] == "RM9"
    view = client.get(f"/api/v1/games/{game_id}/rematch")
    assert view.status_code == 200
    assert view.json["proposal"]["status"] == "declined"
    assert len(games_of(client)) == listed


def test_rm9_an_agreed_opening_cut_short_is_declined_once_a_player_is_gone(
    client, app, monkeypatch
):
    # given the last acceptance counted but the game not opened (a crash, RM6)
    game_id, (a, b) = finished(client, ["blue", "red"], seed=6)
    rematches = app.extensions["tongiaki.services"].rematches
    a.post(f"/games/{game_id}/rematch")
    opening_cut_short(rematches, monkeypatch, b, game_id)
    # when a player deletes their account before the next look finishes the opening
    delete(b, "red")
    stalled(rematches)
    listed = len(games_of(client))
    # then the look declines it in their name and opens no game
    proposal = client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"]
    assert proposal["status"] == "declined" and proposal["next_game_id"] is None
    assert {p["player_id"]: p["answer"] for p in proposal["players"]}[b.id] == "declined"
    assert len(games_of(client)) == listed
