"""Variants in words (issue 39): with two colours each, every prompt names the colour to
move and the score is split by colour with its reason (R5); the scoreboard marks whose
turn it is; Play says the orientation chosen; a move being chosen that another tab
made obsolete goes with a word; the tab title says when the game is over.

Found by players: in 131 of 131 "Your move" prompts of a two-colours-each game no
colour was named, and the scoreboard said "Ann (Blue and Red): 36 points" though the
API had Blue 19 + Red 17.
"""

from __future__ import annotations

import random

import pytest

from tests.e2e.test_browser import call, play
from tests.e2e.test_game_page import (
    account_of,
    as_player,
    game,
    new_colonisation,
    open_game_page,
    until_decision,
)

pytestmark = pytest.mark.timeout(600)


def test_two_colours_each_the_prompt_title_and_scoreboard_name_the_colour(browser, server):
    accounts = [call(server, "POST", "/accounts", body={"name": n}) for n in ("Ann", "Bob")]
    pile = sorted(t for t in call(server, "GET", "/tiles")["tiles"] if t != "tonga")
    random.Random(2).shuffle(pile)
    gid = call(
        server,
        "POST",
        "/games",
        accounts[0]["token"],
        {"max_players": 2, "two_colours_each": True, "tile_order": pile},
    )["game_id"]
    call(server, "POST", f"/games/{gid}/seats", accounts[0]["token"], {"colours": ["blue", "red"]})
    call(
        server,
        "POST",
        f"/games/{gid}/seats",
        accounts[1]["token"],
        {"colours": ["green", "yellow"]},
    )
    call(server, "POST", f"/games/{gid}/start", accounts[0]["token"])
    tokens = {a["account_id"]: a["token"] for a in accounts}
    names = {"blue": "Blue", "red": "Red", "green": "Green", "yellow": "Yellow"}
    rng = random.Random(4)
    seen = set()
    for _ in range(4):  # a few decisions, of more than one colour
        legal = call(server, "GET", f"/games/{gid}/legal")
        page = as_player(browser, server, account_of(accounts, legal["player_id"]))
        open_game_page(page, server, gid)
        page.wait_for_selector("#decision.your-move")
        colour = names[legal["colour"]]
        assert f"Your move with {colour}:" in page.inner_text("#decision")
        assert page.title().startswith(f"(1) Your move with {colour}")
        row = page.locator("table.scores tr.to-move")
        assert row.count() == 1 and f"to move ({colour})" in row.inner_text()
        if not seen:  # the lobby's "your move" says with which colour too
            page.goto(f"{server}/")
            flag = page.locator(f"#my-games li[data-game='{gid}'] .your-move")
            flag.wait_for()
            assert flag.inner_text().strip() == f"· your move with {colour}"
        seen.add(colour)
        page.context.close()
        call(
            server,
            "POST",
            f"/games/{gid}/commands",
            tokens[legal["player_id"]],
            rng.choice(legal["commands"]),
        )
    play(server, gid, tokens, rng, 3000)  # to the end
    board = call(server, "GET", f"/games/{gid}/scoreboard")
    page = as_player(browser, server, accounts[0])
    open_game_page(page, server, gid)
    page.wait_for_selector("#result")
    for seat in board["seats"]:
        blue_red = " + ".join(f"{names[c['colour']]} {c['points']}" for c in seat["colours"])
        cell = page.locator(f"tr[data-player='{seat['player_id']}'] td").first
        assert cell.inner_text() == f"{seat['points']} ({blue_red})"
        assert blue_red in page.inner_text("#result")
    assert "R5" in page.inner_text("#result")
    assert "two colours add up (rule R5)" in page.inner_text("#scores-why")  # in sight
    assert page.title().startswith(("You won", "Game over"))
    assert page.locator("table.scores tr.to-move").count() == 0
    assert page.errors == []
    assert len(seen) >= 2


def test_a_move_being_chosen_that_another_tab_played_goes_with_a_word(browser, server):
    gid, tokens, accounts = game(server)
    legal = call(server, "GET", f"/games/{gid}/legal")
    player = account_of(accounts, legal["player_id"])
    page = as_player(browser, server, player)
    open_game_page(page, server, gid)
    page.locator("svg.board .target").first.click()  # half a move chosen here
    page.wait_for_function(
        "document.getElementById('clear') && !document.getElementById('clear').disabled"
    )
    call(server, "POST", f"/games/{gid}/commands", tokens[legal["player_id"]], legal["commands"][0])
    page.wait_for_selector("#notice, .notice", timeout=15_000)
    assert "moved on before it was played" in page.inner_text("body")
    assert page.errors == []


def in_view(page) -> bool:  # type: ignore[no-untyped-def]
    """Play is wholly inside the window (on a phone, within the bottom bar's sight)."""
    return bool(
        page.evaluate(
            "(() => { const r = document.getElementById('play').getBoundingClientRect();"
            " const bar = document.getElementById('action-bar').getBoundingClientRect();"
            " return r.top >= Math.max(0, bar.top) - 1 && r.bottom <= window.innerHeight + 1; })()"
        )
    )


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_play_says_the_orientation_chosen_in_a_free_orientation_game(browser, server, viewport):
    """On a 390 x 844 phone a probe found Play cut off below the bottom bar while placing
    a tile: it stays in sight however long the bar's content."""
    gid, tokens, accounts = game(server)
    legal = until_decision(
        server, gid, tokens, "tile_placement", random.Random(3), prefer=new_colonisation
    )
    page = as_player(browser, server, account_of(accounts, legal["player_id"]), viewport)
    open_game_page(page, server, gid)
    page.locator("svg.board .cell-target").first.click()
    text = page.inner_text("#play")
    assert "as it was drawn, not turned" in text or "clockwise" in text, text
    page.click("#turn-right")
    assert "clockwise from how it was drawn" in page.inner_text("#play")
    page.wait_for_function("!document.getElementById('play').disabled")
    assert in_view(page)
    assert page.errors == []


def test_with_the_supply_empty_the_hint_asks_for_what_is_still_missing(browser, server):
    """A probe picked the boat to move first and the hint still said "Now pick the boat
    to move."; it asks for the beach then. Play stays in sight however long the list of
    beaches to take a boat from (on a phone too)."""
    gid, tokens, accounts = game(server)
    rng = random.Random(21)
    for _ in range(1500):
        legal = call(server, "GET", f"/games/{gid}/legal")
        assert legal["decision"] is not None, "the game ended before a supply ran out"
        if any(c.get("take_from") for c in legal["commands"]):
            break
        call(
            server,
            "POST",
            f"/games/{gid}/commands",
            tokens[legal["player_id"]],
            rng.choice(legal["commands"]),
        )
    else:
        raise AssertionError("no supply ran out")
    for viewport in ("desktop", "phone"):
        page = as_player(browser, server, account_of(accounts, legal["player_id"]), viewport)
        open_game_page(page, server, gid)
        page.wait_for_selector("#take-hint")
        assert in_view(page)
        page.locator("[data-token^='take:']").first.click()
        page.wait_for_function("document.getElementById('hint').textContent.length > 0")
        assert page.inner_text("#hint") == "Now pick the beach the boat goes to."
        assert in_view(page)
        assert page.errors == []
