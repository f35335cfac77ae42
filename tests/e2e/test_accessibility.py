"""Every page for screen readers (issue 29, item 4): axe-core finds no serious or
critical violation on any page — the lobby, a game being played, ended and watched,
the replay, the audit, a dispute and the auditors' queue, the account, the sign-in
link, the documents and the error codes — each page has one top-level heading, and
the move list is a list of buttons named by their visible text."""

from __future__ import annotations

import random

import pytest

from service.http.web.reference import PAGES as DOCUMENTS
from tests.e2e.a11y import axe_check, headings
from tests.e2e.test_browser import call, new_page, play
from tests.e2e.test_disputes_page import auditor_token
from tests.e2e.test_game_page import account_of, as_player, game, open_game_page

pytestmark = pytest.mark.timeout(600)


def check(page, where: str, ready: str) -> None:
    """Once ``ready`` is on the page: one h1, and nothing serious for axe-core."""
    page.wait_for_selector(ready)
    assert len(headings(page)) == 1, f"{where}: top-level headings {headings(page)}"
    axe_check(page, where)


def finished(server, seed):
    gid, tokens, accounts = game(server, deck=seed)
    play(server, gid, tokens, random.Random(seed), 3000)
    return gid, accounts


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_axe_finds_nothing_serious_on_the_game_pages(browser, server, viewport):
    gid, tokens, accounts = game(server, deck=2)
    legal = play(server, gid, tokens, random.Random(2), 60)
    player = account_of(accounts, legal["player_id"])
    page = as_player(browser, server, player, viewport)
    open_game_page(page, server, gid)
    page.wait_for_selector("svg.board .target")
    check(page, "the game, playing", "#open-dispute")
    page.click("#open-dispute")
    check(page, "the game, the dispute form open", "#dispute-form")
    page.goto(f"{server}/games/{gid}/replay")
    check(page, "the replay", "li.move.current")
    page.goto(f"{server}/games/{gid}/audit")
    check(page, "the audit", "#audit-board svg .tile")
    head = call(server, "GET", f"/games/{gid}")["version"]
    fork = call(
        server, "POST", f"/games/{gid}/forks", tokens[player["account_id"]], {"version": head}
    )
    page.goto(f"{server}/forks/{fork['fork_id']}")
    check(page, "an analysis fork, its owner", "#legal button[data-move]")
    page.goto(f"{server}/account")
    check(page, "the account", "#credentials")
    page.goto(f"{server}/")
    check(page, "the lobby, signed in", "#my-games")
    # a spectator, signed out
    size = page.viewport_size
    watcher = new_page(browser, server, viewport=(size["width"], size["height"]))
    watcher.goto(f"{server}/games/{gid}")
    check(watcher, "the game, watched", "li.move")
    watcher.goto(f"{server}/forks/{fork['fork_id']}")
    check(watcher, "an analysis fork, watched", "#legal li")
    watcher.goto(f"{server}/")
    check(watcher, "the lobby, signed out", "#signup")
    watcher.goto(f"{server}/account")
    check(watcher, "the account, signed out", "main h1")
    watcher.goto(f"{server}/sign-in/link")
    check(watcher, "the sign-in link", "main h1")
    # an ended game
    ended, finishers = finished(server, 6)
    page.goto(f"{server}/games/{ended}")
    check(page, "the game, ended (not a player)", "#result")
    ender = as_player(browser, server, finishers[0], viewport)
    ender.goto(f"{server}/games/{ended}")
    check(ender, "the game, ended", "#result")
    assert page.errors == [] and watcher.errors == [] and ender.errors == []


def test_axe_finds_nothing_serious_on_the_dispute_pages_and_the_documents(browser, server):
    gid, tokens, (ann, _bob) = game(server, deck=3)
    play(server, gid, tokens, random.Random(3), 12)
    version = call(server, "GET", f"/games/{gid}")["version"]
    opened = call(
        server, "POST", f"/games/{gid}/disputes", ann["token"],
        {"reason": "misclick", "version": version, "text": "I meant the other beach"},
    )  # fmt: skip
    auditor = new_page(browser, server)
    auditor.goto(f"{server}/")
    auditor.fill("#token", auditor_token(server))
    auditor.click("#signin button[type=submit]")
    auditor.wait_for_url(f"{server}/disputes")
    check(auditor, "the disputes queue", "#queue li.dispute")
    auditor.goto(f"{server}/disputes/{opened['dispute_id']}")
    check(auditor, "a dispute", "#board-after svg .tile")
    for name in DOCUMENTS:
        auditor.goto(f"{server}/docs/{name}")
        check(auditor, f"/docs/{name}", "main")
    auditor.goto(f"{server}/problems")
    check(auditor, "the error codes", "main")
    code = auditor.get_attribute("main a[href^='/problems/']", "href")
    auditor.goto(f"{server}{code}")
    check(auditor, code, "main")
    assert auditor.errors == []


def test_the_move_list_is_a_list_of_buttons_named_by_their_text(browser, server):
    gid, tokens, accounts = game(server, deck=4)
    play(server, gid, tokens, random.Random(4), 30)
    page = as_player(browser, server, accounts[0])
    open_game_page(page, server, gid)
    page.wait_for_selector("li.move")
    moves = page.eval_on_selector_all(
        "ol.moves li.move",
        """(items) => items.map((li) => {
          const b = li.querySelector(':scope > button');
          const words = (node) => node.textContent.replace(/\\s+/g, ' ').trim();
          const seen = b && b.cloneNode(true);
          if (seen) seen.querySelectorAll('.visually-hidden').forEach((n) => n.remove());
          return { button: Boolean(b), role: li.getAttribute('role'), label: li.getAttribute('aria-label'),
                   text: seen ? words(seen) : '', name: b ? words(b) : '' };
        })""",
    )
    assert moves and all(m["button"] and m["role"] is None and m["label"] is None for m in moves)
    assert all(m["text"] and m["name"].startswith(m["text"]) for m in moves), moves[:3]
    # its accessible name, as Chromium computes it, starts with its text
    first = moves[0]
    assert page.get_by_role("button", name=first["name"], exact=True).count() >= 1
    # the keyboard: Tab to a move, Enter shows the board after it
    button = page.locator("li.move > button").nth(3)
    last = button.evaluate("(b) => b.parentElement.dataset.last")
    button.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.getElementById('board').dataset.version === '{last}'")
    assert page.locator("li.move.current > button[aria-current='step']").count() == 1
    assert page.errors == []


def test_no_null_is_written_on_the_game_page(browser, server):
    """Issue 29, item 6: a literal "null" after "Dispute a move…" (a panel that wrote an
    absent part as text)."""
    gid, tokens, accounts = game(server, deck=5)
    play(server, gid, tokens, random.Random(5), 10)
    page = as_player(browser, server, accounts[0])
    open_game_page(page, server, gid)
    page.wait_for_selector("#open-dispute")
    page.wait_for_selector("#log-panel h3")
    texts = page.evaluate(
        """() => { const out = []; const walk = document.createTreeWalker(document.getElementById('main'), NodeFilter.SHOW_TEXT);
          while (walk.nextNode()) if (/\\b(null|undefined)\\b/.test(walk.currentNode.textContent)) out.push(walk.currentNode.parentElement.id || walk.currentNode.parentElement.className);
          return out; }"""
    )
    assert texts == []
    assert "null" not in page.inner_text("#disputes-panel")
    assert page.errors == []
