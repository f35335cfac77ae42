"""What the SQL adapters share: the schema, the queries, the append transaction.

Queries are written with ``%s`` placeholders; the SQLite adapter rewrites them.
Adapters supply a transaction (``_tx``) that yields a DB-API cursor, and say how
to lock a game's index row for the length of an append.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import replace
from typing import Any

from service.store.base import (
    GENESIS,
    NAMED_ONLY,
    Account,
    Appended,
    CommandRecord,
    ConcurrencyConflict,
    DisputeAppend,
    DisputeRow,
    GameRow,
    JournalEntry,
    NewEvent,
    Snapshot,
    StoredEvent,
    canonical,
    chain_events,
    no_nul,
)


class SqlTx:
    """A cursor as the read side uses it: ``%s`` statements, errors translated, and
    a pipeline on PostgreSQL (every write of a catch-up in one round trip)."""

    def __init__(self, store: SqlEventStore, cur: Any) -> None:
        self.store = store
        self.cur = cur

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement; the cursor, to fetch its rows."""
        return self.store._exec(self.cur, sql, params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement for each row."""
        self.cur.executemany(self.store._sql(sql), rows)

    def pipeline(self) -> AbstractContextManager[Any]:
        """PostgreSQL sends the statements inside together; SQLite runs them as they come."""
        return self.cur.connection.pipeline() if self.store.postgres else nullcontext()


# 1: first schema; 2: PostgreSQL's tongiaki_append takes the events as one JSON argument;
# 3: journal.fingerprint (what an Idempotency-Key stood for); 4: disputes, dispute_events;
# 5: PostgreSQL notifies the change feed of every commit of events (service.live.feed)
SCHEMA_VERSION = 5

TABLES = [
    """CREATE TABLE IF NOT EXISTS games (
        game_id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        hash TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS events (
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (game_id, version))""",
    """CREATE TABLE IF NOT EXISTS journal (
        game_id TEXT NOT NULL,
        command_id TEXT NOT NULL,
        seq {serial},
        actor TEXT NOT NULL,
        received_at TEXT NOT NULL,
        payload TEXT NOT NULL,
        judged_version INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        first_version INTEGER,
        last_version INTEGER,
        rejection TEXT,
        fingerprint TEXT,
        PRIMARY KEY (game_id, command_id))""",
    "CREATE INDEX IF NOT EXISTS journal_by_game ON journal (game_id, seq)",
    "CREATE INDEX IF NOT EXISTS games_by_status ON games (status, updated_at)",
    """CREATE TABLE IF NOT EXISTS secrets (
        game_id TEXT PRIMARY KEY,
        seed {blob} NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS accounts (
        account_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS snapshots (
        game_id TEXT NOT NULL,
        fold_version TEXT NOT NULL,
        version INTEGER NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (game_id, fold_version, version))""",
    """CREATE TABLE IF NOT EXISTS disputes (
        dispute_id TEXT PRIMARY KEY,
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        hash TEXT NOT NULL,
        status TEXT NOT NULL,
        opened_by TEXT NOT NULL,
        reason TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS disputes_by_game ON disputes (game_id, created_at)",
    "CREATE INDEX IF NOT EXISTS disputes_by_status ON disputes (status, created_at)",
    """CREATE TABLE IF NOT EXISTS dispute_events (
        dispute_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (dispute_id, version))""",
]
_DISPUTE_COLUMNS = (
    "dispute_id, game_id, version, hash, status, opened_by, reason, created_at, updated_at"
)

_JOURNAL_COLUMNS = (
    "game_id, command_id, actor, received_at, payload, judged_version, outcome, "
    "first_version, last_version, rejection, seq, fingerprint"
)


def _entry(row: Sequence[Any]) -> JournalEntry:
    return JournalEntry(
        game_id=row[0],
        command_id=row[1],
        actor=json.loads(row[2]),
        received_at=row[3],
        payload=json.loads(row[4]),
        judged_version=row[5],
        outcome=row[6],
        first_version=row[7],
        last_version=row[8],
        rejection=json.loads(row[9]) if row[9] else None,
        seq=row[10],
        fingerprint=row[11],
    )


def _dispute_row(row: Sequence[Any]) -> DisputeRow:
    return DisputeRow(row[0], row[1], int(row[2]), row[3], row[4], row[5], row[6], row[7], row[8])


def _event(row: Sequence[Any]) -> StoredEvent:
    return StoredEvent(row[0], row[1], row[2], row[3], row[4], row[5], row[6])


class SqlEventStore:
    """The event store logic over a DB-API connection (see the adapters)."""

    lock_suffix = ""  # "FOR UPDATE" where the database locks rows
    postgres = False  # PostgreSQL: pipelines, JSON recordsets, advisory locks

    def _upgrade_lock(self, cur: Any) -> None:
        """Serialise schema changes between processes (SQLite: the write lock does)."""

    def _table_exists(self, cur: Any, name: str) -> bool:  # pragma: no cover - adapters
        raise NotImplementedError

    def recorded_version(self, table: str = "schema_version") -> int:
        """The highest version recorded in ``table`` (0 if none), read without any lock.

        Upgrades look here first: a database already at the version a process
        needs is left alone, so starting a process never takes a lock that could
        wait on (or deadlock with) the commands in flight.
        """
        with self._read() as cur:
            if not self._table_exists(cur, table):
                return 0
            row = self._exec(cur, f"SELECT MAX(version) FROM {table}").fetchone()
        return int(row[0] or 0)

    def ensure_tables(self, statements: Sequence[str], marker: str, version: int) -> None:
        """Create further tables (read models) unless ``marker`` records ``version``;
        under the schema upgrade lock, so processes starting together do not race."""
        if self.recorded_version(marker) >= version:
            return
        with self._tx() as cur:
            self._upgrade_lock(cur)
            # again, under the lock: another process may have done it meanwhile (two
            # gunicorn workers starting together both ran an ALTER TABLE otherwise)
            if self._table_exists(cur, marker):
                done = self._exec(cur, f"SELECT MAX(version) FROM {marker}").fetchone()
                if int(done[0] or 0) >= version:
                    return
            self._exec(cur, f"CREATE TABLE IF NOT EXISTS {marker} (version INTEGER PRIMARY KEY)")
            for statement in statements:
                cur.execute(statement)
            self._exec(
                cur,
                f"INSERT INTO {marker} (version) VALUES (%s) ON CONFLICT DO NOTHING",
                (version,),
            )

    def _tx(self) -> AbstractContextManager[Any]:  # pragma: no cover - adapters override
        """A write transaction yielding a cursor."""
        raise NotImplementedError

    def _read(self) -> AbstractContextManager[Any]:
        """A cursor for reads that need no transaction of their own."""
        return self._tx()

    def _sql(self, query: str) -> str:
        return query

    def ping(self, timeout: float) -> None:
        """The database answers a query, a connection coming within ``timeout`` seconds
        where connections are pooled (``StoreUnavailable`` otherwise): for /readyz."""
        with self._read() as cur:
            cur.execute("SELECT 1")

    # --- what the read side is given (projections.ports: Database, History) -----

    @contextmanager
    def transaction(self) -> Iterator[SqlTx]:
        """One transaction on this database, for the read-model tables."""
        with self._tx() as cur:
            yield SqlTx(self, cur)

    @contextmanager
    def reading(self) -> Iterator[SqlTx]:
        """A read on this database."""
        with self._read() as cur:
            yield SqlTx(self, cur)

    def events_after(self, tx: Any, game_id: str, version: int) -> list[StoredEvent]:
        """A game's events after ``version``, read inside ``tx``."""
        rows = tx.execute(
            "SELECT game_id, version, type, data, metadata, prev_hash, hash FROM events"
            " WHERE game_id = %s AND version > %s ORDER BY version",
            (game_id, version),
        ).fetchall()
        return [_event(r) for r in rows]

    def journal_after(self, tx: Any, game_id: str, seq: int) -> list[JournalEntry]:
        """A game's journal entries after ``seq``, read inside ``tx``."""
        rows = tx.execute(
            f"SELECT {_JOURNAL_COLUMNS} FROM journal WHERE game_id = %s AND seq > %s ORDER BY seq",
            (game_id, seq),
        ).fetchall()
        return [_entry(r) for r in rows]

    def heads(self, tx: Any) -> dict[str, int]:
        """Every game's head version."""
        return {
            r[0]: int(r[1]) for r in tx.execute("SELECT game_id, version FROM games").fetchall()
        }

    def journal_heads(self, tx: Any) -> dict[str, int]:
        """Every game's last journal sequence number."""
        rows = tx.execute("SELECT game_id, MAX(seq) FROM journal GROUP BY game_id").fetchall()
        return {r[0]: int(r[1] or 0) for r in rows}

    def _exec(self, cur: Any, query: str, params: Sequence[Any] = ()) -> Any:
        cur.execute(self._sql(query), tuple(params))
        return cur

    # --- journal ------------------------------------------------------------

    def _find(self, cur: Any, game_id: str, command_id: str) -> JournalEntry | None:
        row = self._exec(
            cur,
            f"SELECT {_JOURNAL_COLUMNS} FROM journal WHERE game_id = %s AND command_id = %s",
            (game_id, command_id),
        ).fetchone()
        return _entry(row) if row else None

    def _journal(self, cur: Any, entry: JournalEntry) -> JournalEntry | None:
        """Insert a journal row; the entry as stored, or None if the command id is taken."""
        seq = self._insert_journal(cur, entry)
        return None if seq is None else replace(entry, seq=seq)

    def _insert_journal(self, cur: Any, entry: JournalEntry) -> int | None:
        row = self._exec(
            cur,
            "INSERT INTO journal (game_id, command_id, actor, received_at, payload, judged_version,"
            " outcome, first_version, last_version, rejection, fingerprint) VALUES"
            " (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (game_id, command_id) DO NOTHING RETURNING seq",
            (
                entry.game_id,
                entry.command_id,
                canonical(entry.actor),
                entry.received_at,
                canonical(entry.payload),
                entry.judged_version,
                entry.outcome,
                entry.first_version,
                entry.last_version,
                canonical(entry.rejection) if entry.rejection is not None else None,
                entry.fingerprint,
            ),
        ).fetchone()
        return None if row is None else int(row[0] or 0)

    def outcome(self, game_id: str, command_id: str) -> JournalEntry | None:
        """The journalled outcome of a command id, if any."""
        with self._read() as cur:
            return self._find(cur, game_id, command_id)

    def journal(self, game_id: str, after: int = 0, limit: int | None = None) -> list[JournalEntry]:
        """Commands received for the game, in arrival order: ``seq > after``, at most ``limit``."""
        query = (
            f"SELECT {_JOURNAL_COLUMNS} FROM journal WHERE game_id = %s AND seq > %s ORDER BY seq"
        )
        params: list[Any] = [game_id, after]
        if limit is not None:
            query += " LIMIT %s"
            params.append(limit)
        with self._read() as cur:
            rows = self._exec(cur, query, params).fetchall()
        return [_entry(r) for r in rows]

    # --- append ---------------------------------------------------------------

    def _duplicate(self, cur: Any, found: JournalEntry) -> Appended:
        events: tuple[StoredEvent, ...] = ()
        if found.outcome == "accepted" and found.first_version is not None:
            rows = self._exec(
                cur,
                "SELECT game_id, version, type, data, metadata, prev_hash, hash FROM events"
                " WHERE game_id = %s AND version BETWEEN %s AND %s ORDER BY version",
                (found.game_id, found.first_version, found.last_version),
            ).fetchall()
            events = tuple(_event(r) for r in rows)
        last = events[-1] if events else None
        return Appended(
            events,
            last.version if last else found.judged_version,
            last.hash if last else "",
            duplicate=True,
            entry=found,
        )

    def append(
        self,
        record: CommandRecord,
        expected_version: int,
        events: Sequence[NewEvent],
        status: str,
        prev_hash: str | None = None,
        dispute: DisputeAppend | None = None,
    ) -> Appended:
        """Append one command's events atomically (see ``EventStore.append``)."""
        if not events:
            raise ValueError("an append holds at least one event")
        no_nul(record.game_id, record.command_id)
        with self._tx() as cur:
            # Claim and lock the game's index row in one statement (a placeholder at
            # version 0 for a new game): appends to one game queue up here.
            version, head_hash = self._exec(
                cur,
                "INSERT INTO games (game_id, version, hash, status, created_at, updated_at)"
                " VALUES (%s, 0, %s, %s, %s, %s) ON CONFLICT (game_id)"
                " DO UPDATE SET game_id = games.game_id RETURNING version, hash",
                (record.game_id, GENESIS, status, record.received_at, record.received_at),
            ).fetchone()
            if version != expected_version or (prev_hash is not None and prev_hash != head_hash):
                found = self._find(cur, record.game_id, record.command_id)
                if found is not None:  # a retry of a command that was already applied
                    return self._duplicate(cur, found)
                raise ConcurrencyConflict(record.game_id, expected_version, version)
            stored = chain_events(record.game_id, version, head_hash, events)
            head = stored[-1] if stored else None
            new_version = head.version if head else version
            new_hash = head.hash if head else head_hash
            entry = self._journal(
                cur,
                JournalEntry(
                    record.game_id,
                    record.command_id,
                    record.actor,
                    record.received_at,
                    record.payload,
                    version,
                    "accepted",
                    stored[0].version if stored else None,
                    new_version if stored else None,
                    fingerprint=record.fingerprint,
                ),
            )
            if entry is None:  # the id was journalled before (e.g. rejected)
                found = self._find(cur, record.game_id, record.command_id)
                assert found is not None
                return self._duplicate(cur, found)
            self._insert_events(cur, stored)
            self._exec(
                cur,
                "UPDATE games SET version = %s, hash = %s, status = %s, updated_at = %s"
                " WHERE game_id = %s",
                (new_version, new_hash, status, record.received_at, record.game_id),
            )
            if dispute is not None:
                self._append_dispute(
                    cur,
                    dispute.dispute_id,
                    record.game_id,
                    dispute.expected_version,
                    dispute.events,
                    dispute.status,
                    dispute.at,
                    "",
                    "",
                )
        return Appended(tuple(stored), new_version, new_hash, entry=entry)

    def _insert_events(
        self, cur: Any, stored: Sequence[StoredEvent], table: str = "events", key: str = "game_id"
    ) -> None:
        """All of a command's events (or a dispute's: ``dispute_events``, keyed by
        ``dispute_id``) in one statement."""
        if not stored:
            return
        values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(stored))
        params: list[Any] = []
        for e in stored:
            params += [e.game_id, e.version, e.type, e.data, e.metadata, e.prev_hash, e.hash]
        self._exec(
            cur,
            f"INSERT INTO {table} ({key}, version, type, data, metadata, prev_hash, hash)"
            f" VALUES {values}",
            params,
        )

    def import_stream(
        self,
        events: Sequence[StoredEvent],
        status: str,
        at: str,
        journal: Sequence[JournalEntry] = (),
        seed: bytes | None = None,
        accounts: Sequence[Account] = (),
    ) -> None:
        """Store an exported game as it is (hashes kept), with its journal, deck seed and
        the accounts of its seats (those already here are kept as they are), in one
        transaction; ``ConcurrencyConflict`` if the game is already here."""
        game_id = events[0].game_id
        with self._tx() as cur:
            exists = self._exec(
                cur, "SELECT version FROM games WHERE game_id = %s", (game_id,)
            ).fetchone()
            if exists:
                raise ConcurrencyConflict(game_id, 0, int(exists[0]))
            for start in range(0, len(events), 100):
                self._insert_events(cur, events[start : start + 100])
            for entry in journal:
                if self._journal(cur, replace(entry, game_id=game_id)) is None:
                    raise ConcurrencyConflict(game_id, 0, -1)
            if seed is not None:
                self._exec(
                    cur,
                    "INSERT INTO secrets (game_id, seed) VALUES (%s, %s)"
                    " ON CONFLICT (game_id) DO NOTHING",
                    (game_id, seed),
                )
            for a in accounts:
                self._exec(
                    cur,
                    # an account only named by an earlier import (no token) takes the
                    # real one's token; any other account here is kept as it is
                    "INSERT INTO accounts (account_id, name, kind, token_hash, created_at)"
                    " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (account_id) DO UPDATE SET"
                    " name = excluded.name, kind = excluded.kind,"
                    " token_hash = excluded.token_hash, created_at = excluded.created_at"
                    f" WHERE accounts.kind = '{NAMED_ONLY}' AND excluded.kind <> '{NAMED_ONLY}'",
                    (a.account_id, a.name, a.kind, a.token_hash, a.created_at),
                )
            head = events[-1]
            self._exec(
                cur,
                "INSERT INTO games (game_id, version, hash, status, created_at, updated_at)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                (game_id, head.version, head.hash, status, at, at),
            )

    def reject(
        self, record: CommandRecord, judged_version: int, rejection: dict[str, Any]
    ) -> JournalEntry:
        """Journal a rejected command, or return the outcome stored for its id."""
        no_nul(record.game_id, record.command_id)
        with self._tx() as cur:
            found = self._find(cur, record.game_id, record.command_id)
            if found is not None:
                return found
            entry = JournalEntry(
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
            stored = self._journal(cur, entry)
            if stored is None:
                found = self._find(cur, record.game_id, record.command_id)
                assert found is not None
                return found
            return stored

    # --- reading --------------------------------------------------------------

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events with version > ``after``, in order, at most ``limit``."""
        query = (
            "SELECT game_id, version, type, data, metadata, prev_hash, hash FROM events"
            " WHERE game_id = %s AND version > %s ORDER BY version"
        )
        params: list[Any] = [game_id, after]
        if limit is not None:
            query += " LIMIT %s"
            params.append(limit)
        with self._read() as cur:
            rows = self._exec(cur, query, params).fetchall()
        return [_event(r) for r in rows]

    def _game(self, row: Sequence[Any]) -> GameRow:
        return GameRow(row[0], row[1], row[2], row[3], row[4], row[5])

    def head(self, game_id: str) -> GameRow | None:
        """The game's index row, or None."""
        with self._read() as cur:
            row = self._exec(
                cur,
                "SELECT game_id, version, hash, status, created_at, updated_at FROM games"
                " WHERE game_id = %s",
                (game_id,),
            ).fetchone()
        return self._game(row) if row else None

    def versions(self, game_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        """Head version and status of each of ``game_ids`` that exists (500 per query)."""
        found: dict[str, tuple[int, str]] = {}
        ids = list(game_ids)
        with self._read() as cur:
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                marks = ", ".join(["%s"] * len(chunk))
                rows = self._exec(
                    cur,
                    f"SELECT game_id, version, status FROM games WHERE game_id IN ({marks})",
                    chunk,
                ).fetchall()
                found.update({r[0]: (int(r[1]), r[2]) for r in rows})
        return found

    def games(self, status: str | None = None, limit: int = 100, offset: int = 0) -> list[GameRow]:
        """Games, most recently updated first, optionally of one status, from ``offset``."""
        query = "SELECT game_id, version, hash, status, created_at, updated_at FROM games"
        params: list[Any] = []
        if status is not None:
            query += " WHERE status = %s"
            params.append(status)
        query += " ORDER BY updated_at DESC, game_id LIMIT %s OFFSET %s"
        params += [limit, offset]
        with self._read() as cur:
            rows = self._exec(cur, query, params).fetchall()
        return [self._game(r) for r in rows]

    def game_ids(self) -> Iterator[str]:
        """Every game id, in no particular order."""
        with self._read() as cur:
            rows = self._exec(cur, "SELECT game_id FROM games").fetchall()
        yield from (r[0] for r in rows)

    # --- disputes (their own streams) ---------------------------------------------

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
        with self._tx() as cur:
            return self._append_dispute(
                cur, dispute_id, game_id, expected_version, events, status, at, opened_by, reason
            )

    def _append_dispute(
        self,
        cur: Any,
        dispute_id: str,
        game_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        status: str,
        at: str,
        opened_by: str,
        reason: str,
    ) -> list[StoredEvent]:
        """Append to a dispute inside the caller's transaction."""
        if expected_version == 0:
            claimed = self._exec(
                cur,
                f"INSERT INTO disputes ({_DISPUTE_COLUMNS}) VALUES"
                " (%s, %s, 0, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (dispute_id) DO NOTHING RETURNING version",
                (dispute_id, game_id, GENESIS, status, opened_by, reason, at, at),
            ).fetchone()
            if claimed is None:
                raise ConcurrencyConflict(dispute_id, 0, -1)
            version, head_hash = 0, GENESIS
        else:
            row = self._exec(
                cur,
                f"SELECT version, hash FROM disputes WHERE dispute_id = %s {self.lock_suffix}",
                (dispute_id,),
            ).fetchone()
            if row is None or int(row[0]) != expected_version:
                raise ConcurrencyConflict(dispute_id, expected_version, int(row[0]) if row else 0)
            version, head_hash = int(row[0]), row[1]
        stored = chain_events(dispute_id, version, head_hash, events)
        self._insert_events(cur, stored, "dispute_events", "dispute_id")
        self._exec(
            cur,
            "UPDATE disputes SET version = %s, hash = %s, status = %s, updated_at = %s"
            " WHERE dispute_id = %s",
            (stored[-1].version, stored[-1].hash, status, at, dispute_id),
        )
        return stored

    def dispute_events(self, dispute_id: str) -> list[StoredEvent]:
        """A dispute's events in order (empty if unknown)."""
        with self._read() as cur:
            rows = self._exec(
                cur,
                "SELECT dispute_id, version, type, data, metadata, prev_hash, hash"
                " FROM dispute_events WHERE dispute_id = %s ORDER BY version",
                (dispute_id,),
            ).fetchall()
        return [_event(r) for r in rows]

    def dispute(self, dispute_id: str) -> DisputeRow | None:
        """A dispute's index row."""
        with self._read() as cur:
            row = self._exec(
                cur, f"SELECT {_DISPUTE_COLUMNS} FROM disputes WHERE dispute_id = %s", (dispute_id,)
            ).fetchone()
        return _dispute_row(row) if row else None

    def disputes(
        self,
        game_id: str | None = None,
        status: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[DisputeRow]:
        """Disputes, oldest first, of one game and/or one status."""
        query = f"SELECT {_DISPUTE_COLUMNS} FROM disputes WHERE version > 0"
        params: list[Any] = []
        if game_id is not None:
            query += " AND game_id = %s"
            params.append(game_id)
        if status is not None:
            query += " AND status = %s"
            params.append(status)
        query += " ORDER BY created_at, dispute_id LIMIT %s OFFSET %s"
        params += [limit, offset]
        with self._read() as cur:
            rows = self._exec(cur, query, params).fetchall()
        return [_dispute_row(r) for r in rows]

    def dispute_counts(self, game_ids: Iterable[str]) -> dict[str, dict[str, int]]:
        """For each of these games that has disputes: how many, by status (one query)."""
        ids = sorted(set(game_ids))
        if not ids:
            return {}
        marks = ", ".join(["%s"] * len(ids))
        with self._read() as cur:
            rows = self._exec(
                cur,
                "SELECT game_id, status, COUNT(*) FROM disputes"
                f" WHERE version > 0 AND game_id IN ({marks}) GROUP BY game_id, status",
                ids,
            ).fetchall()
        counts: dict[str, dict[str, int]] = {}
        for game_id, status, n in rows:
            counts.setdefault(game_id, {})[status] = int(n)
        return counts

    # --- accounts ---------------------------------------------------------------

    def add_account(self, account: Account) -> None:
        """Record an account (its token only as a hash)."""
        with self._tx() as cur:
            self._exec(
                cur,
                "INSERT INTO accounts (account_id, name, kind, token_hash, created_at)"
                " VALUES (%s, %s, %s, %s, %s)",
                (
                    account.account_id,
                    account.name,
                    account.kind,
                    account.token_hash,
                    account.created_at,
                ),
            )

    def account_by_token_hash(self, token_hash: str) -> Account | None:
        """The account whose token hashes to ``token_hash``."""
        with self._read() as cur:
            row = self._exec(
                cur,
                "SELECT account_id, name, kind, token_hash, created_at FROM accounts"
                " WHERE token_hash = %s",
                (token_hash,),
            ).fetchone()
        return Account(*row) if row else None

    def account(self, account_id: str) -> Account | None:
        """The account with this id."""
        with self._read() as cur:
            row = self._exec(
                cur,
                "SELECT account_id, name, kind, token_hash, created_at FROM accounts"
                " WHERE account_id = %s",
                (account_id,),
            ).fetchone()
        return Account(*row) if row else None

    def account_names(self, account_ids: Iterable[str]) -> dict[str, str]:
        """The names of these accounts, in one query."""
        ids = sorted(set(account_ids))
        if not ids:
            return {}
        marks = ", ".join(["%s"] * len(ids))
        with self._read() as cur:
            rows = self._exec(
                cur, f"SELECT account_id, name FROM accounts WHERE account_id IN ({marks})", ids
            ).fetchall()
        return {account_id: name for account_id, name in rows}

    def accounts_named(self, text: str, limit: int) -> list[str]:
        """Players' accounts whose name holds ``text`` (any case): at most ``limit`` ids."""
        escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        with self._read() as cur:
            rows = self._exec(
                cur,
                "SELECT account_id FROM accounts WHERE kind = 'player'"
                " AND LOWER(name) LIKE %s ESCAPE '\\' ORDER BY account_id LIMIT %s",
                (f"%{escaped}%", limit),
            ).fetchall()
        return [r[0] for r in rows]

    # --- secrets and snapshots -------------------------------------------------

    def put_secret(self, game_id: str, seed: bytes) -> bytes:
        """Keep a game's deck seed; the seed kept (an earlier one for this game stays)."""
        with self._tx() as cur:
            self._exec(
                cur,
                "INSERT INTO secrets (game_id, seed) VALUES (%s, %s)"
                " ON CONFLICT (game_id) DO NOTHING",
                (game_id, seed),
            )
            row = self._exec(
                cur, "SELECT seed FROM secrets WHERE game_id = %s", (game_id,)
            ).fetchone()
        return bytes(row[0])

    def get_secret(self, game_id: str) -> bytes | None:
        """A game's deck seed, or None."""
        with self._read() as cur:
            row = self._exec(
                cur, "SELECT seed FROM secrets WHERE game_id = %s", (game_id,)
            ).fetchone()
        return bytes(row[0]) if row else None

    def put_snapshot(self, snapshot: Snapshot) -> None:
        """Cache a fold; an existing snapshot at the same version is kept."""
        with self._tx() as cur:
            self._exec(
                cur,
                "INSERT INTO snapshots (game_id, fold_version, version, state)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (game_id, fold_version, version) DO NOTHING",
                (snapshot.game_id, snapshot.fold_version, snapshot.version, snapshot.state),
            )

    def get_snapshot(
        self, game_id: str, fold_version: str, at_most: int | None = None
    ) -> Snapshot | None:
        """The newest snapshot of this fold version at or below ``at_most``."""
        query = (
            "SELECT game_id, version, fold_version, state FROM snapshots"
            " WHERE game_id = %s AND fold_version = %s"
        )
        params: list[Any] = [game_id, fold_version]
        if at_most is not None:
            query += " AND version <= %s"
            params.append(at_most)
        query += " ORDER BY version DESC LIMIT 1"
        with self._read() as cur:
            row = self._exec(cur, query, params).fetchone()
        return Snapshot(row[0], row[1], row[2], row[3]) if row else None
