"""Smaller fixes of issue 29, item 6, in Chromium: on a phone a compact header and a
Steps menu the action bar does not cover; an arriving fleet leaves the island's
name and value readable; a player told in words, before and after, what a clock
running out does (C3–C5) and how to take the seat back."""

from __future__ import annotations

import contextlib
import random
import time
import urllib.error

import pytest

from tests.e2e.test_browser import call, play
from tests.e2e.test_game_page import account_of, as_player, game, open_game_page

pytestmark = pytest.mark.timeout(300)

# what is drawn at the centre of an element, as elementFromPoint finds it
AT_CENTRE = """(node) => {
  const r = node.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { inside: node === top || node.contains(top), top: top && (top.id || top.className || top.tagName) };
}"""


def test_on_a_phone_the_header_is_compact_and_the_steps_menu_is_not_covered(browser, server):
    gid, tokens, accounts = game(server, deck=8)
    play(server, gid, tokens, random.Random(8), 40)
    legal = call(server, "GET", f"/games/{gid}/legal")
    page = as_player(browser, server, account_of(accounts, legal["player_id"]), "phone")
    open_game_page(page, server, gid)
    page.wait_for_selector("#action-bar.mine")
    page.wait_for_function("document.body.dataset.myMove === '1'")
    header = page.locator("header.top").bounding_box()
    assert header["height"] <= 48, header  # one line, not three
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    found = page.locator("#speed").evaluate(AT_CENTRE)
    assert found["inside"], f"the Steps menu is covered by {found['top']}"
    board = page.locator("#board").bounding_box()
    bar = page.locator("#action-bar").bounding_box()
    assert board["y"] + board["height"] <= bar["y"]  # the board too, above the bar
    assert page.errors == []


FLEET_AND_LABEL = """() => {
  const fleet = document.querySelector('svg.board .fleet');
  const tile = document.querySelector(`svg.board .layer-tiles .tile[data-cell="${fleet.dataset.cell}"]`);
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const labels = [...tile.querySelectorAll('.island-name, .island-value')].map((t) => t.getBoundingClientRect());
  const boats = [...fleet.querySelectorAll('circle.boat')].map((c) => c.getBoundingClientRect());
  return { labels: labels.length, boats: boats.length, hidden: labels.some((l) => boats.some((b) => meet(l, b))) };
}"""


def test_an_arriving_fleet_leaves_the_islands_name_and_value_readable(browser, server):
    gid, tokens, accounts = game(server, deck=9)
    rng = random.Random(9)
    arrivals = []
    for _ in range(400):
        legal = play(server, gid, tokens, rng, 1)
        if legal["decision"] is None:
            break
        events = call(server, "GET", f"/games/{gid}/events?after=0&limit=1000")["events"]
        arrivals = [e["version"] for e in events if e["type"] == "FleetReachedIsland"]
        if len(arrivals) >= 2:
            break
    assert arrivals
    page = as_player(browser, server, accounts[0])
    for version in arrivals:
        page.goto(f"{server}/games/{gid}/replay?v={version}")
        page.wait_for_selector("#replay-board svg.board .fleet circle.boat")
        found = page.evaluate(FLEET_AND_LABEL)
        assert found["labels"] == 2 and found["boats"] >= 1
        assert not found["hidden"], f"the fleet hides the island's name or value at {version}"
    assert page.errors == []


def bob_plays_until(server, gid, bob, condition, within=60.0):
    """Bob answers each of his decisions at once, by API, until ``condition(game)``:
    the other seat's clock runs out (a 5 s clock) while he keeps his."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        state = call(server, "GET", f"/games/{gid}")
        if condition(state):
            return state
        legal = call(server, "GET", f"/games/{gid}/legal")
        if legal["decision"] and legal["player_id"] == bob["account_id"]:
            with contextlib.suppress(urllib.error.HTTPError):  # a race with a clock: asked again
                call(server, "POST", f"/games/{gid}/commands", bob["token"], legal["commands"][0])
        else:
            time.sleep(0.05)  # the clock's own deadline is what is awaited here
    raise AssertionError("the condition never held")


def test_a_player_is_told_before_and_after_what_a_timeout_does_and_reclaims_the_seat(
    browser, server
):
    gid, _tokens, (ann, bob) = game(server, time_control="move", move_seconds=5, absent_after=2)
    page = as_player(browser, server, ann)
    open_game_page(page, server, gid)
    # before: under 30 s left of her decision, in words (C3, C4, C5)
    warning = page.locator("#timeout-warning")
    warning.wait_for()
    words = warning.inner_text()
    assert "If your clock runs out, the bot plays this decision for you (rule C3)" in words
    assert (
        "after 2 timeouts in a row it plays every decision until you take your seat back" in words
    )
    # after one timeout: the bot played for her, one more makes the seat absent
    ann_of = lambda state: next(p for p in state["players"] if p["player_id"] == ann["account_id"])  # noqa: E731
    bob_plays_until(server, gid, bob, lambda s: ann_of(s)["timeouts"] >= 1)
    notice = page.locator("#timeout-notice")
    notice.wait_for()
    page.wait_for_function(
        "document.getElementById('timeout-notice').textContent.includes('played for you')"
    )
    assert "1 more and the bot plays every decision" in notice.inner_text()
    # after the second: the seat is absent, and the notice holds the way back
    bob_plays_until(server, gid, bob, lambda s: ann_of(s)["bot"] == "absent")
    page.locator("#timeout-notice #reclaim").wait_for()
    assert "your seat is absent, and the bot plays every decision for you" in notice.inner_text()
    page.click("#timeout-notice #reclaim")
    page.locator("#timeout-notice").wait_for(state="detached")  # the streak ended with it
    assert ann_of(call(server, "GET", f"/games/{gid}"))["bot"] is None
    assert page.errors == []
