"""PostgreSQL adapter (psycopg 3 with a connection pool): production."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from service.store.base import StoreError
from service.store.sql import SCHEMA_VERSION, TABLES, SqlEventStore

IMMUTABLE = [
    """CREATE OR REPLACE FUNCTION tongiaki_events_immutable() RETURNS trigger
       LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'events are immutable (%)', TG_OP; END $$""",
    """CREATE OR REPLACE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
       FOR EACH ROW EXECUTE FUNCTION tongiaki_events_immutable()""",
    """CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
       FOR EACH STATEMENT EXECUTE FUNCTION tongiaki_events_immutable()""",
]

# Any constant will do: it only has to be the same for every process.
UPGRADE_LOCK = 0x70D61A4


class PostgresEventStore(SqlEventStore):
    """Event store in PostgreSQL; the games row is locked for the length of an append."""

    lock_suffix = "FOR UPDATE"

    def __init__(self, url: str, min_size: int = 1, max_size: int = 10) -> None:
        self.url = url
        self.pool = ConnectionPool(
            url, min_size=min_size, max_size=max_size, open=True, kwargs={"autocommit": False}
        )

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        try:
            with self.pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
                yield cur
        except psycopg.errors.UniqueViolation as exc:
            raise StoreError(f"integrity: {exc}") from exc
        except psycopg.OperationalError as exc:
            raise StoreError(f"postgresql: {exc}") from exc

    def upgrade(self) -> int:
        """Create or migrate the schema under an advisory lock (idempotent)."""
        with self._tx() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (UPGRADE_LOCK,))
            cur.execute(
                "CREATE TABLE IF NOT EXISTS schema_version"
                " (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            for statement in TABLES:
                cur.execute(statement.format(serial="BIGSERIAL", blob="BYTEA"))
            for statement in IMMUTABLE:
                cur.execute(statement)
            cur.execute(
                "INSERT INTO schema_version (version) VALUES (%s) ON CONFLICT DO NOTHING",
                (SCHEMA_VERSION,),
            )
            cur.execute("SELECT MAX(version) FROM schema_version")
            row = cur.fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close the pool."""
        self.pool.close()
