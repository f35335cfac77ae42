"""The SQL event store: one object per port over one shared database.

``SqlEventStore`` is what callers hold (``SqlStore``: the event store, and the database
and history the read models are given). Each port is a small class of its own module
(streams and journal, secrets, snapshots, accounts, disputes), all over the same
``SqlDatabase``; the store hands each call to the one that answers it. The adapters
(``sqlite.py``, ``postgres.py``) supply the database, and PostgreSQL its own streams.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from projections.ports import Tx
from service.store.accounts import SqlAccounts
from service.store.base import (
    Account,
    Appended,
    CommandRecord,
    DisputeAppend,
    DisputeRow,
    GameRow,
    JournalEntry,
    NewEvent,
    Snapshot,
    StoredEvent,
)
from service.store.database import Cursor, SqlDatabase, SqlTx
from service.store.disputes import SqlDisputes
from service.store.log_sql import SqlLog

# where callers have always found the schema's version
from service.store.schema import SCHEMA_VERSION as SCHEMA_VERSION
from service.store.secrets import SqlSecrets
from service.store.snapshots import SqlSnapshots
from service.store.streams import SqlStreams


class SqlEventStore:
    """The event store on a SQL database: every call handed to its port's object."""

    def __init__(self, db: SqlDatabase, streams: SqlStreams) -> None:
        self.db = db
        self._streams = streams
        self._secrets = SqlSecrets(db)
        self._snapshots = SqlSnapshots(db)
        self._accounts = SqlAccounts(db)
        self._disputes = SqlDisputes(db)
        self.log = SqlLog(db)

    # --- the database (projections.ports.Database), its schema and its life --------

    @property
    def postgres(self) -> bool:
        """Whether it is PostgreSQL (pipelines, JSON recordsets, advisory locks)."""
        return self.db.postgres

    @property
    def accounts_in_database(self) -> bool:
        """The accounts are a table of this database."""
        return True

    @property
    def lock_suffix(self) -> str:
        """What locks selected rows until commit (``FOR UPDATE``, or nothing)."""
        return self.db.lock_suffix

    def transaction(self) -> AbstractContextManager[SqlTx]:
        """One transaction on this database, for the read-model tables."""
        return self.db.transaction()

    def reading(self) -> AbstractContextManager[SqlTx]:
        """A read on this database."""
        return self.db.reading()

    def recorded_version(self, table: str = "schema_version") -> int:
        """The highest version recorded in ``table`` (0 if none), read without any lock."""
        return self.db.recorded_version(table)

    def ensure_tables(self, statements: Sequence[str], marker: str, version: int) -> None:
        """Create further tables (read models) unless ``marker`` records ``version``;
        under the schema upgrade lock, so processes starting together do not race."""
        if self.recorded_version(marker) >= version:
            return
        self.db.create_tables(statements, marker, version)

    def upgrade(self) -> int:
        """Create or migrate the schema (idempotent); the schema version."""
        return self.db.upgrade()

    def ping(self, timeout: float) -> None:
        """The database answers within ``timeout`` (``StoreUnavailable`` otherwise)."""
        self.db.ping(timeout)

    @property
    def closed(self) -> bool:
        """Whether ``close`` was called."""
        return self.db.closed

    def close(self) -> None:
        """Release the connections."""
        self.db.close()

    # tests reach in with these: a statement of their own, in a transaction of the store's
    def _tx(self) -> AbstractContextManager[SqlTx]:
        return self.db.transaction()

    def _exec(self, tx: SqlTx, query: str, params: Sequence[Any] = ()) -> Cursor:
        return tx.execute(query, params)

    # --- Streams ------------------------------------------------------------------

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
        """Append one command's events atomically (see ``Streams.append``)."""
        return self._streams.append(
            record, expected_version, events, status, prev_hash, dispute, seating
        )

    def reject(
        self, record: CommandRecord, judged_version: int, rejection: dict[str, Any]
    ) -> JournalEntry:
        """Journal a rejected command, or return the outcome stored for its id."""
        return self._streams.reject(record, judged_version, rejection)

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
        """Store an exported game as it is (see ``Streams.import_stream``)."""
        self._streams.import_stream(events, status, at, journal, seed, accounts, logged)

    def durable(self) -> None:
        """See ``Streams.durable``."""
        self._streams.durable()

    def outcome(self, game_id: str, command_id: str) -> JournalEntry | None:
        """The journalled outcome of a command id, if any."""
        return self._streams.outcome(game_id, command_id)

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events with version > ``after``, in order, at most ``limit``."""
        return self._streams.read(game_id, after, limit)

    def head(self, game_id: str) -> GameRow | None:
        """The game's index row, or None."""
        return self._streams.head(game_id)

    def versions(self, game_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        """Head version and status of each of ``game_ids`` that exists."""
        return self._streams.versions(game_ids)

    def games(
        self, status: str | None = None, limit: int = 100, offset: int = 0, listed: bool = False
    ) -> list[GameRow]:
        """Games, most recently updated first, optionally of one status, from ``offset``;
        ``listed``: not private tables (docs/invitations.md, I1)."""
        return self._streams.games(status, limit, offset, listed)

    def journal(self, game_id: str, after: int = 0, limit: int | None = None) -> list[JournalEntry]:
        """Commands received for the game, in arrival order: ``seq > after``, at most ``limit``."""
        return self._streams.journal(game_id, after, limit)

    # --- History (projections.ports): the streams, inside a read-model transaction --

    def events_after(self, tx: Tx, game_id: str, version: int) -> list[StoredEvent]:
        """A game's events after ``version``, read inside ``tx``."""
        return self._streams.events_after(tx, game_id, version)

    def journal_after(self, tx: Tx, game_id: str, seq: int) -> list[JournalEntry]:
        """A game's journal entries after ``seq``, read inside ``tx``."""
        return self._streams.journal_after(tx, game_id, seq)

    def heads(self, tx: Tx, in_order: bool = False) -> dict[str, int]:
        """Every game's head version; ``in_order``: in the order the games last changed."""
        return self._streams.heads(tx, in_order)

    def journal_heads(self, tx: Tx) -> dict[str, int]:
        """Every game's last journal sequence number."""
        return self._streams.journal_heads(tx)

    # --- Secrets and Snapshots ------------------------------------------------------

    def put_secret(self, game_id: str, seed: bytes) -> bytes:
        """Keep a game's deck seed; the seed kept (an earlier one for this game stays)."""
        return self._secrets.put_secret(game_id, seed)

    def get_secret(self, game_id: str) -> bytes | None:
        """A game's deck seed, or None."""
        return self._secrets.get_secret(game_id)

    def put_snapshot(self, snapshot: Snapshot) -> None:
        """Cache a fold; an existing snapshot at the same version is kept."""
        self._snapshots.put_snapshot(snapshot)

    def get_snapshot(
        self, game_id: str, fold_version: str, at_most: int | None = None
    ) -> Snapshot | None:
        """The newest snapshot of this fold version at or below ``at_most``."""
        return self._snapshots.get_snapshot(game_id, fold_version, at_most)

    # --- Accounts -----------------------------------------------------------------

    def add_account(self, account: Account) -> None:
        """Record an account (its token only as a hash)."""
        self._accounts.add_account(account)

    def account_by_token_hash(self, token_hash: str) -> Account | None:
        """The account whose token hashes to ``token_hash``."""
        return self._accounts.account_by_token_hash(token_hash)

    def account(self, account_id: str) -> Account | None:
        """The account with this id."""
        return self._accounts.account(account_id)

    def account_names(self, account_ids: Iterable[str]) -> dict[str, str]:
        """The names of these accounts (ids it does not know are left out)."""
        return self._accounts.account_names(account_ids)

    def accounts_named(self, text: str, limit: int) -> list[str]:
        """Players' accounts whose name holds ``text`` (any case): at most ``limit`` ids."""
        return self._accounts.accounts_named(text, limit)

    def players_with_name(self, name: str, limit: int) -> list[str]:
        """Players' accounts named ``name`` in any case, the exact ones first."""
        return self._accounts.players_with_name(name, limit)

    def rename_account(self, account_id: str, expected: str, name: str) -> bool:
        """Set the name if it is still ``expected`` (of two renames at once, one wins)."""
        return self._accounts.rename_account(account_id, expected, name)

    def change_kind(self, account_id: str, name: str, expected: str, kind: str) -> bool:
        """Set the kind if the account is still named ``name`` with kind ``expected``."""
        return self._accounts.change_kind(account_id, name, expected, kind)

    def forget_account(self, account_id: str, name: str) -> None:
        """The account deleted itself: an anonymous name, no kind to act as, no token."""
        self._accounts.forget_account(account_id, name)

    # --- Disputes -----------------------------------------------------------------

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
        return self._disputes.append_dispute(
            dispute_id,
            game_id,
            expected_version,
            events,
            status=status,
            at=at,
            opened_by=opened_by,
            reason=reason,
        )

    def dispute_events(self, dispute_id: str) -> list[StoredEvent]:
        """A dispute's events in order (empty if unknown)."""
        return self._disputes.dispute_events(dispute_id)

    def dispute(self, dispute_id: str) -> DisputeRow | None:
        """A dispute's index row."""
        return self._disputes.dispute(dispute_id)

    def disputes(
        self,
        game_id: str | None = None,
        status: str | None = None,
        limit: int = 100,
        offset: int = 0,
        opened_by: str | None = None,
    ) -> list[DisputeRow]:
        """Disputes, oldest first, of one game and/or one status (and/or one opener)."""
        return self._disputes.disputes(game_id, status, limit, offset, opened_by)

    def dispute_counts(self, game_ids: Iterable[str]) -> dict[str, dict[str, int]]:
        """For each of these games that has disputes: how many, by status."""
        return self._disputes.dispute_counts(game_ids)
