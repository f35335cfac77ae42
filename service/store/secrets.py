"""The ``Secrets`` port on a SQL database: deck seeds, kept apart from the events (table
``secrets``), and never replaced once kept."""

from __future__ import annotations

from service.store.database import SqlDatabase, SqlTx
from service.store.rows import value


def keep_seed(tx: SqlTx, game_id: str, seed: bytes) -> None:
    """Keep a game's deck seed inside ``tx``, unless the game has one already."""
    tx.execute(
        "INSERT INTO secrets (game_id, seed) VALUES (%s, %s) ON CONFLICT (game_id) DO NOTHING",
        (game_id, seed),
    )


class SqlSecrets:
    """Deck seeds in the ``secrets`` table."""

    def __init__(self, db: SqlDatabase) -> None:
        self.db = db

    def put_secret(self, game_id: str, seed: bytes) -> bytes:
        """Keep a game's deck seed; the seed kept (an earlier one for this game stays)."""
        with self.db.transaction() as tx:
            keep_seed(tx, game_id, seed)
            kept = value(tx.execute("SELECT seed FROM secrets WHERE game_id = %s", (game_id,)))
        return bytes(kept)

    def get_secret(self, game_id: str) -> bytes | None:
        """A game's deck seed, or None."""
        with self.db.reading() as tx:
            seed = value(tx.execute("SELECT seed FROM secrets WHERE game_id = %s", (game_id,)))
        return bytes(seed) if seed is not None else None
