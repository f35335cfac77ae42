"""Play, watch, replay and audit in a real browser (headless Chromium, Playwright)."""

from __future__ import annotations

import json
import random
import time
import urllib.request

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from domain.fold import evolve
from domain.serialization import decode_event
from domain.state import GameState

# a whole game by clicks against the clock: alone, after the parallel run (pyproject's markers)
pytestmark = [pytest.mark.timeout(600), pytest.mark.alone]

# the first tiles drawn: a deadly ocean (every path "4": a fleet of 1 or 2 colours
# fails it, R12), then islands with several beaches (landings with real choices)
TILE_ORDER = ["ocean7", "tahiti", "samoa", "fidschi", "oahu", "rarotonga", "ocean1"]
CLICKABLE = (
    "svg.board .target, button[data-token], button.chip-button, #turn-left:not([disabled]),"
    " #turn-right:not([disabled])"
)
UNCHOSEN = (
    "svg.board .target:not(.chosen), button[data-token]:not(.chosen),"
    " button.chip-button:not(.chosen), #turn-left:not([disabled]), #turn-right:not([disabled])"
)


def call(base, method, path, token=None, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{base}/api/v1{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def new_page(browser, base, viewport=(1280, 800), bypass_csp=True):
    # Playwright's string predicates run as eval, which the pages' CSP forbids: these
    # tests look inside the page; test_the_pages_run_under_their_content_security_policy
    # runs the pages with the policy in force.
    context = browser.new_context(
        viewport={"width": viewport[0], "height": viewport[1]}, bypass_csp=bypass_csp
    )
    page = context.new_page()
    # each step of a chain reaction shows 20 ms here (450 ms for people)
    page.add_init_script("localStorage.setItem('tongiaki.stepMs', '20')")
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def sign_up(browser, base, name):
    page = new_page(browser, base)
    page.goto(f"{base}/")
    page.fill("#name", name)
    page.click("#signup button[type=submit]")
    page.wait_for_selector("#create")
    account = page.evaluate("JSON.parse(localStorage.getItem('tongiaki.account'))")
    # the browser keeps no token (a session cookie signs it in): the one shown once
    account["token"] = page.inner_text("#my-token")
    return page, account


def version(page):
    return int(page.get_attribute("body", "data-version") or 0)


def act(page, rng):
    """One whole command by clicking legal targets at random; False if not my move.

    The page re-renders as events arrive, so a target may vanish between looking
    and clicking: such a click times out quickly and the page is looked at again.
    """
    if page.locator("#play, #confirm").count() == 0:
        return False
    start = version(page)
    # a busy host times clicks out now and then (each such try is spent): room for them
    for _ in range(150):
        page.wait_for_function("!document.body.dataset.busy")
        if version(page) != start or page.locator("#play, #confirm").count() == 0:
            return True
        play = page.locator("#play")
        # targets not chosen yet first: a click on a chosen one takes it back, and a
        # walk of random toggles may need many clicks to complete a move
        targets = page.locator(UNCHOSEN)
        if targets.count() == 0 or rng.random() < 0.1:
            targets = page.locator(CLICKABLE)
        n = targets.count()
        try:
            if page.locator("#confirm").count():  # a move that cannot be undone
                page.click("#confirm-yes" if rng.random() < 0.8 else "#confirm-no", timeout=2000)
            elif play.is_enabled(timeout=1000) and (n == 0 or rng.random() < 0.35):
                play.click(timeout=2000)
            elif n:
                targets.nth(rng.randrange(n)).click(timeout=2000)
            else:
                page.click("#clear", timeout=2000)
        except PlaywrightTimeout:
            continue
    raise AssertionError(
        f"no command came out of 150 clicks: {page.inner_text('#action-bar')!r},"
        f" {page.locator(CLICKABLE).count()} targets"
    )


def started_game(server, moves=0, colours=("green", "purple"), seed=3):
    """A 2-player game made over the API, with ``moves`` random legal commands played.

    Returns the game id, the first seat's account and every account's token.
    """
    a = call(server, "POST", "/accounts", body={"name": f"{colours[0]} player"})
    b = call(server, "POST", "/accounts", body={"name": f"{colours[1]} player"})
    token = {a["account_id"]: a["token"], b["account_id"]: b["token"]}
    game_id = call(server, "POST", "/games", a["token"], {"max_players": 2})["game_id"]
    call(server, "POST", f"/games/{game_id}/seats", a["token"], {"colour": colours[0]})
    call(server, "POST", f"/games/{game_id}/seats", b["token"], {"colour": colours[1]})
    call(server, "POST", f"/games/{game_id}/start", a["token"])
    play(server, game_id, token, random.Random(seed), moves)
    return game_id, a, token


def play(server, game_id, token, rng, moves, until=None):
    """Bots over the API: up to ``moves`` random legal commands, stopping early when
    the game ends or ``until(legal)`` holds; the last /legal answer."""
    for _ in range(moves):
        legal = call(server, "GET", f"/games/{game_id}/legal")
        if legal["decision"] is None or (until is not None and until(legal)):
            return legal
        mover = token[legal["player_id"]]
        call(server, "POST", f"/games/{game_id}/commands", mover, rng.choice(legal["commands"]))
    return call(server, "GET", f"/games/{game_id}/legal")


def signed_in(browser, server, token, account_id, name="Player", init=None):
    """A page whose browser holds this account (as the lobby's sign-up leaves it)."""
    page = new_page(browser, server)
    if init:
        page.add_init_script(init)
    page.goto(f"{server}/")
    account = {"token": token, "account_id": account_id, "name": name}
    page.evaluate(f"localStorage.setItem('tongiaki.account', '{json.dumps(account)}')")
    return page


def features(events):
    """Which of the required moves happened: a beach filled by an expansion, an
    emigration, a landing distributed by a player, a failed expedition."""
    seen = set()
    state = GameState()
    for data in events:
        event = decode_event({"type": data["type"], **data["data"]})
        state = evolve(state, event)
        if data["type"] == "BoatsAdded":
            island = state.islands[event.island]
            if any(island.is_full(b) for b in event.beaches):
                seen.add("fills a beach")
        if data["type"] == "EmigrationStarted":
            seen.add("emigration")
        if data["type"] == "BoatsLanded" and not event.automatic:
            seen.add("landing distribution")
        if data["type"] == "ExpeditionFailed":
            seen.add("expedition failure")
    return seen


def beaches_on_screen(page):
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('svg.board .beach')].map(
            (b) => [b.dataset.beach,
                    [...b.querySelectorAll('circle[data-boat]')].map((c) => c.dataset.boat)
                      .filter(Boolean).sort().join('')]))"""
    )


def beaches_in_state(position):
    names = {"b": "blue", "r": "red", "g": "green", "y": "yellow", "o": "orange", "p": "purple"}
    out = {}
    for island, text in position["boats"].items():
        for i, beach in enumerate(text.split("|")):
            out[f"{island}:{i}"] = "".join(sorted(names[c] for c in beach))
    return out


def test_two_players_play_by_clicks_while_a_spectator_watches_live(browser, server, shots):
    ann, _ = sign_up(browser, server, "Ann")
    bob, _ = sign_up(browser, server, "Bob")
    ann.select_option("#max-players", "2")
    ann.select_option("#create-colour-0", "blue")
    ann.click("#create summary")
    ann.fill("#tile-order", ", ".join(TILE_ORDER))  # testing mode: a fixed tile order
    ann.click("#create button[type=submit]")
    # the creator sits at the game she opened
    ann.wait_for_selector("#my-games li[data-game]")
    game_id = ann.get_attribute("#my-games li[data-game]", "data-game")
    bob.reload()
    row = bob.locator(f"#open-games li[data-game='{game_id}']")
    row.locator("select").select_option("red")
    row.locator("button[data-action=join]").click()
    bob.wait_for_selector(f"#my-games li[data-game='{game_id}']")
    bob.reload()
    bob.wait_for_selector(
        f"#open-games li[data-game='{game_id}'] button[data-action=start]:not([disabled])"
    )
    ann.reload()
    ann.click(f"#open-games li[data-game='{game_id}'] button[data-action=start]")
    ann.wait_for_url(f"**/games/{game_id}")

    # Bob's lobby still offers Start: the server refuses it and the page says which rule
    bob.click(f"#open-games li[data-game='{game_id}'] button[data-action=start]")
    bob.wait_for_selector("#toast.error")
    assert "rule R25" in bob.inner_text("#toast")

    spectator = new_page(browser, server)
    spectator.add_init_script(
        """window.__seen = []; window.__loaded = (window.__loaded || 0) + 1;
        document.addEventListener('DOMContentLoaded', () => new MutationObserver(() =>
          window.__seen.push(Number(document.body.dataset.version))
        ).observe(document.body, {attributes: true, attributeFilter: ['data-version']}));"""
    )
    spectator.goto(f"{server}/games/{game_id}")
    spectator.wait_for_selector("svg.board")
    # the board is drawn before the first answer: the version shown comes with it
    spectator.wait_for_function("Number(document.body.dataset.version) > 0")
    watched_from = version(spectator)
    bob.goto(f"{server}/games/{game_id}")
    bob.wait_for_selector("svg.board")

    rng = random.Random(7)
    needed = {"fills a beach", "emigration", "landing distribution", "expedition failure"}
    happened: set[str] = set()
    # counted in commands, not in looks: on a loaded host a page may take long to catch
    # up, and time spent waiting must not use up the moves the game needs
    moves, deadline = 0, time.monotonic() + 420
    while moves < 400:
        moved = act(ann, rng) or act(bob, rng)
        if not moved:  # the other page has not caught up yet: wait until one offers a move
            assert time.monotonic() < deadline, f"no page offered a move; {moves} played"
            for page in (ann, bob):
                try:
                    page.wait_for_selector("#play, #confirm", timeout=1000)
                    break
                except PlaywrightTimeout:
                    pass
            continue
        moves += 1
        events = call(server, "GET", f"/games/{game_id}/events?limit=1000")["events"]
        happened = features(events)
        if needed <= happened or events[-1]["type"] == "DeckRevealed":
            break
    assert needed <= happened, f"only {happened} in {len(events)} events"
    draws = [e["data"]["tile"] for e in events if e["type"] == "TileDrawn"]
    assert draws[: len(TILE_ORDER)] == TILE_ORDER[: len(draws)]  # the order typed into the lobby
    head = events[-1]["version"]

    # the spectator followed every version without reloading
    spectator.wait_for_function(f"Number(document.body.dataset.version) >= {head}", timeout=60_000)
    seen = set(spectator.evaluate("window.__seen"))
    assert set(range(watched_from + 1, head + 1)) <= seen
    assert spectator.evaluate("window.__loaded") == 1
    assert beaches_on_screen(spectator) == beaches_in_state(
        call(server, "GET", f"/games/{game_id}")["position"]
    )
    ann.wait_for_function(f"Number(document.body.dataset.version) >= {head}")
    ann.screenshot(path=str(shots / "game.png"))

    # the audit lists Bob's refused Start with its rule, and the chain check
    ann.goto(f"{server}/games/{game_id}/audit")
    ann.wait_for_selector("#verification")
    rejected = ann.locator("li.command[data-outcome=rejected]")
    assert rejected.count() >= 1
    assert rejected.first.get_attribute("data-rule") == "R25"
    assert "Start the game" in rejected.first.inner_text()
    assert "intact" in ann.inner_text("#chain")
    ann.screenshot(path=str(shots / "audit.png"), full_page=True)
    for page in (ann, bob, spectator):
        assert page.errors == []


def test_the_replay_slider_shows_the_board_of_state_at_that_version(browser, server, shots):
    game_id, _, _ = started_game(server, moves=60)
    head = call(server, "GET", f"/games/{game_id}")["version"]
    page = new_page(browser, server)
    for at in (5, head // 2, head):
        page.goto(f"{server}/games/{game_id}/replay?v={at}")
        page.wait_for_function(f"document.body.dataset.version === '{at}'")
        state = call(server, "GET", f"/games/{game_id}/state?at={at}")["position"]
        assert beaches_on_screen(page) == beaches_in_state(state)
        assert page.input_value("#slider") == str(at)
    page.click("#back")
    page.wait_for_function(f"document.body.dataset.version === '{head - 1}'")
    assert f"v={head - 1}" in page.url
    assert page.inner_text("#description")
    page.screenshot(path=str(shots / "replay.png"), full_page=True)
    page.select_option("#turn", index=2)
    page.wait_for_function(f"document.body.dataset.version !== '{head - 1}'")
    # the whole game as text (docs/notation.md): the link opens its TGN
    href = page.get_attribute("#notation-link", "href")
    assert href == f"/api/v1/games/{game_id}/notation"
    page.goto(f"{server}{href}")
    assert page.inner_text("body").startswith(f'[Game "{game_id}"]')
    assert page.errors == []


def test_the_pages_fit_a_phone_and_show_keyboard_focus(browser, server):
    page = new_page(browser, server, viewport=(390, 844))
    page.goto(f"{server}/")
    page.wait_for_selector("#signup")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.keyboard.press("Tab")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"
    game_id, _, _ = started_game(server, moves=30)
    page.goto(f"{server}/games/{game_id}")
    page.wait_for_selector("svg.board")
    # the board is drawn before the first answer: its boats come with the position
    page.wait_for_function("Number(document.body.dataset.version) > 0")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # every boat carries its colour's letter, not only its colour
    letters = page.evaluate(
        "[...document.querySelectorAll('svg.board .boat-letter')].map((t) => t.textContent)"
    )
    assert letters and set(letters) <= set("BRGYOP")
    assert page.errors == []


def test_a_royal_island_is_founded_by_pointing_at_the_island(browser, server):
    game_id, _, token = started_game(server, colours=("orange", "purple"))

    def royal(legal):
        return any(c["type"] == "FoundRoyalIsland" for c in legal["commands"])

    # bots over the API until someone may found a royal island (R16)
    legal = play(server, game_id, token, random.Random(1), 400, until=royal)
    assert legal["decision"] is not None and royal(legal), "no royal island was possible"
    mover = legal["player_id"]
    page = signed_in(browser, server, token[mover], mover, "Kinga")
    page.goto(f"{server}/games/{game_id}")
    island = page.locator("svg.board .island-target").first
    name = island.get_attribute("data-island")
    before = version(page)
    island.click()
    page.click("#play")
    # it cannot be undone: a confirmation says what it does, and nothing is sent before
    page.wait_for_selector("#confirm")
    assert "cannot be undone" in page.inner_text("#confirm")
    assert call(server, "GET", f"/games/{game_id}")["version"] == before
    page.click("#confirm-yes")
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}")
    events = call(server, "GET", f"/games/{game_id}/events?after={before}")["events"]
    assert events[0]["type"] == "RoyalIslandFounded" and events[0]["data"]["island"] == name
    assert page.locator(f"svg.board [data-tile='{name}'] .king").count() == 1
    assert page.errors == []


def test_the_replay_of_a_live_game_grows_as_moves_arrive(browser, server):
    game_id, _, token = started_game(server, colours=("blue", "green"))
    page = new_page(browser, server)
    page.goto(f"{server}/games/{game_id}/replay")
    page.wait_for_function("document.body.dataset.version === '4'")
    assert page.get_attribute("#slider", "max") == "4"
    play(server, game_id, token, random.Random(0), 1)
    # the viewer was at the end: the new version shows without a reload
    page.wait_for_function("document.body.dataset.version === '5'", timeout=15_000)
    assert page.get_attribute("#slider", "max") == "5"
    assert "starting boat" in page.inner_text("#description")
    assert page.errors == []


def test_moves_work_where_the_browser_has_no_random_uuid(browser, server):
    # plain http on a LAN address is not a secure context: no crypto.randomUUID
    game_id, first, _ = started_game(server, colours=("blue", "red"))
    no_uuid = "delete Crypto.prototype.randomUUID"
    page = signed_in(browser, server, first["token"], first["account_id"], "Lan", init=no_uuid)
    page.goto(f"{server}/games/{game_id}")
    assert page.evaluate("typeof crypto.randomUUID") == "undefined"
    page.locator("svg.board .beach-target").first.click()
    page.click("#play")
    page.wait_for_function("Number(document.body.dataset.version) > 4")
    assert call(server, "GET", f"/games/{game_id}")["version"] == 5
    assert page.errors == []


def test_joining_a_two_colour_game_takes_two_colours(browser, server):
    ann, account = sign_up(browser, server, "Duo")
    game_id = call(
        server, "POST", "/games", account["token"], {"max_players": 2, "two_colours_each": True}
    )["game_id"]
    ann.reload()
    row = ann.locator(f"#open-games li[data-game='{game_id}']")
    row.locator("select[data-colour='0']").select_option("orange")
    row.locator("select[data-colour='1']").select_option("purple")
    row.locator("button[data-action=join]").click()
    ann.wait_for_selector(f"#my-games li[data-game='{game_id}']")
    players = call(server, "GET", f"/games/{game_id}")["position"]["players"]
    assert [p["colours"] for p in players] == [["orange", "purple"]]
    assert ann.errors == []


def test_a_token_the_server_no_longer_knows_signs_the_browser_out(browser, server):
    page = new_page(browser, server)
    # the stale sign-in is put where no page of ours runs (a lobby still loading would
    # find it first, exchange it and forget it before the reload: a CI flake)
    page.goto(f"{server}/healthz")
    stale = {"token": "not-a-token", "account_id": "gone", "name": "Ghost"}
    page.evaluate(f"localStorage.setItem('tongiaki.account', '{json.dumps(stale)}')")
    page.goto(f"{server}/")
    page.wait_for_selector("#signup")
    assert page.evaluate("localStorage.getItem('tongiaki.account')") is None
    # the words are waited for, not read at once
    page.wait_for_function(
        "document.getElementById('toast').textContent.includes('no longer valid')"
    )


def test_the_pages_run_under_their_content_security_policy(browser, server):
    """Every page works with its CSP in force: no violation, no script error."""
    ann = call(server, "POST", "/accounts", None, {"name": "Csp"})
    game_id = call(server, "POST", "/games", ann["token"], {"max_players": 2})["game_id"]
    league = {"name": "Csp league", "table_size": 2, "link": True}
    league_id = call(server, "POST", "/leagues", ann["token"], league)["league_id"]
    page = new_page(browser, server, bypass_csp=False)
    violations = []
    page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
    response = page.goto(f"{server}/")
    headers = response.headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"
    page.fill("#name", "Reader")
    page.click("#signup button[type=submit]")
    page.wait_for_selector("#create")
    for path, ready in (
        (f"/games/{game_id}", "#board, #main section"),
        (f"/games/{game_id}/replay", "#main section"),
        (f"/games/{game_id}/audit", "#main p, #main section"),
        ("/leagues", "#leagues, #league-form"),
        (f"/leagues/{league_id}", "#schedule"),
    ):
        page.goto(f"{server}{path}")
        page.wait_for_selector(ready)
    assert violations == [] and page.errors == []
