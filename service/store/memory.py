"""Event store in this process's memory: the same contract as SQLite and PostgreSQL.

For tests and tools that want a real store without a file or a server. One lock
serialises every write (an append is atomic: journal, events and index together,
or nothing); reads return the stored values, which are immutable (frozen
dataclasses and bytes), so nothing outside can rewrite history. Nothing
survives the process.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from service.store.base import (
    DELETED,
    GENESIS,
    NAMED_ONLY,
    Account,
    AccountGone,
    Appended,
    CommandRecord,
    ConcurrencyConflict,
    DisputeAppend,
    DisputeRow,
    GameRow,
    InvalidData,
    JournalEntry,
    NewEvent,
    Snapshot,
    StoredEvent,
    chain_events,
    no_nul,
)
from service.store.log_memory import MemoryLog
from service.store.log_port import commits, dispute_stream, game_stream
from service.store.schema import SCHEMA_VERSION


class MemoryEventStore:
    """All games, journals, secrets, snapshots and accounts, in dicts under one lock."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._events: dict[str, list[StoredEvent]] = {}
        self._games: dict[str, GameRow] = {}
        self._journal: dict[str, list[JournalEntry]] = {}
        self._seq = 0
        self._secrets: dict[str, bytes] = {}
        self._snapshots: dict[tuple[str, str, int], Snapshot] = {}
        self._accounts: dict[str, Account] = {}
        self._disputes: dict[str, DisputeRow] = {}
        self._dispute_events: dict[str, list[StoredEvent]] = {}
        self._closed = False
        self.log = MemoryLog(self._lock, self._first_event)

    def _first_event(self, game_id: str) -> str | None:
        events = self._events.get(game_id)
        return events[0].data if events else None

    def upgrade(self) -> int:
        """Nothing to create; the schema version the SQL adapters are at."""
        return SCHEMA_VERSION

    # --- streams and journal ------------------------------------------------------

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
        """Append one command's events atomically (see ``EventStore.append``)."""
        if not events:
            raise ValueError("an append holds at least one event")
        no_nul(record.game_id, record.command_id)
        with self._lock:
            head = self._games.get(record.game_id)
            version = head.version if head else 0
            head_hash = head.hash if head else GENESIS
            found = self._find(record.game_id, record.command_id)
            if version != expected_version or (prev_hash is not None and prev_hash != head_hash):
                if found is not None:  # a retry of a command that was already applied
                    return self._duplicate(found)
                raise ConcurrencyConflict(record.game_id, expected_version, version)
            if found is not None:  # the id was journalled before (e.g. rejected)
                return self._duplicate(found)
            if seating is not None:
                account = self._accounts.get(seating)
                if account is None or account.kind != "player":
                    raise AccountGone(seating)
            if dispute is not None:  # checked before anything is written: both or neither
                row = self._disputes.get(dispute.dispute_id)
                if row is None or row.version != dispute.expected_version:
                    raise ConcurrencyConflict(
                        dispute.dispute_id, dispute.expected_version, row.version if row else 0
                    )
            stored = chain_events(record.game_id, version, head_hash, events)
            last = stored[-1]
            entry = self._add_entry(JournalEntry.accepted(record, version, stored))
            self._events.setdefault(record.game_id, []).extend(stored)
            created = head.created_at if head else record.received_at
            self._games[record.game_id] = GameRow(
                record.game_id, last.version, last.hash, status, created, record.received_at
            )
            self.log.add(game_stream(record.game_id), last.version, last.hash)
            if dispute is not None:
                self.append_dispute(
                    dispute.dispute_id,
                    record.game_id,
                    dispute.expected_version,
                    dispute.events,
                    status=dispute.status,
                    at=dispute.at,
                )
        return Appended(tuple(stored), last.version, last.hash, entry=entry)

    def reject(
        self, record: CommandRecord, judged_version: int, rejection: dict[str, Any]
    ) -> JournalEntry:
        """Journal a rejected command, or return the outcome stored for its id."""
        no_nul(record.game_id, record.command_id)
        with self._lock:
            found = self._find(record.game_id, record.command_id)
            if found is not None:
                return found
            return self._add_entry(JournalEntry.rejected(record, judged_version, rejection))

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
        """Store an exported game as it is, in one step (``ConcurrencyConflict`` if the
        game is already here)."""
        game_id = events[0].game_id
        with self._lock:
            if game_id in self._games:
                raise ConcurrencyConflict(game_id, 0, self._games[game_id].version)
            ids = [e.command_id for e in journal]
            if len(set(ids)) != len(ids):
                raise ConcurrencyConflict(game_id, 0, -1)
            self._events[game_id] = list(events)
            for entry in journal:
                self._add_entry(replace(entry, game_id=game_id))
            if seed is not None:
                self._secrets.setdefault(game_id, seed)
            for a in accounts:
                known = self._accounts.get(a.account_id)
                if known is None or (known.kind == NAMED_ONLY and a.kind != NAMED_ONLY):
                    self._accounts[a.account_id] = a
            head = events[-1]
            self._games[game_id] = GameRow(game_id, head.version, head.hash, status, at, at)
            hashes = {e.version: e.hash for e in events}
            for version in commits(events, journal, logged):
                self.log.add(game_stream(game_id), version, hashes[version])

    def _find(self, game_id: str, command_id: str) -> JournalEntry | None:
        for entry in self._journal.get(game_id, ()):
            if entry.command_id == command_id:
                return entry
        return None

    def _add_entry(self, entry: JournalEntry) -> JournalEntry:
        self._seq += 1
        stored = replace(entry, seq=self._seq)
        self._journal.setdefault(entry.game_id, []).append(stored)
        return stored

    def _duplicate(self, found: JournalEntry) -> Appended:
        events: tuple[StoredEvent, ...] = ()
        if found.outcome == "accepted" and found.first_version is not None:
            first, last = found.first_version, found.last_version or found.first_version
            events = tuple(self._events[found.game_id][first - 1 : last])
        tail = events[-1] if events else None
        return Appended(
            events,
            tail.version if tail else found.judged_version,
            tail.hash if tail else "",
            duplicate=True,
            entry=found,
        )

    def durable(self) -> None:
        """Nothing here outlives the process: nothing to wait for."""

    def outcome(self, game_id: str, command_id: str) -> JournalEntry | None:
        """The journalled outcome of a command id, if any."""
        with self._lock:
            return self._find(game_id, command_id)

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events with version > ``after``, in order, at most ``limit``."""
        with self._lock:
            stream = self._events.get(game_id, [])
            chosen = stream[after:] if after >= 0 else stream
        return chosen if limit is None else chosen[:limit]

    def head(self, game_id: str) -> GameRow | None:
        """The game's index row, or None."""
        with self._lock:
            return self._games.get(game_id)

    def versions(self, game_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        """Head version and status of each of ``game_ids`` that exists."""
        with self._lock:
            return {
                g: (row.version, row.status)
                for g in game_ids
                if (row := self._games.get(g)) is not None
            }

    def games(
        self, status: str | None = None, limit: int = 100, offset: int = 0, listed: bool = False
    ) -> list[GameRow]:
        """Games, most recently updated first, optionally of one status, from ``offset``;
        ``listed``: only those a listing shows, not private tables (docs/invitations.md,
        I1: the ``private_tables`` rows service/invitations keeps in the store's database)."""
        hidden = self.private_tables() if listed else set()
        with self._lock:
            rows = [
                g
                for g in self._games.values()
                if (status is None or g.status == status) and g.game_id not in hidden
            ]
        rows.sort(key=lambda g: g.game_id)
        rows.sort(key=lambda g: g.updated_at, reverse=True)
        return rows[offset : offset + limit]

    def private_tables(self) -> set[str]:
        """The ids of the private tables (none here: the service's tables live in an SQL
        database, which ``InMemoryStore`` adds)."""
        return set()

    def journal(self, game_id: str, after: int = 0, limit: int | None = None) -> list[JournalEntry]:
        """Commands received for the game, in arrival order: ``seq > after``, at most ``limit``."""
        with self._lock:
            entries = [e for e in self._journal.get(game_id, ()) if (e.seq or 0) > after]
        return entries if limit is None else entries[:limit]

    # --- secrets and snapshots ------------------------------------------------------

    def put_secret(self, game_id: str, seed: bytes) -> bytes:
        """Keep a game's deck seed; the seed kept (an earlier one for this game stays)."""
        with self._lock:
            return self._secrets.setdefault(game_id, bytes(seed))

    def get_secret(self, game_id: str) -> bytes | None:
        """A game's deck seed, or None."""
        with self._lock:
            return self._secrets.get(game_id)

    def put_snapshot(self, snapshot: Snapshot) -> None:
        """Cache a fold; an existing snapshot at the same version is kept."""
        key = (snapshot.game_id, snapshot.fold_version, snapshot.version)
        with self._lock:
            self._snapshots.setdefault(key, snapshot)

    def get_snapshot(
        self, game_id: str, fold_version: str, at_most: int | None = None
    ) -> Snapshot | None:
        """The newest snapshot of this fold version at or below ``at_most``."""
        with self._lock:
            found = [
                s
                for (g, f, v), s in self._snapshots.items()
                if g == game_id and f == fold_version and (at_most is None or v <= at_most)
            ]
        return max(found, key=lambda s: s.version) if found else None

    # --- disputes -------------------------------------------------------------------

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
        """Append to a dispute's stream (see ``Disputes.append_dispute``)."""
        if not events:
            raise ValueError("an append holds at least one event")
        no_nul(dispute_id, game_id)
        with self._lock:
            row = self._disputes.get(dispute_id)
            version = row.version if row else 0
            if version != expected_version or (expected_version == 0 and row is not None):
                raise ConcurrencyConflict(dispute_id, expected_version, version if row else -1)
            stored = chain_events(dispute_id, version, row.hash if row else GENESIS, events)
            if row is None:
                row = DisputeRow(dispute_id, game_id, 0, GENESIS, status, opened_by, reason, at, at)
            self._dispute_events.setdefault(dispute_id, []).extend(stored)
            self._disputes[dispute_id] = replace(
                row, version=stored[-1].version, hash=stored[-1].hash, status=status, updated_at=at
            )
            self.log.add(dispute_stream(dispute_id), stored[-1].version, stored[-1].hash)
        return stored

    def dispute_events(self, dispute_id: str) -> list[StoredEvent]:
        """A dispute's events in order (empty if unknown)."""
        with self._lock:
            return list(self._dispute_events.get(dispute_id, ()))

    def dispute(self, dispute_id: str) -> DisputeRow | None:
        """A dispute's index row."""
        with self._lock:
            return self._disputes.get(dispute_id)

    def disputes(
        self,
        game_id: str | None = None,
        status: str | None = None,
        limit: int = 100,
        offset: int = 0,
        opened_by: str | None = None,
    ) -> list[DisputeRow]:
        """Disputes, oldest first, of one game and/or one status (and/or one opener)."""
        with self._lock:
            rows = [
                r
                for r in self._disputes.values()
                if (game_id is None or r.game_id == game_id)
                and (status is None or r.status == status)
                and (opened_by is None or r.opened_by == opened_by)
            ]
        rows.sort(key=lambda r: (r.created_at, r.dispute_id))
        return rows[offset : offset + limit]

    def dispute_counts(self, game_ids: Iterable[str]) -> dict[str, dict[str, int]]:
        """For each of these games that has disputes: how many, by status."""
        wanted = set(game_ids)
        counts: dict[str, dict[str, int]] = {}
        with self._lock:
            for r in self._disputes.values():
                if r.game_id in wanted:
                    by = counts.setdefault(r.game_id, {})
                    by[r.status] = by.get(r.status, 0) + 1
        return counts

    # --- accounts -------------------------------------------------------------------

    def add_account(self, account: Account) -> None:
        """Record an account (its token only as a hash)."""
        with self._lock:
            taken = any(a.token_hash == account.token_hash for a in self._accounts.values())
            if account.account_id in self._accounts or taken:
                raise InvalidData("an account with this id or token exists")
            self._accounts[account.account_id] = account

    def account_by_token_hash(self, token_hash: str) -> Account | None:
        """The account whose token hashes to ``token_hash``."""
        with self._lock:
            return next((a for a in self._accounts.values() if a.token_hash == token_hash), None)

    def account(self, account_id: str) -> Account | None:
        """The account with this id."""
        with self._lock:
            return self._accounts.get(account_id)

    def account_names(self, account_ids: Iterable[str]) -> dict[str, str]:
        """The names of these accounts."""
        with self._lock:
            return {i: self._accounts[i].name for i in set(account_ids) if i in self._accounts}

    def accounts_named(self, text: str, limit: int) -> list[str]:
        """Players' accounts whose name holds ``text`` (any case): at most ``limit`` ids."""
        with self._lock:
            found = [
                a.account_id
                for a in self._accounts.values()
                if a.kind == "player" and text.lower() in a.name.lower()
            ]
        return sorted(found)[:limit]

    def players_with_name(self, name: str, limit: int) -> list[str]:
        """Players' accounts named ``name`` in any case, the exact ones first."""
        with self._lock:
            found = [
                (a.name != name, a.account_id)
                for a in self._accounts.values()
                if a.kind == "player" and a.name.lower() == name.lower()
            ]
        return [account_id for _, account_id in sorted(found)[:limit]]

    def rename_account(self, account_id: str, expected: str, name: str) -> bool:
        """Set the name if it is still ``expected`` (of two renames at once, one wins)."""
        with self._lock:
            found = self._accounts.get(account_id)
            if found is None or found.name != expected or found.kind != "player":
                return False
            self._accounts[account_id] = replace(found, name=name)
            return True

    def change_kind(self, account_id: str, name: str, expected: str, kind: str) -> bool:
        """Set the kind if the account is still named ``name`` with kind ``expected``."""
        with self._lock:
            found = self._accounts.get(account_id)
            if found is None or found.name != name or found.kind != expected:
                return False
            self._accounts[account_id] = replace(found, kind=kind)
            return True

    def forget_account(self, account_id: str, name: str) -> None:
        """The account deleted itself: an anonymous name, no kind to act as, no token."""
        with self._lock:
            found = self._accounts.get(account_id)
            if found is not None:
                self._accounts[account_id] = replace(
                    found, name=name, kind=DELETED, token_hash=f"deleted:{account_id}"
                )

    @property
    def closed(self) -> bool:
        """Whether ``close`` was called."""
        return self._closed

    def close(self) -> None:
        """Nothing to release; background work of this store stops."""
        self._closed = True
