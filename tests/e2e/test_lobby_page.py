"""A lobby that scales (issue 39): with 130 open games the 30 oldest could not be
reached and the page grew to 10,600 px. Each list shows a page and "Show more", in a
box of bounded height; filters by seats, variant, clock and a free seat, and a search
by player name, narrow every list."""

from __future__ import annotations

import pytest

from tests.e2e.test_browser import call, new_page

pytestmark = pytest.mark.timeout(300)


def open_games(server, count: int, seated_by: str = "Zed Zebra") -> tuple[list[str], str]:  # type: ignore[no-untyped-def]
    host = call(server, "POST", "/accounts", body={"name": "Host"})
    made = [
        call(server, "POST", "/games", host["token"], {"max_players": 2 if i % 2 else 4})["game_id"]
        for i in range(count)
    ]
    zed = call(server, "POST", "/accounts", body={"name": seated_by})
    seated = call(server, "POST", "/games", zed["token"], {"max_players": 3})["game_id"]
    call(server, "POST", f"/games/{seated}/seats", zed["token"], {"colour": "green"})
    return made, seated


def listed(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.eval_on_selector_all(
        "#open-games li[data-game]", "items => items.map(i => i.dataset.game)"
    )


def test_every_open_game_is_reached_and_the_page_stays_short(browser, server):
    made, seated = open_games(server, 130)
    page = new_page(browser, server)
    page.goto(f"{server}/")
    page.wait_for_selector("#open-games li[data-game]")
    assert len(listed(page)) == 20
    assert page.evaluate("document.documentElement.scrollHeight") < 4000
    while page.is_visible("#open-games .show-more"):
        before = len(listed(page))
        page.click("#open-games .show-more")
        page.wait_for_function(
            f"document.querySelectorAll('#open-games li[data-game]').length > {before}"
            " || document.querySelector('#open-games .show-more').hidden"
        )
    shown = listed(page)
    assert set(made) | {seated} <= set(shown) and len(shown) == len(set(shown))
    assert made[0] in shown  # the oldest too
    assert page.evaluate("document.documentElement.scrollHeight") < 4000
    assert page.errors == []


def test_the_filters_and_the_search_narrow_the_lists(browser, server):
    _, seated = open_games(server, 30, seated_by="Quentin Quagga")
    page = new_page(browser, server)
    page.goto(f"{server}/")
    page.wait_for_selector("#filters")
    page.select_option("#filter-players", "3")
    page.wait_for_function(
        "[...document.querySelectorAll('#open-games li[data-game]')].every("
        "li => li.textContent.includes('of 3 seats'))"
    )
    assert seated in listed(page)
    page.select_option("#filter-players", "")
    page.fill("#filter-player", "quagga")
    page.wait_for_function("document.querySelectorAll('#open-games li[data-game]').length === 1")
    assert listed(page) == [seated]
    page.fill("#filter-player", "nobody at all")
    page.wait_for_function(
        "document.querySelector('#open-games').textContent.includes('None that fits')"
    )
    page.fill("#filter-player", "")
    page.check("#filter-free")
    page.wait_for_function("document.querySelectorAll('#open-games li[data-game]').length > 0")
    assert page.errors == []
