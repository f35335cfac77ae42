"""SQLite adapter: the embedded default (one file, WAL, serialised writers)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from service.store.base import StoreError, StoreUnavailable
from service.store.database import Cursor, SqlDatabase, SqlTx
from service.store.log_sql import BACKFILL
from service.store.rows import Row, named, value
from service.store.schema import SCHEMA_VERSION, TABLES
from service.store.sql import SqlEventStore
from service.store.streams import SqlStreams

IMMUTABLE = [
    """CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
       BEGIN SELECT RAISE(ABORT, 'events are immutable (UPDATE)'); END""",
    """CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
       BEGIN SELECT RAISE(ABORT, 'events are immutable (DELETE)'); END""",
    """CREATE TRIGGER IF NOT EXISTS dispute_events_no_update BEFORE UPDATE ON dispute_events
       BEGIN SELECT RAISE(ABORT, 'events are immutable (UPDATE)'); END""",
    """CREATE TRIGGER IF NOT EXISTS dispute_events_no_delete BEFORE DELETE ON dispute_events
       BEGIN SELECT RAISE(ABORT, 'events are immutable (DELETE)'); END""",
]
TABLE_INFO = Row(named, "cid", "name", "type", "notnull", "dflt_value", "pk")  # PRAGMA table_info


class SQLiteDatabase(SqlDatabase):
    """One SQLite file, on a bounded pool of connections.

    A connection is taken for one transaction or one read and given back, so a
    server that starts a thread per request holds at most ``pool_size``
    connections (two file handles each), however many threads come and go.
    """

    def __init__(self, path: str | Path, pool_size: int = 8, wait: float = 10.0) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.pool_size = pool_size
        self.wait = wait
        self._idle: list[sqlite3.Connection] = []
        self._opened = 0
        self._available = threading.Condition()
        self._writing = threading.RLock()
        self._closed = False

    def _open(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path, timeout=30, isolation_level=None, check_same_thread=False
            )
            # LOWER() as PostgreSQL's: every script's capitals, not only ASCII's
            conn.create_function("LOWER", 1, _lower, deterministic=True)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=30000")
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"sqlite: cannot open {self.path}: {exc}") from exc
        return conn

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """A pooled connection for the length of the block."""
        deadline = time.monotonic() + self.wait
        with self._available:
            while not self._idle and self._opened >= self.pool_size:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StoreUnavailable("sqlite: every connection is busy; retry shortly")
                self._available.wait(left)
            conn = self._idle.pop() if self._idle else None
            if conn is None:
                self._opened += 1
        if conn is None:
            try:
                conn = self._open()
            except BaseException:
                with self._available:
                    self._opened -= 1
                    self._available.notify()
                raise
        try:
            yield conn
        finally:
            with self._available:
                if self._closed:
                    conn.close()
                    self._opened -= 1
                else:
                    self._idle.append(conn)
                self._available.notify()

    def sql(self, query: str) -> str:
        """``%s`` placeholders as SQLite's ``?``."""
        return query.replace("%s", "?")

    def execute(self, cursor: Cursor, query: str, params: Sequence[Any]) -> Cursor:
        """Run one statement, SQLite's errors in the store's vocabulary."""
        try:
            return super().execute(cursor, query, params)
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"integrity: {exc}") from exc
        except sqlite3.OperationalError as exc:  # locked, busy, disk: not the request's fault
            raise StoreUnavailable(f"sqlite: {exc}") from exc

    @contextmanager
    def transaction(self) -> Iterator[SqlTx]:
        """One write transaction; writers of this process queue for each other."""
        # one writer at a time in this process, queued here: SQLite's own wait for its
        # write lock polls with sleeps of up to 100 ms, which gave commands of the
        # embedded default a tail of ~750 ms under 8 concurrent players
        if not self._writing.acquire(timeout=self.wait):
            raise StoreUnavailable("sqlite: the database is busy writing; retry shortly")
        try:
            with self._write_connection() as tx:
                yield tx
        finally:
            self._writing.release()

    @contextmanager
    def _write_connection(self) -> Iterator[SqlTx]:
        with self.connection() as conn:
            cur = conn.cursor()
            try:
                # IMMEDIATE takes the write lock up front, so two appends never both
                # read the same head version: SQLite serialises writers.
                try:
                    cur.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as exc:
                    raise StoreUnavailable(f"sqlite: {exc}") from exc
                yield SqlTx(self, cur)
                cur.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    cur.execute("ROLLBACK")
                raise
            finally:
                cur.close()

    @contextmanager
    def reading(self) -> Iterator[SqlTx]:
        """A read: in WAL mode a plain statement reads a consistent snapshot, no lock."""
        with self.connection() as conn:
            cur = conn.cursor()
            try:
                yield SqlTx(self, cur)
            finally:
                cur.close()

    def upgrade_lock(self, tx: SqlTx) -> None:
        """Nothing more: a transaction holds SQLite's write lock from its start."""

    def table_exists(self, tx: SqlTx, name: str) -> bool:
        """Whether the table ``name`` is there."""
        found = tx.cursor.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        )
        return value(found) is not None

    def journal_seq(self, tx: SqlTx, game_id: str, command_id: str, returned: int) -> int:
        """SQLite has no sequences: a journal row's arrival order is its rowid."""
        rowid = value(
            tx.cursor.execute(
                "SELECT rowid FROM journal WHERE game_id = ? AND command_id = ?",
                (game_id, command_id),
            )
        )
        tx.cursor.execute("UPDATE journal SET seq = ? WHERE rowid = ?", (rowid, rowid))
        return int(rowid)

    def upgrade(self) -> int:
        """Create the schema if needed; record its version (idempotent; no write when
        the database is already at ``SCHEMA_VERSION``)."""
        current = self.recorded_version()
        if current >= SCHEMA_VERSION:
            return current
        with self.transaction() as tx:
            cur = tx.cursor
            cur.execute(
                "CREATE TABLE IF NOT EXISTS schema_version"
                " (version INTEGER PRIMARY KEY, applied_at TEXT)"
            )
            logged = self.table_exists(tx, "log_pending")
            for statement in TABLES:
                cur.execute(statement.format(serial="INTEGER", blob="BLOB"))
            for statement in IMMUTABLE:
                cur.execute(statement)
            columns = {c["name"] for c in TABLE_INFO.all(cur.execute("PRAGMA table_info(journal)"))}
            if "fingerprint" not in columns:  # schema 3
                cur.execute("ALTER TABLE journal ADD COLUMN fingerprint TEXT")
            if not logged:  # schema 6: the log starts from every stream's head
                for statement in BACKFILL:
                    cur.execute(statement)
            cur.execute(
                "INSERT OR IGNORE INTO schema_version (version, applied_at) VALUES (?, ?)",
                (SCHEMA_VERSION, datetime.now(UTC).isoformat()),
            )
            version = value(cur.execute("SELECT MAX(version) FROM schema_version"))
        return int(version)

    @property
    def closed(self) -> bool:
        """Whether ``close`` was called."""
        return self._closed

    def close(self) -> None:
        """Close every idle connection; those in use close when given back."""
        with self._available:
            for conn in self._idle:
                conn.close()
            self._opened -= len(self._idle)
            self._idle.clear()
            self._closed = True  # connections in use are closed when given back
            self._available.notify_all()


class SQLiteEventStore(SqlEventStore):
    """Event store in one SQLite file (``SQLiteDatabase``), every port over it."""

    db: SQLiteDatabase

    def __init__(self, path: str | Path, pool_size: int = 8, wait: float = 10.0) -> None:
        db = SQLiteDatabase(path, pool_size, wait)
        super().__init__(db, SqlStreams(db))
        self.path = db.path

    def _connection(self) -> AbstractContextManager[sqlite3.Connection]:
        """A pooled connection (tests reach in with it)."""
        return self.db.connection()


def _lower(text: str | bytes | int | float | None) -> str | bytes | int | float | None:
    """SQL ``LOWER`` for SQLite, in Python's full Unicode (SQLite's own folds ASCII only)."""
    return text.lower() if isinstance(text, str) else text
