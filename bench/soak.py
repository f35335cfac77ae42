"""Soak benchmark: minutes of mixed traffic on the production setting (figures, not a test).

    python bench/soak.py --minutes N [--url postgresql://postgres@127.0.0.1:5432/test]
        [--redis redis://127.0.0.1:6379/13] [--web 2] [--bots 8] [--sleepers 2]
        [--spectators 16] [--streams 16] [--fuzzers 2] [--disputers 1] [--seed 1]

The stack is the production one, as ``tests/servers.py`` ``production()`` runs it:
``--web`` gunicorn processes (``tongiaki serve --workers 1``, a gevent worker, each on a
port of its own) on a throw-away PostgreSQL schema, Redis for the rq doorbell, and
one ``tongiaki worker``. Rate limits are off. Clients are threads of this process,
each request going to a web process chosen at random:

- bots create accounts and games (2 to 4 seats, both variants), join, start and
  play whole games, POSTing an item of the legal commands they got with the
  previous answer (``?include=legal``) or from ``GET /legal``, with ``If-Match``
  (sometimes ``expected_version``), and now and then an ``Idempotency-Key`` that
  they send twice (the second answer must be a replay with the same receipt);
- sleepers play timed games (5 s a decision) of which the other seat never plays:
  it times out once, is marked absent, and the service's bot (rq's scheduler and
  the worker) plays it to the end; a game that stalls is a finding;
- spectators read games, events (JSON and NDJSON), states, scoreboards,
  timelines, journals, the lobby, the leaderboard and hold
  ``/games/{id}/stream?timeout=`` server-sent-event connections (at most
  ``--streams`` at once), checking the ids they get
  are consecutive;
- fuzzers send malformed, oversized, chunked and deeply nested bodies, bad game
  ids, huge integers in query strings and headers, wrong tokens, commands from
  unseated accounts and stale ``If-Match`` into the bots' games, and reuse the
  bots' ``Idempotency-Key`` with other bodies; each answer is checked against
  the status (and code) it should have.
- disputers open disputes on finished bot games as one of their players (with a
  note and the evidence), and an auditor (made with ``tongiaki auditor create``)
  rules: *stands*, an amended ranking, an annulment, or a *rewind* that the
  disputer then plays to the end again from the re-deal; or the player withdraws.

Every answer is counted by status; an error answer that is not
``application/problem+json``, or has another status than its client expected,
is listed under "findings" with examples. Once, at 40 % of the run, the
worker's process group gets SIGKILL and new workers are started (every 2 s
until one works; after the traffic if none did). After the traffic, the read
models must catch up (every game's scoreboard at its head, ``/projections``
level), every game's events are read back (versions exactly 1..head, the hash
chain linked, every receipt and event a client got a 2xx for present, no
command applied twice) and every game is verified (``GET /verify``). The open
file descriptors, resident memory (VmRSS) and CPU time of every process
(gunicorn masters and their workers, the rq workers) are printed after a
warm-up, at the end of the traffic and once idle; so is how busy the whole host
was (other work on it slows every figure).

Exit status 1 if an event is lost or duplicated, an answer is a 5xx (other than
the documented 503 ``projection_lagging`` of a read model that is behind), an
SSE stream skips or repeats a version, a worker fails to start, a game fails
verification or the read models do not catch up. Everything is removed at the
end, also on Ctrl-C: the processes are stopped, the schema dropped and the Redis
keys of this run's queue, jobs and workers deleted (nothing else in that
database is touched; never FLUSHDB or FLUSHALL). The service logs are kept in a
temporary directory when the run fails.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import itertools
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redis import Redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.store import throwaway_schema  # noqa: E402

API = "/api/v1"
PROBLEM = "application/problem+json"
COLOURS = ("blue", "red", "green", "yellow", "orange", "purple")
KILL_AT = 0.4  # the worker is killed at this fraction of the run
SAMPLES = 5  # examples kept per kind of finding


# --- counting -------------------------------------------------------------------


@dataclass
class Reply:
    """One HTTP answer: status, headers (lower-case names), body bytes and JSON."""

    status: int
    headers: dict[str, str]
    raw: bytes
    json: Any = None

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip()

    @property
    def code(self) -> str | None:
        return self.json.get("code") if isinstance(self.json, dict) else None


class Stats:
    """Everything the clients saw, shared by their threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: Counter[int] = Counter()
        self.by_client: dict[str, Counter[int]] = defaultdict(Counter)
        self.commands = 0  # accepted game commands (POST /commands, not replays)
        self.game_commands = 0  # also creates, seats and starts
        self.replays = 0
        self.timed_finished = 0  # sleepers' games the bot finished for the absent seat
        self.latencies: list[float] = []  # ms, accepted commands
        self.lagging = 0  # 503 projection_lagging (documented)
        self.server_errors: list[str] = []
        self.server_error_count = 0
        self.findings: dict[str, list[str]] = defaultdict(list)  # kind → examples
        self.finding_count: Counter[str] = Counter()
        self.transport: Counter[str] = Counter()
        self.streams = 0
        self.stream_events = 0
        self.stream_gaps = 0
        self.client_cpu = 0.0  # seconds of CPU this process (every client) used
        self.host_busy = 0.0  # share of the host's CPU time busy during the traffic
        self.ended = 0.0  # time.monotonic() once every client stopped
        self.rulings: Counter[str] = Counter()  # disputes settled, by how (Disputer)

    def answer(self, client: str, method: str, path: str, reply: Reply) -> None:
        with self.lock:
            self.statuses[reply.status] += 1
            self.by_client[client][reply.status] += 1
        request = f"{method} {short(path)}"
        if reply.status == 503 and reply.code == "projection_lagging":
            with self.lock:
                self.lagging += 1
        elif reply.status >= 500:
            with self.lock:
                self.server_error_count += 1
                if len(self.server_errors) < 50:
                    self.server_errors.append(f"{request} -> {reply.status} {excerpt(reply.raw)}")
        if reply.status >= 400 and reply.content_type != PROBLEM:
            self.finding(
                f"error not problem+json ({reply.status} {reply.content_type or 'no type'})",
                f"{request} -> {excerpt(reply.raw)}",
            )

    def finding(self, kind: str, example: str) -> None:
        """Something a client did not expect (a status, a code, a header, a value)."""
        with self.lock:
            self.finding_count[kind] += 1
            if len(self.findings[kind]) < SAMPLES:
                self.findings[kind].append(example)

    def failed_transport(self, client: str, exc: BaseException) -> None:
        with self.lock:
            self.transport[f"{client}: {type(exc).__name__}"] += 1

    def accepted(self, latency_ms: float) -> None:
        with self.lock:
            self.commands += 1
            self.game_commands += 1
            self.latencies.append(latency_ms)

    def total(self) -> int:
        return sum(self.statuses.values())


def short(path: str, width: int = 120) -> str:
    return path if len(path) <= width else f"{path[:width]}…({len(path)} chars)"


def excerpt(raw: bytes, width: int = 200) -> str:
    text = raw.decode("utf-8", "replace").replace("\n", " ")
    return text if len(text) <= width else text[:width] + "…"


# --- HTTP -----------------------------------------------------------------------


class TransportError(Exception):
    """No answer: a refused, reset or timed-out connection (counted, then raised)."""


class Api:
    """One client thread's HTTP: a kept-alive connection per web process, every answer counted."""

    RESETS = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)

    def __init__(self, ports: list[int], stats: Stats, client: str, rng: random.Random) -> None:
        self.ports = ports
        self.stats = stats
        self.client = client
        self.rng = rng
        self.conns: dict[int, http.client.HTTPConnection] = {}

    def close(self) -> None:
        for conn in self.conns.values():
            conn.close()
        self.conns.clear()

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
        fresh: bool = False,
        what: str = "",
    ) -> Reply:
        """Send one request to a web process chosen at random (``path`` under /api/v1).

        ``body`` goes as JSON, ``raw`` as it is; ``fresh`` uses a connection of its
        own, closed afterwards (for requests a server may answer before reading them);
        ``what`` names the request among the transport errors.
        """
        sent = {"Content-Type": "application/json"} if body is not None or raw else {}
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        sent.update(headers or {})
        data = raw
        if raw is None and body is not None:
            data = json.dumps(body).encode()
        port = self.rng.choice(self.ports)
        try:
            if fresh:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                try:
                    reply = self._send(conn, method, API + path, data, sent)
                finally:
                    conn.close()
            else:
                reply = self._kept_alive(port, method, API + path, data, sent)
        except (OSError, http.client.HTTPException) as exc:
            self.stats.failed_transport(f"{self.client}{' sending ' + what if what else ''}", exc)
            raise TransportError(f"{method} {short(path)}: {exc!r}") from exc
        self.stats.answer(self.client, method, path, reply)
        return reply

    def _kept_alive(
        self, port: int, method: str, url: str, data: bytes | None, headers: dict[str, str]
    ) -> Reply:
        for attempt in range(2):
            conn = self.conns.get(port)
            reused = conn is not None
            if conn is None:
                conn = self.conns[port] = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                reply = self._send(conn, method, url, data, headers)
            except self.RESETS:
                # a kept-alive connection the server closed meanwhile (gunicorn's
                # keep-alive is 2 s): it read nothing, so sending again is safe
                self.conns.pop(port).close()
                if attempt or not reused:
                    raise
                continue
            except BaseException:
                self.conns.pop(port).close()
                raise
            if reply.headers.get("connection", "").lower() == "close":
                self.conns.pop(port).close()
            return reply
        raise AssertionError("unreachable")

    @staticmethod
    def _send(
        conn: http.client.HTTPConnection,
        method: str,
        url: str,
        data: bytes | None,
        headers: dict[str, str],
    ) -> Reply:
        conn.request(method, url, body=data, headers=headers)
        response = conn.getresponse()
        content = response.read()
        reply = Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, content)
        if reply.content_type in ("application/json", PROBLEM) and content:
            try:
                reply.json = json.loads(content)
            except ValueError:
                reply.json = None
        return reply


