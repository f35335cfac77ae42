"""Idempotency-Key, as in the IETF draft and Stripe: keys belong to (account, game),
carry a fingerprint of the request, and a replay answers exactly as the original."""

from __future__ import annotations

import threading

from tests.service.api import Player, open_game


def legal(client, game_id):
    return client.get(f"/api/v1/games/{game_id}/legal").json


def mover(players, body):
    return next(p for p in players if p.id == body["player_id"])


def others(players, body):
    return next(p for p in players if p.id != body["player_id"])


def test_a_retry_with_the_same_key_and_body_gets_the_original_answer(client):
    game_id, players = open_game(client, ["blue", "red"])
    body = legal(client, game_id)
    who, choice = mover(players, body), body["commands"][0]
    first = who.post(f"/games/{game_id}/commands", choice, **{"Idempotency-Key": "k1"})
    again = who.post(f"/games/{game_id}/commands", choice, **{"Idempotency-Key": "k1"})
    assert first.status_code == again.status_code == 200
    assert again.json["replayed"] and not first.json["replayed"]
    assert again.json["events"] == first.json["events"]
    assert again.json["receipt"] == first.json["receipt"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert legal(client, game_id)["version"] == first.json["version"]  # applied once


def test_the_same_key_with_another_body_is_refused_and_changes_nothing(client):
    game_id, players = open_game(client, ["blue", "red"])
    body = legal(client, game_id)
    who = mover(players, body)
    assert len(body["commands"]) > 1
    first = who.post(f"/games/{game_id}/commands", body["commands"][0], **{"Idempotency-Key": "k"})
    version = legal(client, game_id)["version"]
    other = who.post(f"/games/{game_id}/commands", body["commands"][1], **{"Idempotency-Key": "k"})
    assert first.status_code == 200
    assert (other.status_code, other.json["code"]) == (422, "idempotency_key_reused")
    assert other.content_type == "application/problem+json"
    assert legal(client, game_id)["version"] == version


def test_a_key_belongs_to_its_account_another_account_using_it_is_judged_afresh(client):
    game_id, players = open_game(client, ["blue", "red"])
    body = legal(client, game_id)
    who, idle = mover(players, body), others(players, body)
    refused = idle.post(
        f"/games/{game_id}/commands", body["commands"][0], **{"Idempotency-Key": "x"}
    )
    assert (refused.status_code, refused.json["code"]) == (403, "not_your_turn")
    accepted = who.post(
        f"/games/{game_id}/commands", body["commands"][0], **{"Idempotency-Key": "x"}
    )
    assert accepted.status_code == 200 and not accepted.json["replayed"]


def test_an_account_without_a_seat_cannot_poison_a_key_and_leaves_no_journal_entry(client):
    game_id, players = open_game(client, ["blue", "red"])
    stranger = Player(client, "stranger")
    body = legal(client, game_id)
    poison = stranger.post(
        f"/games/{game_id}/commands", {"type": "Nonsense"}, **{"Idempotency-Key": "p"}
    )
    assert (poison.status_code, poison.json["code"]) == (403, "not_seated")
    journal = players[0].get(f"/games/{game_id}/journal").json["commands"]
    assert all(c["actor"]["account"] != stranger.id for c in journal)
    move = mover(players, body).post(
        f"/games/{game_id}/commands", body["commands"][0], **{"Idempotency-Key": "p"}
    )
    assert move.status_code == 200


def test_a_replayed_refusal_keeps_its_status_and_code(client):
    game_id, players = open_game(client, ["blue", "red"])
    body = legal(client, game_id)
    who, idle = mover(players, body), others(players, body)
    cases = [
        (idle, body["commands"][0], 403, "not_your_turn"),
        (who, {"type": "Expand", "island": 7}, 422, "malformed_command"),
        (who, {"type": "StartGame"}, 409, "unexpected_command"),
    ]
    for n, (player, payload, status, code) in enumerate(cases):
        key = {"Idempotency-Key": f"r{n}"}
        first = player.post(f"/games/{game_id}/commands", payload, **key)
        again = player.post(f"/games/{game_id}/commands", payload, **key)
        assert (first.status_code, first.json["code"]) == (status, code), first.json
        assert (again.status_code, again.json["code"]) == (status, code), again.json
        assert again.json["detail"] == first.json["detail"] and again.json.get("replayed")


def test_a_replayed_stale_version_keeps_the_version_it_named(client):
    game_id, players = open_game(client, ["blue", "red"])
    body = legal(client, game_id)
    who = mover(players, body)
    headers = {"Idempotency-Key": "stale", "If-Match": '"1"'}
    first = who.post(f"/games/{game_id}/commands", body["commands"][0], **headers)
    again = who.post(f"/games/{game_id}/commands", body["commands"][0], **headers)
    assert (first.status_code, first.json["code"]) == (409, "stale_version")
    assert {k: v for k, v in again.json.items() if k != "replayed"} == first.json
    assert again.json["replayed"] and again.status_code == 409


def test_an_overlapping_retry_of_an_accepted_command_never_reports_failure(app, client):
    """The retry looks for the key before the original is journalled, then is judged
    after it was applied (a stale version, or no longer this move): it must still get
    the original's answer."""
    service = app.extensions["tongiaki.games"]
    game_id, players = open_game(client, ["blue", "red"])
    real = service.store.outcome
    for n, with_version in enumerate((True, False)):
        body = legal(client, game_id)
        who, choice = mover(players, body), body["commands"][0]
        headers = {"Idempotency-Key": f"o{n}"}
        if with_version:
            headers["If-Match"] = f'"{body["version"]}"'
        first = who.post(f"/games/{game_id}/commands", choice, **headers)
        assert first.status_code == 200
        service.store.outcome = lambda *a: None  # the lookup ran before the original landed
        try:
            again = who.post(f"/games/{game_id}/commands", choice, **headers)
        finally:
            service.store.outcome = real
        assert again.status_code == 200, again.json
        assert again.json["receipt"] == first.json["receipt"] and again.json["replayed"]


def test_concurrent_posts_with_one_key_apply_the_command_once(app, client):
    game_id, players = open_game(client, ["blue", "red"])
    body = legal(client, game_id)
    who, choice = mover(players, body), body["commands"][0]
    answers = []

    def post():
        c = app.test_client()
        r = c.post(
            f"/api/v1/games/{game_id}/commands",
            json=choice,
            headers={**who.headers, "Idempotency-Key": "same"},
        )
        answers.append((r.status_code, r.json.get("receipt")))

    threads = [threading.Thread(target=post) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {a for a, _ in answers} == {200}
    assert len({(r["version"], r["hash"]) for _, r in answers}) == 1
    journal = who.get(f"/games/{game_id}/journal").json["commands"]
    assert (
        sum(
            1
            for c in journal
            if c["outcome"] == "accepted" and c["first_version"] == body["version"] + 1
        )
        == 1
    )


def test_a_key_is_one_to_128_visible_ascii_characters(client):
    game_id, players = open_game(client, ["blue", "red"])
    body = legal(client, game_id)
    who = mover(players, body)
    for key in ("x" * 129, "a b", "é"):
        r = who.post(f"/games/{game_id}/commands", body["commands"][0], **{"Idempotency-Key": key})
        assert (r.status_code, r.json["code"]) == (422, "bad_idempotency_key"), key
    assert legal(client, game_id)["version"] == body["version"]


def test_seats_and_start_take_a_key_too(client):
    a, b = Player(client, "a"), Player(client, "b")
    game_id = a.post("/games", {"max_players": 2}).json["game_id"]
    seat = a.post(f"/games/{game_id}/seats", {"colour": "blue"}, **{"Idempotency-Key": "s"})
    again = a.post(f"/games/{game_id}/seats", {"colour": "blue"}, **{"Idempotency-Key": "s"})
    assert seat.status_code == again.status_code == 201 and again.json["replayed"]
    b.post(f"/games/{game_id}/seats", {"colour": "red"})
    start = b.post(f"/games/{game_id}/start", **{"Idempotency-Key": "go"})
    again = b.post(f"/games/{game_id}/start", **{"Idempotency-Key": "go"})
    assert start.status_code == again.status_code == 200
    assert again.json["receipt"] == start.json["receipt"]


def test_opening_a_game_with_a_key_twice_opens_one_game(client):
    ann = Player(client, "ann")
    body = {"max_players": 3}
    first = ann.post("/games", body, **{"Idempotency-Key": "open-1"})
    again = ann.post("/games", body, **{"Idempotency-Key": "open-1"})
    assert first.status_code == again.status_code == 201
    assert again.json["game_id"] == first.json["game_id"] and again.json["replayed"]
    assert again.json["receipt"] == first.json["receipt"]
    other = ann.post("/games", {"max_players": 4}, **{"Idempotency-Key": "open-1"})
    assert (other.status_code, other.json["code"]) == (422, "idempotency_key_reused")
    bob = Player(client, "bob").post("/games", body, **{"Idempotency-Key": "open-1"})
    assert bob.status_code == 201 and bob.json["game_id"] != first.json["game_id"]
    mine = [g for g in client.get("/api/v1/games").json["games"]]
    assert len(mine) == 2


def test_if_match_and_expected_version_must_agree(client):
    game_id, players = open_game(client, ["blue", "red"])
    body = legal(client, game_id)
    who = mover(players, body)
    r = who.post(
        f"/games/{game_id}/commands",
        {**body["commands"][0], "expected_version": body["version"] - 1},
        **{"If-Match": f'"{body["version"]}"'},
    )
    assert (r.status_code, r.json["code"]) == (422, "conflicting_versions")
    assert legal(client, game_id)["version"] == body["version"]


def test_the_journal_keeps_a_refusals_kind_and_rows_that_kept_a_status_replay_the_same(client):
    """The application says what went wrong (a kind), the HTTP layer which status that
    is (issue 27): the journal stores the kind; a row written before, with the status it
    was answered, replays exactly as it did."""
    import pytest

    from service.errors import Conflict, Forbidden
    from service.http.statuses import status_of
    from service.store.base import JournalEntry

    game_id, players = open_game(client, ["blue", "red"])
    body = legal(client, game_id)
    idle = others(players, body)
    refused = idle.post(f"/games/{game_id}/commands", body["commands"][0])
    assert refused.status_code == 403
    journal = idle.get(f"/games/{game_id}/journal").json["commands"]
    last = journal[-1]["rejection"]
    assert last["kind"] == "forbidden" and "status" not in last
    games = client.application.extensions["tongiaki.games"]
    for rejection, error in [
        ({"code": "not_your_turn", "message": "m", "status": 403}, Forbidden),
        ({"code": "x", "message": "m", "status": 409}, Conflict),
        ({"code": "x", "message": "m"}, Conflict),  # the oldest rows: a refusal was a 409
        ({"code": "x", "message": "m", "kind": "forbidden"}, Forbidden),
    ]:
        old = JournalEntry(game_id, "c", {}, "t", {}, 1, "rejected", rejection=rejection)
        with pytest.raises(error) as raised:
            games.receipts.replayed(old, None)
        assert raised.value.code == rejection["code"] and raised.value.extra["replayed"]
        assert status_of(raised.value) == rejection.get("status", status_of(error))
