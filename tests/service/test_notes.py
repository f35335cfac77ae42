"""Private notes (docs/notes.md, N1–N6) through the API, on SQLite, PostgreSQL and the
in-memory store: the same rules on every store."""

from __future__ import annotations

import pytest

from service.notes.service import MAX_TEXT, MOST_PER_GAME
from tests.service.api import Player, open_game
from tests.service.conftest import app_fixture

app = app_fixture("sqlite", "postgres", "memory")


def put(player: Player, path: str, text: str):
    return player.client.put(f"/api/v1{path}", json={"text": text}, headers=player.headers)


def delete(player: Player, path: str):
    return player.client.delete(f"/api/v1{path}", headers=player.headers)


@pytest.fixture
def game(client):
    game_id, players = open_game(client, ["blue", "red"])
    return game_id, players


def test_a_seated_player_writes_reads_lists_and_deletes_their_notes(client, game):
    game_id, (alice, _) = game
    r = put(alice, f"/games/{game_id}/notes/game", "Keep an eye on red's\nexpansions.")
    assert r.status_code == 200, r.json
    assert r.json["version"] is None and r.json["text"] == "Keep an eye on red's\nexpansions."
    r = put(alice, f"/games/{game_id}/notes/1", "the game was created here")
    assert r.status_code == 200 and r.json["version"] == 1
    assert alice.get(f"/games/{game_id}/notes/game").json["text"].startswith("Keep")
    listed = alice.get(f"/games/{game_id}/notes").json["notes"]
    assert [(n["version"], n["text"][:4]) for n in listed] == [(None, "Keep"), (1, "the ")]
    assert delete(alice, f"/games/{game_id}/notes/1").status_code == 204
    r = alice.get(f"/games/{game_id}/notes/1")
    assert r.status_code == 404 and r.json["code"] == "no_note"
    assert delete(alice, f"/games/{game_id}/notes/1").status_code == 404


def test_the_last_writer_wins_and_the_first_writing_time_is_kept(client, game):
    game_id, (alice, _) = game
    first = put(alice, f"/games/{game_id}/notes/game", "one").json
    second = put(alice, f"/games/{game_id}/notes/game", "two").json
    assert second["text"] == "two" and second["created_at"] == first["created_at"]
    assert alice.get(f"/games/{game_id}/notes/game").json["text"] == "two"


def test_another_account_can_read_nothing_and_write_nothing_n1(client, game):
    game_id, (alice, bob) = game
    put(alice, f"/games/{game_id}/notes/game", "private to alice")
    # the opponent is seated: their own notes only, alice's are not theirs to see
    r = bob.get(f"/games/{game_id}/notes/game")
    assert r.status_code == 404 and r.json["code"] == "no_note"
    assert bob.get(f"/games/{game_id}/notes").json["notes"] == []
    assert bob.get("/me/export").json["notes"] == []
    # an account not at the game is refused, whatever it asks (N1)
    carol = Player(client, "carol")
    for r in (
        carol.get(f"/games/{game_id}/notes"),
        carol.get(f"/games/{game_id}/notes/game"),
        put(carol, f"/games/{game_id}/notes/game", "a note on a game I am not in"),
        delete(carol, f"/games/{game_id}/notes/game"),
    ):
        assert r.status_code == 403 and r.json["code"] == "not_seated" and r.json["rule"] == "N1"
        assert r.headers["Content-Type"] == "application/problem+json"
    # nobody without an account
    assert client.get(f"/api/v1/games/{game_id}/notes/game").status_code == 401


def test_an_auditor_reads_no_notes_n1(client, app, game):
    game_id, (alice, _) = game
    put(alice, f"/games/{game_id}/notes/game", "private")
    from service.play.accounts import create_account

    service = app.extensions["tongiaki.games"]
    _, token = create_account(service.store, "auditor", service.clock(), kind="auditor")
    r = client.get(
        f"/api/v1/games/{game_id}/notes/game", headers={"Authorization": f"Bearer {token}"}
    )
    assert r.status_code == 403 and r.json["rule"] == "N1"


def test_a_note_is_on_a_version_the_game_has_n2(client, game):
    game_id, (alice, _) = game
    head = client.get(f"/api/v1/games/{game_id}").json["version"]
    r = put(alice, f"/games/{game_id}/notes/{head + 1}", "the future")
    assert r.status_code == 404 and r.json["code"] == "unknown_version" and r.json["rule"] == "N2"
    assert put(alice, f"/games/{game_id}/notes/{head}", "now").status_code == 200
    assert put(alice, f"/games/{game_id}/notes/0", "zero").status_code == 404
    r = put(alice, "/games/no-such-game/notes/game", "x")
    assert r.status_code == 404 and r.json["code"] == "unknown_game"


@pytest.mark.parametrize(
    "text",
    ["", "   \n ", "x" * (MAX_TEXT + 1), "bell\x07", "nul\x00", "esc\x1b[31m", "c1\x85"],
)
def test_a_note_is_bounded_text_n3(client, game, text):
    game_id, (alice, _) = game
    r = put(alice, f"/games/{game_id}/notes/game", text)
    assert r.status_code == 422, r.json
    assert r.headers["Content-Type"] == "application/problem+json"
    assert alice.get(f"/games/{game_id}/notes").json["notes"] == []