# --- games the clients made -----------------------------------------------------


@dataclass
class KeyUse:
    """A command a bot sent with an Idempotency-Key, and the receipt it got."""

    game_id: str
    token: str
    key: str
    body: dict[str, Any]
    headers: dict[str, str]
    receipt: dict[str, Any]


@dataclass
class GameRec:
    """A game as its players saw it (only its player's thread changes it)."""

    game_id: str
    owner: str  # "bot" or "fuzzer"
    tokens: dict[str, str] = field(default_factory=dict)  # account id → token
    started: bool = False
    finished: bool = False
    version: int = 0  # the last version its player saw
    accepted: dict[int, str] = field(default_factory=dict)  # version → hash, from 2xx answers
    keys: list[KeyUse] = field(default_factory=list)
    sample: dict[str, Any] | None = None  # a command its player sent

    def record(self, answer: dict[str, Any]) -> None:
        """Keep every event and the receipt of an accepted command's answer."""
        for event in answer.get("events", []):
            self.accepted[event["version"]] = event["hash"]
        receipt = answer["receipt"]
        self.accepted[receipt["version"]] = receipt["hash"]
        self.version = max(self.version, receipt["version"])


class Registry:
    """Every game made during the run."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.games: dict[str, GameRec] = {}

    def add(self, rec: GameRec) -> None:
        with self.lock:
            self.games[rec.game_id] = rec

    def all(self) -> list[GameRec]:
        with self.lock:
            return list(self.games.values())

    def pick(
        self, rng: random.Random, live: float = 0.7, owner: str | None = None
    ) -> GameRec | None:
        """A game: one being played with probability ``live``, else any (None if none yet)."""
        games = [g for g in self.all() if owner is None or g.owner == owner]
        playing = [g for g in games if g.started and not g.finished]
        if playing and rng.random() < live:
            return rng.choice(playing)
        return rng.choice(games) if games else None


@dataclass
class Context:
    """What every client thread shares."""

    ports: list[int]
    stats: Stats
    registry: Registry
    stop: threading.Event
    streams: threading.BoundedSemaphore


# --- clients --------------------------------------------------------------------


class Client:
    """A client thread's loop: ``step`` until stopped; a lost connection is counted."""

    kind = "client"

    def __init__(self, ctx: Context, seed: int) -> None:
        self.ctx = ctx
        self.rng = random.Random(seed)
        self.api = Api(ctx.ports, ctx.stats, self.kind, self.rng)

    def run(self) -> None:
        try:
            while not self.ctx.stop.is_set():
                try:
                    self.step()
                except TransportError:
                    self.ctx.stop.wait(0.2)
                except Exception as exc:  # a client bug must not end the soak silently
                    self.ctx.stats.finding(f"{self.kind} crashed", repr(exc))
                    self.ctx.stop.wait(0.5)
        finally:
            self.api.close()

    def step(self) -> None:
        raise NotImplementedError

    def expect(self, what: str, reply: Reply, statuses: set[int], code: str | None = None) -> bool:
        """Whether ``reply`` has one of ``statuses`` (and ``code``); a finding if not."""
        ok = reply.status in statuses and (code is None or reply.code == code)
        if not ok:
            wanted = "/".join(map(str, sorted(statuses))) + (f" {code}" if code else "")
            self.ctx.stats.finding(
                f"{self.kind}: {what}",
                f"expected {wanted}, got {reply.status} {excerpt(reply.raw)}",
            )
        return ok

    def account(self, name: str) -> tuple[str, str]:
        reply = self.api.call("POST", "/accounts", {"name": name})
        if not self.expect("sign up", reply, {201}):
            raise TransportError("no account")
        return reply.json["account_id"], reply.json["token"]


class Bot(Client):
    """Plays whole games for every seat of them, one after the other."""

    kind = "bot"

    def __init__(self, ctx: Context, seed: int) -> None:
        super().__init__(ctx, seed)
        self.accounts: list[tuple[str, str]] = []

    def step(self) -> None:
        while len(self.accounts) < 4:
            self.accounts.append(self.account(f"bot {len(self.accounts) + 1}"))
        rec, legal = self.open_game()
        if rec is not None:
            self.play(rec, legal)

    def open_game(
        self, players: int | None = None, extra: dict[str, Any] | None = None
    ) -> tuple[GameRec | None, dict[str, Any]]:
        """Create, seat everyone, start: the game and its first legal commands."""
        rng = self.rng
        players = players or rng.choice((2, 2, 3, 3, 4))
        two = players == 2 and rng.random() < 0.3
        seated = rng.sample(self.accounts, players)
        options = {
            "max_players": players,
            "two_colours_each": two,
            "free_orientation_after_first": rng.random() < 0.3,
            "first_seat": rng.randint(1, players),
            **(extra or {}),
        }
        reply = self.api.call("POST", "/games", options, token=seated[0][1])
        if not self.expect("create a game", reply, {201}):
            return None, {}
        rec = GameRec(reply.json["game_id"], self.kind, dict(seated))
        rec.record(reply.json)
        self.ctx.registry.add(rec)
        colours = rng.sample(COLOURS, players * (2 if two else 1))
        for i, (_, token) in enumerate(seated):
            seat: dict[str, Any] = (
                {"colours": colours[2 * i : 2 * i + 2]} if two else {"colour": colours[i]}
            )
            if rng.random() < 0.5:
                seat["entropy"] = uuid.uuid4().hex
            reply = self.api.call("POST", f"/games/{rec.game_id}/seats", seat, token=token)
            if not self.expect("take a seat", reply, {201}):
                return None, {}
            rec.record(reply.json)
        starter = rng.choice(seated)[1]
        reply = self.api.call("POST", f"/games/{rec.game_id}/start?include=legal", token=starter)
        if not self.expect("start", reply, {200}):
            return None, {}
        rec.record(reply.json)
        rec.started = True
        with self.ctx.stats.lock:
            self.ctx.stats.game_commands += players + 2
        return rec, reply.json["legal"]

    def play(self, rec: GameRec, legal: dict[str, Any] | None) -> None:
        """Move for whoever is due until the game ends (or the soak does)."""
        for _ in range(10_000):
            if self.ctx.stop.is_set():
                return
            if legal is None or self.rng.random() < 0.2:
                legal = self.legal(rec)
            if legal["decision"] is None:
                rec.finished = True
                return
            legal = self.move(rec, legal)
        self.ctx.stats.finding("bot: game never ended", rec.game_id)

    def legal(self, rec: GameRec) -> dict[str, Any]:
        reply = self.api.call("GET", f"/games/{rec.game_id}/legal")
        if not self.expect("GET /legal", reply, {200}):
            raise TransportError("no legal commands")
        if reply.json["version"] != rec.version:
            self.ctx.stats.finding(
                "bot: GET /legal behind the bot's own command",
                f"{rec.game_id}: legal at {reply.json['version']}, last receipt {rec.version}",
            )
        return reply.json  # type: ignore[no-any-return]

    def move(self, rec: GameRec, legal: dict[str, Any]) -> dict[str, Any] | None:
        """POST one legal command (sometimes twice with an Idempotency-Key); the next legal."""
        command = self.rng.choice(legal["commands"])
        token = rec.tokens[legal["player_id"]]
        body, headers = dict(command), {}
        if self.rng.random() < 0.05:
            body["expected_version"] = legal["version"]
        else:
            headers["If-Match"] = f'"{legal["version"]}"'
        keyed = self.rng.random() < 0.15
        if keyed:
            headers["Idempotency-Key"] = uuid.uuid4().hex
        path = f"/games/{rec.game_id}/commands?include=legal"
        started = time.perf_counter()
        reply = self.api.call("POST", path, body, token=token, headers=headers)
        latency = (time.perf_counter() - started) * 1000
        if not self.expect("a legal command", reply, {200}):
            return None
        self.ctx.stats.accepted(latency)
        rec.record(reply.json)
        rec.sample = command
        if keyed:
            self.retry(rec, path, body, token, headers, reply)
        return reply.json["legal"]  # type: ignore[no-any-return]

    def retry(
        self,
        rec: GameRec,
        path: str,
        body: dict[str, Any],
        token: str,
        headers: dict[str, str],
        first: Reply,
    ) -> None:
        """Half the keyed commands are sent again: the stored outcome must come back."""
        receipt = first.json["receipt"]
        if self.rng.random() < 0.5:
            again = self.api.call("POST", path, body, token=token, headers=headers)
            if self.expect("an Idempotency-Key retry", again, {200}):
                with self.ctx.stats.lock:
                    self.ctx.stats.replays += 1
                if again.json["receipt"] != receipt or again.json.get("replayed") is not True:
                    self.ctx.stats.finding(
                        "bot: a retry did not replay the receipt",
                        f"{rec.game_id}: first {receipt}, retry {excerpt(again.raw)}",
                    )
                if again.headers.get("idempotent-replayed") != "true":
                    self.ctx.stats.finding("bot: replay without Idempotent-Replayed", path)
        rec.keys.append(
            KeyUse(rec.game_id, token, headers["Idempotency-Key"], body, headers, receipt)
        )


