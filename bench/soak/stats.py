"""Counting: everything the soak's clients saw, shared by their threads."""

from __future__ import annotations

import threading
from collections import Counter, defaultdict

from bench.client import PROBLEM, Reply

SAMPLES = 5  # examples kept per kind of finding


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
        self.keepers = 0  # sign-in, token, revocation cycles checked on every process (Keeper)
        self.offers: Counter[str] = Counter()  # takebacks and ends, by outcome (Negotiator)
        self.tables: Counter[str] = Counter()  # leagues played out, rematches (Leaguer)

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
