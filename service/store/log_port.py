"""The transparency log's storage, as a port (issue 28): what the append writes, what
the integrator reads and records, what the web serves.

Every commit of a stream (a game's or a dispute's) leaves one pending row in its own
transaction: the stream, its version after the commit, its chain hash there. The
integrator (``service.transparency.integrator``) takes pending rows in the order they
were written, gives each the next index of the log, and records, in one transaction,
the entries, the tiles of hashes that changed and the new signed checkpoint. Nothing
here knows Merkle trees: tiles are bytes (up to 256 hashes of 32 bytes) under their
level and index.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

GAME = "game/"
DISPUTE = "dispute/"


def game_stream(game_id: str) -> str:
    """A game's stream in the log: ``game/<id>``."""
    return GAME + game_id


def dispute_stream(dispute_id: str) -> str:
    """A dispute's stream in the log: ``dispute/<id>``."""
    return DISPUTE + dispute_id


class _Event(Protocol):
    @property
    def version(self) -> int: ...


class _Entry(Protocol):
    @property
    def outcome(self) -> str: ...

    @property
    def last_version(self) -> int | None: ...


def commits(
    events: Sequence[_Event], journal: Sequence[_Entry], logged: Sequence[int] = ()
) -> list[int]:
    """The versions an imported game's commits ended at — as its source's log recorded
    them (``logged``), else as its journal tells them (each accepted command's last
    version) — and its head: what the log records of its history."""
    known = {e.version for e in events}
    ends = set(logged) or {
        j.last_version for j in journal if j.outcome == "accepted" and j.last_version
    }
    return sorted({v for v in ends if v in known} | {events[-1].version})


@dataclass(frozen=True)
class Pending:
    """A commit waiting for its index: written with the commit, in its transaction."""

    seq: int
    stream: str  # game/<id> or dispute/<id>
    version: int
    head: str


@dataclass(frozen=True)
class Logged:
    """An entry of the log: its index, the commit it records, its bytes."""

    index: int
    stream: str
    version: int
    data: bytes


@dataclass(frozen=True)
class LogHead:
    """A checkpoint: the tree's size, the signed note ("" before the first integration)
    and when it was made (POSIX seconds; a cosigned one: when its cosignatures came)."""

    size: int = 0
    note: str = ""
    made_at: float = 0.0


class LogBatch(Protocol):
    """One integration, in one transaction that no other integration runs beside."""

    def head(self) -> LogHead:
        """The checkpoint the log is at."""
        ...

    def pending(self, limit: int) -> list[Pending]:
        """The oldest pending commits, in the order they were written."""
        ...

    def commitments(self, game_ids: Iterable[str]) -> dict[str, str]:
        """Each game's deck commitment (its ``GameCreated``'s)."""
        ...

    def last_versions(self, streams: Iterable[str]) -> dict[str, int]:
        """The last version each of these streams has in the log (streams not in it: absent)."""
        ...

    def tile(self, level: int, index: int) -> bytes:
        """The hashes of a tile as stored (b"" for none)."""
        ...

    def record(
        self,
        entries: Sequence[Logged],
        tiles: Mapping[tuple[int, int], bytes],
        done: Sequence[int],
        head: LogHead,
    ) -> None:
        """Keep the entries and the tiles, drop the pending rows ``done`` (their seqs) and
        move the checkpoint to ``head``: all or nothing, with the transaction."""
        ...


class LogStore(Protocol):
    """The log as the store keeps it."""

    def integrating(self) -> AbstractContextManager[LogBatch | None]:
        """An integration's transaction, or None when another process is integrating now."""
        ...

    def log_head(self) -> LogHead:
        """The newest checkpoint."""
        ...

    def log_tile(self, level: int, index: int) -> bytes:
        """A tile's hashes as stored (b"" for none)."""
        ...

    def log_tiles(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
        """Many tiles' hashes in one read ((level, index) → bytes; absent ones left out)."""
        ...

    def log_entries(self, start: int, count: int) -> list[bytes]:
        """Entries ``start`` … ``start + count - 1`` (fewer where the log ends)."""
        ...

    def log_find(self, stream: str, version: int) -> Logged | None:
        """The entry of a stream's commit, once integrated."""
        ...

    def log_covering(self, stream: str, version: int) -> Logged | None:
        """The stream's first entry at or after ``version``, once integrated."""
        ...

    def log_stream(self, stream: str) -> list[Logged]:
        """A stream's entries, in version order."""
        ...

    def log_pending(self) -> int:
        """How many commits wait for their index."""
        ...

    def cosigned(self, head: LogHead) -> None:
        """Keep a checkpoint with its witnesses' cosignatures (the newest cosigned)."""
        ...

    def log_cosigned(self) -> LogHead | None:
        """The newest checkpoint cosigned by witnesses, if any."""
        ...
