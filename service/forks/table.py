"""The forks on SQL (``analysis_forks``): opened within an account's bound (one
statement), read, their moves replaced only over the count the writer saw (two tabs
cannot both append a move), deleted, and expired when untouched."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from service.store.base import SqlStore
from service.store.rows import Row, value


@dataclass(frozen=True)
class ForkRow:
    """One fork as stored."""

    fork_id: str
    account_id: str
    game_id: str
    version: int
    anchor_hash: str
    parent: str
    revealed: int
    deck: str  # JSON: the whole draw order, the original's drawn tiles first
    moves: str  # JSON: the fork's commands, each as the API encodes it
    moves_made: int
    created_at: str
    touched_at: str

    def order(self) -> tuple[str, ...]:
        return tuple(json.loads(self.deck))

    def commands(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = json.loads(self.moves)
        return found


FORK = Row(
    ForkRow,
    *("fork_id", "account_id", "game_id", "version", "anchor_hash", "parent", "revealed"),
    *("deck", "moves", "moves_made", "created_at", "touched_at"),
)


class ForkTable:
    """The forks table of one store."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    def create(self, row: ForkRow, most: int) -> bool:
        """Keep ``row``; False when its account already holds ``most`` forks (one
        statement: two racing opens cannot both pass the count)."""
        values = tuple(getattr(row, name) for name in FORK.names)
        with self.store.transaction() as tx:
            done = tx.execute(
                f"INSERT INTO analysis_forks ({FORK.select})"
                f" SELECT {', '.join(['%s'] * len(values))}"
                " WHERE (SELECT COUNT(*) FROM analysis_forks WHERE account_id = %s) < %s"
                " RETURNING fork_id",
                (*values, row.account_id, most),
            )
            return value(done) is not None

    def get(self, fork_id: str) -> ForkRow | None:
        with self.store.reading() as tx:
            return FORK.one(
                tx.execute(
                    f"SELECT {FORK.select} FROM analysis_forks WHERE fork_id = %s", (fork_id,)
                )
            )

    def replace_moves(self, fork_id: str, seen: int, moves: list[dict[str, Any]], now: str) -> bool:
        """The fork's moves become ``moves`` if it still has ``seen`` of them."""
        with self.store.transaction() as tx:
            done = tx.execute(
                "UPDATE analysis_forks SET moves = %s, moves_made = %s, touched_at = %s"
                " WHERE fork_id = %s AND moves_made = %s RETURNING fork_id",
                (json.dumps(moves, separators=(",", ":")), len(moves), now, fork_id, seen),
            )
            return value(done) is not None

    def delete(self, fork_id: str, account_id: str) -> bool:
        with self.store.transaction() as tx:
            done = tx.execute(
                "DELETE FROM analysis_forks WHERE fork_id = %s AND account_id = %s"
                " RETURNING fork_id",
                (fork_id, account_id),
            )
            return value(done) is not None

    def mine(self, account_id: str, most: int) -> list[ForkRow]:
        """The account's forks, the last touched first."""
        with self.store.reading() as tx:
            return FORK.all(
                tx.execute(
                    f"SELECT {FORK.select} FROM analysis_forks WHERE account_id = %s"
                    " ORDER BY touched_at DESC, fork_id LIMIT %s",
                    (account_id, most),
                )
            )

    def expire(self, before: str) -> int:
        """Delete every fork untouched since ``before``: how many."""
        with self.store.transaction() as tx:
            done = tx.execute(
                "DELETE FROM analysis_forks WHERE touched_at < %s RETURNING fork_id", (before,)
            )
            return len(done.fetchall())
