"""A deletion racing a seat, a rename, a rematch; a decline racing a seat (docs/profiles.md
P6, docs/invitations.md I5, RM9), on SQLite, PostgreSQL and the in-memory store.

A new user's probe found, under real concurrency, a deleted account seated at a league
table, in a rematch and at an open table, and an invitee both declined and seated. Each
race is replayed here in the order that broke, step by step (one request made to land
in the middle of the other), so the test fails the same way every time the fix is gone:
a deletion first makes the account take no seat (the store refuses a seat for it, in
the seat's own transaction), then looks for its seats; a decline and a seat each look
for the other once written."""

from __future__ import annotations

from service.errors import ServiceError
from tests.profiles.helpers import delete, rename
from tests.service.api import Player, open_game, play_to_the_end


def services(app):
    return app.extensions["tongiaki.services"]


def test_p6_a_seat_asked_for_once_the_deletion_began_is_refused_and_none_is_left(
    client, app, monkeypatch
):
    # given Ann deleting her account, and a table open that she is about to sit at:
    # her seat request has passed its checks (her account, as it was, a player's)
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    game_id = bob.post("/games", {"max_players": 2}).json["game_id"]
    store, games = services(app).store, services(app).games
    as_she_was = store.account(ann.id)
    deletion = services(app).profiles.deletion
    seated = deletion._seated
    refused = []

    def then_a_seat(account_id):
        # when her seat lands while the deletion looks for her seats
        try:
            games.join(game_id, as_she_was, ["red"], "")
        except ServiceError as exc:
            refused.append(exc)
        return seated(account_id)

    monkeypatch.setattr(deletion, "_seated", then_a_seat)
    assert delete(ann, "Ann").status_code == 200
    # then the seat is refused and the table has no deleted player at it
    assert [(e.code, e.extra.get("rule")) for e in refused] == [("account_deleted", "P6")]
    assert client.get(f"/api/v1/games/{game_id}").json["players"] == []


def test_p6_a_seat_taken_just_before_the_deletion_began_is_found_by_it(client, app, monkeypatch):
    # given Ann's seat at an open table landing as her deletion begins
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    game_id = bob.post("/games", {"max_players": 2}).json["game_id"]
    store = services(app).store
    change = store.change_kind

    def seat_first(account_id, name, expected, kind):
        if kind == "deleting":  # as the deletion begins (not as it is taken back)
            r = ann.post(f"/games/{game_id}/seats", {"colour": "red"})
            assert r.status_code == 201, r.json
        return change(account_id, name, expected, kind)

    monkeypatch.setattr(store, "change_kind", seat_first)
    # when the deletion goes on, then it finds the seat and refuses, keeping the account
    r = delete(ann, "Ann")
    assert r.status_code == 409 and r.json["code"] == "seated_at_open_table", r.json
    assert store.account(ann.id).kind == "player"
    assert ann.get("/me/games").status_code == 200


def test_p6_a_rename_landing_before_the_deletion_began_makes_the_confirmation_stale(
    client, app, monkeypatch
):
    ann = Player(client, "Ann")
    store = services(app).store
    change = store.change_kind

    def renamed_first(*args):
        assert store.rename_account(ann.id, "Ann", "Ann Two") is True
        return change(*args)

    monkeypatch.setattr(store, "change_kind", renamed_first)
    r = delete(ann, "Ann")
    assert r.status_code == 422 and r.json["code"] == "confirmation_mismatch", r.json
    monkeypatch.setattr(store, "change_kind", change)
    assert store.account(ann.id).kind == "player"
    # the name now is what confirms
    assert delete(ann, "Ann Two").status_code == 200
    assert rename(ann, "Back").status_code in (401, 403)


