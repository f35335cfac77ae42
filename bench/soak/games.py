"""The games the clients made, as their players saw them, and what every client
thread shares."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from typing import Any

from bench.soak.stats import Stats


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
    promised: dict[int, str] = field(default_factory=dict)  # version → the log's promise
    keys: list[KeyUse] = field(default_factory=list)
    sample: dict[str, Any] | None = None  # a command its player sent

    def record(self, answer: dict[str, Any]) -> None:
        """Keep every event and the receipt of an accepted command's answer."""
        for event in answer.get("events", []):
            self.accepted[event["version"]] = event["hash"]
        receipt = answer["receipt"]
        self.accepted[receipt["version"]] = receipt["hash"]
        if "promise" in receipt:
            self.promised[receipt["version"]] = receipt["promise"]
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
