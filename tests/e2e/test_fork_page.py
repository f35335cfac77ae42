"""The analysis fork's page (docs/forks.md, issue 32) in Chromium: the replay's
"Analyse from here" opens a fork at the version shown; its owner plays a move for
whichever seat decides, asks the bot, undoes; another browser sees it and cannot
play it."""

from __future__ import annotations

import pytest

from tests.e2e.test_browser import call, new_page, signed_in, started_game

pytestmark = pytest.mark.timeout(300)


def test_a_fork_is_opened_from_the_replay_played_appraised_and_undone(browser, server):
    game_id, first, _ = started_game(server, moves=20)
    head = call(server, "GET", f"/games/{game_id}")["version"]
    page = signed_in(browser, server, first["token"], first["account_id"])
    page.goto(f"{server}/games/{game_id}/replay?v={head}")
    page.wait_for_function(f"document.body.dataset.version === '{head}'")
    page.click("#analyse")
    page.wait_for_url("**/forks/f*")
    page.wait_for_selector("#legal button[data-move]")
    assert page.evaluate("document.body.dataset.version") == "0"
    assert page.is_visible("svg.board") or page.query_selector("#fork-board svg")
    words = page.inner_text("#legal button[data-move='0']")
    page.click("#legal button[data-move='0']")
    page.wait_for_function("document.body.dataset.version === '1'")
    assert words.split(" · ")[0] in page.inner_text("#made")
    page.click("#appraise")
    page.wait_for_function(
        "document.querySelector('#legal').textContent.includes('the bot\\u2019s choice')"
        " || document.querySelector('#legal').textContent.includes(\"the bot's choice\")"
    )
    page.click("#undo")
    page.wait_for_function("document.body.dataset.version === '0'")
    # someone else sees the fork from its link, without the buttons that play it
    url = page.url
    other = new_page(browser, server)
    other.goto(url)
    other.wait_for_selector("#legal li")
    assert other.query_selector("#legal button[data-move]") is None
    assert page.errors == [] and other.errors == []
