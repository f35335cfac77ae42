"""The public log in the browser (issue 28): the game and replay pages check the log's
signed checkpoint, its consistency with the largest this browser saw, and the
inclusion of the head they show, and show a fingerprint; an inconsistency is a loud
banner, never a silent pass."""

from __future__ import annotations

import base64
import json
import re
import urllib.request

import pytest

from tests.e2e.test_browser import new_page, started_game

pytestmark = pytest.mark.timeout(300)
FINGERPRINT = re.compile(r"[0-9A-F]{4}(-[0-9A-F]{4}){3}")


def text(server, path):
    with urllib.request.urlopen(f"{server}{path}", timeout=30) as answer:
        return answer.read().decode()


def test_the_game_and_replay_pages_check_their_head_in_the_public_log(browser, server):
    game_id, _, _ = started_game(server, moves=6)
    page = new_page(browser, server, bypass_csp=False)  # the pages' own policy in force
    page.goto(f"{server}/games/{game_id}")
    page.wait_for_selector("body[data-log=ok]", timeout=60_000)
    shown = page.inner_text("#log-fingerprint")
    assert FINGERPRINT.fullmatch(shown)
    # the fingerprint is of the log as it was at this move's entry: the same for everyone
    head = json.loads(text(server, f"/api/v1/games/{game_id}"))["version"]
    proof = json.loads(text(server, f"/api/v1/games/{game_id}/proof?version={head}"))
    root = base64.b64decode(proof["root_at_entry"]).hex().upper()
    assert shown == f"{root[:4]}-{root[4:8]}-{root[8:12]}-{root[12:16]}"
    assert f"Version {head} is in the public log" in page.inner_text("#log-panel")
    other = new_page(browser, server)  # another player, after more moves of other games
    started_game(server, moves=2)
    other.goto(f"{server}/games/{game_id}")
    other.wait_for_selector("body[data-log=ok]", timeout=60_000)
    assert other.inner_text("#log-fingerprint") == shown
    # the replay checks the version it shows: one inside a commit, by the commit's entry
    page.goto(f"{server}/games/{game_id}/replay?v=2")
    page.wait_for_selector("body[data-log=ok]", timeout=60_000)
    assert "Version 2" in page.inner_text("#log-panel")
    assert page.errors == []


def test_a_checkpoint_that_does_not_extend_the_one_seen_is_a_loud_banner(browser, server):
    game_id, _, _ = started_game(server, moves=3)
    origin = text(server, "/log/key").split("+")[0]
    size = int(text(server, "/log/checkpoint").split("\n")[1])
    # this browser saw, earlier, a tree of one entry less with another root
    forged = {
        "origin": origin,
        "size": size - 1,
        "root": base64.b64encode(b"\x11" * 32).decode(),
        "note": "kept",
    }
    page = new_page(browser, server)
    page.add_init_script(
        f"localStorage.setItem('tongiaki.log.kept', {json.dumps(json.dumps(forged))})"
    )
    page.goto(f"{server}/games/{game_id}")
    page.wait_for_selector("#log-alarm[role=alert]", timeout=60_000)
    words = page.inner_text("#log-alarm")
    assert "two different histories" in words and f"{size - 1} this browser saw" in words
    assert page.evaluate("document.body.dataset.log") == "inconsistent"
    evidence = json.loads(page.evaluate("localStorage.getItem('tongiaki.log.evidence')"))
    assert evidence["kept"] == "kept" and evidence["shown"].startswith(origin)
    # the forged checkpoint is not replaced by the server's
    assert json.loads(page.evaluate("localStorage.getItem('tongiaki.log.kept')")) == forged
