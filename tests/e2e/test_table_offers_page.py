"""Offers at the table in the browser (docs/table.md): two players and a spectator on
their own pages — a takeback asked for and accepted, one refused, an end proposed and
agreed — each answer reaching the other pages live."""

from __future__ import annotations

import pytest

from tests.e2e.a11y import axe_check
from tests.e2e.test_browser import call, new_page
from tests.e2e.test_game_page import as_player, game, open_game_page

pytestmark = pytest.mark.timeout(300)


def first_move(server, gid, tokens):
    """The pending decision's first legal command, by its player (over the API)."""
    legal = call(server, "GET", f"/games/{gid}/legal")
    call(server, "POST", f"/games/{gid}/commands", tokens[legal["player_id"]], legal["commands"][0])
    return legal["player_id"]


def table(browser, server):
    gid, tokens, accounts = game(server)
    ann, bob = (as_player(browser, server, a) for a in accounts)
    spectator = new_page(browser, server)
    for page in (ann, bob, spectator):
        open_game_page(page, server, gid)
    return gid, tokens, accounts, ann, bob, spectator


def moves_text(page):
    return page.inner_text("#moves-panel")


def wait_for_move(page, text):
    try:
        page.locator(".moves li.move", has_text=text).first.wait_for(timeout=20000)
    except Exception:
        raise AssertionError(moves_text(page)) from None


def test_a_takeback_asked_on_one_page_is_accepted_on_the_other_and_seen_by_a_spectator(
    browser, server
):
    gid, tokens, accounts, ann, bob, spectator = table(browser, server)
    assert bob.locator("#propose-end").count() == 1  # before any move: nothing to take back
    assert bob.locator("#ask-takeback").count() == 0
    assert first_move(server, gid, tokens) == accounts[0]["account_id"]  # Ann placed a boat
    ann.click("#ask-takeback")
    ann.locator("#offer-takeback", has_text="You asked to take back").wait_for()
    assert ann.locator("#withdraw-takeback").is_visible()
    # Bob's page hears of it live, in words, with his answer awaited
    bob.locator("#offer-takeback", has_text="Your answer is awaited").wait_for(timeout=20000)
    assert "No tile has been drawn since" in bob.inner_text("#offer-takeback")
    spectator.locator("#offer-takeback").wait_for(timeout=20000)
    assert spectator.locator("#accept-takeback").count() == 0  # a spectator does not answer
    axe_check(bob)  # the offer and its answers, for screen readers too
    bob.click("#accept-takeback")
    for page in (ann, bob, spectator):
        wait_for_move(page, "Taken back by consent")
        page.locator("#offer-takeback").wait_for(state="detached", timeout=20000)
        # Ann's move is marked as set aside; the steps are headed by who acted
        page.locator("li.move.superseded").first.wait_for(timeout=20000)
        taken = page.locator(".moves li.move", has_text="Taken back by consent").first
        assert taken.locator(".who").inner_text().startswith("Bob"), moves_text(page)
    # the decision is Ann's again, on her page
    ann.locator("#decision.your-move").wait_for(timeout=20000)
    assert call(server, "GET", f"/games/{gid}/verify")["ok"]
    for page in (ann, bob, spectator):
        page.close()


def test_a_refused_takeback_leaves_the_move_and_a_proposal_to_end_is_agreed(browser, server):
    gid, tokens, _accounts, ann, bob, spectator = table(browser, server)
    first_move(server, gid, tokens)
    ann.click("#ask-takeback")
    bob.locator("#refuse-takeback").click(timeout=20000)
    wait_for_move(spectator, "refuses the takeback")
    ann.locator("#offer-takeback").wait_for(state="detached", timeout=20000)
    # an end proposed by Bob, agreed by Ann: both confirm in a dialog
    for page in (ann, bob):
        page.on("dialog", lambda dialog: dialog.accept())
    bob.click("#propose-end")
    ann.locator("#offer-end", has_text="proposed to end the game now").wait_for(timeout=20000)
    spectator.locator("#offer-end").wait_for(timeout=20000)
    ann.click("#accept-end")
    for page in (ann, bob, spectator):
        page.locator("#result", has_text="agreed to end it").wait_for(timeout=20000)
    view = call(server, "GET", f"/games/{gid}")
    assert view["status"] == "ended" and view["position"]["end_reason"] == "agreement"
    assert call(server, "GET", f"/games/{gid}/verify")["ok"]
    for page in (ann, bob, spectator):
        page.close()


def test_a_takeback_past_a_drawn_tile_is_refused_in_words(browser, server):
    gid, tokens, accounts, ann, bob, spectator = table(browser, server)
    spectator.close()
    # play until a decision draws a tile, then its player asks
    for _ in range(400):
        legal = call(server, "GET", f"/games/{gid}/legal")
        token = tokens[legal["player_id"]]
        answer = call(server, "POST", f"/games/{gid}/commands", token, legal["commands"][-1])
        if any(e["type"] == "TileDrawn" for e in answer["events"]):
            mover = legal["player_id"]
            break
    else:
        raise AssertionError("no tile drawn")
    page = ann if mover == accounts[0]["account_id"] else bob
    page.reload()
    page.wait_for_selector("#ask-takeback")
    page.click("#ask-takeback")
    notice = page.locator("#notice")
    notice.wait_for(timeout=20000)
    assert "tile has been drawn since" in notice.inner_text() and "T2" in notice.inner_text()
    assert notice.locator("a").get_attribute("href") == "/docs/table#T2"  # the rule, linked
    ann.close()
    bob.close()
