"""A game nobody sits at yet, in the browser: its page shows the empty table and the
seats to take, and the browser reports no error — neither a script error nor a bad
attribute (the board once set a viewBox of NaN when it had no size to fit)."""

from __future__ import annotations

import pytest

from tests.e2e.test_browser import call, new_page

pytestmark = pytest.mark.timeout(300)


def test_the_page_of_a_game_with_no_seats_taken_logs_no_error(browser, server):
    opener = call(server, "POST", "/accounts", body={"name": "Nobody Yet"})
    game_id = call(server, "POST", "/games", opener["token"], {"max_players": 3})["game_id"]
    page = new_page(browser, server)
    logged: list[str] = []
    page.on("console", lambda m: logged.append(m.text) if m.type == "error" else None)
    page.goto(f"{server}/games/{game_id}")
    page.wait_for_selector("main")
    page.wait_for_load_state("networkidle")
    assert page.errors == []
    assert [t for t in logged if "viewBox" in t or "NaN" in t] == []
