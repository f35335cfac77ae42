"""A game played in French and in Italian in the browser (docs/i18n.md): the page speaks
the language the picker chose, and no English text of either catalog is left on the
game page, while playing and at the end (names are values, not words). The picker's
choice holds as the player moves around."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from tests.e2e.conftest import to_docs
from tests.e2e.test_browser import act, call, play
from tests.e2e.test_game_page import as_player, game, open_game_page

pytestmark = pytest.mark.timeout(900)

LOCALES = Path(__file__).resolve().parents[2] / "service" / "i18n" / "locales"
FIELD = re.compile(r"\{\{|\}\}|\{[^{}]*\}")


@cache
def english(lang: str) -> tuple[frozenset[str], frozenset[str]]:
    """The English texts a page in ``lang`` must not show: whole messages (a button's
    "Play") and their longer pieces between fields (a sentence's words), leaving out
    those the language writes the same (an "Orange", a "Tonga")."""
    entries, said = [], set()
    for domain in ("pages", "messages"):
        with (LOCALES / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as handle:
            for m in read_po(handle):
                if not m.id:
                    continue
                ids = [m.id] if isinstance(m.id, str) else list(m.id)
                texts = [m.string] if isinstance(m.string, str) else list(m.string)
                said.update(texts)
                entries.append((ids, texts))
    whole, pieces = set(), set()
    for ids, texts in entries:
        for msgid in ids:
            if msgid in texts or any(msgid in t for t in said):
                continue
            if not FIELD.search(msgid):
                whole.add(msgid.strip())
            for piece in FIELD.split(msgid):
                piece = piece.strip(" .,:;()")
                if len(piece) >= 14 and " " in piece and not any(piece in t for t in said):
                    pieces.add(piece)
    return frozenset(whole), frozenset(pieces)


def leftovers(page, lang: str) -> list[str]:
    """English texts shown on the page (its visible text, and its buttons' names)."""
    text = page.inner_text("body")
    labels = page.evaluate(
        "[...document.querySelectorAll('[aria-label],[title],[placeholder]')]"
        ".map(e => e.getAttribute('aria-label') || e.getAttribute('title') || e.getAttribute('placeholder'))"
    )
    lines = {line.strip() for line in text.splitlines()} | {x.strip() for x in labels if x}
    whole, pieces = english(lang)
    found = sorted(line for line in lines if line in whole)
    found += sorted(p for p in pieces if p in text)
    return found


def played_in(browser, server, lang: str, shots: Path | None = None) -> None:
    gid, tokens, accounts = game(server, names=(f"Ana-{lang}", f"Ben-{lang}"))
    pages = {}
    for account in accounts:
        page = as_player(browser, server, account)
        page.goto(f"{server}/?lang={lang}")  # the picker's link: the browser keeps it
        open_game_page(page, server, gid)
        assert page.evaluate("document.documentElement.lang") == lang
        pages[account["account_id"]] = page
    rng = random.Random(7)
    for _ in range(8):  # moves played by clicking, each by the player whose move it is
        legal = call(server, "GET", f"/games/{gid}/legal")
        if legal["decision"] is None:
            break
        page = pages[legal["player_id"]]
        page.wait_for_function(f"document.body.dataset.version >= {legal['version']}")
        page.wait_for_selector("#play, #confirm", timeout=60_000)  # its move, on its page
        assert act(page, rng)
        for other in pages.values():
            assert leftovers(other, lang) == [], other.url
    first = pages[accounts[0]["account_id"]]
    if shots is not None:
        first.screenshot(path=str(shots / f"game-{lang}.png"))
        to_docs(shots / f"game-{lang}.png")
    play(server, gid, tokens, rng, 3000)  # the rest by bots, to the end screen
    for page in pages.values():
        open_game_page(page, server, gid)
        page.wait_for_selector("#result")
        assert leftovers(page, lang) == [], page.url
        assert page.errors == []
    first.goto(f"{server}/games/{gid}/replay")  # the choice holds on every page
    first.wait_for_selector("#main h1")
    assert first.evaluate("document.documentElement.lang") == lang


def test_a_game_played_in_french_leaves_no_english_on_the_game_page(browser, server, shots):
    played_in(browser, server, "fr", shots)


def test_a_game_played_in_italian_leaves_no_english_on_the_game_page(browser, server):
    played_in(browser, server, "it")


def test_the_picker_is_on_every_page_and_keeps_a_signed_in_accounts_choice(browser, server):
    cleo = game(server, names=("Cleo", "Dan"))[2][0]
    page = as_player(browser, server, cleo)
    for path in ("/", "/leaderboard", "/leagues", "/account", "/docs/rules", "/problems"):
        page.goto(f"{server}{path}?lang=it")
        names = page.locator("#languages a").all_inner_texts()
        assert names == ["English", "Français", "Italiano"], (path, names)
        assert page.locator("#languages a[aria-current]").inner_text() == "Italiano"
    page.goto(f"{server}/")
    page.wait_for_selector("#nav a")
    page.click("#languages a[hreflang=fr]")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    page.goto(f"{server}/leaderboard")  # remembered: no ?lang= now
    assert page.evaluate("document.documentElement.lang") == "fr"
    # and kept as the account's, for its mails (a signed-in browser's click)
    assert call(server, "GET", "/me/language", cleo["token"])["language"] == "fr"
