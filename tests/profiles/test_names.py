"""Changing one's name (docs/profiles.md, P3–P5) on SQLite, PostgreSQL and the in-memory
store: the current name shown where names are looked up, the record's kept; bounds; a
change racing a change."""

from __future__ import annotations

import threading

from service.profiles.names import MOST_PER_DAY
from tests.profiles.helpers import move, profile, rename
from tests.service.api import all_events as events_of
from tests.service.api import open_game


def test_p3_given_moves_under_a_name_when_it_changes_then_pages_show_the_new_and_events_the_old(
    client,
):
    # given: ann moves as "player-blue"
    game_id, (ann, bob) = open_game(client, ["blue", "red"])
    while client.get(f"/api/v1/games/{game_id}/legal").json["player_id"] != ann.id:
        move(client, game_id, [ann, bob])
    move(client, game_id, [ann, bob])
    # when: she becomes "Ann Ōtaki 🌊"
    r = rename(ann, "  Ann Ōtaki 🌊 ")
    # then: the answer, /me, her profile and the game's seats say the new name
    assert r.status_code == 200 and r.json == {"account_id": ann.id, "name": "Ann Ōtaki 🌊"}
    assert ann.get("/me").json["name"] == "Ann Ōtaki 🌊"
    assert profile(client, ann.id).json["name"] == "Ann Ōtaki 🌊"
    game = client.get(f"/api/v1/games/{game_id}").json
    assert "Ann Ōtaki 🌊" in str(game)
    # and the record keeps the name each command was sent under
    before = {
        e["metadata"]["actor"].get("name")
        for e in events_of(client, game_id)
        if e["metadata"]["actor"].get("account") == ann.id
    }
    assert before == {"player-blue"}
    while client.get(f"/api/v1/games/{game_id}/legal").json["player_id"] != ann.id:
        move(client, game_id, [ann, bob])
    move(client, game_id, [ann, bob])
    after = [
        e["metadata"]["actor"].get("name")
        for e in events_of(client, game_id)
        if e["metadata"]["actor"].get("account") == ann.id
    ]
    assert after[0] == "player-blue" and after[-1] == "Ann Ōtaki 🌊"
    assert client.get(f"/api/v1/games/{game_id}/verify").json["ok"] is True


def test_p3_a_client_that_saw_another_name_is_told_it_changed(client):
    _, (ann, _) = open_game(client, ["blue", "red"])
    assert rename(ann, "Ann", was="player-blue").status_code == 200
    r = rename(ann, "Annie", was="player-blue")
    assert r.status_code == 409 and r.json["code"] == "name_changed" and r.json["rule"] == "P3"
    assert r.json["name"] == "Ann"
    assert ann.get("/me").json["name"] == "Ann"
    assert rename(ann, "Ann").status_code == 200  # the same name: nothing changes


def test_p3_two_changes_at_once_leave_exactly_one_name(client, app):
    _, (ann, _) = open_game(client, ["blue", "red"])
    clients = [app.test_client(), app.test_client()]
    wanted = ["First", "Second"]
    answers: list = [None, None]
    start = threading.Barrier(2)

    def change(i: int) -> None:
        start.wait()
        answers[i] = clients[i].put(
            "/api/v1/me/name", json={"name": wanted[i], "was": "player-blue"},
            headers=ann.headers,
        )  # fmt: skip

    threads = [threading.Thread(target=change, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200, 409], [a.json for a in answers]
    winner = next(a for a in answers if a.status_code == 200).json["name"]
    loser = next(a for a in answers if a.status_code == 409).json
    assert loser["code"] == "name_changed"
    assert ann.get("/me").json["name"] == winner


def test_p4_names_that_do_not_show_what_they_say_are_refused_and_change_nothing(client):
    _, (ann, _) = open_game(client, ["blue", "red"])
    for bad in (
        "",
        "   ",
        "x" * 65,
        "evil\u202egnp.exe",  # a bidirectional override
        "a\u2066b",  # an isolate
        "zero\u200bwidth",  # a zero-width space
        "soft\u00adhyphen",
        "line\nbreak",
        "tab\there",
        "\u3164",  # a Hangul filler: nothing visible
    ):
        r = rename(ann, bad)
        assert r.status_code == 422, (bad, r.json)
        assert r.json["code"] in ("bad_name", "invalid_fields")
        assert r.headers["Content-Type"] == "application/problem+json"
    r = rename(ann, "Deleted Player 3f2a")
    assert r.status_code == 409 and r.json["code"] == "name_reserved" and r.json["rule"] == "P4"
    for bad in ({"name": 5}, {"name": "ok", "extra": 1}, {}):
        r = ann.client.put("/api/v1/me/name", json=bad, headers=ann.headers)
        assert r.status_code == 422, r.json
    assert client.put("/api/v1/me/name", json={"name": "x"}).status_code == 401
    assert ann.get("/me").json["name"] == "player-blue"
    assert rename(ann, "Zoë‍👩‍💻").status_code == 200  # joiners that emoji need are fine


def test_p4_the_service_refuses_what_the_schema_lets_through(client):
    _, (ann, _) = open_game(client, ["blue", "red"])
    r = rename(ann, "a\u200fb")  # a right-to-left mark: printable to the schema
    assert r.status_code == 422 and r.json["code"] == "bad_name" and r.json["rule"] == "P4"


def test_p5_a_sixth_change_in_a_day_is_refused_with_when_to_retry(client):
    _, (ann, _) = open_game(client, ["blue", "red"])
    for i in range(MOST_PER_DAY):
        assert rename(ann, f"name {i}").status_code == 200
    r = rename(ann, "one too many")
    assert r.status_code == 429 and r.json["code"] == "too_many_renames"
    assert r.json["rule"] == "P5" and int(r.headers["Retry-After"]) > 0
    assert ann.get("/me").json["name"] == f"name {MOST_PER_DAY - 1}"
    # sending the current name changes nothing, so it is no sixth change (P3)
    same = rename(ann, f"name {MOST_PER_DAY - 1}")
    assert same.status_code == 200 and same.json["name"] == f"name {MOST_PER_DAY - 1}"


def test_p5_changes_in_one_millisecond_each_count(client):
    """A fast client's renames in one millisecond were kept as one row (the table's key
    is the account and the millisecond), so a sixth change in a day went through."""
    from freezegun import freeze_time

    _, (ann, _) = open_game(client, ["blue", "red"])
    with freeze_time("2026-12-06 10:00:00.123"):
        for i in range(MOST_PER_DAY):
            assert rename(ann, f"quick {i}").status_code == 200
        r = rename(ann, "one too many")
    assert r.status_code == 429 and r.json["code"] == "too_many_renames", r.json
    assert ann.get("/me").json["name"] == f"quick {MOST_PER_DAY - 1}"


def test_p4_a_deleted_accounts_name_cannot_be_faked_with_other_spaces_or_letters(client):
    """A probe was given "deleted\\u00a0player 1234" (a no-break space), full-width letters
    and doubled spaces: each reads as a deleted account's name (P7) and is refused."""
    _, (ann, _) = open_game(client, ["blue", "red"])
    for fake in (
        "deleted\u00a0player 1234",
        "Deleted\u2002Player",
        "\uff44eleted player",  # a full-width d
        " deleted  player",
        "DELETED PLAYER x",
    ):
        r = rename(ann, fake)
        assert r.status_code == 409 and r.json["code"] == "name_reserved", (fake, r.json)
    assert rename(ann, "Deleted Playwright").status_code == 200  # only the words themselves
