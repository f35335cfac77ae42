"""The game page's chat in Chromium (docs/chat.md): two players talk at the table, a
spectator's chat is apart from theirs, a player mutes the other, a report, and an
auditor hides a message that the players then see replaced by its reason."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.e2e.conftest import ROOT
from tests.e2e.test_browser import call
from tests.e2e.test_game_page import as_player, game, open_game_page

pytestmark = pytest.mark.timeout(300)


def auditor_account(server) -> dict[str, str]:
    env = {**os.environ, "TONGIAKI_DATA_DIR": str(server.data), "DATABASE_URL": "", "REDIS_URL": ""}
    made = subprocess.run(
        [sys.executable, "-m", "service.cli", "auditor", "create", "Audrey"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    account_id = re.search(r"\((\w+)\)", made.stdout)[1]
    token = made.stdout.split("token: ")[1].strip()
    return {"account_id": account_id, "token": token, "name": "Audrey"}


def chat_page(browser, server, account, gid):
    page = as_player(browser, server, account)
    open_game_page(page, server, gid)
    page.wait_for_selector("#chat-panel #chat-input")
    return page


def say(page, text):
    page.fill("#chat-input", text)
    page.click("#chat-send")
    page.wait_for_function("document.querySelector('#chat-input').value === ''")


def line(channel, text):
    return f"#chat-{channel} li.chat-message:has-text('{text}')"


def test_players_chat_spectators_apart_a_mute_a_report_and_an_auditors_hide(browser, server):
    gid, _, (ann, bob) = game(server)
    sam = call(server, "POST", "/accounts", body={"name": "Sam"})
    ann_page = chat_page(browser, server, ann, gid)
    bob_page = chat_page(browser, server, bob, gid)
    sam_page = chat_page(browser, server, sam, gid)

    # the panel is labelled and a log for screen readers
    assert ann_page.get_attribute("#chat-table", "role") == "log"
    assert ann_page.inner_text("label[for=chat-input]") == "Message to the table"
    assert sam_page.inner_text("label[for=chat-input]") == "Message to the spectators"

    # players talk at the table; the spectator neither reads nor writes there (M1, M2)
    say(ann_page, "good luck, Bob")
    bob_page.wait_for_selector(line("table", "good luck, Bob"))
    say(sam_page, "go blue!")
    sam_page.wait_for_selector(line("spectators", "go blue!"))
    assert sam_page.query_selector("#chat-table") is None
    assert ann_page.query_selector("#chat-spectators") is None
    say(bob_page, "thanks, Ann")
    ann_page.wait_for_selector(line("table", "thanks, Ann"))
    assert "go blue!" not in ann_page.inner_text("#chat-panel")

    # Bob mutes Ann: her messages leave his page, not hers (M5)
    bob_page.click(f"#chat-table li[data-author='{ann['account_id']}'] button.chat-mute")
    bob_page.wait_for_selector(line("table", "good luck, Bob"), state="detached")
    say(ann_page, "are you there?")
    ann_page.wait_for_selector(line("table", "are you there?"))
    bob_page.wait_for_selector(".chat-unmute")
    assert "are you there?" not in bob_page.inner_text("#chat-panel")

    # Ann reports Bob's message (M6)
    say(bob_page, "you will lose badly")
    ann_page.wait_for_selector(line("table", "you will lose badly"))
    ann_page.once("dialog", lambda d: d.accept("taunting"))
    ann_page.click(f"{line('table', 'you will lose badly')} button.chat-report")
    ann_page.wait_for_selector(f"{line('table', 'you will lose badly')} .chat-reported")

    # an auditor sees the report and both channels, and hides the message (M7)
    audrey = auditor_account(server)
    reports = call(server, "GET", "/chat/reports", audrey["token"])["reports"]
    assert [(r["reason"], r["message"]["text"]) for r in reports] == [
        ("taunting", "you will lose badly")
    ]
    desk = chat_page(browser, server, audrey, gid)
    desk.wait_for_selector(line("spectators", "go blue!"))
    desk.wait_for_selector(line("table", "you will lose badly"))
    desk.once("dialog", lambda d: d.accept("unsporting"))
    desk.click(f"{line('table', 'you will lose badly')} button.chat-hide")
    desk.wait_for_selector("#chat-table .chat-hidden:has-text('unsporting')")
    assert "you will lose badly" in desk.inner_text("#chat-table")  # auditors still read it

    ann_page.wait_for_selector(
        "#chat-table .chat-hidden:has-text('hidden by an arbiter: unsporting')"
    )
    assert "you will lose badly" not in ann_page.inner_text("#chat-table")
    for page in (ann_page, bob_page, sam_page, desk):
        assert page.errors == []