class Sleeper(Bot):
    """Timed games (5 s a decision, absent after one timeout) of two seats of which only
    one plays: the other times out, and the service's bot plays it to the end, kept by
    rq's scheduler and the worker (docs/clocks.md). The worker's SIGKILL at 40 % of the
    run must not leave a game stalled: the sweeper and a new worker pick it up."""

    kind = "sleeper"
    STALLED = 60.0  # seconds without the bot's move before it is a finding

    def step(self) -> None:
        while len(self.accounts) < 2:
            self.accounts.append(self.account(f"sleeper {len(self.accounts) + 1}"))
        clock = {"time_control": "move", "move_seconds": 5, "absent_after": 1}
        rec, _ = self.open_game(players=2, extra=clock)
        if rec is not None:
            self.play_awake(rec, self.accounts[1][0])

    def play_awake(self, rec: GameRec, sleeping: str) -> None:
        moved = time.monotonic()
        while not self.ctx.stop.is_set():
            reply = self.api.call("GET", f"/games/{rec.game_id}/legal")
            if not self.expect("GET /legal", reply, {200}):
                return
            legal = reply.json
            if legal["decision"] is None:
                rec.finished = True
                with self.ctx.stats.lock:
                    self.ctx.stats.timed_finished += 1
                return
            if legal["player_id"] == sleeping:
                if time.monotonic() - moved > self.STALLED:
                    self.ctx.stats.finding(
                        "sleeper: the bot did not play the absent seat", rec.game_id
                    )
                    return
                time.sleep(0.25)
                continue
            moved = time.monotonic()
            self.move(rec, legal)


class Spectator(Client):
    """Reads what a watcher reads; now and then holds a live stream for a while."""

    kind = "spectator"

    def __init__(self, ctx: Context, seed: int) -> None:
        super().__init__(ctx, seed)
        self.token: str | None = None
        self.seen: dict[str, int] = {}  # game → last scoreboard version

    def step(self) -> None:
        if self.token is None:
            self.token = self.account("spectator")[1]
        rec = self.ctx.registry.pick(self.rng)
        if rec is None:
            self.ctx.stop.wait(0.2)
            return
        if self.rng.random() < 0.05 and self.ctx.streams.acquire(blocking=False):
            try:
                self.stream(rec)
            finally:
                self.ctx.streams.release()
        else:
            self.read(rec)
        self.ctx.stop.wait(self.rng.uniform(0.02, 0.15))

    def read(self, rec: GameRec) -> None:
        gid, rng, api = rec.game_id, self.rng, self.api
        version = max(rec.version, 1)
        reads: list[tuple[str, str, dict[str, str] | None, str | None]] = [
            ("game", f"/games/{gid}", None, None),
            ("events", f"/games/{gid}/events?after={rng.randint(0, version)}&limit=50", None, None),
            ("ndjson", f"/games/{gid}/events?limit=20", {"Accept": "application/x-ndjson"}, None),
            ("state", f"/games/{gid}/state?at={rng.randint(1, version)}", None, None),
            ("legal", f"/games/{gid}/legal", None, None),
            ("timeline", f"/games/{gid}/timeline?after={rng.randint(0, version)}", None, None),
            (
                "lobby",
                f"/lobby?status={rng.choice(('open', 'playing', 'ended'))}&limit=20",
                None,
                None,
            ),
            ("games", "/games?status=playing&limit=20", None, None),
            ("leaderboard", "/leaderboard?limit=10", None, None),
            ("my games", "/me/games", None, self.token),
            ("projections", "/projections", None, None),
        ]
        if rec.started:  # seated players only, and seats are taken before the start
            reads.append(
                ("journal", f"/games/{gid}/journal?limit=20", None, next(iter(rec.tokens.values())))
            )
        if rng.random() < 0.4:
            self.scoreboard(rec)
            return
        what, path, headers, token = rng.choice(reads)
        reply = api.call("GET", path, headers=headers, token=token)
        self.expect(f"GET {what}", reply, {200})

    def scoreboard(self, rec: GameRec) -> None:
        """A scoreboard answer: 200, or 503 while it is behind; its version never goes back."""
        reply = self.api.call("GET", f"/games/{rec.game_id}/scoreboard")
        if reply.status == 503 and reply.code == "projection_lagging":
            return
        if self.expect("GET scoreboard", reply, {200}):
            before = self.seen.get(rec.game_id, 0)
            if reply.json["version"] < before:
                self.ctx.stats.finding(
                    "spectator: a scoreboard went back",
                    f"{rec.game_id}: {before} then {reply.json['version']}",
                )
            self.seen[rec.game_id] = reply.json["version"]

    def stream(self, rec: GameRec) -> None:
        """Hold ``/stream`` for a few seconds; every id must follow the one before."""
        seconds = self.rng.randint(3, 10)
        after = self.rng.randint(0, rec.version)
        port = self.rng.choice(self.ctx.ports)
        path = f"/games/{rec.game_id}/stream?timeout={seconds}"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=seconds + 30)
        stats = self.ctx.stats
        try:
            conn.request("GET", API + path, headers={"Last-Event-ID": str(after)})
            response = conn.getresponse()
            headers = {k.lower(): v for k, v in response.getheaders()}
            if response.status != 200:
                reply = Reply(response.status, headers, response.read())
                stats.answer(self.kind, "GET", path, reply)
                # 204: the game is over and this client (it sent Last-Event-ID) has it whole
                self.expect("GET stream", reply, {200, 204} if rec.finished else {200})
                return
            stats.answer(self.kind, "GET", path, Reply(200, headers, b""))
            with stats.lock:
                stats.streams += 1
            self.follow(rec, response, after)
        except (OSError, http.client.HTTPException) as exc:
            stats.failed_transport(self.kind, exc)
        finally:
            conn.close()

    def follow(self, rec: GameRec, response: http.client.HTTPResponse, after: int) -> None:
        stats = self.ctx.stats
        last, event_id, name = after, None, ""
        while line := response.readline():
            text = line.decode().rstrip("\n")
            if not text:  # the end of a frame: the next one says its own id and name
                event_id, name = None, ""
            elif text.startswith("event: "):
                name = text[7:]
            elif text.startswith("id: "):
                event_id = int(text[4:])
            elif text.startswith("data: ") and name == "end":
                return  # the game is over and every event came: the server closes
            elif text.startswith("data: ") and event_id is not None:
                data = json.loads(text[6:])
                if event_id != last + 1 or data["version"] != event_id:
                    with stats.lock:
                        stats.stream_gaps += 1
                    stats.finding(
                        "spectator: a stream skipped or repeated a version",
                        f"{rec.game_id}: {last} then id {event_id} (data {data['version']})",
                    )
                if rec.accepted.get(event_id, data["hash"]) != data["hash"]:
                    stats.finding(
                        "spectator: a streamed event differs from its player's receipt",
                        f"{rec.game_id} version {event_id}",
                    )
                last = event_id
                with stats.lock:
                    stats.stream_events += 1


