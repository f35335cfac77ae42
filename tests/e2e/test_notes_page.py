"""Private notes and the score explained, in Chromium against a real server.

A player writes a note on the game and one on a move picked in the move list, saves
each (a "Saved" state), reloads and finds them; the opponent and a spectator see
none (N1); the export holds them (N6). A finished game's end screen explains the
score: every island scored, who scores it and why, a line for every player (R22, R23).
"""

from __future__ import annotations

import random

import pytest

from tests.e2e.test_browser import call, new_page, play
from tests.e2e.test_game_page import as_player, game, open_game_page

pytestmark = pytest.mark.timeout(600)


def _get(server, path, token):
    return call(server, "GET", path, token)


def test_a_player_keeps_a_game_note_and_a_move_note_that_nobody_else_sees(browser, server, shots):
    gid, tokens, accounts = game(server, names=("Nia", "Oto"))
    play(server, gid, tokens, random.Random(4), 30)
    page = as_player(browser, server, accounts[0])
    open_game_page(page, server, gid)
    page.wait_for_selector("#note-game")
    page.fill("#note-game", "Red keeps to the north.\nWatch Tonga.")
    page.wait_for_function("document.getElementById('note-game-state').textContent === 'Not saved'")
    page.click("#save-note-game")
    page.wait_for_function("document.getElementById('note-game-state').textContent === 'Saved'")
    # the move's note follows the move picked in the list
    move = page.locator("li.move").nth(3)
    last = move.get_attribute("data-last")
    move.click()
    page.wait_for_function(f"document.getElementById('board').dataset.version === '{last}'")
    page.wait_for_function(
        f"document.getElementById('note-move-label').textContent.includes('version {last}')"
    )
    assert page.input_value("#note-move") == ""
    page.fill("#note-move", "Here I should have expanded on Samoa.")
    page.click("#save-note-move")
    page.wait_for_function("document.getElementById('note-move-state').textContent === 'Saved'")
    labelled = page.eval_on_selector("#note-move", "a => a.labels[0].textContent")
    assert "version" in labelled  # labelled for screen readers
    # reloaded: both are there, the move's once that move is picked again
    page.reload()
    page.wait_for_selector("#note-game")
    page.wait_for_function("document.getElementById('note-game').value.startsWith('Red keeps')")
    page.locator("li.move").nth(3).click()
    page.wait_for_function(
        "document.getElementById('note-move').value === 'Here I should have expanded on Samoa.'"
    )
    assert page.inner_text("#note-move-state") == "Saved"
    page.locator("#notes-panel").screenshot(path=str(shots / "notes-panel.png"))
    assert page.errors == []
    # the export holds them (N6)
    exported = _get(server, "/me/export", accounts[0]["token"])["notes"]
    assert [(n["version"], n["text"][:4]) for n in exported] == [
        (None, "Red "),
        (int(last), "Here"),
    ]
    # the opponent: a panel of their own, empty
    other = as_player(browser, server, accounts[1])
    open_game_page(other, server, gid)
    other.wait_for_selector("#note-game")
    assert other.input_value("#note-game") == "" and other.input_value("#note-move") == ""
    assert "Red keeps" not in other.content()
    # a spectator (not signed in) and another account: no panel at all
    spectator = new_page(browser, server)
    open_game_page(spectator, server, gid)
    stranger = call(server, "POST", "/accounts", body={"name": "Pita"})
    signed = as_player(browser, server, stranger)
    open_game_page(signed, server, gid)
    for p in (spectator, signed):
        p.wait_for_function("document.getElementById('notes-panel').hidden === true")
        assert p.locator("#note-game").count() == 0 and "Red keeps" not in p.content()
        assert p.errors == []
    for p in (page, other, spectator, signed):
        p.context.close()


def test_the_replay_page_shows_the_note_of_the_version_on_its_board(browser, server):
    gid, tokens, accounts = game(server, names=("Rua", "Tui"))
    play(server, gid, tokens, random.Random(6), 20)
    call(server, "PUT", f"/games/{gid}/notes/5", accounts[0]["token"], {"text": "move five"})
    page = as_player(browser, server, accounts[0])
    page.goto(f"{server}/games/{gid}/replay?v=5")
    page.wait_for_selector("#note-move")
    page.wait_for_function("document.getElementById('note-move').value === 'move five'")
    page.focus("#note-move")
    page.keyboard.press("ArrowRight")  # typing in a note does not move the replay
    assert page.evaluate("document.body.dataset.version") == "5"
    page.click("#forward")
    page.wait_for_function("document.getElementById('note-move').value === ''")
    assert page.errors == []
    page.context.close()


def test_the_end_screen_explains_the_score_island_by_island_and_player_by_player(
    browser, server, shots
):
    gid, tokens, accounts = game(server, names=("Ula", "Vai"))
    play(server, gid, tokens, random.Random(31), 2000)
    sheet = _get(server, f"/games/{gid}/score", None)
    assert sheet["final"]
    page = as_player(browser, server, accounts[0])
    open_game_page(page, server, gid)
    page.wait_for_selector("#score-explained table")
    rows = page.locator("#score-explained tr[data-island]")
    assert rows.count() == len(sheet["islands"])
    for island in sheet["islands"]:
        row = page.locator(f"#score-explained tr[data-island='{island['tile']}']")
        text = row.inner_text()
        assert str(island["value"]) in text
        for scorer in island["scorers"]:
            assert f"{scorer['name']}: {scorer['points']}" in text
    lines = page.locator("#score-players li")
    assert lines.count() == 2  # a line for every player, not only the winner
    first, second = sheet["players"]
    assert f"{first['points']} points" in lines.nth(0).inner_text()
    assert f"{second['points']} points" in lines.nth(1).inner_text()
    assert second["name"] in lines.nth(0).inner_text()  # what placed the first before the second
    assert "R22" in page.inner_text("#score-explained")
    page.locator("#result").screenshot(path=str(shots / "end-screen-score.png"))
    assert page.errors == []
    page.context.close()