def test_the_longest_note_and_line_breaks_are_kept(client, game):
    game_id, (alice, _) = game
    text = ("a line\n" * MAX_TEXT)[: MAX_TEXT - 1] + "é"
    assert put(alice, f"/games/{game_id}/notes/game", text).json["text"] == text


def test_bodies_that_are_no_note_are_refused(client, game):
    game_id, (alice, _) = game
    path = f"/api/v1/games/{game_id}/notes/game"
    for body in ({}, {"text": 5}, {"text": "x", "more": 1}, ["x"]):
        r = client.put(path, json=body, headers=alice.headers)
        assert r.status_code in (400, 422), r.json
    r = client.put(path, data="text", headers={**alice.headers, "Content-Type": "text/plain"})
    assert r.status_code == 415


def test_at_most_so_many_notes_per_game_n4(client, app, game):
    game_id, (alice, _) = game
    # the table filled directly up to the limit, then the API asked for one more
    table = app.extensions["tongiaki.notes"].table
    for version in range(MOST_PER_GAME):
        assert table.put(alice.id, game_id, 1000 + version, "x", "t", MOST_PER_GAME)
    r = put(alice, f"/games/{game_id}/notes/game", "one too many")
    assert r.status_code == 403 and r.json["code"] == "too_many_notes" and r.json["rule"] == "N4"
    # replacing one of them is allowed
    assert table.put(alice.id, game_id, 1000, "y", "t", MOST_PER_GAME) is not None
    assert delete(alice, f"/games/{game_id}/notes/1").status_code == 404


def test_the_export_holds_every_note_of_the_account_page_by_page_n6(client, game):
    game_id, (alice, bob) = game
    other_id, (carol, _) = open_game(client, ["green", "yellow"])
    put(alice, f"/games/{game_id}/notes/game", "on the game")
    put(alice, f"/games/{game_id}/notes/2", "on move 2")
    put(bob, f"/games/{game_id}/notes/game", "bob's")
    put(carol, f"/games/{other_id}/notes/1", "carol's")
    r = alice.get("/me/export?limit=1")
    assert r.status_code == 200 and r.json["has_more"] and r.json["account_id"] == alice.id
    first = r.json["notes"]
    rest = alice.get(f"/me/export?after={r.json['next_after']}").json
    assert not rest["has_more"] and rest["next_after"] is None
    got = [(n["game_id"], n["version"], n["text"]) for n in first + rest["notes"]]
    assert got == [(game_id, None, "on the game"), (game_id, 2, "on move 2")]
    assert all(n["created_at"] and n["updated_at"] for n in first + rest["notes"])
    for bad in ("x", "~1", f"{game_id}~-1", f"{game_id}~01"):
        assert alice.get(f"/me/export?after={bad}").status_code == 422
    assert alice.get("/me/export?limit=501").status_code == 422


def test_notes_are_no_game_events_and_leave_the_record_as_it_was(client, game):
    game_id, (alice, _) = game
    before = client.get(f"/api/v1/games/{game_id}").json["version"]
    put(alice, f"/games/{game_id}/notes/game", "not an event")
    assert client.get(f"/api/v1/games/{game_id}").json["version"] == before
    assert client.get(f"/api/v1/games/{game_id}/verify").json["ok"] is True


def test_a_page_write_needs_its_csrf_token(client, game):
    game_id, (alice, _) = game
    r = client.post("/api/v1/sessions", headers=alice.headers)
    assert r.status_code == 201, r.json
    csrf = r.json["csrf_token"]
    path = f"/api/v1/games/{game_id}/notes/game"
    r = client.put(path, json={"text": "no token"})
    assert r.status_code == 403 and r.json["code"] == "csrf_failed"
    r = client.put(path, json={"text": "with token"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200
    assert client.get(path).json["text"] == "with token"


def test_the_notes_rules_are_a_page_and_their_refusals_link_them(client):
    page = client.get("/docs/notes")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert all(f'<a id="N{n}"></a>' in html for n in range(1, 7))
    seated = client.get("/problems/not_seated").get_data(as_text=True)
    assert 'href="/docs/notes#N1"' in seated
    assert 'href="/docs/notes#N4"' in client.get("/problems/too_many_notes").get_data(as_text=True)


def test_any_number_as_a_version_is_answered_as_no_move_of_the_game_n2(client, game):
    game_id, (alice, _) = game
    for version in ("0", "5229670813801", "99999999999999999999"):
        r = put(alice, f"/games/{game_id}/notes/{version}", "x")
        assert r.status_code == 404 and r.json["code"] == "unknown_version", (version, r.json)


def test_a_version_in_the_path_is_plain_ascii_digits_n2(client, game):
    """A full-width or another script's digit, or a leading zero, names no move: 404,
    and nothing is written (the probe found ３ and ١ taken for 3 and 1)."""
    game_id, (alice, _) = game
    for version in ("%EF%BC%93", "%D9%A1", "05", "0000000003", "-1", "1e3"):
        r = put(alice, f"/games/{game_id}/notes/{version}", "x")
        assert r.status_code in (404, 405), (version, r.status_code)
        assert r.content_type == "application/problem+json", version
    listed = alice.get(f"/games/{game_id}/notes")
    assert listed.json["notes"] == []
