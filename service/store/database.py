"""The SQL database every port's class shares (SQLite, PostgreSQL).

A ``SqlDatabase`` hands out transactions and reads as ``SqlTx``: statements written
with ``%s`` placeholders, run on a DB-API ``Cursor``, the database's errors in the
store's vocabulary. It keeps the schema's bookkeeping (the version a table records,
read-model tables created once under a lock), and each adapter's subclass says what
differs: connections, placeholders, locks, how a journal row gets its number.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Protocol

from projections.ports import Rows
from service.store.rows import value


class Cursor(Rows, Protocol):
    """A DB-API cursor as the store drives it (sqlite3's and psycopg's alike)."""

    def execute(self, query: str, params: Sequence[Any] = ..., /) -> Cursor:
        """Run one statement; the cursor, to fetch its rows."""
        ...

    def executemany(self, query: str, params: Sequence[Sequence[Any]], /) -> object:
        """Run one statement for each row of parameters."""
        ...


class SqlTx:
    """One transaction (or one read) on a database: statements with ``%s`` placeholders,
    errors translated, and a pipeline on PostgreSQL (statements sent together).

    ``cursor`` runs a statement as it is written (schema changes): no placeholders
    rewritten, no parameters."""

    def __init__(
        self,
        db: SqlDatabase,
        cursor: Cursor,
        pipeline: Callable[[], AbstractContextManager[Any]] = nullcontext,
    ) -> None:
        self.db = db
        self.cursor = cursor
        self._pipeline = pipeline

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """Run one statement; the cursor, to fetch its rows (``rows.Row``)."""
        return self.db.execute(self.cursor, sql, params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement for each row."""
        self.cursor.executemany(self.db.sql(sql), rows)

    def pipeline(self) -> AbstractContextManager[Any]:
        """PostgreSQL sends the statements inside together; SQLite runs them as they come."""
        return self._pipeline()


class SqlDatabase(ABC):
    """Connections, transactions and the schema's bookkeeping of one SQL database."""

    lock_suffix = ""  # "FOR UPDATE" where the database locks rows
    postgres = False  # PostgreSQL: pipelines, JSON recordsets, advisory locks

    @abstractmethod
    def transaction(self) -> AbstractContextManager[SqlTx]:
        """One transaction: everything inside commits together or not at all."""

    @abstractmethod
    def reading(self) -> AbstractContextManager[SqlTx]:
        """A read that needs no transaction of its own (each statement its own snapshot)."""

    @abstractmethod
    def upgrade_lock(self, tx: SqlTx) -> None:
        """Serialise schema changes between processes, until ``tx`` ends."""

    @abstractmethod
    def table_exists(self, tx: SqlTx, name: str) -> bool:
        """Whether the table ``name`` is there."""

    @abstractmethod
    def upgrade(self) -> int:
        """Create or migrate the schema (idempotent); the schema version."""

    @property
    @abstractmethod
    def closed(self) -> bool:
        """Whether ``close`` was called."""

    @abstractmethod
    def close(self) -> None:
        """Release the connections."""

    def sql(self, query: str) -> str:
        """A ``%s`` statement in the driver's placeholders."""
        return query

    def execute(self, cursor: Cursor, query: str, params: Sequence[Any]) -> Cursor:
        """Run one ``%s`` statement on ``cursor`` (adapters translate their errors)."""
        cursor.execute(self.sql(query), tuple(params))
        return cursor

    def journal_seq(self, tx: SqlTx, game_id: str, command_id: str, returned: int) -> int:
        """The arrival number of the journal row just inserted: what its ``RETURNING seq``
        gave, where the column is a sequence."""
        return returned

    def recorded_version(self, table: str = "schema_version") -> int:
        """The highest version recorded in ``table`` (0 if none), read without any lock.

        Upgrades look here first: a database already at the version a process
        needs is left alone, so starting a process never takes a lock that could
        wait on (or deadlock with) the commands in flight.
        """
        with self.reading() as tx:
            if not self.table_exists(tx, table):
                return 0
            found = value(tx.execute(f"SELECT MAX(version) FROM {table}"))
        return int(found or 0)

    def create_tables(self, statements: Sequence[str], marker: str, version: int) -> None:
        """Run ``statements`` unless ``marker`` records ``version``, under the schema
        upgrade lock, so processes starting together do not race."""
        with self.transaction() as tx:
            self.upgrade_lock(tx)
            # again, under the lock: another process may have done it meanwhile (two
            # gunicorn workers starting together both ran an ALTER TABLE otherwise)
            if self.table_exists(tx, marker):
                done = value(tx.execute(f"SELECT MAX(version) FROM {marker}"))
                if int(done or 0) >= version:
                    return
            tx.execute(f"CREATE TABLE IF NOT EXISTS {marker} (version INTEGER PRIMARY KEY)")
            for statement in statements:
                tx.cursor.execute(statement)
            tx.execute(
                f"INSERT INTO {marker} (version) VALUES (%s) ON CONFLICT DO NOTHING", (version,)
            )

    def ping(self, timeout: float) -> None:
        """The database answers a query, a connection coming within ``timeout`` seconds
        where connections are pooled (``StoreUnavailable`` otherwise): for /readyz."""
        with self.reading() as tx:
            tx.cursor.execute("SELECT 1")
