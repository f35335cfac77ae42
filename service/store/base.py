"""The event store port: what command handling needs from persistence.

Adapters (``sqlite.py``, ``postgres.py``) name their technology and pass one
contract suite (``tests/contracts``). Library errors are translated here into a
small vocabulary: ``ConcurrencyConflict``, ``StoreUnavailable`` (retry later),
``InvalidData`` (a value the database cannot hold) and ``StoreError``.

Each game is a stream of events numbered 1, 2, … (primary key ``(game_id,
version)``). Stored bytes are canonical JSON and never rewritten. Every event
carries ``hash = sha256(prev_hash ‖ data ‖ metadata)`` (hex, with newline
separators; the first event's ``prev_hash`` is 64 zeros), a per-game chain.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from projections.ports import Database, History
from service.store.account_port import DELETED as DELETED
from service.store.account_port import DELETING as DELETING
from service.store.account_port import NAMED_ONLY as NAMED_ONLY
from service.store.account_port import Account as Account
from service.store.account_port import Accounts

if TYPE_CHECKING:
    from service.store.log_port import LogStore

GENESIS = "0" * 64


class StoreError(Exception):
    """Persistence failed for a reason that is not the client's."""


class StoreUnavailable(StoreError):
    """The database cannot be reached or is too busy now: retry later (HTTP 503)."""


class InvalidData(StoreError):
    """The database refused a value (a NUL in text, an integer out of range): bad input."""


class ConcurrencyConflict(StoreError):
    """The stream moved on: the expected version is stale (HTTP 409)."""

    def __init__(self, game_id: str, expected: int, actual: int) -> None:
        super().__init__(f"game {game_id} is at version {actual}, not {expected}")
        self.game_id = game_id
        self.expected = expected
        self.actual = actual


class AccountGone(StoreError):
    """The account an append seats is no longer a player's (deleted, or being deleted):
    nothing was written (docs/profiles.md, P6)."""

    def __init__(self, account_id: str) -> None:
        super().__init__(f"account {account_id} is deleted")
        self.account_id = account_id


def no_nul(*values: str) -> None:
    """Refuse text PostgreSQL cannot hold (a NUL), on every adapter alike: the same
    request is the same error (422) whichever store serves it."""
    if any("\x00" in v for v in values):
        raise InvalidData("text holds a NUL character")


def canonical(value: Any) -> str:
    """Canonical JSON text: sorted keys, no spaces, UTF-8, no floats."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(prev_hash: str, data: str, metadata: str) -> str:
    """The hash of one event in its game's chain."""
    raw = "\n".join((prev_hash, data, metadata)).encode("utf-8")
    return hashlib.sha256(raw).hexdigest()


@dataclass(frozen=True)
class NewEvent:
    """An event to append: its type, body and metadata (already JSON-safe)."""

    type: str
    data: dict[str, Any]
    metadata: dict[str, Any]


@dataclass(frozen=True)
class StoredEvent:
    """An event as recorded: canonical text, chain hash and version."""

    game_id: str
    version: int
    type: str
    data: str
    metadata: str
    prev_hash: str
    hash: str

    def body(self) -> dict[str, Any]:
        """The event as a dict (``{"type": …, fields…}``)."""
        return {"type": self.type, **json.loads(self.data)}

    def meta(self) -> dict[str, Any]:
        """The metadata as a dict (a copy of its one parse: a catch-up's read models each
        ask it of every event)."""
        parsed: dict[str, Any] | None = self.__dict__.get("_meta")
        if parsed is None:
            parsed = json.loads(self.metadata)
            object.__setattr__(self, "_meta", parsed)  # not a field: eq and hash ignore it
        return dict(parsed)


@dataclass(frozen=True)
class CommandRecord:
    """A command as received, for the journal."""

    game_id: str
    command_id: str
    actor: dict[str, Any]
    received_at: str
    payload: dict[str, Any]
    expected_version: int | None
    # sha256 of the request a client's Idempotency-Key stands for (None without a key)
    fingerprint: str | None = None


