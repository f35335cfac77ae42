"""A player's page and the "my move" link in Chromium (docs/profiles.md): "My move (N)"
in the header goes to the game waiting longest; the page shows the player's games and
that no game of theirs is rated yet; the player changes their name and deletes the account, typing
its name; another visitor sees neither form nor disputes."""

from __future__ import annotations

import re

from tests.e2e.a11y import axe_check, headings
from tests.e2e.test_browser import call, new_page, sign_up


def waiting_game(server, token, other_token, colour="blue"):
    """A started two-seat game whose first decision is the ``token`` account's."""
    gid = call(server, "POST", "/games", token, {"max_players": 2})["game_id"]
    call(server, "POST", f"/games/{gid}/seats", token, {"colour": colour})
    call(server, "POST", f"/games/{gid}/seats", other_token, {"colour": "red"})
    call(server, "POST", f"/games/{gid}/start", token)
    return gid


def test_my_move_the_profile_a_new_name_and_a_deletion_by_clicks(browser, server):
    page, account = sign_up(browser, server, "Pia")
    other = call(server, "POST", "/accounts", body={"name": "Rua"})
    older = waiting_game(server, account["token"], other["token"])
    newer = waiting_game(server, account["token"], other["token"], colour="green")
    # every page's header: "My move (2)", one click to the game waiting longest (Q2)
    page.goto(f"{server}/")
    link = page.wait_for_selector("#nav-my-move")
    assert link.inner_text() == "My move (2)"
    link.click()
    page.wait_for_url(re.compile(f"/games/{older}$"))
    # the game's seats link to the players' pages
    page.wait_for_selector(f"a.player-name[href='/players/{other['account_id']}']")
    # the profile: name, no rating yet, the games, the queue
    page.click("#nav-profile")
    page.wait_for_selector("#player-name")
    assert page.inner_text("#player-name") == "Pia"
    page.wait_for_selector("#rating p")
    assert page.inner_text("#rating p") == "No rated game yet."  # ratings.md: none rated
    assert page.locator("#game-rows tr").count() == 2
    queue = page.locator("#queue li")
    assert [queue.nth(i).get_attribute("data-game") for i in range(2)] == [older, newer]
    assert page.inner_text("#disputes").startswith("Disputes you opened")
    assert len(headings(page)) == 1
    axe_check(page, "the player's own page")
    # a new name, shown at once
    page.fill("#new-name", "Pia Two")
    page.click("#rename-form button[type=submit]")
    page.wait_for_function("document.querySelector('#player-name').textContent === 'Pia Two'")
    assert "Pia Two" in page.inner_text("#me")
    # another visitor, under the pages' content security policy: no forms, no disputes
    visitor = new_page(browser, server, bypass_csp=False)
    visitor.goto(f"{server}/players/{account['account_id']}")
    visitor.wait_for_selector("#player-name")
    assert visitor.inner_text("#player-name") == "Pia Two"
    assert visitor.locator("#rename, #delete, #disputes, #queue").count() == 0
    assert visitor.locator("#nav-my-move").count() == 0  # signed out: no queue
    # the parts a visitor is not shown were once written as the words "null" (a probe)
    assert not re.search(r"\bnull\b", visitor.inner_text("#main")), visitor.inner_text("#main")
    # deletion: the wrong name is refused, the right one deletes for good
    page.fill("#delete-confirm", "Pia")
    page.click("#delete-account")
    page.wait_for_selector("#toast.show.error")
    assert "confirm" in page.inner_text("#toast").lower()
    page.fill("#delete-confirm", "Pia Two")
    page.click("#delete-account")
    page.wait_for_function(
        "document.querySelector('#player-name')?.textContent.includes('account deleted')"
    )
    assert page.inner_text("#player-name").startswith(f"deleted player {account['account_id'][:4]}")
    assert page.locator("#nav-my-move, #rename, #delete").count() == 0
    assert call(server, "GET", f"/games/{older}/verify")["ok"] is True
    assert page.errors == [] and visitor.errors == []
