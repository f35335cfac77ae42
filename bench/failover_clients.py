"""The clients of ``bench/failover.py``: bots that play through the web processes and
count what was acknowledged, viewers that follow a game's stream and resume after its
last id, and a sampler of how far the standby is behind the primary."""

from __future__ import annotations

import http.client
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import psycopg

from bench.client import Http, Reply

READ_BACK = 0.25  # the share of acknowledgements a bot reads back at once
RETRY_CAP = 1.0  # seconds a bot waits at most after a 503 (its Retry-After, capped)


@dataclass
class Tally:
    """What the bots saw, shared by their threads (under ``lock``)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    # bot, game, version, head hash and time of each acknowledged command
    acked: list[tuple[int, str, int, str, float]] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)  # answers to commands by status
    reads: dict[int, int] = field(default_factory=dict)  # answers to everything else
    refused: int = 0  # connections refused or reset (a web process away)
    reads_checked: int = 0  # reads after an acknowledgement that answered
    stale: list[str] = field(default_factory=list)  # reads older than an acknowledgement
    games: list[str] = field(default_factory=list)

    def count(self, status: int, command: bool = True) -> None:
        counts = self.statuses if command else self.reads
        with self.lock:
            counts[status] = counts.get(status, 0) + 1


class Bot(threading.Thread):
    """Plays one game after another through the web processes, both seats its own."""

    def __init__(self, ports: list[int], tally: Tally, seed: int, stop: threading.Event) -> None:
        super().__init__(daemon=True, name=f"bot{seed}")
        self.index = seed
        self.https = [Http(p, timeout=30) for p in ports]
        self.tally, self.rng, self.stop = tally, random.Random(seed), stop
        self.game: tuple[str, dict[str, str]] | None = None

    def http(self) -> Http:
        return self.rng.choice(self.https)

    def call(self, *args: Any, **kwargs: Any) -> Reply | None:
        """One request to a web process chosen at random; None if it could not answer."""
        try:
            reply = self.http().call(*args, **kwargs)
        except OSError:
            with self.tally.lock:
                self.tally.refused += 1
            return None
        if "/commands" not in args[1]:
            self.tally.count(reply.status, command=False)
        return reply

    def wait(self, reply: Reply | None) -> None:
        after = 0.2
        if reply is not None and "retry-after" in reply.headers:
            after = min(float(reply.headers["retry-after"]), RETRY_CAP)
        self.stop.wait(after)

    def new_game(self) -> tuple[str, dict[str, str]] | None:
        tokens: dict[str, str] = {}
        for name in ("ann", "bob"):
            made = self.call("POST", "/accounts", {"name": name})
            if made is None or made.status != 201:
                return None
            tokens[made.json["account_id"]] = made.json["token"]
        first = next(iter(tokens.values()))
        opened = self.call("POST", "/games", {"max_players": 2}, first)
        if opened is None or opened.status != 201:
            return None
        gid = opened.json["game_id"]
        for token, colour in zip(tokens.values(), ("blue", "red"), strict=True):
            seated = self.call("POST", f"/games/{gid}/seats", {"colour": colour}, token)
            if seated is None or seated.status != 201:
                return None
        started = self.call("POST", f"/games/{gid}/start", None, first)
        if started is None or started.status != 200:
            return None
        with self.tally.lock:
            self.tally.games.append(gid)
        return gid, tokens

    def run(self) -> None:
        while not self.stop.is_set():
            if self.game is None:
                self.game = self.new_game()
                if self.game is None:
                    self.stop.wait(0.2)
                    continue
            gid, tokens = self.game
            legal = self.call("GET", f"/games/{gid}/legal")
            if legal is None or legal.status != 200:
                self.wait(legal)
                continue
            if legal.json["decision"] is None:
                self.game = None  # over: the next one
                continue
            self.send(gid, tokens[legal.json["player_id"]], legal.json)

    def send(self, gid: str, token: str, legal: dict[str, Any]) -> None:
        """One command, sent again with the same key until it is answered."""
        body = self.rng.choice(legal["commands"])
        headers = {"If-Match": f'"{legal["version"]}"', "Idempotency-Key": uuid.uuid4().hex}
        while not self.stop.is_set():
            reply = self.call("POST", f"/games/{gid}/commands", body, token, headers)
            if reply is not None:
                self.tally.count(reply.status)
            if reply is not None and reply.status in (200, 201):
                receipt = reply.json["receipt"]
                with self.tally.lock:
                    self.tally.acked.append(
                        (self.index, gid, receipt["version"], receipt["hash"], time.monotonic())
                    )
                if self.rng.random() < READ_BACK:
                    self.read_back(gid, receipt["version"], receipt["hash"])
                return
            if reply is not None and reply.status < 500:
                return  # refused (the game moved on, say): read /legal again
            self.wait(reply)

    def read_back(self, gid: str, version: int, head: str) -> None:
        """Read what was just acknowledged, from another web process maybe (a replica's
        read side): the events up to it, and the scoreboard at it or later; an answer
        that shows less is stale (a 503 is not: it refuses, it shows nothing)."""
        page = self.call("GET", f"/games/{gid}/events?after={version - 1}&limit=1")
        if page is not None and page.status == 200:
            got = page.json["events"]
            if not got or got[0]["version"] != version or got[0]["hash"] != head:
                self.stale(f"{gid} v{version}: events after {version - 1}: {got[:1]}")
            else:
                self.checked()
        board = self.call("GET", f"/games/{gid}/scoreboard?min_version={version}")
        if board is not None and board.status == 200:
            if board.json["version"] < version:
                self.stale(f"{gid} v{version}: scoreboard at {board.json['version']}")
            else:
                self.checked()

    def stale(self, what: str) -> None:
        with self.tally.lock:
            self.tally.stale.append(what)

    def checked(self) -> None:
        with self.tally.lock:
            self.tally.reads_checked += 1


class Viewer(threading.Thread):
    """Follows one game's stream, resuming after its last id when the stream breaks."""

    def __init__(self, port: int, gid: str, stop: threading.Event) -> None:
        super().__init__(daemon=True, name=f"viewer-{gid}")
        self.port, self.gid, self.stop = port, gid, stop
        self.versions: list[int] = []
        self.reconnects = 0
        self.ended = False

    def run(self) -> None:
        while not self.stop.is_set() and not self.ended:
            headers = {"Accept": "text/event-stream"}
            if self.versions:
                headers["Last-Event-ID"] = str(self.versions[-1])
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
            try:
                conn.request("GET", f"/api/v1/games/{self.gid}/stream", headers=headers)
                response = conn.getresponse()
                if response.status != 200:
                    response.read()
                    raise OSError(f"stream answered {response.status}")
                self.read(response)
            except (OSError, http.client.HTTPException):
                pass
            finally:
                conn.close()
            if not self.ended:
                self.reconnects += 1
                self.stop.wait(0.5)

    def read(self, response: http.client.HTTPResponse) -> None:
        kind = ""
        while not self.stop.is_set():
            line = response.readline()
            if not line:
                return
            text = line.decode().rstrip("\r\n")
            if text.startswith("event:"):
                kind = text[6:].strip()
            elif text.startswith("id:") and kind not in ("chat", "heartbeat"):
                self.versions.append(int(text[3:].strip()))
            elif text == "":
                if kind == "end":
                    self.ended = True
                    return
                kind = ""


@dataclass
class Lag:
    """How far the standby was behind, sampled on the primary until it died."""

    samples: int = 0
    max_bytes: int = 0
    last_bytes: int = 0
    max_flush_ms: float = 0.0
    sync_state: str = ""

    def sample(self, url: str, stop: threading.Event) -> None:
        try:
            conn = psycopg.connect(url, autocommit=True, connect_timeout=2)
        except psycopg.Error:
            return
        with conn:
            while not stop.is_set():
                try:
                    row = conn.execute(
                        "SELECT sync_state, pg_wal_lsn_diff(pg_current_wal_lsn(), flush_lsn),"
                        " COALESCE(EXTRACT(epoch FROM flush_lag) * 1000, 0)"
                        " FROM pg_stat_replication LIMIT 1"
                    ).fetchone()
                except psycopg.Error:
                    return  # the primary is gone
                if row is not None:
                    self.sync_state = str(row[0])
                    self.last_bytes = int(row[1] or 0)
                    self.max_bytes = max(self.max_bytes, self.last_bytes)
                    self.max_flush_ms = max(self.max_flush_ms, float(row[2] or 0))
                    self.samples += 1
                stop.wait(0.02)