def test_p6_the_store_refuses_a_seat_for_an_account_being_deleted(client, app):
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    game_id = bob.post("/games", {"max_players": 2}).json["game_id"]
    store = services(app).store
    account = store.account(ann.id)
    assert store.change_kind(ann.id, "Ann", "player", "deleting") is True
    before = client.get(f"/api/v1/games/{game_id}").json["version"]
    from service.store.base import AccountGone

    try:
        services(app).games.join(game_id, account, ["red"], "")
    except Exception as exc:  # the service's refusal, journalled
        assert getattr(exc, "code", None) == "account_deleted", exc
        assert not isinstance(exc, AccountGone)
    else:
        raise AssertionError("a seat was taken for an account being deleted")
    assert client.get(f"/api/v1/games/{game_id}").json["version"] == before
    assert store.change_kind(ann.id, "Ann", "deleting", "player") is True
    services(app).games.join(game_id, store.account(ann.id), ["red"], "")
    assert client.get(f"/api/v1/games/{game_id}").json["version"] == before + 1


def test_rm9_a_player_deleted_while_the_rematch_opens_leaves_it_declined(client, app, monkeypatch):
    # given a finished game whose rematch two of three players accepted
    game_id, (a, b, c) = open_game(client, ["blue", "red", "green"])
    play_to_the_end(client, game_id, [a, b, c], 4)
    assert a.post(f"/games/{game_id}/rematch").status_code == 201
    assert b.post(f"/games/{game_id}/rematch/accept").status_code == 200
    rematches = services(app).rematches
    cancelled = rematches._cancelled
    store = services(app).store

    def deleted_after_the_check(found, state):
        outcome = cancelled(found, state)
        if found.status == "accepted":  # when c's deletion begins once the check passed
            assert store.change_kind(c.id, "player-green", "player", "deleting") is True
        return outcome

    monkeypatch.setattr(rematches, "_cancelled", deleted_after_the_check)
    # when c's acceptance, the last, opens the game
    c.post(f"/games/{game_id}/rematch/accept")
    # then the proposal is declined in c's name and c sits in no new game
    monkeypatch.setattr(rematches, "_cancelled", cancelled)
    proposal = client.get(f"/api/v1/games/{game_id}/rematch").json["proposal"]
    assert proposal["status"] == "declined" and proposal["next_game_id"] is None
    for listed in client.get("/api/v1/games?limit=100").json["games"]:
        seats = client.get(f"/api/v1/games/{listed['game_id']}").json["players"]
        if listed["game_id"] != game_id:
            assert c.id not in [p["player_id"] for p in seats]


def test_i5_a_decline_landing_as_the_seat_is_taken_leaves_the_invitee_seated(
    client, app, monkeypatch
):
    # given Tane invited to a private table with a link
    hina, tane = Player(client, "Hina"), Player(client, "Tane")
    r = hina.post("/tables", {"max_players": 2, "invite": [tane.id], "link": True})
    game_id = r.json["game_id"]
    invitations = services(app).invitations
    admit = invitations.admit_seat

    def declined_meanwhile(*args):
        admit(*args)  # the seat is admitted, then the decline lands before it is written
        assert invitations.table.decline(game_id, tane.id, "2026-12-06T00:00:00+00:00")

    monkeypatch.setattr(invitations, "admit_seat", declined_meanwhile)
    assert tane.post(f"/games/{game_id}/seats", {"colour": "red"}).status_code == 201
    # then one outcome: seated, the decline taken back
    answers = hina.get(f"/games/{game_id}/invitations").json["invitations"]
    assert [(i["account_id"], i["status"]) for i in answers] == [(tane.id, "invited")]


def test_i5_a_seat_landing_as_the_decline_is_written_makes_the_decline_already_seated(
    client, app, monkeypatch
):
    hina, tane = Player(client, "Hina"), Player(client, "Tane")
    game_id = hina.post("/tables", {"max_players": 2, "invite": [tane.id]}).json["game_id"]
    invitations = services(app).invitations
    decline = invitations.table.decline

    def seated_meanwhile(*args):
        done = decline(*args)
        invitations.games.join(game_id, services(app).store.account(tane.id), ["red"], "")
        return done

    monkeypatch.setattr(invitations.table, "decline", seated_meanwhile)
    r = tane.post(f"/games/{game_id}/invitations/decline")
    assert r.status_code == 409 and r.json["code"] == "already_seated", r.json
    answers = hina.get(f"/games/{game_id}/invitations").json["invitations"]
    assert [(i["account_id"], i["status"]) for i in answers] == [(tane.id, "invited")]
