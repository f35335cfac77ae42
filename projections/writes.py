"""The writes of a catch-up, collected while the read models compute, sent together.

A read model writes through ``Writes`` rather than to the transaction: the
engine takes back the writes of one that fails (``mark``/``rollback``) and
sends the rest in one go at the end (``flush``: one pipeline on PostgreSQL).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from projections.ports import Database, Tx


class Writes:
    """Writes collected while the projections compute, sent together at the end."""

    def __init__(self, db: Database) -> None:
        self.postgres = db.postgres
        self.ops: list[tuple[str, Any, bool]] = []  # (sql, params, many)

    def execute(self, sql: str, params: Sequence[Any]) -> None:
        self.ops.append((sql, tuple(params), False))

    def many(self, table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
        """Insert many rows: one JSON argument on PostgreSQL, ``executemany`` on SQLite."""
        if not rows:
            return
        names = ", ".join(columns)
        # a row already there is the same row (folds are deterministic): applying an
        # event twice, should a checkpoint ever fall behind its rows, changes nothing
        if self.postgres:
            records = [dict(zip(columns, row, strict=True)) for row in rows]
            self.execute(
                f"INSERT INTO {table} ({names}) SELECT {names}"
                f" FROM json_populate_recordset(NULL::{table}, %s) ON CONFLICT DO NOTHING",
                (json.dumps(records),),
            )
        else:
            marks = ", ".join(["%s"] * len(columns))
            sql = f"INSERT INTO {table} ({names}) VALUES ({marks}) ON CONFLICT DO NOTHING"
            self.ops.append((sql, rows, True))

    def upsert(self, table: str, columns: Sequence[str], row: Sequence[Any]) -> None:
        """Insert a row, or update the one with the same key (the first column)."""
        names = ", ".join(columns)
        marks = ", ".join(["%s"] * len(columns))
        updates = ", ".join(f"{c} = excluded.{c}" for c in columns[1:])
        self.execute(
            f"INSERT INTO {table} ({names}) VALUES ({marks})"
            f" ON CONFLICT ({columns[0]}) DO UPDATE SET {updates}",
            tuple(row),
        )

    def mark(self) -> int:
        return len(self.ops)

    def rollback(self, mark: int) -> None:
        del self.ops[mark:]

    def flush(self, tx: Tx) -> None:
        """Send every write (PostgreSQL: in one pipeline, a single round trip)."""
        with tx.pipeline():
            for sql, params, many in self.ops:
                if many:
                    tx.executemany(sql, params)
                else:
                    tx.execute(sql, params)
        self.ops.clear()
