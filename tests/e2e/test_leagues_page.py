"""Leagues in the browser (docs/leagues.md): a player creates a league on /leagues with
a join link, a friend joins by the link, the creator starts it, the league's page shows
the schedule with each table's game and, once round 1 is played, the standings and
round 2 opened; a league of one is refused in words with its rule."""

from __future__ import annotations

import random

import pytest

from tests.e2e.a11y import axe_check, headings
from tests.e2e.test_browser import call
from tests.e2e.test_game_page import as_player

pytestmark = pytest.mark.timeout(300)


def account(server, name):
    made = call(server, "POST", "/accounts", None, {"name": name})
    return {"account_id": made["account_id"], "token": made["token"], "name": name}


def play_out(server, gid, tokens, seed):
    rng = random.Random(seed)
    for _ in range(3000):
        legal = call(server, "GET", f"/games/{gid}/legal")
        if legal["decision"] is None:
            return
        call(server, "POST", f"/games/{gid}/commands", tokens[legal["player_id"]],
             rng.choice(legal["commands"]))  # fmt: skip
    raise AssertionError("the game did not end")


def test_a_league_created_joined_started_and_played_from_its_pages(browser, server, shots):
    ann, bob, cy = (account(server, n) for n in ("Annelie", "Bobbie", "Cyrus"))
    page = as_player(browser, server, ann)
    page.goto(f"{server}/leagues")
    page.wait_for_selector("#league-form")
    # a league of one is refused, in words, with its rule
    page.fill("#league-name", "Alone")
    page.click("#league-form button[type=submit]")
    page.wait_for_selector("#league-error .error")
    assert "rule L2" in page.inner_text("#league-error")
    # Ann creates one with Bobbie, a join link and a clock per decision
    page.fill("#league-name", "Winter league")
    page.fill("#league-players", "Bobbie")
    page.check("#league-link")
    page.select_option("#league-clock", "move")
    page.click("#league-form button[type=submit]")
    page.wait_for_url(f"{server}/leagues/*")
    page.wait_for_selector("#league-start")
    league_id = page.url.rsplit("/", 1)[1]
    link = page.input_value("#league-link-value")
    assert "/leagues/" in link and "join=" in link
    # Cyrus opens the link and joins
    other = as_player(browser, server, cy)
    other.goto(link)
    other.click("#league-join")
    other.wait_for_function("document.querySelectorAll('#players li').length === 3")
    # Ann starts it: three rounds, one table each (one player sits out a round)
    page.reload()
    page.click("#league-start")
    page.wait_for_selector("#schedule .round[data-round='3']")
    assert page.get_attribute("#league", "data-status") == "started"
    first = page.locator(".round[data-round='1'] li.table a")
    gid = first.get_attribute("href").rsplit("/", 1)[1]
    assert "Sitting out: " in page.inner_text(".round[data-round='1']")
    page.screenshot(path=str(shots / "league-page.png"), full_page=True)
    assert len(headings(page)) == 1
    axe_check(page, "a league's page")
    # when round 1 is played out, the league's page shows its result and round 2
    tokens = {a["account_id"]: a["token"] for a in (ann, bob, cy)}
    play_out(server, gid, tokens, 1)
    page.reload()
    page.wait_for_selector(".round[data-round='2'] li.table a")
    assert page.get_attribute(".round[data-round='1'] li.table", "data-status") == "ended"
    games = [int(t) for t in page.locator("#standings tbody td:nth-child(3)").all_inner_texts()]
    assert sorted(games) == [0, 1, 1]
    # the league is listed, and its table's link opens the game
    page.goto(f"{server}/leagues")
    page.wait_for_selector(f"#leagues li[data-league='{league_id}']")
    assert len(headings(page)) == 1
    axe_check(page, "the leagues page")
    assert "round 2 of 3" in page.inner_text(f"#leagues li[data-league='{league_id}']")
    page.goto(f"{server}/leagues/{league_id}")
    page.click(".round[data-round='1'] li.table a")
    page.wait_for_url(f"{server}/games/{gid}")