@dataclass(frozen=True)
class JournalEntry:
    """A command and what became of it: accepted (event versions) or rejected (why)."""

    game_id: str
    command_id: str
    actor: dict[str, Any]
    received_at: str
    payload: dict[str, Any]
    judged_version: int
    outcome: str  # "accepted" | "rejected"
    first_version: int | None = None
    last_version: int | None = None
    rejection: dict[str, Any] | None = None
    seq: int = 0
    fingerprint: str | None = None

    @classmethod
    def accepted(
        cls, record: CommandRecord, judged_version: int, events: Sequence[StoredEvent], seq: int = 0
    ) -> JournalEntry:
        """The entry of a command whose ``events`` follow ``judged_version``."""
        return cls(
            record.game_id,
            record.command_id,
            record.actor,
            record.received_at,
            record.payload,
            judged_version,
            "accepted",
            events[0].version,
            events[-1].version,
            seq=seq,
            fingerprint=record.fingerprint,
        )

    @classmethod
    def rejected(
        cls, record: CommandRecord, judged_version: int, rejection: dict[str, Any]
    ) -> JournalEntry:
        """The entry of a command refused at ``judged_version``, and why."""
        return cls(
            record.game_id,
            record.command_id,
            record.actor,
            record.received_at,
            record.payload,
            judged_version,
            "rejected",
            rejection=rejection,
            fingerprint=record.fingerprint,
        )


@dataclass(frozen=True)
class Appended:
    """The result of an append: the stored events and the receipt, or a replay of one."""

    events: tuple[StoredEvent, ...]
    version: int
    hash: str
    duplicate: bool = False
    entry: JournalEntry | None = None


@dataclass(frozen=True)
class Snapshot:
    """A cached fold of a game up to ``version`` (safe to delete)."""

    game_id: str
    version: int
    fold_version: str
    state: str


@dataclass(frozen=True)
class GameRow:
    """The store's index of games: head version and hash, status."""

    game_id: str
    version: int
    hash: str
    status: str
    created_at: str
    updated_at: str
    extra: dict[str, Any] = field(default_factory=dict)


def chain_events(
    game_id: str, start_version: int, prev_hash: str, events: Sequence[NewEvent]
) -> list[StoredEvent]:
    """Number and hash new events after ``start_version`` / ``prev_hash``."""
    stored = []
    for offset, e in enumerate(events, start=1):
        data = canonical(e.data)
        metadata = canonical(e.metadata)
        h = chain_hash(prev_hash, data, metadata)
        stored.append(
            StoredEvent(game_id, start_version + offset, e.type, data, metadata, prev_hash, h)
        )
        prev_hash = h
    return stored


@dataclass(frozen=True)
class DisputeAppend:
    """Events to append to a dispute's stream in the same transaction as a game's (a
    ruling and what it does to the game: both or neither)."""

    dispute_id: str
    expected_version: int
    events: Sequence[NewEvent]
    status: str
    at: str


@dataclass(frozen=True)
class DisputeRow:
    """The store's index of disputes: head version and hash, status, who and why."""

    dispute_id: str
    game_id: str
    version: int
    hash: str
    status: str
    opened_by: str
    reason: str
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class ChainReport:
    """Result of checking a game's hash chain."""

    ok: bool
    events: int
    problems: tuple[str, ...]


def check_chain(events: Sequence[StoredEvent]) -> ChainReport:
    """Recompute every hash and link of a game's stored events."""
    problems = []
    prev = GENESIS
    for expected_version, e in enumerate(events, start=1):
        if e.version != expected_version:
            problems.append(f"version {e.version} where {expected_version} was expected")
        if e.prev_hash != prev:
            problems.append(f"event {e.version}: prev_hash does not link to event {e.version - 1}")
        if chain_hash(e.prev_hash, e.data, e.metadata) != e.hash:
            problems.append(f"event {e.version}: hash does not match its bytes")
        prev = e.hash
    return ChainReport(not problems, len(events), tuple(problems))


