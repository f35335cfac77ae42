"""Pages that never go stale (issue 39): a page notices that its live stream died — an
offline spell, a stream that says nothing (a half-open connection), a server that
restarts — says it may be behind, catches up from the last version it has and says
when it is back; several tabs alike.

Found by players: with two tabs open and the browser offline for 20 s while the
opponent moved, both tabs stayed on the old position for good, saying it was the
opponent's move, with no banner.

The server here sends a heartbeat every second (TONGIAKI_STREAM_HEARTBEAT=1), so a
page takes a silent stream for dead after about 4 s rather than 32.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.e2e.conftest import ROOT, _free_port
from tests.e2e.test_browser import call, play
from tests.e2e.test_game_page import as_player, game, open_game_page

pytestmark = pytest.mark.timeout(300)


class Restartable:
    """A ``tongiaki serve`` of this module's own, that a test can stop and start again."""

    def __init__(self, data) -> None:  # type: ignore[no-untyped-def]
        self.port = _free_port()
        self.data = data
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {
            **os.environ,
            "TONGIAKI_DATA_DIR": str(self.data),
            "TONGIAKI_TESTING": "1",
            "DATABASE_URL": "",
            "REDIS_URL": "",
            "TONGIAKI_PORT": str(self.port),
            "TONGIAKI_RATE_LIMITS": "off",
            "TONGIAKI_STREAM_HEARTBEAT": "1",
        }
        log = open(self.data / "server.log", "a")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve"],
            cwd=ROOT,
            env=env,
            stderr=log,
            stdout=log,
        )
        log.close()
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = Restartable(tmp_path_factory.mktemp("stale"))
    server.start()
    yield server
    server.stop()


def head(url: str, gid: str) -> int:
    return int(call(url, "GET", f"/games/{gid}")["version"])


def shown(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.get_attribute("body", "data-version"))


def up_to_date(page, version: int, seconds: float = 20) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        f"Number(document.body.dataset.version) >= {version}"
        " && document.body.dataset.connection === 'live'",
        timeout=seconds * 1000,
    )


def test_two_tabs_offline_while_the_opponent_moves_say_so_and_catch_up(browser, live):
    gid, tokens, accounts = game(live.url)
    first = as_player(browser, live.url, accounts[0])
    second = first.context.new_page()  # the same browser: the same account
    second.errors = []
    second.on("pageerror", lambda e: second.errors.append(str(e)))
    for page in (first, second):
        open_game_page(page, live.url, gid)
        up_to_date(page, head(live.url, gid))
    first.context.set_offline(True)
    for page in (first, second):
        page.wait_for_function("document.body.dataset.connection === 'offline'", timeout=10_000)
        assert "behind" in page.inner_text("#connection")
    play(live.url, gid, tokens, random.Random(5), 6)  # the opponent (and the bots) move on
    moved = head(live.url, gid)
    time.sleep(1)
    for page in (first, second):  # still saying so: an old position, never silently
        assert shown(page) < moved and page.is_visible("#connection")
        assert "behind" in page.inner_text("#connection")
    first.context.set_offline(False)
    for page in (first, second):
        up_to_date(page, moved)
        assert "up to date" in page.inner_text("#connection") or page.is_hidden("#connection")
        assert page.errors == []


def test_a_stream_that_says_nothing_is_taken_for_dead_and_the_page_catches_up(browser, live):
    """A half-open connection: the server stops answering without closing anything (here
    it is stopped, SIGSTOP), so the stream neither errs nor closes. The page notices the
    silence after twice the heartbeat it was told, says it may be behind, and catches up
    with the moves made once the server answers again."""
    gid, tokens, accounts = game(live.url)
    page = as_player(browser, live.url, accounts[0])
    open_game_page(page, live.url, gid)
    up_to_date(page, head(live.url, gid))
    assert live.proc is not None
    os.kill(live.proc.pid, signal.SIGSTOP)
    try:
        page.wait_for_function("document.body.dataset.connection === 'silent'", timeout=15_000)
        assert "behind" in page.inner_text("#connection")
    finally:
        os.kill(live.proc.pid, signal.SIGCONT)
    play(live.url, gid, tokens, random.Random(6), 4)
    up_to_date(page, head(live.url, gid))
    assert page.errors == []


def test_a_server_restart_leaves_no_page_behind(browser, live):
    gid, tokens, accounts = game(live.url)
    page = as_player(browser, live.url, accounts[1])
    open_game_page(page, live.url, gid)
    up_to_date(page, head(live.url, gid))
    live.stop()
    page.wait_for_function(
        "['reconnecting', 'silent', 'offline'].includes(document.body.dataset.connection)",
        timeout=15_000,
    )
    assert "behind" in page.inner_text("#connection")
    live.start()
    play(live.url, gid, tokens, random.Random(7), 4)  # right after the restart
    up_to_date(page, head(live.url, gid), seconds=30)
    assert page.errors == []


def test_moves_faster_than_the_page_shows_them_never_leave_it_far_behind(browser, live):
    """Moves made faster than the page shows steps one by one: the steps that arrive while
    it plays older ones are not queued without end (a probe's page was 80 steps behind
    38 s after the last move, saying "live"); past a dozen waiting it jumps to now, and
    says it is up to date only at the game's newest step."""
    gid, tokens, accounts = game(live.url)
    page = as_player(browser, live.url, accounts[0])
    page.add_init_script("localStorage.setItem('tongiaki.stepMs', '450')")  # the default
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    open_game_page(page, live.url, gid)
    up_to_date(page, head(live.url, gid))
    rng = random.Random(11)
    for _ in range(40):  # a move every quarter second: faster than steps are shown
        if play(live.url, gid, tokens, rng, 1)["decision"] is None:
            break
        time.sleep(0.25)
    moved = head(live.url, gid)
    assert moved > 40, moved
    up_to_date(page, moved, seconds=15)
    assert page.errors == []


def test_a_moves_line_comes_although_the_timeline_answered_late(browser, server):
    """The move list fills in a line its read model had not yet when the move's events
    came, though no later move brings it (a refused takeback's line once never came in
    CI): the timeline is made to answer 503 at first."""
    from tests.e2e.test_browser import call, new_page, started_game

    gid, _, token = started_game(server)
    page = new_page(browser, server)
    page.goto(f"{server}/games/{gid}")
    page.wait_for_selector(".moves li.move")
    lagging = {"left": 3}

    def lag(route):  # type: ignore[no-untyped-def]
        if lagging["left"] > 0:
            lagging["left"] -= 1
            route.fulfill(
                status=503,
                content_type="application/problem+json",
                body='{"type": "/problems/projection_lagging", "title": "Lagging",'
                ' "status": 503, "code": "projection_lagging"}',
            )
        else:
            route.continue_()

    page.route("**/timeline?*", lag)
    legal = call(server, "GET", f"/games/{gid}/legal")
    call(server, "POST", f"/games/{gid}/commands", token[legal["player_id"]], legal["commands"][0])
    page.locator(".moves li.move", has_text="places a starting boat").first.wait_for(timeout=30000)
    assert lagging["left"] == 0  # the timeline did answer late
    assert page.errors == []
