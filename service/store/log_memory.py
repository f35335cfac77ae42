"""The transparency log in this process's memory (``LogStore``), for the in-memory store:
pending commits added under the store's lock, with the commit; an integration holds the
same lock, so it sees whole commits only and nothing moves while it records."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from service.store.log_port import Logged, LogHead, Pending


class MemoryLogBatch:
    """An integration under the store's lock (``LogBatch``)."""

    def __init__(self, log: MemoryLog) -> None:
        self.log = log

    def head(self) -> LogHead:
        """The checkpoint the log is at."""
        return self.log.head

    def pending(self, limit: int) -> list[Pending]:
        """The oldest pending commits, in order."""
        return self.log.waiting[:limit]

    def commitments(self, game_ids: Iterable[str]) -> dict[str, str]:
        """Each game's deck commitment, from its first event."""
        found = {}
        for game_id in game_ids:
            first = self.log.first_event(game_id)
            if first is not None:
                found[game_id] = str(json.loads(first).get("deck_commitment", ""))
        return found

    def last_versions(self, streams: Iterable[str]) -> dict[str, int]:
        """The last version each of these streams has in the log."""
        return {s: self.log.last[s] for s in streams if s in self.log.last}

    def tile(self, level: int, index: int) -> bytes:
        """A tile's hashes as kept."""
        return self.log.tiles.get((level, index), b"")

    def record(
        self,
        entries: Sequence[Logged],
        tiles: Mapping[tuple[int, int], bytes],
        done: Sequence[int],
        head: LogHead,
    ) -> None:
        """Entries, tiles, pending dropped, the checkpoint (all checked before any change)."""
        log = self.log
        for e in entries:
            if e.index in log.entries or (e.stream, e.version) in log.by_stream:
                raise ValueError(f"entry {e.index} ({e.stream} v{e.version}) is logged already")
        for e in entries:
            log.entries[e.index] = e
            log.by_stream[(e.stream, e.version)] = e
            log.last[e.stream] = max(log.last.get(e.stream, 0), e.version)
        log.tiles.update(tiles)
        gone = set(done)
        log.waiting = [p for p in log.waiting if p.seq not in gone]
        log.head = head


class MemoryLog:
    """Pending commits, entries, tiles and the checkpoint in dicts, under the store's lock."""

    def __init__(self, lock: threading.RLock, first_event: Callable[[str], str | None]) -> None:
        self.lock = lock
        self.first_event = first_event  # a game's first event's data (its GameCreated)
        self.seq = 0
        self.waiting: list[Pending] = []
        self.entries: dict[int, Logged] = {}
        self.by_stream: dict[tuple[str, int], Logged] = {}
        self.last: dict[str, int] = {}
        self.tiles: dict[tuple[int, int], bytes] = {}
        self.head = LogHead()
        self.witnessed: LogHead | None = None

    def add(self, stream: str, version: int, head: str) -> None:
        """A commit waits for its index (the caller holds the store's lock)."""
        self.seq += 1
        self.waiting.append(Pending(self.seq, stream, version, head))

    @contextmanager
    def integrating(self) -> Iterator[MemoryLogBatch]:
        """An integration, under the store's lock."""
        with self.lock:
            yield MemoryLogBatch(self)

    def log_head(self) -> LogHead:
        """The newest checkpoint."""
        with self.lock:
            return self.head

    def log_tile(self, level: int, index: int) -> bytes:
        """A tile's hashes as kept."""
        with self.lock:
            return self.tiles.get((level, index), b"")

    def log_tiles(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
        """Many tiles' hashes at once."""
        with self.lock:
            return {k: self.tiles[k] for k in keys if k in self.tiles}

    def log_entries(self, start: int, count: int) -> list[bytes]:
        """Entries from ``start``, at most ``count``."""
        with self.lock:
            out = []
            for index in range(start, start + count):
                found = self.entries.get(index)
                if found is None:
                    break
                out.append(found.data)
            return out

    def log_find(self, stream: str, version: int) -> Logged | None:
        """The entry of a stream's commit, once integrated."""
        with self.lock:
            return self.by_stream.get((stream, version))

    def log_covering(self, stream: str, version: int) -> Logged | None:
        """The stream's first entry at or after ``version``, once integrated."""
        with self.lock:
            found = [e for (s, v), e in self.by_stream.items() if s == stream and v >= version]
            return min(found, key=lambda e: e.version, default=None)

    def log_stream(self, stream: str) -> list[Logged]:
        """A stream's entries, in version order."""
        with self.lock:
            found = [e for (s, _), e in self.by_stream.items() if s == stream]
            return sorted(found, key=lambda e: e.version)

    def log_pending(self) -> int:
        """How many commits wait for their index."""
        with self.lock:
            return len(self.waiting)

    def cosigned(self, head: LogHead) -> None:
        """Keep a checkpoint with its witnesses' cosignatures (the newest cosigned)."""
        with self.lock:
            if self.witnessed is None or self.witnessed.size <= head.size:
                self.witnessed = head

    def log_cosigned(self) -> LogHead | None:
        """The newest checkpoint cosigned by witnesses, if any."""
        with self.lock:
            return self.witnessed
