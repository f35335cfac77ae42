"""SQLite adapter: the embedded default (one file, WAL, serialised writers)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from service.store.base import StoreError
from service.store.sql import SCHEMA_VERSION, TABLES, SqlEventStore

IMMUTABLE = [
    """CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
       BEGIN SELECT RAISE(ABORT, 'events are immutable (UPDATE)'); END""",
    """CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
       BEGIN SELECT RAISE(ABORT, 'events are immutable (DELETE)'); END""",
]


class SQLiteEventStore(SqlEventStore):
    """Event store in one SQLite file; one connection per thread."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._guard = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, timeout=30, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=30000")
            self._local.conn = conn
            with self._guard:
                self._all.append(conn)
        return conn

    def _sql(self, query: str) -> str:
        return query.replace("%s", "?")

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        conn = self._connection()
        cur = conn.cursor()
        try:
            # IMMEDIATE takes the write lock up front, so two appends never both
            # read the same head version: SQLite serialises writers.
            cur.execute("BEGIN IMMEDIATE")
            yield cur
            cur.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                cur.execute("ROLLBACK")
            raise
        finally:
            cur.close()

    def _exec(self, cur: Any, query: str, params: Any = ()) -> Any:
        try:
            return super()._exec(cur, query, params)
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"integrity: {exc}") from exc
        except sqlite3.OperationalError as exc:
            raise StoreError(f"sqlite: {exc}") from exc

    def upgrade(self) -> int:
        """Create the schema if needed; record its version (idempotent)."""
        with self._tx() as cur:
            cur.execute(
                "CREATE TABLE IF NOT EXISTS schema_version"
                " (version INTEGER PRIMARY KEY, applied_at TEXT)"
            )
            for statement in TABLES:
                cur.execute(statement.format(serial="INTEGER", blob="BLOB"))
            for statement in IMMUTABLE:
                cur.execute(statement)
            columns = {row[1] for row in cur.execute("PRAGMA table_info(journal)").fetchall()}
            if "fingerprint" not in columns:  # schema 3
                cur.execute("ALTER TABLE journal ADD COLUMN fingerprint TEXT")
            cur.execute(
                "INSERT OR IGNORE INTO schema_version (version, applied_at) VALUES (?, ?)",
                (SCHEMA_VERSION, datetime.now(UTC).isoformat()),
            )
            row = cur.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return int(row[0])

    def _insert_journal(self, cur: Any, entry: Any) -> int | None:
        # SQLite has no sequences: a row's arrival order is its rowid.
        seq = super()._insert_journal(cur, entry)
        if seq is None:
            return None
        rowid = cur.execute(
            "SELECT rowid FROM journal WHERE game_id = ? AND command_id = ?",
            (entry.game_id, entry.command_id),
        ).fetchone()[0]
        cur.execute("UPDATE journal SET seq = ? WHERE rowid = ?", (rowid, rowid))
        return int(rowid)

    @contextmanager
    def _read(self) -> Iterator[Any]:
        # In WAL mode a plain statement reads a consistent snapshot: no lock needed.
        cur = self._connection().cursor()
        try:
            yield cur
        finally:
            cur.close()

    def close(self) -> None:
        """Close every connection this store opened."""
        with self._guard:
            for conn in self._all:
                conn.close()
            self._all.clear()
        self._local = threading.local()
