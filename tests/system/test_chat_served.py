"""A game's chat on real server processes (docs/chat.md): the embedded default, and two
gunicorn web processes on one PostgreSQL database with Redis, where what is said on one
process reaches a page following the chat on the other (its cursor's next read), the
spectators' channel stays apart, a hide and a stop on one hold on the other, and the
game's record is the same with the chat as without it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from typing import Any

import pytest

from tests.servers import ROOT, Http, embedded, production, seated_game
from tests.sse import Viewer, watch

WAIT = 20.0  # seconds a follower waits for what it expects


def auditor(env: dict[str, str]) -> str:
    made = subprocess.run(
        [sys.executable, "-m", "service.cli", "auditor", "create", "Audrey"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return made.stdout.split("token: ")[1].strip()


class Follower:
    """A page following a game's chat after its cursor, as chat.js does."""

    def __init__(self, http: Http, gid: str, token: str) -> None:
        self.http, self.gid, self.token = http, gid, token
        self.after = 0
        self.seen: dict[int, dict[str, Any]] = {}

    def read(self) -> None:
        while True:
            page = self.http.call("GET", f"/games/{self.gid}/chat?after={self.after}", None,
                                  self.token).json  # fmt: skip
            for m in page["messages"] + page["hidden"]:
                self.seen[m["seq"]] = m
            self.after = page["next_after"]
            if not page["has_more"]:
                return

    def until(self, test: Any) -> dict[int, dict[str, Any]]:
        """Read until ``test(seen)`` holds (within ``WAIT`` s)."""
        deadline = time.monotonic() + WAIT
        while True:
            self.read()
            if test(self.seen):
                return self.seen
            assert time.monotonic() < deadline, self.seen
            time.sleep(0.1)


def chat_across(a: Http, b: Http, env: dict[str, str]) -> None:
    """Players and a spectator chatting through ``a``, read through ``b``."""
    gid, tokens = seated_game(a)
    ann, bob = tokens.values()
    assert a.call("POST", f"/games/{gid}/start", None, ann).status == 200
    sam = a.call("POST", "/accounts", {"name": "sam"}).json
    audrey = auditor(env)
    before = b.call("GET", f"/games/{gid}/events?after=0&limit=1000").json["events"]

    bobs_page = Follower(b, gid, bob)
    sams_page = Follower(b, gid, sam["token"])
    bobs_page.read()
    sams_page.read()
    said = a.call("POST", f"/games/{gid}/chat", {"channel": "table", "text": "good luck"}, ann)
    assert said.status == 201, said.json
    aside = {"channel": "spectators", "text": "go blue"}
    assert a.call("POST", f"/games/{gid}/chat", aside, sam["token"]).status == 201

    seen = bobs_page.until(lambda s: any(m["text"] == "good luck" for m in s.values()))
    assert [m["channel"] for m in seen.values()] == ["table"]  # M2: not the spectators'
    seen = sams_page.until(lambda s: any(m["text"] == "go blue" for m in s.values()))
    assert [m["channel"] for m in seen.values()] == ["spectators"]

    # an auditor hides on b; the page following on a sees the reason instead (M7)
    anns_page = Follower(a, gid, ann)
    anns_page.read()
    seq = said.json["seq"]
    hid = b.call("POST", f"/games/{gid}/chat/{seq}/hide", {"reason": "test"}, audrey)
    assert hid.status == 200, hid.json
    anns_page.until(lambda s: s[seq]["hidden"] is not None and s[seq]["text"] is None)

    # a stop on a holds on b (M8)
    stop = {"account_id": sam["account_id"], "reason": "test"}
    assert a.call("POST", "/chat/stops", stop, audrey).status == 201
    refused = b.call("POST", f"/games/{gid}/chat", aside, sam["token"])
    assert refused.status == 403 and refused.json["rule"] == "M8"

    # M4 across processes: the sixth message in ten seconds is refused, wherever it lands
    line = {"channel": "table", "text": "again"}
    answers = [(a, b)[i % 2].call("POST", f"/games/{gid}/chat", line, bob).status for i in range(6)]
    assert answers == [201] * 5 + [429]

    # M9: the game's record is untouched
    assert b.call("GET", f"/games/{gid}/events?after=0&limit=1000").json["events"] == before
    assert a.call("GET", f"/games/{gid}/chat/verify", None, audrey).json["ok"] is True


def pinged(a: Http, port: int) -> None:
    """A message said through ``a`` pings the game's live stream opened on ``port`` at
    once: a "chat" event with the chat's seq, and not a word of the message (M2, M5)."""
    gid, tokens = seated_game(a)
    ann, bob = tokens.values()
    assert a.call("POST", f"/games/{gid}/start", None, ann).status == 200

    async def main() -> Viewer:
        viewer, stop = Viewer(), asyncio.Event()
        task = asyncio.create_task(watch(port, f"/api/v1/games/{gid}/stream", viewer, stop=stop))
        await asyncio.wait_for(viewer.opened.wait(), 10)
        loop = asyncio.get_running_loop()
        for text in ("one", "two"):
            line = {"channel": "table", "text": text}
            said = await loop.run_in_executor(None, a.call, "POST", f"/games/{gid}/chat", line, bob)
            assert said.status == 201, said.json
            seq, sent = said.json["seq"], time.monotonic()
            for _ in range(200):  # the feed's safety poll is 30 s away: this is the NOTIFY's
                if any(s >= seq for s, _ in viewer.chats):
                    break
                await asyncio.sleep(0.05)
            assert any(s >= seq for s, _ in viewer.chats), viewer.chats
            assert min(t for s, t in viewer.chats if s >= seq) - sent < 10
        stop.set()
        await task
        return viewer

    viewer = asyncio.run(main())
    assert viewer.status == 200 and not viewer.problem
    assert viewer.versions and all(s > 0 for s, _ in viewer.chats)


SLOW_POLL = {"TONGIAKI_FEED_POLL": "30"}  # a ping must come by the bell or NOTIFY, not a poll


def test_chat_on_the_embedded_default(tmp_path):
    with embedded(tmp_path, **SLOW_POLL) as server:
        http = server.http()
        chat_across(http, server.http(), server.env)
        pinged(http, server.port)


@pytest.mark.parametrize("feed", ["listen", "redis"])  # TONGIAKI_CHANGE_FEED
def test_chat_across_two_web_processes_on_postgresql(tmp_path, pg_schema, redis_url, feed):
    _, url = pg_schema
    queue = f"c-{feed}-{tmp_path.name[-8:]}"
    env = {**SLOW_POLL, "TONGIAKI_CHANGE_FEED": feed}
    with production(tmp_path, url, redis_url, queue=queue, **env) as servers:
        a, b = (s.http() for s in servers[:2])
        chat_across(a, b, servers[0].env)
        pinged(a, servers[1].port)
