"""The rows of a hash-chained stream, a game's (``events``) or a dispute's
(``dispute_events``): how its events are read and written, and its head."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from service.store.base import StoredEvent
from service.store.database import SqlTx
from service.store.rows import Row

EVENT = Row(StoredEvent, "game_id", "version", "type", "data", "metadata", "prev_hash", "hash")
# a dispute's events are stored events too, their stream's id in ``game_id``
DISPUTE_EVENT = Row(StoredEvent, "dispute_id AS game_id", *EVENT.names[1:])


@dataclass(frozen=True)
class Head:
    """A stream's head: its version and the hash its next event links to."""

    version: int
    hash: str


HEAD = Row(Head, "version", "hash")


def insert_events(
    tx: SqlTx, stored: Sequence[StoredEvent], table: str = "events", key: str = "game_id"
) -> None:
    """All of a command's events (or a dispute's: ``dispute_events``, keyed by
    ``dispute_id``) in one statement."""
    if not stored:
        return
    values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(stored))
    params: list[Any] = []
    for e in stored:
        params += [e.game_id, e.version, e.type, e.data, e.metadata, e.prev_hash, e.hash]
    tx.execute(
        f"INSERT INTO {table} ({key}, version, type, data, metadata, prev_hash, hash)"
        f" VALUES {values}",
        params,
    )