class Disputer(Client):
    """Disputes finished bot games as one of their players and rules as an auditor
    (docs/disputes.md): a dispute with a note, then *stands*, an amended ranking, an
    annulment, or a rewind that the disputer then plays to the end again; or a
    withdrawal. Refusals it provokes must be the ones the procedure names."""

    kind = "disputer"

    def __init__(self, ctx: Context, seed: int, auditor: str) -> None:
        super().__init__(ctx, seed)
        self.auditor = auditor
        self.done: set[str] = set()

    def step(self) -> None:
        ended = [
            g
            for g in self.ctx.registry.all()
            if g.finished and g.owner == "bot" and g.game_id not in self.done
        ]
        if not ended:
            self.ctx.stop.wait(0.5)
            return
        rec = self.rng.choice(ended)
        self.done.add(rec.game_id)
        game = self.api.call("GET", f"/games/{rec.game_id}")
        if not self.expect("read a finished game", game, {200}):
            return
        head = game.json["version"]
        opener = self.rng.choice(list(rec.tokens.values()))
        opened = self.api.call(
            "POST",
            f"/games/{rec.game_id}/disputes",
            {
                "reason": self.rng.choice(["rule_applied_wrongly", "unfair_draw", "misclick"]),
                "version": self.rng.randint(1, head),
                "text": "soak",
            },
            token=opener,
        )
        if not self.expect("open a dispute", opened, {201}):
            return
        d = opened.json["dispute_id"]
        self.expect(
            "note",
            self.api.call("POST", f"/disputes/{d}/notes", {"text": "a note"}, token=self.auditor),
            {200},
        )
        self.expect(
            "a player cannot rule",
            self.api.call(
                "POST",
                f"/disputes/{d}/ruling",
                {"decision": "stands", "reasoning": "x", "rules": ["D4"]},
                token=opener,
            ),
            {403},
            "auditors_only",
        )
        evidence = self.api.call("GET", f"/disputes/{d}/evidence", token=self.auditor)
        self.expect("evidence", evidence, {200})
        board = self.api.call("GET", f"/games/{rec.game_id}/scoreboard?min_version={head}")
        if not self.expect("final scoreboard", board, {200}) or not board.json.get("final"):
            return
        ranking = [r["player_id"] for r in board.json["final"]["ranking"]]
        choice = self.rng.choice(["stands", "amend", "annul", "rewind", "withdraw"])
        if choice == "withdraw":
            self.expect(
                "withdraw",
                self.api.call("POST", f"/disputes/{d}/withdraw", {}, token=opener),
                {200},
            )
        else:
            body: dict[str, Any] = {"decision": "stands", "reasoning": "soak", "rules": ["D4"]}
            if choice == "amend":
                body.update(decision="result_amended", ranking=ranking[::-1])
            elif choice == "annul":
                body.update(decision="result_amended", annulled=True)
            elif choice == "rewind":
                receipts = [v for v in self.journal_receipts(rec.game_id) if v < head - 5]
                if not receipts:
                    choice = "stands"
                else:
                    body.update(
                        decision="rewind", rules=["D6"], to_version=self.rng.choice(receipts)
                    )
            ruled = self.api.call("POST", f"/disputes/{d}/ruling", body, token=self.auditor)
            if not self.expect(f"rule {choice}", ruled, {200}):
                return
            if choice == "rewind":
                self.play_out(rec)
        with self.ctx.stats.lock:
            self.ctx.stats.rulings[choice] += 1
        self.expect(
            "a closed dispute",
            self.api.call("POST", f"/disputes/{d}/notes", {"text": "late"}, token=self.auditor),
            {409},
            "dispute_closed",
        )

    def journal_receipts(self, game_id: str) -> list[int]:
        receipts: list[Any] = []
        after = 0
        while True:
            page = self.api.call(
                "GET", f"/games/{game_id}/journal?after={after}&limit=500", token=self.auditor
            )
            if page.status != 200:
                return receipts
            receipts += [
                c["last_version"]
                for c in page.json["commands"]
                if c["outcome"] == "accepted"
                and c["payload"].get("type") not in ("CreateGame", "JoinGame", "StartGame")
            ]
            if not page.json["has_more"]:
                return receipts
            after = page.json["next_after"]

    def play_out(self, rec: GameRec) -> None:
        """The rewound game, played to its end again from the re-deal."""
        for _ in range(3000):
            legal = self.api.call("GET", f"/games/{rec.game_id}/legal")
            if (
                not self.expect("legal after a rewind", legal, {200})
                or legal.json["decision"] is None
            ):
                return
            token = rec.tokens[legal.json["player_id"]]
            moved = self.api.call(
                "POST",
                f"/games/{rec.game_id}/commands",
                self.rng.choice(legal.json["commands"]),
                token=token,
                headers={"If-Match": f'"{legal.json["version"]}"'},
            )
            if not self.expect("a move after a rewind", moved, {200}):
                return


