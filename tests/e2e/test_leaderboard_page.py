"""The leaderboard page and rated games in the browser (docs/ratings.md G1, G7, G8): the
lobby's form opens a rated game, the lobby and the game page say so, and the leaderboard
shows ratings (with the provisional mark) and wins, as the API does."""

from __future__ import annotations

import random

import pytest

from tests.e2e.a11y import axe_check, headings
from tests.e2e.conftest import to_docs
from tests.e2e.test_browser import call, new_page, play, sign_up

pytestmark = pytest.mark.timeout(600)


def rated_game(server, names, seed, made=None):
    """A rated game of these new accounts (or of the accounts ``made``), played out over
    the API."""
    made = made or [call(server, "POST", "/accounts", body={"name": n}) for n in names]
    tokens = {a["account_id"]: a["token"] for a in made}
    body = {"max_players": len(made), "rated": True}
    game_id = call(server, "POST", "/games", made[0]["token"], body)["game_id"]
    for a, colour in zip(made, ["blue", "red", "green"], strict=False):
        call(server, "POST", f"/games/{game_id}/seats", a["token"], {"colour": colour})
    call(server, "POST", f"/games/{game_id}/start", made[0]["token"])
    legal = play(server, game_id, tokens, random.Random(seed), 3000)
    assert legal["decision"] is None
    return game_id


def test_g1_the_lobby_opens_a_rated_game_and_the_pages_say_so(browser, server):
    page, _ = sign_up(browser, server, "Rita Rated")
    page.check("#rated")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#open-games li[data-game]")
    item = page.locator("#open-games li[data-game]").filter(has_text="Rita Rated")
    assert "rated" in item.first.inner_text()
    game_id = item.first.get_attribute("data-game")
    assert call(server, "GET", f"/games/{game_id}")["rated"] is True
    page.goto(f"{server}/games/{game_id}")
    page.wait_for_selector("#rated-line")
    assert page.inner_text("#rated-line").startswith("Rated game")
    assert page.errors == []


def test_g7_the_leaderboard_shows_ratings_with_the_provisional_mark_and_wins(
    browser, server, shots
):
    rated_game(server, ["Ann Alpha", "Bob Beta", "Cy Gamma"], seed=3)
    rated_game(server, ["Dee Delta", "Eve Epsilon"], seed=4)
    expected = call(server, "GET", "/ratings?min_games=1")["players"]
    page = new_page(browser, server)
    page.goto(f"{server}/leaderboard")
    page.wait_for_selector("#board-status")
    # the default minimum is 5 rated games: nobody yet
    page.wait_for_function("document.querySelector('#board-status').textContent !== ''")
    assert page.inner_text("#board-status") == "Nobody has 5 rated games yet."
    page.fill("#min-games", "99999")  # more than the page asks for: shown as asked
    page.dispatch_event("#min-games", "change")
    page.wait_for_function("document.querySelector('#min-games').value === '1000'")
    page.wait_for_function(
        "document.querySelector('#board-status').textContent === 'Nobody has 1000 rated games yet.'"
    )
    page.fill("#min-games", "1")
    page.dispatch_event("#min-games", "change")
    page.wait_for_selector("#board tr[data-account]")
    rows = page.locator("#board tr[data-account]")
    shown = [rows.nth(i).get_attribute("data-account") for i in range(rows.count())]
    assert shown == [p["account_id"] for p in expected]
    first = rows.nth(0).inner_text()
    assert f"{expected[0]['rating']:.1f}" in first and "?" in first  # provisional (G8)
    assert len(headings(page)) == 1
    axe_check(page, "the leaderboard, by rating")
    page.screenshot(path=str(shots / "leaderboard.png"), full_page=True)
    to_docs(shots / "leaderboard.png")
    # the wins tab: the existing leaderboard, unchanged
    page.click("#tab-wins")
    page.wait_for_selector("#board th:text('Wins')")
    assert page.locator("#board tr[data-account]").count() == len(
        call(server, "GET", "/leaderboard")["players"]
    )
    assert page.is_hidden("#min-games-label")
    axe_check(page, "the leaderboard, by wins")
    assert page.errors == []


def test_g2_a_players_page_shows_the_rating_now_and_its_history_as_a_chart(browser, server):
    """docs/profiles.md and ratings.md G2, G8: the player's page reads the rating and its
    history from GET /accounts/{id}/ratings; a player without a rated game is told so."""
    made = [call(server, "POST", "/accounts", body={"name": n}) for n in ("Hana", "Ika")]
    for seed in (5, 6):
        rated_game(server, [], seed, made=made)
    hana = made[0]["account_id"]
    expected = call(server, "GET", f"/accounts/{hana}/ratings")
    page = new_page(browser, server)
    page.goto(f"{server}/players/{hana}")
    page.wait_for_selector("#rating-now")
    now = page.inner_text("#rating-now")
    assert now.startswith(f"{expected['rating']['rating']:.1f} after 2 rated games")
    assert "provisional until 10 rated games" in now
    points = page.get_attribute("#rating svg.rating-chart polyline", "points")
    assert len(points.split()) == 3  # before the first game, after each of the two
    assert "over the last 2 rated games" in page.inner_text("#rating-range")
    axe_check(page, "a player's page with a rating chart")
    newcomer = call(server, "POST", "/accounts", body={"name": "Nia"})["account_id"]
    page.goto(f"{server}/players/{newcomer}")
    page.wait_for_selector("#rating p")
    assert page.inner_text("#rating p") == "No rated game yet."
    assert page.errors == []
