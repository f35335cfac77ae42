"""Bots' seats in the browser (docs/bots.md B1, B2): the lobby's "Add a bot" seats one at
the chosen level and colour; the game page names the bot by its level and the bot has
played its decisions when the person's turn comes; in French the words are French."""

from __future__ import annotations

import pytest

from tests.e2e.test_browser import call, sign_up

pytestmark = pytest.mark.timeout(300)


def test_a_bot_is_added_in_the_lobby_and_plays_on_the_game_page(browser, server):
    page, account = sign_up(browser, server, "Solo")
    token = account["token"]
    game_id = call(server, "POST", "/games", token, {"max_players": 2})["game_id"]
    call(server, "POST", f"/games/{game_id}/seats", token, {"colour": "blue"})
    page.reload()
    row = page.locator(f"#open-games li[data-game='{game_id}']")
    row.locator("select[data-role=bot-level]").select_option("mcts-easy")
    row.locator("select[data-role=bot-colour]").select_option("red")
    row.locator("button[data-action=add-bot]").click()
    page.wait_for_selector(f"#open-games li[data-game='{game_id}'] .seat[data-level=mcts-easy]")
    assert "Solo's table" in row.locator(".game-name").inner_text()
    seats = call(server, "GET", f"/games/{game_id}")["players"]
    assert [(s["player_id"], s.get("level")) for s in seats][1] == ("bot-2", "mcts-easy")
    page.locator(f"#open-games li[data-game='{game_id}'] button[data-action=start]").click()
    page.wait_for_url(f"**/games/{game_id}")
    page.wait_for_selector(".seat-clocks li[data-seat='2']")
    assert "Bot (mcts-easy)" in page.inner_text(".seat-clocks li[data-seat='2']")
    # blue places the first starting boat; then the bot places its own at once (B2)
    legal = call(server, "GET", f"/games/{game_id}/legal")
    call(server, "POST", f"/games/{game_id}/commands", token, legal["commands"][0])
    page.wait_for_function(
        "document.querySelectorAll('.seat-clocks li').length === 2"
        " && document.body.innerText.includes('a bot: it plays at once')"
    )
    # the lobby's "my games" names the bot by its level, and not as a resigned seat
    page.goto(f"{server}/")
    mine = page.wait_for_selector(f"#my-games li[data-game='{game_id}']")
    assert "Bot (mcts-easy)" in mine.inner_text() and "resigned" not in mine.inner_text()
    page.goto(f"{server}/games/{game_id}?lang=fr")
    page.wait_for_selector(".seat-clocks li[data-seat='2']")
    assert "un bot : il joue aussitôt" in page.inner_text(".seat-clocks li[data-seat='2']")
    assert page.errors == []
