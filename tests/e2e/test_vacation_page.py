"""Vacation in the browser (docs/vacation.md): the lobby's form opens a game with
vacation (V2), the account page announces a spell and says why one is refused (V4,
V5), and the game page tells the other players who is on vacation until when (V8)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.e2e.test_browser import call
from tests.e2e.test_game_page import as_player, game, open_game_page

pytestmark = pytest.mark.timeout(300)
MOVE = {"time_control": "move", "move_seconds": 86400, "vacation": True}


def local(moment: datetime) -> str:
    """A time as a datetime-local input takes it (the browser runs in UTC here)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M")


def test_the_lobby_opens_a_game_where_vacation_applies(browser, server):
    ann = call(server, "POST", "/accounts", None, {"name": "Vacationer"})
    page = as_player(browser, server, ann)
    page.goto(f"{server}/")
    page.wait_for_selector("#create")
    page.select_option("#max-players", "2")
    assert page.locator("#vacation-label").is_hidden()  # no clock, no vacation (V2)
    page.select_option("#time-control", "move-86400")
    page.check("#vacation")
    page.click("#create button[type=submit]")
    row = page.locator("#open-games li", has_text="Vacationer")
    row.wait_for()
    assert "1 day per move · vacation applies" in row.inner_text()
    page.close()


def test_the_account_page_announces_a_vacation_and_says_why_one_is_refused(browser, server):
    _gid, _tokens, accounts = game(server, names=("Ida", "Jo"), **MOVE)
    page = as_player(browser, server, accounts[0])
    page.goto(f"{server}/account")
    page.wait_for_selector("#vacation-form")
    assert "30 of 30 days left" in page.inner_text("#vacation-left")
    now = datetime.now(UTC)
    page.fill("#vacation-until", local(now - timedelta(days=1)))
    page.click("#vacation-form button[type=submit]")
    problem = page.locator("#vacation-problem")
    problem.wait_for()
    assert "after it starts" in problem.inner_text()
    assert problem.locator("a[href='/docs/vacation#V5']").count() == 1
    page.fill("#vacation-from", local(now + timedelta(days=2)))
    page.fill("#vacation-until", local(now + timedelta(days=4)))
    page.click("#vacation-form button[type=submit]")
    page.wait_for_selector("#vacation-spells li")
    assert "Away from" in page.inner_text("#vacation-spells")
    assert "28 of 30 days left" in page.inner_text("#vacation-left")
    page.close()


def test_the_game_page_says_who_is_on_vacation_until_when(browser, server):
    gid, _tokens, accounts = game(server, names=("Kai", "Lea"), **MOVE)
    until = datetime.now(UTC) + timedelta(days=3)
    call(server, "POST", "/me/vacation", accounts[1]["token"], {"until": until.isoformat()})
    page = as_player(browser, server, accounts[0])
    open_game_page(page, server, gid)
    notice = page.locator(".vacation-notice[data-seat='2']")
    notice.wait_for()
    text = notice.inner_text()
    assert text.startswith("Lea is on vacation until") and "27 days left" in text
    assert "vacation applies" in page.inner_text("#clocks")
    page.close()