class Streams(Protocol):
    """Append-only event streams per game, with the journal of every command received."""

    def append(
        self,
        record: CommandRecord,
        expected_version: int,
        events: Sequence[NewEvent],
        status: str,
        prev_hash: str | None = None,
        dispute: DisputeAppend | None = None,
        seating: str | None = None,
    ) -> Appended:
        """Append one command's events in one transaction, journal it, update the index.

        Raises ``ConcurrencyConflict`` if the stream is not at ``expected_version``
        (or its head hash is not ``prev_hash``, when the caller knows it). A command
        id already journalled returns its stored outcome, appending nothing.
        ``dispute``: a ruling appended in the same transaction; if its stream is not at
        its expected version, ``ConcurrencyConflict`` naming the dispute and nothing is
        written.
        """
        ...

    def reject(
        self, record: CommandRecord, judged_version: int, rejection: dict[str, Any]
    ) -> JournalEntry:
        """Journal a rejected command (or return the outcome already stored for its id)."""
        ...

    def import_stream(
        self,
        events: Sequence[StoredEvent],
        status: str,
        at: str,
        journal: Sequence[JournalEntry] = (),
        seed: bytes | None = None,
        accounts: Sequence[Account] = (),
        logged: Sequence[int] = (),
    ) -> None:
        """Store an exported game as it is, with its journal, seed and seats' accounts, in
        one transaction (``ConcurrencyConflict`` if the game is already here); its history
        logged commit by commit (``logged``: the versions its source's log recorded, else
        those its journal tells)."""
        ...

    def outcome(self, game_id: str, command_id: str) -> JournalEntry | None:
        """The journalled outcome of a command id, if any."""
        ...

    def durable(self) -> None:
        """Return once everything committed before is as durable as a new commit would be
        (on PostgreSQL: on the synchronous standby too), or raise ``StoreUnavailable``.
        A retry's stored answer is given only after it (docs/replication.md)."""
        ...

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events with version > ``after``, in order, at most ``limit``."""
        ...

    def head(self, game_id: str) -> GameRow | None:
        """The game's index row (head version and hash), or None if unknown."""
        ...

    def versions(self, game_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        """Head version and status of each of ``game_ids`` that exists (the change feed)."""
        ...

    def games(
        self, status: str | None = None, limit: int = 100, offset: int = 0, listed: bool = False
    ) -> list[GameRow]:
        """Games, most recently updated first, optionally of one status, from ``offset``;
        ``listed``: only those a listing shows, not private tables (docs/invitations.md,
        I1: the ``private_tables`` rows service/invitations keeps in the store's database)."""
        ...

    def journal(self, game_id: str, after: int = 0, limit: int | None = None) -> list[JournalEntry]:
        """Commands received for the game, in arrival order: ``seq > after``, at most ``limit``."""
        ...


class Secrets(Protocol):
    """Deck seeds, kept apart from the events until the reveal (design.md, Fair draws)."""

    def put_secret(self, game_id: str, seed: bytes) -> bytes:
        """Keep a game's deck seed (never in an event until the reveal); the seed kept,
        which is an earlier one if this game already had one."""
        ...

    def get_secret(self, game_id: str) -> bytes | None:
        """A game's deck seed."""
        ...


class Snapshots(Protocol):
    """Folds kept as a cache, keyed by the fold version: always safe to delete."""

    def put_snapshot(self, snapshot: Snapshot) -> None:
        """Cache a fold (replacing an older one for the same game and fold version)."""
        ...

    def get_snapshot(
        self, game_id: str, fold_version: str, at_most: int | None = None
    ) -> Snapshot | None:
        """The newest snapshot at or below ``at_most`` for this fold version."""
        ...


class Disputes(Protocol):
    """Dispute streams (domain/disputes.py): numbered and hash-chained like a game's,
    kept apart from the games so that filing one never moves a game's version."""

    def append_dispute(
        self,
        dispute_id: str,
        game_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        status: str,
        at: str,
        opened_by: str = "",
        reason: str = "",
    ) -> list[StoredEvent]:
        """Append to a dispute's stream in one transaction and update its index row
        (``expected_version`` 0 opens it). ``ConcurrencyConflict`` if the stream is not
        at ``expected_version``."""
        ...

    def dispute_events(self, dispute_id: str) -> list[StoredEvent]:
        """A dispute's events in order (empty if unknown)."""
        ...

    def dispute(self, dispute_id: str) -> DisputeRow | None:
        """A dispute's index row."""
        ...

    def disputes(
        self,
        game_id: str | None = None,
        status: str | None = None,
        limit: int = 100,
        offset: int = 0,
        opened_by: str | None = None,
    ) -> list[DisputeRow]:
        """Disputes, oldest first, of one game and/or one status (and/or one opener)."""
        ...

    def dispute_counts(self, game_ids: Iterable[str]) -> dict[str, dict[str, int]]:
        """For each of these games that has disputes: how many, by status."""
        ...


class EventStore(Streams, Secrets, Snapshots, Accounts, Disputes, Protocol):
    """The whole port, as one adapter (SQLite, PostgreSQL, memory) provides it.

    Split by concern: each part of the service asks for the part it uses."""

    def upgrade(self) -> int:
        """Create or migrate the schema (idempotent); the schema version."""
        ...

    @property
    def log(self) -> LogStore:
        """The transparency log: every commit of every stream, pending then indexed."""
        ...

    @property
    def closed(self) -> bool:
        """Whether ``close`` was called (background work of a closed store stops)."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


class SqlStore(EventStore, Database, History, Protocol):
    """An event store whose database also holds the read models (SQLite, PostgreSQL):
    the read side (``projections.store``) is given it as its database and history."""

    @property
    def accounts_in_database(self) -> bool:
        """Whether the ``accounts`` table is in this database (a query may join it): not
        for the in-memory store, whose accounts are in memory beside its events."""
        ...
