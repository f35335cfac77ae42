"""Clocks in the browser (docs/clocks.md): a timed game opened from the lobby, its
time left counting down live on the game page and in the lobby, resigning from the
game page, and the time each move used in the move list."""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_browser import call
from tests.e2e.test_game_page import as_player, game, open_game_page

pytestmark = pytest.mark.timeout(300)


def seconds(text: str) -> int:
    """'4:59' or '23 h 59 min' as seconds."""
    if m := re.fullmatch(r"(\d+):(\d\d)", text):
        return int(m[1]) * 60 + int(m[2])
    if m := re.fullmatch(r"(\d+) h (\d\d) min", text):
        return int(m[1]) * 3600 + int(m[2]) * 60
    raise AssertionError(text)


def test_a_live_clock_counts_down_on_the_game_page_and_in_the_lobby(browser, server):
    gid, _tokens, accounts = game(
        server, time_control="fischer", base_seconds=300, increment_seconds=5
    )
    page = as_player(browser, server, accounts[0])
    open_game_page(page, server, gid)
    running = page.locator("#clocks .time-left.running")
    running.wait_for()
    assert "5 min + 5 s" in page.inner_text("#clocks")
    first = seconds(running.inner_text())
    assert 280 <= first <= 300
    page.wait_for_timeout(3200)  # (the text is redrawn once a second)
    assert seconds(running.inner_text()) <= first - 2  # counting down, without a reload
    assert page.locator("#clocks .time-left").count() == 2  # every seat's time
    page.goto(f"{server}/")
    row = page.locator(f"#my-games li[data-game='{gid}']")
    row.wait_for()
    assert "clock 5 min + 5 s per move" in row.inner_text() and "left" in row.inner_text()
    assert "last move" in row.inner_text()
    page.close()


def test_a_clock_is_chosen_when_the_game_is_opened(browser, server):
    ann = call(server, "POST", "/accounts", None, {"name": "Clocky"})
    page = as_player(browser, server, ann)
    page.goto(f"{server}/")
    page.wait_for_selector("#create")
    page.select_option("#max-players", "2")
    page.select_option("#time-control", "move-86400")
    page.click("#create button[type=submit]")
    row = page.locator("#open-games li", has_text="Clocky")
    row.wait_for()
    assert "clock 1 day per move" in row.inner_text()
    page.close()


def test_resigning_from_the_game_page_hands_the_seat_to_the_bot(browser, server):
    gid, _tokens, accounts = game(
        server, names=("Ria", "Sol", "Tam"), colours=("blue", "red", "green")
    )
    page = as_player(browser, server, accounts[1])
    open_game_page(page, server, gid)
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    page.wait_for_selector("#clocks .tag.bot")
    assert "resigned: the bot plays" in page.inner_text("#clocks")
    assert page.locator("#resign").count() == 0
    # the move list names who resigned, whoever's turn it was, in words
    told = page.locator(".moves li.move", has_text="resigns")
    try:
        told.wait_for(timeout=10000)
    except Exception:
        raise AssertionError(page.inner_text("#moves-panel")) from None
    assert told.locator(".who").inner_text().startswith("Sol")
    assert "Red resigns: the bot plays on for them, and they rank last" in told.inner_text()
    events = call(server, "GET", f"/games/{gid}/events")["events"]
    assert "PlayerResigned" in [e["type"] for e in events]
    page.close()


def test_the_move_list_shows_the_time_each_move_used(browser, server):
    gid, tokens, accounts = game(server, time_control="move", move_seconds=3600)
    token = tokens[accounts[0]["account_id"]]
    legal = call(server, "GET", f"/games/{gid}/legal")
    call(server, "POST", f"/games/{gid}/commands", token, legal["commands"][0])
    page = as_player(browser, server, accounts[1])
    open_game_page(page, server, gid)
    used = page.locator(".moves .used").first
    used.wait_for()
    assert re.search(r"took \d+\.\d s", used.inner_text())
    page.close()


def test_on_a_phone_the_running_clock_is_beside_the_decision(browser, server):
    """The seats' clocks are below the board, a scroll away on a phone: the action bar
    shows the time left of the decision it asks for; a Fischer clock without an
    increment says so."""
    gid, _tokens, accounts = game(server, time_control="fischer", base_seconds=90)
    page = as_player(browser, server, accounts[0], "phone")
    open_game_page(page, server, gid)
    bar = page.locator("#action-bar #bar-clock .time-left.running")
    bar.wait_for()
    assert 60 <= seconds(bar.inner_text()) <= 90 and bar.is_visible()
    assert "Clock: 90 s, no increment" in page.inner_text("#clocks")
    page.close()
