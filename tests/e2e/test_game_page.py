"""The game page for real players, at 1280×800 and on a 390 px phone (Chromium).

Each test names the promise of the issue it checks: the drawn tile seen and turned
before Play, a confirmation for what cannot be undone, a move list that matches
the events, fleets drawn on the board, targets that never overlap, contrast,
identity and the tab title, the phone layout, the live-connection banner, the
lobby, and clear words for refusals and for the end of a game.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.e2e.conftest import to_docs
from tests.e2e.test_browser import beaches_in_state, beaches_on_screen, call, new_page, play

pytestmark = pytest.mark.timeout(600)

ROOT = Path(__file__).resolve().parents[2]
VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}


def game(server, names=("Ann", "Bob"), colours=("blue", "red"), deck=1, **options):
    """A started 2-player game over the API: (game id, {account id: token}, accounts).

    The server runs in testing mode: the whole draw order is fixed (shuffled by
    ``deck``), so with seeded bots every run plays the same game."""
    accounts = [call(server, "POST", "/accounts", body={"name": n}) for n in names]
    pile = sorted(t for t in call(server, "GET", "/tiles")["tiles"] if t != "tonga")
    random.Random(deck).shuffle(pile)
    body = {"max_players": len(names), "tile_order": pile, **options}
    gid = call(server, "POST", "/games", accounts[0]["token"], body)["game_id"]
    for a, c in zip(accounts, colours, strict=True):
        call(server, "POST", f"/games/{gid}/seats", a["token"], {"colour": c})
    call(server, "POST", f"/games/{gid}/start", accounts[0]["token"])
    return gid, {a["account_id"]: a["token"] for a in accounts}, accounts


def as_player(browser, server, account, viewport="desktop", init=None):
    page = new_page(browser, server, viewport=VIEWPORTS[viewport])
    if init:
        page.add_init_script(init)
    page.goto(f"{server}/")
    stored = {
        "token": account["token"],
        "account_id": account["account_id"],
        "name": account["name"],
    }
    page.evaluate(f"localStorage.setItem('tongiaki.account', '{json.dumps(stored)}')")
    return page


def open_game_page(page, server, gid):
    page.goto(f"{server}/games/{gid}")
    page.wait_for_selector("#side h1")
    page.wait_for_function("document.body.dataset.version > 0")


# the board's view slides for 250 ms when a decision brings its targets into sight
# (board.js setView): a click in that time lands where a target was, not where it is
SETTLED = (
    "(() => { const b = document.querySelector('svg.board'); return b && !b.dataset.moving; })()"
)


def choose_first_target(page, selector="svg.board .target"):
    """Click the first target once the board has stopped sliding, and wait until the
    page has the move chosen (Play enabled)."""
    page.wait_for_function(SETTLED, polling="raf")
    page.locator(selector).first.click()
    page.wait_for_function("document.getElementById('play')?.disabled === false")


def account_of(accounts, player_id):
    return next(a for a in accounts if a["account_id"] == player_id)


def until_decision(server, gid, tokens, decision, rng, moves=600, prefer=None):
    """Bots until the awaited decision is ``decision`` (``prefer(legal)`` picks a
    command when it returns one); the /legal answer then."""
    for _ in range(moves):
        legal = call(server, "GET", f"/games/{gid}/legal")
        if legal["decision"] is None:
            raise AssertionError("the game ended first")
        if legal["decision"] == decision:
            return legal
        chosen = (prefer(legal) if prefer else None) or rng.choice(legal["commands"])
        call(server, "POST", f"/games/{gid}/commands", tokens[legal["player_id"]], chosen)
    raise AssertionError(f"no {decision} in {moves} moves")


def new_colonisation(legal):
    return next((c for c in legal["commands"] if c["type"] == "NewColonisation"), None)


def events_of(server, gid):
    return call(server, "GET", f"/games/{gid}/events?limit=1000")["events"]


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_drawn_tile_is_shown_with_its_paths_ghosted_where_pointed_and_turned_before_play(
    browser, server, viewport
):
    gid, tokens, accounts = game(server)
    rng = random.Random(3)
    # a new colonisation (R17) draws tiles the player places freely, turned at will
    legal = until_decision(server, gid, tokens, "tile_placement", rng, prefer=new_colonisation)
    page = as_player(browser, server, account_of(accounts, legal["player_id"]), viewport)
    open_game_page(page, server, gid)
    preview = page.locator("#tile-preview")
    tile = preview.get_attribute("data-tile")
    assert preview.locator("svg .tile").count() == 1
    if tile.startswith("ocean"):
        assert preview.locator("svg .foam").count() == 3  # its paths, with their numbers
    before = call(server, "GET", f"/games/{gid}")["version"]
    cell = page.locator("svg.board .cell-target").first
    key = cell.get_attribute("data-cell")
    cell.hover()  # pointing shows it there
    page.wait_for_selector(f"svg.board .ghost[data-cell='{key}']")
    cell.click()
    ghost = page.locator(f"svg.board .ghost[data-cell='{key}']")
    first = int(ghost.get_attribute("data-rotation"))
    assert int(preview.get_attribute("data-rotation")) == first
    page.click("#turn-right")  # turned live, on the board and beside the decision
    turned = int(page.get_attribute(f"svg.board .ghost[data-cell='{key}']", "data-rotation"))
    assert turned != first
    assert int(page.get_attribute("#tile-preview", "data-rotation")) == turned
    assert call(server, "GET", f"/games/{gid}")["version"] == before  # nothing sent yet
    page.click("#play")
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}")
    placed = next(e for e in events_of(server, gid)[before:] if e["type"] == "TilePlaced")
    assert ",".join(map(str, placed["data"]["cell"])) == key
    assert (placed["data"]["tile"], placed["data"]["rotation"]) == (tile, turned)
    assert page.errors == []


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_new_colonisation_needs_its_confirmation_and_nothing_commits_on_one_tap(
    browser, server, viewport
):
    gid, tokens, accounts = game(server)
    legal = until_decision(
        server, gid, tokens, "turn_start", random.Random(5), prefer=lambda legal: None
    )
    while not new_colonisation(legal):
        call(
            server,
            "POST",
            f"/games/{gid}/commands",
            tokens[legal["player_id"]],
            legal["commands"][0],
        )
        legal = until_decision(server, gid, tokens, "turn_start", random.Random(6))
    page = as_player(browser, server, account_of(accounts, legal["player_id"]), viewport)
    open_game_page(page, server, gid)
    before = legal["version"]
    page.click("button[data-token=newcol]")
    page.click("#play")
    confirm = page.locator("#confirm")
    assert (
        "cannot be undone" in confirm.inner_text()
        and "go back to your supply" in confirm.inner_text()
    )
    assert confirm.is_visible()
    assert call(server, "GET", f"/games/{gid}")["version"] == before
    page.click("#confirm-no")
    assert page.locator("#confirm").count() == 0
    assert call(server, "GET", f"/games/{gid}")["version"] == before
    page.click("button[data-token=newcol]")
    page.click("#play")
    page.click("#confirm-yes")
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}")
    assert events_of(server, gid)[before]["type"] == "NewColonyFounded"
    assert page.errors == []


def test_the_move_list_matches_the_events_and_a_click_shows_the_board_then(browser, server):
    gid, tokens, accounts = game(server)
    play(server, gid, tokens, random.Random(9), 50)
    events = events_of(server, gid)
    page = as_player(browser, server, accounts[0])
    open_game_page(page, server, gid)
    page.wait_for_selector("li.move")
    commands = list(dict.fromkeys(e["metadata"]["command_id"] for e in events))
    assert page.locator("li.move").count() == len(commands)
    shown = {
        int(v)
        for v in page.eval_on_selector_all(
            "li.move li[data-version]", "ls => ls.map(l => l.dataset.version)"
        )
    }
    assert shown == {e["version"] for e in events if e["type"] not in ("TurnEnded", "DeckRevealed")}
    # the words name the players and their colours
    assert "Ann (Blue)" in page.inner_text("#moves") and "Bob (Red)" in page.inner_text("#moves")
    move = page.locator("li.move").nth(len(commands) // 2)
    last = int(move.get_attribute("data-last"))
    move.click()
    page.wait_for_function(f"document.getElementById('board').dataset.version === '{last}'")
    assert beaches_on_screen(page) == beaches_in_state(
        call(server, "GET", f"/games/{gid}/state?at={last}")["position"]
    )
    step = call(server, "GET", f"/games/{gid}/timeline?after={last - 1}&limit=1")["steps"][0]
    words = f"after turn {step['turn']}, step {step['step']}"
    assert words in page.inner_text("#action-bar") and words in page.inner_text("#step")
    assert page.locator("#board-back").is_visible()  # beside the board as well
    page.click("#back-to-game")
    head = events[-1]["version"]
    page.wait_for_function(f"document.getElementById('board').dataset.version === '{head}'")
    assert page.errors == []


def test_a_returning_player_sees_what_happened_since_the_last_visit(browser, server):
    gid, tokens, accounts = game(server)
    play(server, gid, tokens, random.Random(2), 10)
    page = as_player(browser, server, accounts[0])
    open_game_page(page, server, gid)
    page.wait_for_selector("li.move")
    assert page.locator("#since").count() == 0  # the first visit: nothing to catch up on
    seen = int(page.get_attribute("body", "data-version"))
    context = page.context
    page.close()
    play(server, gid, tokens, random.Random(4), 12)
    page = context.new_page()  # the same browser, later
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    open_game_page(page, server, gid)
    page.wait_for_selector("#since")
    later = [e for e in events_of(server, gid) if e["version"] > seen]
    moves = len(dict.fromkeys(e["metadata"]["command_id"] for e in later))
    assert f"Since your last visit: {moves} move" in page.inner_text("#since")
    page.click("#since-dismiss")
    assert page.locator("#since").count() == 0
    assert page.errors == []


def test_fleets_their_routes_and_failed_paths_are_drawn_on_the_board(browser, server):
    gid, tokens, _ = game(server)
    play(server, gid, tokens, random.Random(11), 150)
    events = events_of(server, gid)
    page = new_page(browser, server)
    checked = set()
    for e in events:
        kind = e["type"]
        if kind not in ("FleetSailed", "ExpeditionFailed", "FleetReachedIsland") or kind in checked:
            continue
        page.goto(f"{server}/games/{gid}/replay?v={e['version']}")
        page.wait_for_function(f"document.body.dataset.version === '{e['version']}'")
        fleet = page.locator("svg.board .fleet")
        assert fleet.count() == 1, kind
        assert fleet.get_attribute("data-fleet") == ",".join(e["data"]["fleet"])
        assert fleet.locator("circle.boat").count() == len(e["data"]["fleet"])
        if kind == "FleetSailed":
            assert page.locator("svg.board .route").count() == 1
        if kind == "ExpeditionFailed":
            assert page.locator("svg.board .failed-path").count() == 1
        checked.add(kind)
    assert checked == {"FleetSailed", "ExpeditionFailed", "FleetReachedIsland"}, checked
    assert page.errors == []


OVERLAPS = """() => {
  const frame = document.querySelector('.board-host').getBoundingClientRect();
  const controls = document.querySelector('.zoom-controls').getBoundingClientRect();
  const inside = (x, y, r) => x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
  const hits = [...document.querySelectorAll('svg.board .target .hit-area')].map((c) => {
    const r = c.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2, r: r.width / 2, node: c };
  });
  const overlaps = [];
  for (let i = 0; i < hits.length; i++)
    for (let j = i + 1; j < hits.length; j++) {
      const a = hits[i], b = hits[j];
      if (Math.hypot(a.x - b.x, a.y - b.y) < a.r + b.r - 0.5)
        overlaps.push([a.node.parentNode.getAttribute('aria-label'), b.node.parentNode.getAttribute('aria-label')]);
    }
  const covered = [];
  for (const h of hits) {
    // one that lies outside the board's frame or under the zoom buttons is panned to
    if (!inside(h.x, h.y, frame) || inside(h.x, h.y, controls) || h.y > innerHeight) continue;
    const top = document.elementFromPoint(h.x, h.y);
    if (!top || !h.node.parentNode.contains(top)) covered.push(h.node.parentNode.getAttribute('aria-label'));
  }
  return { count: hits.length, overlaps, covered };
}"""


@pytest.mark.parametrize(
    "decision", ["turn_start", "choose_emigration", "tile_placement", "landing"]
)
def test_no_target_overlaps_another_and_each_is_clickable_where_it_is(browser, server, decision):
    gid, tokens, accounts = game(server)
    prefer = new_colonisation if decision == "tile_placement" else None
    legal = until_decision(server, gid, tokens, decision, random.Random(12), prefer=prefer)
    if decision == "turn_start":  # a crowded board: play on to a later turn start
        play(server, gid, tokens, random.Random(13), 40)
        legal = until_decision(server, gid, tokens, "turn_start", random.Random(14))
    page = as_player(browser, server, account_of(accounts, legal["player_id"]))
    open_game_page(page, server, gid)
    page.wait_for_selector("svg.board .target")
    if decision == "choose_emigration":  # beaches and their jetties are targets together
        assert page.locator("svg.board .jetty-target").count() >= 1
    for view in ("auto", "all"):
        if view == "all":
            page.click(".zoom-controls button[aria-label='Show the whole archipelago']")
            page.wait_for_timeout(400)
        found = page.evaluate(OVERLAPS)
        assert found["count"] >= 1
        assert found["overlaps"] == [], found["overlaps"][:5]
        if view == "auto":
            assert found["covered"] == [], found["covered"][:5]
    assert page.errors == []


CONTRAST = """() => {
  const rgb = (s) => { const m = s.match(/[\\d.]+/g).map(Number); return { r: m[0], g: m[1], b: m[2], a: m[3] ?? 1 }; };
  const lum = ({ r, g, b }) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const bgOf = (node) => { for (let n = node; n && n.nodeType === 1; n = n.parentElement) { const c = rgb(getComputedStyle(n).backgroundColor); if (c.a > 0.5) return c; } return { r: 255, g: 255, b: 255 }; };
  const fails = [];
  // HTML text: every element with its own visible text
  for (const node of document.querySelectorAll('body *:not(script):not(style):not(svg):not(svg *)')) {
    const own = [...node.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim());
    if (!own) continue;
    const style = getComputedStyle(node);
    const box = node.getBoundingClientRect();
    if (style.visibility === 'hidden' || box.width === 0 || node.closest('[hidden]') || Number(style.opacity) < 0.9 || node.closest('button:disabled')) continue;
    const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    const got = ratio(rgb(style.color), bgOf(node));
    if (got < need) fails.push(`${node.tagName}.${node.className}: "${node.textContent.trim().slice(0, 30)}" ${got.toFixed(2)} < ${need}`);
  }
  // board text on what it stands on, outlined text against its outline
  const fillOf = (sel) => { const n = document.querySelector(sel); return n ? rgb(getComputedStyle(n).fill) : null; };
  const pairs = [['.island-name', '.land'], ['.island-value', '.land'], ['.danger-number', '.danger-badge']];
  for (const colour of ['blue', 'red', 'green', 'yellow', 'orange', 'purple'])
    pairs.push([`.boat-letter.on-${colour}`, `circle.boat.colour-${colour}`]);
  for (const [text, under] of pairs) {
    const t = fillOf(`svg.board ${text}`), u = fillOf(`svg.board ${under}`);
    if (t && u && ratio(t, u) < 4.5) fails.push(`${text} on ${under}: ${ratio(t, u).toFixed(2)}`);
  }
  for (const sel of ['.pick-count', '.home-mark', '.king']) {
    const n = document.querySelector(`svg.board ${sel}`);
    if (n) { const s = getComputedStyle(n); if (ratio(rgb(s.fill), rgb(s.stroke)) < 4.5) fails.push(`${sel} on its outline`); }
  }
  // a target stands out (3:1) from whatever it lies on, by its dark edge or bright ring
  const ring = document.querySelector('svg.board .target .target-ring'), edge = document.querySelector('svg.board .target .hit-area');
  const grounds = ['.tile.ocean .hex', '.tile.island .hex', '.land', '.beach-frame'].map((s) => fillOf(`svg.board ${s}`)).filter(Boolean);
  if (document.querySelector('svg.board') && !ring) fails.push('no target to measure');
  if (ring) for (const g of grounds) {
    const best = Math.max(ratio(rgb(getComputedStyle(ring).stroke), g), ratio(rgb(getComputedStyle(edge).stroke), g));
    if (best < 3) fails.push(`a target on ${JSON.stringify(g)}: ${best.toFixed(2)}`);
  }
  return { fails, grounds: grounds.length };
}"""


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_text_and_targets_meet_wcag_aa_contrast(browser, server, viewport):
    gid, tokens, accounts = game(server, colours=("yellow", "orange"))
    play(server, gid, tokens, random.Random(21), 60)
    legal = until_decision(server, gid, tokens, "turn_start", random.Random(22))
    page = as_player(browser, server, account_of(accounts, legal["player_id"]), viewport)
    open_game_page(page, server, gid)
    page.wait_for_selector("svg.board .target")
    measured = page.evaluate(CONTRAST)
    assert measured["fails"] == [], measured["fails"][:8]
    assert measured["grounds"] >= 3
    page.goto(f"{server}/")
    page.wait_for_selector("#my-games")
    assert page.evaluate(CONTRAST)["fails"] == []


def test_your_move_shows_in_the_tab_title_and_the_favicon_and_says_who_you_are(browser, server):
    gid, _tokens, accounts = game(server)
    legal = call(server, "GET", f"/games/{gid}/legal")
    mover = account_of(accounts, legal["player_id"])
    other = next(a for a in accounts if a is not mover)
    page = as_player(browser, server, mover)
    open_game_page(page, server, gid)
    assert page.title().startswith("(1) Your move")
    assert page.get_attribute("link[rel=icon]", "href").endswith("favicon-move.svg")
    colour = next(
        p["colours"][0]
        for p in call(server, "GET", f"/games/{gid}")["players"]
        if p["player_id"] == mover["account_id"]
    )
    assert f"You are {colour[0].upper()} {colour.capitalize()}" in page.text_content("#identity")
    assert mover["name"] in page.inner_text("#scoreboard") and other["name"] in page.inner_text(
        "#scoreboard"
    )
    watcher = as_player(browser, server, other)
    open_game_page(watcher, server, gid)
    assert not watcher.title().startswith("(1)")
    assert f"{mover['name']} ({colour.capitalize()})" in watcher.inner_text("#decision")
    # the mover plays: the title of the waiting page changes when the turn comes round
    choose_first_target(page)
    page.click("#play")
    watcher.wait_for_function("document.title.startsWith('(1) Your move')", timeout=15_000)
    assert page.errors == [] and watcher.errors == []


def test_on_a_phone_the_decision_stays_at_hand_and_nothing_is_clipped(browser, server, shots):
    gid, tokens, accounts = game(server)
    play(server, gid, tokens, random.Random(8), 40)
    legal = until_decision(server, gid, tokens, "turn_start", random.Random(9))
    page = as_player(browser, server, account_of(accounts, legal["player_id"]), "phone")
    open_game_page(page, server, gid)
    bar = page.locator("#action-bar.mine")
    bar.wait_for()
    box = None
    for _ in range(50):  # the panel is drawn again as answers arrive: measure a drawn one
        box = bar.bounding_box()
        if box is not None:
            break
        page.wait_for_timeout(100)
    assert box is not None
    assert box["y"] + box["height"] <= 844 + 1 and box["y"] < 844  # on screen at once
    assert (
        page.evaluate("getComputedStyle(document.getElementById('action-bar')).position") == "fixed"
    )
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # down to the scoreboard
    page.wait_for_timeout(200)
    top = page.evaluate("document.querySelector('#action-bar.mine').getBoundingClientRect().top")
    assert top < 844  # still there
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    table = page.locator("table.scores")
    assert page.evaluate("(t) => t.scrollWidth <= t.clientWidth + 1", table.element_handle())
    assert page.locator("#play").is_visible()
    page.screenshot(path=str(shots / "game-phone.png"))
    assert page.errors == []


def test_a_lost_live_connection_shows_a_banner_and_its_return(browser, server):
    gid, tokens, accounts = game(server)
    page = as_player(browser, server, accounts[0])
    page.route("**/stream*", lambda route: route.abort("connectionreset"))  # the network fails
    open_game_page(page, server, gid)
    page.wait_for_selector("#connection:not([hidden])", timeout=20_000)
    assert "connection was lost" in page.inner_text("#connection")
    page.unroute("**/stream*")  # and comes back: the banner says so, the page catches up
    page.wait_for_function(
        "document.getElementById('connection').textContent.includes('back')", timeout=30_000
    )
    before = int(page.get_attribute("body", "data-version"))
    play(server, gid, tokens, random.Random(1), 1)
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}", timeout=15_000)
    assert page.errors == []


def test_a_move_chosen_on_a_position_that_moved_on_is_refused_as_stale_not_judged_anew(
    browser, server
):
    """A page that missed a move sends If-Match with the version it shows: the move is
    refused as stale (nothing changes), never judged against the newer position."""
    gid, tokens, accounts = game(server)
    legal = until_decision(server, gid, tokens, "turn_start", random.Random(17))
    while not any(c["type"] == "Expand" for c in legal["commands"]):
        call(
            server,
            "POST",
            f"/games/{gid}/commands",
            tokens[legal["player_id"]],
            legal["commands"][0],
        )
        legal = until_decision(server, gid, tokens, "turn_start", random.Random(18))
    mover = account_of(accounts, legal["player_id"])
    page = as_player(browser, server, mover)
    page.route("**/stream*", lambda route: route.abort())  # this page hears of nothing new
    open_game_page(page, server, gid)
    while page.is_disabled("#play"):  # an expansion, about to be played
        page.locator("svg.board .beach-target:not(.chosen)").first.click()
    # meanwhile the same player starts a new colonisation from another device (R17):
    # the expansion is no longer what the game awaits
    call(
        server,
        "POST",
        f"/games/{gid}/commands",
        tokens[mover["account_id"]],
        {"type": "NewColonisation"},
    )
    before = call(server, "GET", f"/games/{gid}")["version"]
    page.click("#play")
    page.wait_for_selector("#notice")
    notice = page.inner_text("#notice")
    assert "The game moved on while you were choosing" in notice, notice
    assert call(server, "GET", f"/games/{gid}")["version"] == before  # nothing appended
    journal = call(server, "GET", f"/games/{gid}/journal?limit=1000", tokens[mover["account_id"]])
    last = journal["commands"][-1]
    assert last["outcome"] == "rejected" and last["rejection"]["code"] == "stale_version"
    assert page.errors == []


def test_a_refusal_reads_in_words_with_its_rule_linked_once(browser, server):
    gid, tokens, accounts = game(server)
    legal = until_decision(server, gid, tokens, "turn_start", random.Random(17))
    mover = account_of(accounts, legal["player_id"])
    page = as_player(browser, server, mover)
    open_game_page(page, server, gid)
    page.locator("svg.board .target").first.click()

    def off_turn(route):  # what a confused client might send: a setup move at turn start
        route.continue_(post_data=json.dumps({"type": "PlaceStartingBoat", "beach": 0}))

    page.route("**/commands", off_turn)
    while page.is_disabled("#play"):
        page.locator("svg.board .target:not(.chosen)").first.click()
    page.click("#play")
    page.wait_for_selector("#notice")
    notice = page.inner_text("#notice")
    assert "That move is not possible right now" in notice, notice
    assert "the game is waiting for a turn to begin" in notice, notice
    assert notice.count("R25") == 1 and "turn_start" not in notice and "Conflict" not in notice
    link = page.locator("#notice a")
    assert link.count() == 1 and link.get_attribute("href") == "/docs/rules#R25"
    assert page.errors == []


def test_game_over_names_the_winner_and_the_ranking_in_words(browser, server):
    gid, tokens, accounts = game(server)
    play(server, gid, tokens, random.Random(31), 2000)
    final = call(server, "GET", f"/games/{gid}/scoreboard?min_version=1")["final"]
    assert final is not None
    page = as_player(browser, server, accounts[0])
    open_game_page(page, server, gid)
    page.wait_for_selector("#result")
    text = page.inner_text("#result")
    assert "last_island_drawn" not in text and "tie-break" not in text
    assert "wins with" in text or "share the win" in text
    assert any(a["name"] in text for a in accounts)
    assert page.locator("#result .ranking li").count() == 2
    if accounts[0]["account_id"] in final["winners"]:  # the winner is told so
        assert page.inner_text("#you-win") in ("You win!", "You share the win!")
    else:
        assert page.locator("#you-win").count() == 0
    # the lobby says who won
    page.goto(f"{server}/")
    row = page.locator(f"#finished-games li[data-game='{gid}']")
    row.wait_for()
    assert " won" in row.inner_text() or "shared win" in row.inner_text()
    assert page.errors == []


def test_the_lobby_seats_the_creator_names_games_and_signs_in_with_a_token(browser, server):
    page = new_page(browser, server)
    page.goto(f"{server}/")
    page.fill("#name", "Cleo")
    page.click("#signup button[type=submit]")
    page.wait_for_selector("#create")
    assert page.is_disabled("#two-colours")  # two colours each: two players only
    page.select_option("#max-players", "2")
    assert page.is_enabled("#two-colours")
    page.select_option("#create-colour-0", "green")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#my-games li[data-game]")
    row = page.locator("#open-games li[data-game]").filter(has_text="Cleo's table #")
    assert row.count() == 1 and "(you sit here)" in row.inner_text()
    gid = row.get_attribute("data-game")
    seat = call(server, "GET", f"/games/{gid}")["players"]
    assert [(p["name"], p["colours"]) for p in seat] == [("Cleo", ["green"])]
    # a second player fills the table: it shows full, with no colour to pick
    dan = call(server, "POST", "/accounts", body={"name": "Dan"})
    call(server, "POST", f"/games/{gid}/seats", dan["token"], {"colour": "red"})
    other = new_page(browser, server)
    other.goto(f"{server}/")
    other.fill("#token", dan["token"])  # signing in on another device with the token
    other.click("#signin button[type=submit]")
    other.wait_for_selector("#my-games")
    assert "Signed in as Dan" in other.inner_text("#me")
    full = other.locator(f"#open-games li[data-game='{gid}']")
    assert "(full)" in full.inner_text() and full.locator("select").count() == 0
    # the token shown once since sign-up is the account's (and not kept in the browser)
    token = page.inner_text("#my-token")
    assert call(server, "GET", "/me", token)["name"] == "Cleo"
    assert token not in page.evaluate("JSON.stringify(localStorage)")
    assert page.errors == [] and other.errors == []


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_fresh_screenshots_of_the_pages(browser, server, shots, viewport):
    # a timed game, so that the pictures show the clocks (docs/clocks.md)
    gid, tokens, accounts = game(
        server, time_control="fischer", base_seconds=1800, increment_seconds=30
    )
    play(server, gid, tokens, random.Random(41), 90)
    legal = until_decision(server, gid, tokens, "choose_emigration", random.Random(42))
    page = as_player(browser, server, account_of(accounts, legal["player_id"]), viewport)
    open_game_page(page, server, gid)
    page.wait_for_selector("li.move")
    suffix = "" if viewport == "desktop" else "-phone"
    page.screenshot(path=str(shots / f"game{suffix}.png"))
    page.goto(f"{server}/games/{gid}/replay?v={legal['version'] - 3}")
    page.wait_for_selector("li.move.current")
    page.screenshot(path=str(shots / f"replay{suffix}.png"))
    page.goto(f"{server}/")
    page.wait_for_selector("#my-games")
    page.screenshot(path=str(shots / f"lobby{suffix}.png"))
    page.goto(f"{server}/games/{gid}/audit")
    page.wait_for_selector("#verification")
    page.locator("li.command").nth(20).click()
    page.wait_for_selector("li.command.current")
    page.screenshot(path=str(shots / f"audit{suffix}.png"))
    for name in ("game", "replay", "lobby", "audit"):
        to_docs(shots / f"{name}{suffix}.png")
    assert page.errors == []


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_replay_gives_the_board_the_room_beside_or_above_the_move_list(
    browser, server, viewport
):
    gid, tokens, _ = game(server)
    play(server, gid, tokens, random.Random(51), 60)
    page = new_page(browser, server, viewport=VIEWPORTS[viewport])
    page.goto(f"{server}/games/{gid}/replay?v=40")
    page.wait_for_selector("li.move.current")
    width = VIEWPORTS[viewport][0]
    board = page.locator("#replay-board").bounding_box()
    moves = page.locator("#moves-panel").bounding_box()
    if viewport == "desktop":  # the board takes the room left of a 400 px move list
        assert board["width"] >= width - 400 - 80, board
        assert moves["x"] >= board["x"] + board["width"] and moves["y"] < 400, moves
    else:  # one column: the board as wide as the screen, the list below it
        assert board["width"] >= width - 40, board
        assert moves["y"] >= board["y"] + board["height"], moves
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.errors == []


def test_a_colour_picked_in_the_lobby_survives_its_refresh(browser, server):
    ann = call(server, "POST", "/accounts", body={"name": "Ann"})
    gid = call(server, "POST", "/games", ann["token"], {"max_players": 3})["game_id"]
    call(server, "POST", f"/games/{gid}/seats", ann["token"], {"colour": "blue"})
    bob = call(server, "POST", "/accounts", body={"name": "Bob"})
    page = as_player(browser, server, bob)
    page.goto(f"{server}/")
    picker = page.locator(f"select[aria-label='colour for {gid}']")
    picker.select_option("purple")
    page.locator("body").click(position={"x": 5, "y": 300})  # focus leaves the menu
    # meanwhile the lobby changes (another table opens) and the page refreshes (5 s)
    cleo = call(server, "POST", "/accounts", body={"name": "Cleo"})
    call(server, "POST", "/games", cleo["token"], {"max_players": 2})
    page.wait_for_function("document.querySelectorAll('#open-games li[data-game]').length === 2")
    assert picker.input_value() == "purple"
    page.locator(f"li[data-game='{gid}'] button[data-action=join]").click()
    page.wait_for_function(
        f"document.querySelector(\"#open-games li[data-game='{gid}']\")"
        ".textContent.includes('you sit here')"
    )
    seats = call(server, "GET", f"/games/{gid}")["players"]
    assert [(p["name"], p["colours"]) for p in seats][-1] == ("Bob", ["purple"])
    assert page.errors == []


def test_a_move_played_while_the_server_is_unreachable_is_kept_to_send_again(browser, server):
    gid, _tokens, accounts = game(server)
    legal = call(server, "GET", f"/games/{gid}/legal")
    page = as_player(browser, server, account_of(accounts, legal["player_id"]))
    open_game_page(page, server, gid)
    choose_first_target(page)
    before = call(server, "GET", f"/games/{gid}")["version"]
    keys = []

    def unreachable(route):
        keys.append(route.request.headers.get("idempotency-key"))
        route.abort("connectionrefused")

    page.route("**/commands", unreachable)
    page.click("#play")
    page.wait_for_selector("#notice")
    assert "Your move was not sent" in page.inner_text("#notice")
    assert page.locator("svg.board .target").count() >= 1  # the page stays whole
    assert page.is_enabled("#play")  # the move is still chosen
    assert call(server, "GET", f"/games/{gid}")["version"] == before
    page.unroute("**/commands")
    sent = []
    page.on(
        "request",
        lambda r: sent.append(r.headers.get("idempotency-key")) if "/commands" in r.url else None,
    )
    page.click("#play")
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}")
    assert sent and sent[0] == keys[0]  # the same key: a retry, never a second move
    assert page.locator("#notice").count() == 0
    assert page.errors == []


def test_a_landing_shows_its_targets_at_once_and_the_plan_as_boats(browser, server):
    gid, tokens, accounts = game(server)
    legal = until_decision(server, gid, tokens, "landing", random.Random(61))
    page = as_player(browser, server, account_of(accounts, legal["player_id"]))
    open_game_page(page, server, gid)
    page.wait_for_selector("svg.board .beach-target")  # no colour to click first
    pressed = page.locator("[aria-label='Colour to land'] [aria-pressed=true]")
    assert pressed.count() == 1
    colour = pressed.inner_text().split()[-1].lower()
    page.locator("svg.board .beach-target").first.click()
    page.wait_for_selector("svg.board .planned")  # the planned boat, in its colour
    assert page.locator(f"svg.board .planned circle.colour-{colour}").count() == 1
    assert page.errors == []


def test_moves_made_while_the_page_is_open_play_out_without_a_since_your_visit_card(
    browser, server
):
    gid, tokens, accounts = game(server)
    play(server, gid, tokens, random.Random(71), 6)
    page = as_player(browser, server, accounts[0])
    open_game_page(page, server, gid)
    page.wait_for_selector("li.move")
    play(server, gid, tokens, random.Random(72), 40)  # many moves at once: shown at once
    head = call(server, "GET", f"/games/{gid}")["version"]
    page.wait_for_function(f"Number(document.body.dataset.version) === {head}", timeout=20_000)
    assert page.locator("#since").count() == 0
    legal = call(server, "GET", f"/games/{gid}/legal")
    mine = legal["player_id"] == accounts[0]["account_id"]
    # the head is drawn first, its legal moves (whose they are) a moment after: a CI run
    # under load read the title between the two
    page.wait_for_function(
        f"document.title.startsWith('(1) Your move') === {'true' if mine else 'false'}",
        timeout=20_000,
    )
    assert page.errors == []