class Fuzzer(Client):
    """Sends what a careless or hostile client sends; every answer has a known status."""

    kind = "fuzzer"

    def __init__(self, ctx: Context, seed: int) -> None:
        super().__init__(ctx, seed)
        self.own: GameRec | None = None  # a started 2-player game nobody plays
        self.active = ""  # its active seat's token
        self.idle = ""  # the other seat's token
        self.stranger = ""  # an account with no seat anywhere
        self.cases: list[Callable[[], None]] = [
            self.malformed_json,
            self.not_an_object,
            self.bad_utf8,
            self.oversized,
            self.oversized_chunked,
            self.deeply_nested,
            self.huge_integer_body,
            self.float_body,
            self.control_characters,
            self.bad_game_id,
            self.huge_query,
            self.huge_header,
            self.wrong_token,
            self.bad_options,
            self.unseated_command,
            self.not_your_turn,
            self.stale_in_own_game,
            self.stale_in_bot_game,
            self.join_started_game,
            self.reused_key_other_body,
            self.reused_key_same_body,
            self.wrong_method,
            self.unknown_path,
            self.server_limits,
        ]

    def step(self) -> None:
        if self.own is None:
            self.setup()
        self.rng.choice(self.cases)()
        self.ctx.stop.wait(self.rng.uniform(0.01, 0.08))

    def setup(self) -> None:
        """Two seated accounts in a started game of their own, and a stranger."""
        (a, ta), (b, tb) = self.account("fuzz a"), self.account("fuzz b")
        self.stranger = self.account("fuzz stranger")[1]
        reply = self.api.call("POST", "/games", {"max_players": 2}, token=ta)
        if not self.expect("create a game", reply, {201}):
            raise TransportError("no game")
        rec = GameRec(reply.json["game_id"], "fuzzer", {a: ta, b: tb})
        rec.record(reply.json)
        for token, colour in ((ta, "blue"), (tb, "red")):
            seat = self.api.call(
                "POST", f"/games/{rec.game_id}/seats", {"colour": colour}, token=token
            )
            if not self.expect("take a seat", seat, {201}):
                raise TransportError("no seat")
            rec.record(seat.json)
        start = self.api.call("POST", f"/games/{rec.game_id}/start?include=legal", token=ta)
        if not self.expect("start", start, {200}):
            raise TransportError("no start")
        rec.record(start.json)
        rec.started = True
        legal = start.json["legal"]
        rec.sample = legal["commands"][0]
        self.active = rec.tokens[legal["player_id"]]
        self.idle = tb if self.active == ta else ta
        self.own = rec
        self.ctx.registry.add(rec)

    @property
    def gid(self) -> str:
        assert self.own is not None
        return self.own.game_id

    def post(self, path: str, raw: bytes, token: str | None = None, **kw: Any) -> Reply:
        return self.api.call("POST", path, raw=raw, token=token, **kw)

    # each case sends one request and checks its status (and code)

    def malformed_json(self) -> None:
        body = self.rng.choice([b'{"name": ', b"{'name': 'x'}", b"nul", b'{"name": "x"} x'])
        reply = self.post("/accounts", body)
        self.expect("malformed JSON", reply, {400}, "malformed_json")

    def not_an_object(self) -> None:
        reply = self.post("/accounts", self.rng.choice([b"[1, 2]", b'"name"', b"42"]))
        self.expect("a body that is not an object", reply, {400}, "malformed_body")

    def bad_utf8(self) -> None:
        reply = self.post("/accounts", self.rng.choice([b"\xff\xfe{}", b'{"name": "\xc3"}']))
        self.expect("bad UTF-8", reply, {400})

    def oversized(self) -> None:
        """The server may answer 413 and close before it read the body: a broken pipe."""
        body = b'{"name": "' + b"x" * self.rng.randint(17_000, 200_000) + b'"}'
        try:
            reply = self.post("/accounts", body, fresh=True, what="an oversized body")
        except TransportError:
            return
        self.expect("an oversized body", reply, {413}, "body_too_large")

    def oversized_chunked(self) -> None:
        """A chunked body has no length to check: the server must stop reading past 16 KiB."""
        port = self.rng.choice(self.ctx.ports)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        path = f"/games/{self.gid}/commands"
        chunks = (b'{"type": "Expand", "island": "' if i == 0 else b"x" * 4096 for i in range(64))
        try:
            conn.request(
                "POST",
                API + path,
                body=chunks,
                headers={
                    "Authorization": f"Bearer {self.active}",
                    "Content-Type": "application/json",
                },
                encode_chunked=True,
            )
            response = conn.getresponse()
            reply = Reply(
                response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
            )
        except (OSError, http.client.HTTPException) as exc:
            self.ctx.stats.failed_transport(self.kind, exc)
            return
        finally:
            conn.close()
        reply.json = json.loads(reply.raw) if reply.content_type == PROBLEM else None
        self.ctx.stats.answer(self.kind, "POST", path + " (chunked)", reply)
        self.expect("an oversized chunked body", reply, {413}, "body_too_large")

    def deeply_nested(self) -> None:
        depth = self.rng.choice([9, 30, 500, 5000])
        body = b'{"type": "Expand", "x": ' + b"[" * depth + b"]" * depth + b"}"
        reply = self.post(f"/games/{self.gid}/commands", body, self.active)
        self.expect("a deeply nested body", reply, {400, 422})

    def huge_integer_body(self) -> None:
        number = str(self.rng.choice([2**31, -(2**31) - 1, 10**30, 10**400])).encode()
        body = self.rng.choice(
            [
                b'{"name": ' + number + b"}",
                b'{"type": "Expand", "expected_version": ' + number + b"}",
            ]
        )
        path = "/accounts" if body.startswith(b'{"name"') else f"/games/{self.gid}/commands"
        reply = self.post(path, body, self.active)
        self.expect("a huge integer in a body", reply, {400, 422})

    def float_body(self) -> None:
        body = b'{"max_players": 2.5}'
        reply = self.post("/games", body, self.active)
        self.expect("a float in a body", reply, {422}, "not_an_integer")

    def control_characters(self) -> None:
        name = self.rng.choice(["a\u0000b", "\u0007", "x\u009by", "   ", "n" * 65])
        reply = self.api.call("POST", "/accounts", {"name": name})
        self.expect("a bad name", reply, {422})

    def bad_game_id(self) -> None:
        gid = self.rng.choice(
            ["a" * 65, "%00", "..%2F..%2Fetc", "-abc", "%C3%BC", "a%20b", "0123456789ab", "x" * 64]
        )
        suffix = self.rng.choice(["", "/events", "/legal", "/scoreboard", "/timeline", "/verify"])
        reply = self.api.call("GET", f"/games/{gid}{suffix}")
        self.expect("a bad game id", reply, {404})

    def huge_query(self) -> None:
        huge = self.rng.choice(
            ["99999999999999999999999", "2147483648", "-1", "1e3", "%D9%A3", "0x10"]
        )
        gid = self.gid
        path = self.rng.choice(
            [
                f"/games/{gid}/events?after={huge}",
                f"/games/{gid}/events?limit={huge}",
                f"/games/{gid}/state?at={huge}",
                f"/games/{gid}/timeline?limit={huge}",
                f"/games/{gid}/scoreboard?min_version={huge}",
                f"/games/{gid}/stream?timeout={huge}",
                f"/lobby?limit={huge}",
                f"/leaderboard?limit={huge}",
                f"/games?limit={huge}",
            ]
        )
        reply = self.api.call("GET", path)
        self.expect("a huge integer in a query", reply, {422})

    def huge_header(self) -> None:
        huge = "9" * self.rng.randint(11, 400)
        case = self.rng.choice(["if-match", "last-event-id", "key", "key-space"])
        if case == "last-event-id":
            reply = self.api.call(
                "GET", f"/games/{self.gid}/stream?timeout=1", headers={"Last-Event-ID": huge}
            )
            self.expect("a huge Last-Event-ID", reply, {422}, "bad_last_event_id")
            return
        headers = {
            "if-match": {"If-Match": f'"{huge}"'},
            "key": {"Idempotency-Key": "k" * 129},
            "key-space": {"Idempotency-Key": "two words"},
        }[case]
        reply = self.api.call(
            "POST",
            f"/games/{self.gid}/commands",
            self.own_sample(),
            token=self.active,
            headers=headers,
        )
        self.expect(f"a bad {case} header", reply, {422})

    def wrong_token(self) -> None:
        auth = self.rng.choice(
            ["Bearer " + uuid.uuid4().hex, "Basic YTpi", "Bearer", "bearer x", "Bearer  \t", None]
        )
        headers = {"Authorization": auth} if auth is not None else {}
        path, body = self.rng.choice(
            [("/games", {"max_players": 2}), (f"/games/{self.gid}/commands", self.own_sample())]
        )
        reply = self.api.call("POST", path, body, headers=headers)
        if self.expect("a wrong token", reply, {401}) and "www-authenticate" not in reply.headers:
            self.ctx.stats.finding("fuzzer: 401 without WWW-Authenticate", path)

    def bad_options(self) -> None:
        options = self.rng.choice(
            [
                {"max_players": 7},
                {"max_players": 1},
                {"colour": "blue"},
                {"two_colours_each": "maybe"},
            ]
        )
        reply = self.api.call("POST", "/games", options, token=self.stranger)
        self.expect("bad game options", reply, {422})

    def unseated_command(self) -> None:
        rec = self.ctx.registry.pick(self.rng, live=0.9, owner="bot")
        if rec is None or rec.sample is None:
            return
        reply = self.api.call(
            "POST", f"/games/{rec.game_id}/commands", rec.sample, token=self.stranger
        )
        self.expect("a command from an unseated account", reply, {403}, "not_seated")

    def not_your_turn(self) -> None:
        reply = self.api.call(
            "POST", f"/games/{self.gid}/commands", self.own_sample(), token=self.idle
        )
        self.expect("a command out of turn", reply, {403}, "not_your_turn")

    def stale_in_own_game(self) -> None:
        reply = self.api.call(
            "POST",
            f"/games/{self.gid}/commands",
            self.own_sample(),
            token=self.rng.choice([self.active, self.idle]),
            headers={"If-Match": f'"{self.rng.randint(0, 3)}"'},
        )
        self.expect("a stale If-Match", reply, {409}, "stale_version")

    def stale_in_bot_game(self) -> None:
        """A seated player's command with If-Match "1" into a game being played."""
        rec = self.ctx.registry.pick(self.rng, live=1.0, owner="bot")
        if rec is None or rec.sample is None or not rec.started:
            return
        reply = self.api.call(
            "POST",
            f"/games/{rec.game_id}/commands",
            rec.sample,
            token=self.rng.choice(list(rec.tokens.values())),
            headers={"If-Match": '"1"'},
        )
        self.expect("a stale If-Match in a bot's game", reply, {409}, "stale_version")

    def join_started_game(self) -> None:
        reply = self.api.call(
            "POST", f"/games/{self.gid}/seats", {"colour": "green"}, token=self.stranger
        )
        self.expect("a seat at a started game", reply, {409})

    def reused_key_other_body(self) -> None:
        """A bot's Idempotency-Key with another expected version: 422, nothing done."""
        use = self.key_use()
        if use is None:
            return
        headers = {**use.headers, "If-Match": '"1"'}
        body = {k: v for k, v in use.body.items() if k != "expected_version"}
        reply = self.api.call(
            "POST", f"/games/{use.game_id}/commands", body, token=use.token, headers=headers
        )
        self.expect("a reused Idempotency-Key", reply, {422}, "idempotency_key_reused")

    def reused_key_same_body(self) -> None:
        """The same request again, later and maybe on another process: the stored receipt."""
        use = self.key_use()
        if use is None:
            return
        reply = self.api.call(
            "POST", f"/games/{use.game_id}/commands", use.body, token=use.token, headers=use.headers
        )
        if self.expect("a repeated keyed command", reply, {200}) and (
            reply.json["receipt"] != use.receipt or not reply.json.get("replayed")
        ):
            self.ctx.stats.finding(
                "fuzzer: a repeated keyed command did not replay its receipt",
                f"stored {use.receipt}, got {excerpt(reply.raw)}",
            )

    def wrong_method(self) -> None:
        method, path = self.rng.choice(
            [("DELETE", f"/games/{self.gid}"), ("PUT", "/accounts"), ("PATCH", "/games")]
        )
        reply = self.api.call(method, path)
        self.expect("a wrong method", reply, {405})

    def unknown_path(self) -> None:
        reply = self.api.call("GET", self.rng.choice(["/nothing", "/games/x/y/z", "/accounts/me"]))
        self.expect("an unknown path", reply, {404, 405})

    def server_limits(self) -> None:
        """Past gunicorn's own limits: a request line over 4 KiB, a header over 8 KiB."""
        if self.rng.random() < 0.5:
            reply = self.api.call("GET", f"/games/{self.gid}/events?limit={'9' * 5000}", fresh=True)
        else:
            reply = self.api.call("GET", "/me/games", token="x" * 9000, fresh=True)
        self.expect("a request past the server's limits", reply, {400, 414, 431})

    def own_sample(self) -> dict[str, Any]:
        assert self.own is not None and self.own.sample is not None
        return self.own.sample

    def key_use(self) -> KeyUse | None:
        """An Idempotency-Key a bot used, with what it sent."""
        rec = self.ctx.registry.pick(self.rng, live=0.5, owner="bot")
        return self.rng.choice(rec.keys) if rec is not None and rec.keys else None


