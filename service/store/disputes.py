"""The ``Disputes`` port on a SQL database: each dispute a hash-chained stream of its own
(``dispute_events``) with its index row (``disputes``), kept apart from the games."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from service.store.base import (
    GENESIS,
    ConcurrencyConflict,
    DisputeRow,
    NewEvent,
    StoredEvent,
    chain_events,
    no_nul,
)
from service.store.chains import DISPUTE_EVENT, HEAD, Head, insert_events
from service.store.database import SqlDatabase, SqlTx
from service.store.log_port import dispute_stream
from service.store.log_sql import add_pending
from service.store.rows import Row, named, value


def _dispute(*, version: int, **columns: Any) -> DisputeRow:
    return DisputeRow(version=int(version), **columns)


DISPUTE = Row(
    _dispute,
    "dispute_id",
    "game_id",
    "version",
    "hash",
    "status",
    "opened_by",
    "reason",
    "created_at",
    "updated_at",
)
COUNT = Row(named, "game_id", "status", "COUNT(*) AS n")


def _claim(tx: SqlTx, dispute_id: str, expected_version: int, new_row: Sequence[Any]) -> Head:
    """The dispute's head, its row locked: a new dispute's claimed at version 0 (``new_row``:
    its index row's values), an open one's at ``expected_version`` (``ConcurrencyConflict``
    if it is not there)."""
    if expected_version == 0:
        claimed = value(
            tx.execute(
                f"INSERT INTO disputes ({DISPUTE.select}) VALUES"
                " (%s, %s, 0, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (dispute_id) DO NOTHING RETURNING version",
                new_row,
            )
        )
        if claimed is None:
            raise ConcurrencyConflict(dispute_id, 0, -1)
        return Head(0, GENESIS)
    head = HEAD.one(
        tx.execute(
            f"SELECT {HEAD.select} FROM disputes WHERE dispute_id = %s {tx.db.lock_suffix}",
            (dispute_id,),
        )
    )
    if head is None or int(head.version) != expected_version:
        raise ConcurrencyConflict(dispute_id, expected_version, int(head.version) if head else 0)
    return Head(int(head.version), head.hash)


def append_in(
    tx: SqlTx,
    dispute_id: str,
    game_id: str,
    expected_version: int,
    events: Sequence[NewEvent],
    status: str,
    at: str,
    opened_by: str = "",
    reason: str = "",
) -> list[StoredEvent]:
    """Append to a dispute inside the caller's transaction (a ruling: with its game's)."""
    new_row = (dispute_id, game_id, GENESIS, status, opened_by, reason, at, at)
    head = _claim(tx, dispute_id, expected_version, new_row)
    stored = chain_events(dispute_id, head.version, head.hash, events)
    insert_events(tx, stored, "dispute_events", "dispute_id")
    tx.execute(
        "UPDATE disputes SET version = %s, hash = %s, status = %s, updated_at = %s"
        " WHERE dispute_id = %s",
        (stored[-1].version, stored[-1].hash, status, at, dispute_id),
    )
    add_pending(tx, dispute_stream(dispute_id), stored[-1].version, stored[-1].hash)
    return stored


class SqlDisputes:
    """Dispute streams in ``dispute_events``, their index in ``disputes``."""

    def __init__(self, db: SqlDatabase) -> None:
        self.db = db

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
        with self.db.transaction() as tx:
            return append_in(
                tx, dispute_id, game_id, expected_version, events, status, at, opened_by, reason
            )

    def dispute_events(self, dispute_id: str) -> list[StoredEvent]:
        """A dispute's events in order (empty if unknown)."""
        with self.db.reading() as tx:
            return DISPUTE_EVENT.all(
                tx.execute(
                    f"SELECT {DISPUTE_EVENT.select}"
                    " FROM dispute_events WHERE dispute_id = %s ORDER BY version",
                    (dispute_id,),
                )
            )

    def dispute(self, dispute_id: str) -> DisputeRow | None:
        """A dispute's index row."""
        with self.db.reading() as tx:
            return DISPUTE.one(
                tx.execute(
                    f"SELECT {DISPUTE.select} FROM disputes WHERE dispute_id = %s", (dispute_id,)
                )
            )

    def disputes(
        self,
        game_id: str | None = None,
        status: str | None = None,
        limit: int = 100,
        offset: int = 0,
        opened_by: str | None = None,
    ) -> list[DisputeRow]:
        """Disputes, oldest first, of one game and/or one status (and/or one opener)."""
        query = f"SELECT {DISPUTE.select} FROM disputes WHERE version > 0"
        params: list[Any] = []
        if game_id is not None:
            query += " AND game_id = %s"
            params.append(game_id)
        if status is not None:
            query += " AND status = %s"
            params.append(status)
        if opened_by is not None:
            query += " AND opened_by = %s"
            params.append(opened_by)
        query += " ORDER BY created_at, dispute_id LIMIT %s OFFSET %s"
        params += [limit, offset]
        with self.db.reading() as tx:
            return DISPUTE.all(tx.execute(query, params))

    def dispute_counts(self, game_ids: Iterable[str]) -> dict[str, dict[str, int]]:
        """For each of these games that has disputes: how many, by status (one query)."""
        ids = sorted(set(game_ids))
        if not ids:
            return {}
        marks = ", ".join(["%s"] * len(ids))
        with self.db.reading() as tx:
            rows = COUNT.all(
                tx.execute(
                    f"SELECT {COUNT.select} FROM disputes"
                    f" WHERE version > 0 AND game_id IN ({marks}) GROUP BY game_id, status",
                    ids,
                )
            )
        counts: dict[str, dict[str, int]] = {}
        for r in rows:
            counts.setdefault(r["game_id"], {})[r["status"]] = int(r["n"])
        return counts
