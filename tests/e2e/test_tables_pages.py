"""Between games in the browser (docs/invitations.md): two players in two browser
contexts — a rematch proposed on one end screen and accepted on the other, both pages
then linking to the new game, which links back (RM1–RM7); a private table opened from
the lobby for a named player and with a link, the invitee joining from the lobby's
list, a link's holder taking a seat, another invitee declining as the opener watches,
and the table absent from everyone's lobby (I1–I7)."""

from __future__ import annotations

import random
import uuid

import pytest

from tests.e2e.a11y import axe_check
from tests.e2e.test_browser import call, new_page, play
from tests.e2e.test_game_page import as_player, game, open_game_page

pytestmark = pytest.mark.timeout(300)
WAIT = 20000  # ms: a page's next look (the rematch panel looks every 4 s)


def unique(name):
    return f"{name}-{uuid.uuid4().hex[:6]}"


def test_a_rematch_proposed_on_one_end_screen_is_accepted_on_the_other(browser, server):
    gid, tokens, accounts = game(server, names=(unique("Ann"), unique("Bob")), deck=2)
    assert play(server, gid, tokens, random.Random(7), 3000)["decision"] is None
    ann, bob = (as_player(browser, server, a) for a in accounts)
    for page in (ann, bob):
        open_game_page(page, server, gid)
    spectator = new_page(browser, server)
    open_game_page(spectator, server, gid)
    ann.click("#rematch-propose")
    ann.locator("#rematch-status", has_text="A rematch is proposed").wait_for()
    assert ann.locator("#rematch-accept").count() == 0  # proposing is accepting (RM5)
    # Bob's end screen hears of it on its next look, and asks for his answer
    bob.locator("#rematch-accept").wait_for(timeout=WAIT)
    assert spectator.locator("#rematch-propose, #rematch-accept").count() == 0
    axe_check(bob)
    bob.click("#rematch-accept")
    bob.locator("#rematch-next-link").wait_for(timeout=WAIT)
    ann.locator("#rematch-next-link").wait_for(timeout=WAIT)
    # the spectator's page, open all along, shows the new game too (it once did only
    # when opened again)
    spectator.locator("#rematch-next-link").wait_for(timeout=WAIT)
    new_id = call(server, "GET", f"/games/{gid}/rematch")["proposal"]["next_game_id"]
    assert ann.get_attribute("#rematch-next-link", "href") == f"/games/{new_id}"
    # the new game's page links back to the old; Bob sits first now (RM4)
    bob.click("#rematch-next-link")
    bob.locator("#rematch-previous-link").wait_for(timeout=WAIT)
    assert bob.get_attribute("#rematch-previous-link", "href") == f"/games/{gid}"
    seats = call(server, "GET", f"/games/{new_id}")["players"]
    assert [p["player_id"] for p in seats] == [accounts[1]["account_id"], accounts[0]["account_id"]]
    assert not (ann.errors or bob.errors or spectator.errors)


def test_a_private_table_is_opened_joined_by_invitation_and_by_link_and_stays_unlisted(
    browser, server
):
    names = {k: unique(k) for k in ("Hina", "Tane", "Moana", "Rua", "Kai")}
    made = {k: call(server, "POST", "/accounts", body={"name": v}) for k, v in names.items()}
    hina, tane, moana, rua, kai = (as_player(browser, server, made[k]) for k in names)
    # Hina opens a private table for Tane and Rua, with a link, from the lobby
    hina.goto(f"{server}/")
    hina.locator("#create").wait_for()
    hina.select_option("#max-players", "4")
    hina.check("#private-table")
    hina.fill("#invitees", f"{names['Tane']}, {names['Rua']}")
    hina.check("#invitation-link")
    hina.click("#create button[type=submit]")
    hina.wait_for_url("**/games/*")
    gid = hina.url.rsplit("/", 1)[1]
    link = hina.locator("#invitation-link-text")
    link.wait_for(timeout=WAIT)
    address = link.input_value()
    assert f"/?game={gid}&invitation=" in address
    # Tane sees the invitation in the lobby and joins from it
    tane.goto(f"{server}/")
    row = tane.locator(f"#my-invitations li[data-game='{gid}']")
    row.wait_for(timeout=WAIT)
    axe_check(tane)
    row.locator("[data-action=accept-invitation]").click()
    tane.wait_for_url(f"**/games/{gid}")
    # Rua declines; Hina's page shows it
    rua.goto(f"{server}/")
    rua.locator(f"#my-invitations li[data-game='{gid}'] [data-action=decline-invitation]").click()
    rua.locator("#my-invitations").wait_for(state="detached", timeout=WAIT)
    hina.reload()
    hina.locator("#invitation-answers li[data-answer=declined]").wait_for(timeout=WAIT)
    # Moana holds the link: she takes a seat with it
    moana.goto(address)
    moana.locator("#join-by-link").wait_for(timeout=WAIT)
    moana.click("#join-by-link")
    moana.wait_for_url(f"**/games/{gid}")
    seated = {p["player_id"] for p in call(server, "GET", f"/games/{gid}")["players"]}
    assert seated == {made[k]["account_id"] for k in ("Hina", "Tane", "Moana")}
    # Kai, with neither, finds it in no lobby list, and cannot sit by the API either
    kai.goto(f"{server}/")
    kai.locator("#open-games").wait_for()
    assert kai.locator(f"a[href='/games/{gid}']").count() == 0
    assert gid not in [g["game_id"] for g in call(server, "GET", "/lobby?status=open")["games"]]
    refused = call_status(server, f"/games/{gid}/seats", made["Kai"]["token"], {"colour": "purple"})
    assert refused == 403
    for page in (hina, tane, rua, moana, kai):
        assert not page.errors, page.errors


def call_status(server, path, token, body):
    import urllib.error

    try:
        call(server, "POST", path, token, body)
    except urllib.error.HTTPError as exc:
        return exc.code
    return 201