# --- the stack ------------------------------------------------------------------


@dataclass
class Proc:
    """A service process, started in a process group of its own."""

    role: str
    process: subprocess.Popen[bytes]
    log: Path
    port: int = 0

    @property
    def pid(self) -> int:
        return self.process.pid

    def signal_group(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signum)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Stack:
    """``web`` gunicorn processes (one gevent worker each) and an rq worker,
    on one PostgreSQL schema and one Redis queue, as ``tests/servers.py`` runs them."""

    def __init__(self, database_url: str, redis_url: str, queue: str, tmp: Path, web: int) -> None:
        self.queue = queue
        self.tmp = tmp
        self.web_count = web
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("TONGIAKI_", "DATABASE_", "REDIS_"))
        }
        self.env.update(
            DATABASE_URL=database_url,
            REDIS_URL=redis_url,
            TONGIAKI_QUEUE=queue,
            TONGIAKI_DATA_DIR=str(tmp),
            TONGIAKI_RATE_LIMITS="off",
        )
        self.web: list[Proc] = []
        self.root = Path(__file__).resolve().parents[1]
        self.workers: list[Proc] = []  # every worker started; the last one is alive
        self.failed_starts: list[str] = []  # workers that exited before they listened

    def auditor_token(self) -> str:
        """An auditor account made with the CLI, as an operator would; its token."""
        made = subprocess.run(
            [sys.executable, "-m", "service.cli", "auditor", "create", "soak auditor"],
            cwd=self.root, env=self.env, capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        return made.stdout.split("token: ")[1].strip()

    @property
    def ports(self) -> list[int]:
        return [p.port for p in self.web]

    @property
    def worker(self) -> Proc:
        return self.workers[-1]

    def start(self) -> None:
        for i in range(self.web_count):
            port = free_port()
            args = ["serve", "--workers", "1", "--port", str(port)]
            self.web.append(self.launch(f"web{i}", args, port))
        if self.start_worker() is None:
            raise RuntimeError(f"the worker did not start: {self.failed_starts[-1]}")

    def launch(self, role: str, args: list[str], port: int = 0) -> Proc:
        log = self.tmp / f"{role}.log"
        with log.open("ab") as handle:
            process = subprocess.Popen(
                [sys.executable, "-m", "service.cli", *args],
                cwd=ROOT,
                env=self.env,
                stdout=handle,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: a signal reaches its children too
            )
        proc = Proc(role, process, log, port)
        if port:
            self.wait_serving(proc)
        return proc

    @staticmethod
    def wait_serving(proc: Proc) -> None:
        """Until the gunicorn worker answers (the master listens before it boots)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.process.poll() is not None:
                raise RuntimeError(f"{proc.role} exited:\n{proc.log.read_text(errors='replace')}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", proc.port, timeout=2)
                conn.request("GET", f"{API}/games?limit=1")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{proc.role} did not answer within 60 s")

    def start_worker(self, attempts: int = 1) -> Proc | None:
        """A new ``tongiaki worker``, once it listens (None if it never did): a failed
        start is kept in ``failed_starts`` and tried again, up to ``attempts`` in all."""
        for attempt in range(1, attempts + 1):
            proc = self.launch(f"worker{len(self.workers) + 1}", ["worker"])
            self.workers.append(proc)
            deadline = time.monotonic() + 30
            while b"Listening on" not in proc.log.read_bytes():  # rq's line once it works
                if proc.process.poll() is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            else:
                return proc
            proc.signal_group(signal.SIGKILL)
            proc.process.wait()
            output = " ".join(proc.log.read_text(errors="replace").split())
            self.failed_starts.append(f"{proc.role} (exit {proc.process.returncode}): {output}")
            if attempt < attempts:
                time.sleep(1)
        return None

    def kill_worker(self) -> None:
        """SIGKILL the worker's whole process group."""
        self.worker.signal_group(signal.SIGKILL)
        self.worker.process.wait()

    @property
    def worker_alive(self) -> bool:
        return self.worker.process.poll() is None

    def stop(self) -> None:
        for proc in [*self.workers, *self.web]:
            if proc.process.poll() is None:
                proc.signal_group(signal.SIGTERM)
        for proc in [*self.workers, *self.web]:
            try:
                proc.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.signal_group(signal.SIGKILL)
                proc.process.wait()

    def processes(self) -> list[tuple[str, int]]:
        """(role, pid) of every live service process: masters, their workers, the rq worker."""
        found = []
        for proc in [*self.web, self.worker]:
            if proc.process.poll() is not None:
                continue
            master = "gunicorn master" if proc.port else "rq worker"
            found.append((f"{proc.role} {master}", proc.pid))
            found += [(f"{proc.role}  └ child", child) for child in children(proc.pid)]
        return found

    def tracebacks(self) -> dict[str, int]:
        """Tracebacks each process wrote to its log (its errors, whatever a client saw)."""
        return {
            p.role: p.log.read_text(errors="replace").count("Traceback")
            for p in [*self.web, *self.workers]
        }


def children(pid: int) -> list[int]:
    """Child processes of ``pid`` (Linux: the ppid field of /proc/*/stat)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return sorted(found)


def usage(pid: int) -> tuple[int, int, float] | None:
    """(open file descriptors, VmRSS in KiB, CPU seconds) of a process, None if it is gone."""
    try:
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    rss = next((int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0)
    cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    return fds, rss, cpu


class Figures:
    """Handles, memory and CPU time of every process at named moments."""

    def __init__(self) -> None:
        self.moments: list[str] = []
        self.rows: dict[tuple[str, int], dict[str, tuple[int, int, float]]] = {}

    def take(self, moment: str, stack: Stack) -> None:
        if moment not in self.moments:
            self.moments.append(moment)
        for role, pid in stack.processes():
            seen = usage(pid)
            if seen is not None:  # a moment taken again only adds processes new since
                self.rows.setdefault((role, pid), {}).setdefault(moment, seen)

    def print(self) -> None:
        head = "".join(f"{m:>7}" for m in self.moments)
        print(f"  {'process':<24}{'pid':>8}  fds{head}  RSS MiB{head}  CPU s{head}")
        for (role, pid), seen in self.rows.items():
            line = f"  {role:<24}{pid:>8}     "
            for i, form in enumerate(("{:>7}", "{:>7.1f}", "{:>7.1f}")):
                scale = 1024 if i == 1 else 1  # RSS in MiB
                line += "".join(
                    form.format(seen[m][i] / scale if scale > 1 else seen[m][i])
                    if m in seen
                    else f"{'-':>7}"
                    for m in self.moments
                )
                line += " " * (9 if i == 0 else 7)
            print(line.rstrip())


def clean_redis(url: str, queue: str) -> int:
    """Delete this run's keys: every key naming the queue, and its jobs, workers and
    schedulers (rq hashes whose ``origin`` or ``queues`` is the queue) with their keys."""
    redis = Redis.from_url(url)
    doomed: set[bytes] = set()
    owners: set[str] = set()  # ids of this queue's jobs, workers and schedulers
    for key in redis.scan_iter(count=1000):
        name = key.decode(errors="replace")
        if queue in name:
            doomed.add(key)
        elif name.count(":") >= 2 and name.startswith("rq:") and redis.type(key) == b"hash":
            values = [redis.hget(key, field) for field in ("origin", "queues")]
            if any(isinstance(v, bytes) and queue in v.decode().split(",") for v in values):
                doomed.add(key)
                owners.add(name.split(":")[2])
    for key in redis.scan_iter(match="rq:*", count=1000):
        parts = key.decode(errors="replace").split(":")
        if len(parts) > 2 and parts[2] in owners:
            doomed.add(key)
    redis.srem("rq:queues", f"rq:queue:{queue}")
    workers = [f"rq:worker:{o}" for o in owners]
    if workers:
        redis.srem("rq:workers", *workers)
    keys = sorted(doomed)
    for i in range(0, len(keys), 500):
        redis.delete(*keys[i : i + 500])
    redis.close()
    return len(keys)


# --- after the traffic ----------------------------------------------------------


@dataclass
class GameCheck:
    """One game's events as read back, against what its players were told."""

    game_id: str
    head: int = 0
    events: int = 0
    missing: int = 0  # versions of 1..head not returned
    repeated: int = 0  # versions returned more than once, or outside 1..head
    receipts_missing: int = 0  # an event or receipt a client got a 2xx for, absent or changed
    chain_breaks: int = 0  # prev_hash not the hash of the event before
    applied_twice: int = 0  # a command id whose events come in two separate runs
    problems: list[str] = field(default_factory=list)

    @property
    def lost(self) -> int:
        return self.missing + self.receipts_missing

    @property
    def duplicated(self) -> int:
        return self.repeated + self.applied_twice


def read_events(api: Api, game_id: str, check: GameCheck) -> list[dict[str, Any]]:
    """Every event of a game, a page of 1000 at a time; the head in ``check``."""
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        reply = api.call("GET", f"/games/{game_id}/events?after={after}&limit=1000")
        if reply.status != 200:
            check.problems.append(f"events after {after}: {reply.status} {excerpt(reply.raw)}")
            return events
        check.head = max(check.head, reply.json["head"])
        page = reply.json["events"]
        if not page:
            return events
        events += page
        if reply.json["next_after"] <= after or len(events) > check.head + 1000:
            check.problems.append(f"paging stuck at after={after}")
            return events
        after = reply.json["next_after"]


def check_game(api: Api, rec: GameRec) -> GameCheck:
    check = GameCheck(rec.game_id)
    events = read_events(api, rec.game_id, check)
    check.events = len(events)
    versions = Counter(e["version"] for e in events)
    check.repeated = sum(n - 1 for n in versions.values()) + sum(
        n for v, n in versions.items() if not 1 <= v <= check.head
    )
    check.missing = len(set(range(1, check.head + 1)) - versions.keys())
    if [e["version"] for e in events] != sorted(versions):
        check.problems.append("events out of order")
    check.chain_breaks = sum(b["prev_hash"] != a["hash"] for a, b in itertools.pairwise(events))
    hashes = {e["version"]: e["hash"] for e in events}
    check.receipts_missing = sum(hashes.get(v) != h for v, h in rec.accepted.items())
    runs = [events[0]["metadata"].get("command_id")] if events else []
    for e in events[1:]:
        if e["metadata"].get("command_id") != runs[-1]:
            runs.append(e["metadata"].get("command_id"))
    check.applied_twice = sum(n - 1 for n in Counter(runs).values())
    return check


def catch_up(
    api: Api, games: list[GameRec], since: float, timeout: float
) -> tuple[float, dict[str, int], dict[str, str]]:
    """Poll every game's scoreboard until its version is the game's head.

    The seconds it took from ``since`` (the end of the traffic), every game's head,
    and the games whose scoreboard did not get there (with their last answer).
    """
    heads = {}
    for rec in games:
        reply = api.call("GET", f"/games/{rec.game_id}")
        heads[rec.game_id] = reply.json["version"] if reply.status == 200 else 0
    waiting = {gid: "never asked" for gid in heads}
    while waiting and time.monotonic() - since < timeout:
        for gid in list(waiting):
            reply = api.call("GET", f"/games/{gid}/scoreboard")
            if reply.status == 200 and reply.json["version"] == heads[gid]:
                del waiting[gid]
            else:
                version = reply.json.get("version") if isinstance(reply.json, dict) else None
                waiting[gid] = f"{reply.status} version {version}, head {heads[gid]}"
        if waiting:
            time.sleep(0.5)
    return time.monotonic() - since, heads, waiting


def projections_level(api: Api, timeout: float) -> list[str]:
    """Wait until ``GET /projections`` shows every read model level; what is not, after."""
    deadline = time.monotonic() + timeout
    while True:
        reply = api.call("GET", "/projections")
        left = [
            f"{p['projection']}: {p['behind']} games / {p['events_behind']} events behind,"
            f" {len(p['halted'])} halted {p['halted'][:2]}"
            for p in (reply.json or {}).get("projections", [])
            if p["behind"] or p["events_behind"] or p["halted"]
        ]
        if reply.status == 200 and not left:
            return []
        if time.monotonic() > deadline:
            return left or [f"GET /projections: {reply.status}"]
        time.sleep(0.5)


def verify(api: Api, games: list[GameRec]) -> tuple[Counter[str], list[str]]:
    """``GET /verify`` of every game: counts by (status, outcome) and the failures."""
    counts: Counter[str] = Counter()
    failed = []
    for rec in games:
        reply = api.call("GET", f"/games/{rec.game_id}/verify")
        ok = reply.status == 200 and reply.json.get("ok") is True
        state = "finished" if rec.finished else "unfinished"
        counts[f"{state} {'ok' if ok else 'FAILED'}"] += 1
        if not ok:
            failed.append(f"{rec.game_id} ({state}): {reply.status} {excerpt(reply.raw, 400)}")
    return counts, failed


# --- the run --------------------------------------------------------------------


def run_traffic(
    args: argparse.Namespace, stack: Stack, ctx: Context, figures: Figures
) -> tuple[float, list[str]]:
    """Every client for ``--minutes``; figures after a warm-up and at the end; the
    worker killed at ``KILL_AT``. The seconds of traffic and what happened when."""
    clients: list[Client] = [
        *(Bot(ctx, args.seed * 1000 + i) for i in range(args.bots)),
        *(Sleeper(ctx, args.seed * 1000 + 400 + i) for i in range(args.sleepers)),
        *(Spectator(ctx, args.seed * 1000 + 100 + i) for i in range(args.spectators)),
        *(Fuzzer(ctx, args.seed * 1000 + 200 + i) for i in range(args.fuzzers)),
    ]
    if args.disputers:
        auditor = stack.auditor_token()
        clients += [
            Disputer(ctx, args.seed * 1000 + 300 + i, auditor) for i in range(args.disputers)
        ]
    threads = [
        threading.Thread(target=c.run, name=f"{c.kind}-{i}", daemon=True)
        for i, c in enumerate(clients)
    ]
    duration = args.minutes * 60
    started = time.monotonic()

    def until(second: float) -> None:
        time.sleep(max(0.0, started + second - time.monotonic()))

    notes = []
    cpu, host = time.process_time(), cpu_ticks()
    for t in threads:
        t.start()
    try:
        until(min(15.0, 0.2 * duration))
        figures.take("warm", stack)
        until(KILL_AT * duration)
        notes += replace_worker(stack, figures, started, duration)
        until(duration)
        figures.take("end", stack)
    finally:
        seconds = time.monotonic() - started
        ctx.stats.client_cpu = time.process_time() - cpu
        busy, total = (now - then for now, then in zip(cpu_ticks(), host, strict=True))
        ctx.stats.host_busy = busy / max(total, 1)
        ctx.stop.set()
        for t in threads:
            t.join(timeout=30)
        ctx.stats.ended = time.monotonic()
    return seconds, notes


def replace_worker(stack: Stack, figures: Figures, started: float, duration: float) -> list[str]:
    """SIGKILL the worker's group; start new ones until one works or the traffic ends."""
    old = stack.worker
    stack.kill_worker()
    killed_at = time.monotonic() - started
    notes = [f"{old.role} (pid {old.pid}) killed (SIGKILL to its group) at {killed_at:.1f} s"]
    while (new := stack.start_worker()) is None:
        if time.monotonic() - started > duration - 5:
            notes.append("no new worker would start during the traffic: trying again after it")
            return notes
        time.sleep(2)
    up = time.monotonic() - started
    notes.append(
        f"{new.role} (pid {new.pid}) working at {up:.1f} s: read models without a worker"
        f" for {up - killed_at:.1f} s"
    )
    if up + 10 < duration:
        time.sleep(5)
        figures.take("warm", stack)  # the new worker's, 5 s after it started
    return notes


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of the whole host since boot (/proc/stat)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


def after_traffic(args: argparse.Namespace, stack: Stack, ctx: Context) -> dict[str, Any]:
    """Read everything back: events, read models, verification."""
    api = Api(stack.ports, ctx.stats, "checker", random.Random(args.seed))
    games = ctx.registry.all()
    started = time.monotonic()
    caught_in, heads, lagging = catch_up(api, games, ctx.stats.ended, args.catch_up)
    behind = projections_level(api, 10.0 if not lagging else 1.0)
    checks = [check_game(api, rec) for rec in games]
    for check in checks:
        if check.head != heads[check.game_id]:
            check.problems.append(f"head {check.head}, GET /games said {heads[check.game_id]}")
    verified, failed = verify(api, games)
    api.close()
    return {
        "games": games,
        "checks": checks,
        "caught_in": caught_in,
        "lagging": lagging,
        "behind": behind,
        "verified": verified,
        "failed": failed,
        "seconds": time.monotonic() - started,
    }


def counts(counter: Counter[Any]) -> str:
    return ", ".join(f"{k}: {v:,}" for k, v in sorted(counter.items())) or "none"


def report(
    stats: Stats,
    seconds: float,
    notes: list[str],
    failed_starts: list[str],
    figures: Figures,
    after: dict[str, Any],
) -> list[str]:
    """Print the figures; the reasons to fail (none: a clean run)."""
    checks: list[GameCheck] = after["checks"]
    games: list[GameRec] = after["games"]
    lost = sum(c.lost for c in checks)
    duplicated = sum(c.duplicated for c in checks)
    lat = sorted(stats.latencies) or [0.0]
    print(f"\ntraffic ({seconds:.1f} s)")
    print(
        f"  host              {os.cpu_count()} cores, {stats.host_busy:.0%} busy (everything on"
        f" the host, not only this run); the clients used {stats.client_cpu:.1f} s of CPU"
    )
    print(f"  requests          {stats.total():,} ({stats.total() / seconds:,.0f}/s)")
    print(
        f"  commands          {stats.commands:,} accepted ({stats.commands / seconds:,.1f}/s;"
        f" p50 {statistics.median(lat):.1f} ms, p99 {lat[int(0.99 * (len(lat) - 1))]:.1f} ms);"
        f" {stats.game_commands:,} with creates, seats and starts;"
        f" {stats.replays:,} Idempotency-Key retries replayed"
    )
    print(
        f"  games             {len(games)} created, {sum(g.finished for g in games)} finished;"
        f" {sum(c.events for c in checks):,} events; {stats.timed_finished} timed games"
        " finished by the bot for an absent seat"
    )
    print(f"  by status         {counts(stats.statuses)}")
    for client, by in sorted(stats.by_client.items()):
        print(f"    {client:<15} {counts(by)}")
    print(
        f"  5xx               {stats.server_error_count}"
        f" (besides {stats.lagging:,} × 503 projection_lagging, documented for a read model"
        " behind)"
    )
    for line in stats.server_errors:
        print(f"    {line}")
    print(f"  transport errors  {counts(stats.transport)}")
    print(
        f"  SSE streams       {stats.streams} held, {stats.stream_events:,} events,"
        f" {stats.stream_gaps} skipped or repeated a version"
    )
    for note in notes:
        print(f"  worker            {note}")
    for failure in failed_starts:
        print(f"  worker FAILED TO START: {excerpt(failure.encode(), 400)}")
    print("processes (open file descriptors, VmRSS)")
    figures.print()
    print(f"after the traffic ({after['seconds']:.1f} s)")
    lagging, behind = after["lagging"], after["behind"]
    print(
        f"  read models       {len(checks) - len(lagging)}/{len(checks)} scoreboards at their"
        f" game's head {after['caught_in']:.1f} s after the clients stopped; /projections:"
        f" {'level' if not behind else '; '.join(behind)}"
    )
    for gid, last in list(lagging.items())[:SAMPLES]:
        print(f"    {gid}: {last}")
    print(
        f"  events            lost {lost}, duplicated {duplicated}"
        f" (versions missing {sum(c.missing for c in checks)},"
        f" repeated {sum(c.repeated for c in checks)},"
        f" receipts missing {sum(c.receipts_missing for c in checks)},"
        f" commands applied twice {sum(c.applied_twice for c in checks)},"
        f" hash-chain breaks {sum(c.chain_breaks for c in checks)})"
    )
    for c in [c for c in checks if c.problems or c.lost or c.duplicated][:SAMPLES]:
        print(f"    {c.game_id}: head {c.head}, {c.events} events; {'; '.join(c.problems)}")
    print(f"  verify            {counts(after['verified'])}")
    if stats.rulings:
        print(
            f"  disputes          {counts(stats.rulings)} (each game verified above, disputes too)"
        )
    for line in after["failed"][:SAMPLES]:
        print(f"    {line}")
    if stats.findings:
        print("findings (answers a client did not expect; examples)")
        for kind, n in stats.finding_count.most_common():
            print(f"  {n:>7} × {kind}")
            for example in stats.findings[kind][:3]:
                print(f"            {example}")
    reasons = []
    if lost or duplicated:
        reasons.append(f"{lost} events lost, {duplicated} duplicated")
    if stats.server_error_count:
        reasons.append(f"{stats.server_error_count} answers 5xx")
    if stats.stream_gaps:
        reasons.append(f"{stats.stream_gaps} stream gaps")
    if lagging or behind:
        reasons.append("read models did not catch up")
    if failed_starts:
        reasons.append(f"{len(failed_starts)} worker starts failed")
    if after["failed"]:
        reasons.append(f"{len(after['failed'])} games failed verification")
    if sum(c.chain_breaks for c in checks) or any(c.problems for c in checks):
        reasons.append("events read back with problems")
    return reasons


def soak(args: argparse.Namespace, stack: Stack) -> int:
    stats = Stats()
    ctx = Context(
        stack.ports, stats, Registry(), threading.Event(), threading.BoundedSemaphore(args.streams)
    )
    figures = Figures()
    try:
        seconds, notes = run_traffic(args, stack, ctx, figures)
    finally:
        ctx.stop.set()
    if not stack.worker_alive:
        new = stack.start_worker(attempts=5)
        if new is not None:
            notes.append(f"{new.role} (pid {new.pid}) working after the traffic")
    after = after_traffic(args, stack, ctx)
    figures.take("idle", stack)
    reasons = report(stats, seconds, notes, stack.failed_starts, figures, after)
    tracebacks = stack.tracebacks()
    print(f"  server logs       tracebacks: {counts(Counter(tracebacks))} (logs in {stack.tmp})")
    if sum(tracebacks.values()):  # an error a client never saw is still an error
        reasons.append(f"{sum(tracebacks.values())} tracebacks in the service's logs")
    print(f"result: {'FAIL: ' + '; '.join(reasons) if reasons else 'OK'}")
    return 1 if reasons else 0


def interrupted(signum: int, frame: Any) -> None:
    """The first Ctrl-C (or SIGTERM) stops the run; later ones cannot stop the cleanup."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, required=True, help="of traffic (e.g. 0.5)")
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--web", type=int, default=2, help="gunicorn processes")
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument(
        "--sleepers", type=int, default=2, help="players of timed games whose partner never plays"
    )
    parser.add_argument("--spectators", type=int, default=16)
    parser.add_argument("--streams", type=int, default=16, help="SSE streams held at once")
    parser.add_argument("--fuzzers", type=int, default=2)
    parser.add_argument(
        "--disputers", type=int, default=1, help="players disputing finished games, and an auditor"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--catch-up", type=float, default=120.0, help="seconds the read models get to catch up"
    )
    args = parser.parse_args()
    if args.minutes <= 0 or args.web < 1 or args.streams < 1:
        parser.error("--minutes must be above 0, --web and --streams at least 1")
    return args


def main() -> int:
    args = parse_args()
    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    queue = f"soak-{uuid.uuid4().hex[:8]}"
    tmp = Path(tempfile.mkdtemp(prefix="tongiaki-soak-"))
    code = 1
    try:
        with throwaway_schema(args.url) as url:
            schema = url.rsplit("%3D", 1)[-1]
            stack = Stack(url, args.redis, queue, tmp, args.web)
            print(
                f"soak: {args.minutes:g} min on {args.web} gunicorn processes (1 gevent worker"
                f" each) and 1 rq worker; PostgreSQL schema {schema},"
                f" Redis {args.redis} queue {queue}; {args.bots} bots, {args.spectators}"
                f" spectators (≤ {args.streams} streams at once), {args.fuzzers} fuzzers,"
                f" seed {args.seed}",
                flush=True,
            )
            try:
                stack.start()
                code = soak(args, stack)
            finally:
                stack.stop()
    except KeyboardInterrupt:
        print("interrupted: cleaning up", file=sys.stderr)
        code = 130
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        deleted = clean_redis(args.redis, queue)
        print(f"cleaned up: schema dropped, {deleted} Redis keys of queue {queue} deleted")
        if code == 0:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"service logs kept in {tmp}")
    return code


if __name__ == "__main__":
    sys.exit(main())
