"""Disputes in the browser (docs/disputes.md): a player opens a dispute from the game
page, an auditor signs in with a token, sees the evidence, rules *rewind*, both players
play on from the earlier position, and the replay shows the superseded branch."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import urllib.error

import pytest

from tests.e2e.conftest import ROOT, to_docs
from tests.e2e.test_browser import call, new_page
from tests.e2e.test_game_page import as_player, game, open_game_page

pytestmark = pytest.mark.timeout(300)


def auditor_token(server) -> str:
    env = {**os.environ, "TONGIAKI_DATA_DIR": str(server.data), "DATABASE_URL": "", "REDIS_URL": ""}
    made = subprocess.run(
        [sys.executable, "-m", "service.cli", "auditor", "create", "Audrey"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return made.stdout.split("token: ")[1].strip()


def moves(server, gid, tokens, n):
    receipts = []
    for _ in range(n):
        legal = call(server, "GET", f"/games/{gid}/legal")
        if legal["decision"] is None:
            break
        done = call(
            server,
            "POST",
            f"/games/{gid}/commands",
            tokens[legal["player_id"]],
            legal["commands"][0],
        )
        receipts.append(done["version"])
    return receipts


def test_a_dispute_from_the_game_page_to_a_rewind_ruling_and_play_on(browser, server, shots):
    gid, tokens, (ann, _bob) = game(server, deck=3)
    receipts = moves(server, gid, tokens, 14)
    disputed = receipts[8]

    # Ann disputes a move from the game page
    page = as_player(browser, server, ann)
    open_game_page(page, server, gid)
    assert "null" not in page.inner_text("#disputes-panel")
    page.click("#open-dispute")
    page.select_option("#dispute-reason", "misclick")
    # picking the move in the list disputes that move, named in words before filing
    page.click(f"li.move[data-last='{disputed}'] .who")
    page.wait_for_function(
        f"document.querySelector('#dispute-version').value === '{disputed}'", timeout=10000
    )
    assert f"(version {disputed})" in page.inner_text("#dispute-move")
    assert "null" not in page.inner_text("#disputes-panel")
    page.fill("#dispute-text", "I meant the other beach")
    page.click("#dispute-send")
    page.wait_for_selector("#dispute-list li.dispute.open")
    link = page.get_attribute("#dispute-list li.dispute a", "href")

    # the auditor signs in with a token in the browser and finds it in the queue
    auditor = new_page(browser, server)
    auditor.goto(f"{server}/")
    auditor.fill("#token", auditor_token(server))
    auditor.click("#signin button[type=submit]")
    auditor.wait_for_url(f"{server}/disputes")
    auditor.wait_for_selector("#queue li.dispute")
    assert "(auditor)" in auditor.inner_text("#me")
    line = auditor.inner_text("#queue li.dispute")  # told apart: game, move, opener, age
    assert f"game {gid}, version {disputed}" in line and "opened by Ann" in line and "ago" in line
    auditor.click(f"#queue a[href='{link}']")
    auditor.wait_for_selector("#evidence")
    auditor.wait_for_selector("#board-before svg")
    auditor.wait_for_selector("#board-after svg")
    assert "still has the hash" in auditor.inner_text("#anchor")
    assert "the same events" in auditor.inner_text("#rerun")
    assert "yes" in auditor.inner_text("#draws")
    assert "I meant the other beach" in auditor.inner_text("#dispute")
    auditor.click("#legal-before > summary")  # the other legal moves, in words
    options = auditor.locator("#legal-before > ul > li")
    assert options.count() >= 1 and "{" not in options.first.inner_text()
    auditor.screenshot(path=str(shots / "dispute.png"), full_page=True)
    to_docs(shots / "dispute.png")

    # the ruling: rewind to the position before the disputed command
    auditor.select_option("#decision", "rewind")
    to_version = int(auditor.input_value("#to-version"))
    assert to_version < disputed and to_version in receipts
    auditor.fill("#reasoning", "A misclick on a phone: play on from before it")
    auditor.fill("#rules", "D6")
    auditor.click("#rule")
    # before it is issued, the arbiter reads what it will do and confirms
    effect = auditor.locator("#ruling-confirm")
    effect.wait_for()
    assert f"set aside every move after version {to_version}" in effect.inner_text()
    assert "deal the tiles not yet drawn" in effect.inner_text()
    assert auditor.locator("#ruling").count() == 0  # nothing ruled yet
    auditor.click("#confirm-ruling")
    auditor.wait_for_selector("#ruling")
    assert "Rewound to version" in auditor.inner_text("#ruling")

    # both players continue from the earlier position
    state = call(server, "GET", f"/games/{gid}/state")
    then = call(server, "GET", f"/games/{gid}/state?at={to_version}")
    assert state["position"]["turn"] == then["position"]["turn"]
    assert moves(server, gid, tokens, 4)
    page.reload()
    page.wait_for_selector("#side h1")
    page.wait_for_selector("li.move.superseded")
    assert "rewound" in page.inner_text("#dispute-list").lower()

    # the replay shows the superseded branch and the ruling at its place
    replay = new_page(browser, server)
    replay.goto(f"{server}/games/{gid}/replay")
    replay.wait_for_selector("li.move.rewind")
    assert replay.locator("li.move.superseded").count() >= 1
    assert not page.errors and not auditor.errors and not replay.errors


def test_the_audit_page_filters_shows_words_boards_and_hashes_on_demand(browser, server):
    gid, tokens, (ann, bob) = game(server, deck=5)
    moves(server, gid, tokens, 10)
    legal = call(server, "GET", f"/games/{gid}/legal")
    idle = next(t for a, t in tokens.items() if a != legal["player_id"])
    # a refusal to find with the filter (not this player's turn), then a move
    with contextlib.suppress(urllib.error.HTTPError):  # 403: journalled as refused
        call(server, "POST", f"/games/{gid}/commands", idle, legal["commands"][0])
    moves(server, gid, tokens, 1)
    page = as_player(browser, server, ann)
    page.goto(f"{server}/games/{gid}/audit")
    page.wait_for_selector("#verification")
    rows = page.locator("li.command")
    total = rows.count()
    assert "Start the game" in page.inner_text("#main")
    assert page.locator("li.command time").first.get_attribute("datetime")
    page.check("#only-refused")
    visible = page.locator("li.command:not([hidden])")
    assert 1 <= visible.count() < total
    assert all(
        visible.nth(i).get_attribute("data-outcome") == "rejected" for i in range(visible.count())
    )
    page.uncheck("#only-refused")
    page.select_option("#by-seat", bob["account_id"])
    assert all(
        visible.nth(i).get_attribute("data-actor") == bob["account_id"]
        for i in range(visible.count())
    )
    page.select_option("#by-seat", "")
    page.select_option("#by-turn", "1")
    assert all(visible.nth(i).get_attribute("data-turn") == "1" for i in range(visible.count()))
    page.select_option("#by-turn", "")
    accepted = page.locator("li.command[data-outcome=accepted]").nth(5)
    accepted.locator("button.before").click()
    page.wait_for_function(
        "document.getElementById('audit-board-caption').textContent.includes('before')"
    )
    accepted.locator("button.after").click()
    page.wait_for_function(
        "document.getElementById('audit-board-caption').textContent.includes('after')"
    )
    accepted.locator("details.hashes summary").click()
    page.wait_for_selector("li.command[data-outcome=accepted] ol.hash-list code")
    page.click("#deck-facts summary")
    assert "entropy" in page.inner_text("#deck-facts")
    assert not page.errors


def test_a_ruling_that_undoes_a_result_says_so_before_it_is_confirmed(browser, server):
    gid, tokens, (ann, bob) = game(server, deck=4)
    receipts = moves(server, gid, tokens, 6)
    call(server, "POST", f"/games/{gid}/commands", tokens[bob["account_id"]],
         {"type": "ProposeEnd", "player_id": bob["account_id"]})  # fmt: skip
    call(server, "POST", f"/games/{gid}/commands", tokens[ann["account_id"]],
         {"type": "AnswerEnd", "player_id": ann["account_id"], "accept": True})  # fmt: skip
    dispute = call(server, "POST", f"/games/{gid}/disputes", tokens[ann["account_id"]],
                   {"reason": "other", "version": receipts[3], "text": "we ended too soon"})  # fmt: skip
    auditor = new_page(browser, server)
    auditor.goto(f"{server}/")
    auditor.fill("#token", auditor_token(server))
    auditor.click("#signin button[type=submit]")
    auditor.wait_for_url(f"{server}/disputes")
    auditor.goto(f"{server}/disputes/{dispute['dispute_id']}")
    auditor.wait_for_selector("#ruling-form")
    auditor.select_option("#decision", "rewind")
    auditor.fill("#reasoning", "Play on")
    auditor.fill("#rules", "D6")
    auditor.click("#rule")
    effect = auditor.locator("#ruling-confirm")
    effect.wait_for()
    told = effect.inner_text()
    assert "undo the result: " in told and "the game is under way again" in told
    assert (
        "Ann" in told.split("undo the result: ")[1] or "Bob" in told.split("undo the result: ")[1]
    )
    auditor.click("#cancel-ruling")  # going back changes nothing
    assert call(server, "GET", f"/games/{gid}")["status"] == "ended"
    auditor.close()
