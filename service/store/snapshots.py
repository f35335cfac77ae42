"""The ``Snapshots`` port on a SQL database: folds kept as a cache (table ``snapshots``),
keyed by game, fold version and version; always safe to delete."""

from __future__ import annotations

from typing import Any

from service.store.base import Snapshot
from service.store.database import SqlDatabase
from service.store.rows import Row

SNAPSHOT = Row(Snapshot, "game_id", "version", "fold_version", "state")


class SqlSnapshots:
    """Cached folds in the ``snapshots`` table."""

    def __init__(self, db: SqlDatabase) -> None:
        self.db = db

    def put_snapshot(self, snapshot: Snapshot) -> None:
        """Cache a fold; an existing snapshot at the same version is kept."""
        with self.db.transaction() as tx:
            tx.execute(
                "INSERT INTO snapshots (game_id, fold_version, version, state)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (game_id, fold_version, version) DO NOTHING",
                (snapshot.game_id, snapshot.fold_version, snapshot.version, snapshot.state),
            )

    def get_snapshot(
        self, game_id: str, fold_version: str, at_most: int | None = None
    ) -> Snapshot | None:
        """The newest snapshot of this fold version at or below ``at_most``."""
        query = f"SELECT {SNAPSHOT.select} FROM snapshots WHERE game_id = %s AND fold_version = %s"
        params: list[Any] = [game_id, fold_version]
        if at_most is not None:
            query += " AND version <= %s"
            params.append(at_most)
        query += " ORDER BY version DESC LIMIT 1"
        with self.db.reading() as tx:
            return SNAPSHOT.one(tx.execute(query, params))
