"""The deadlines read model: when each game's turn clock needs the service next.

One row per game waiting on time (``rm_clocks``, in epoch ms, docs/clocks.md):
at once when the pending seat is the bot's (C5, C6), at the recorded deadline
otherwise (C3); no row when nothing waits on time. The service's timekeeper
and the worker's sweep ask it which games are due. It is kept under the
lobby's checkpoint (``projections.readmodels``), as it was when the lobby
wrote it: the stored checkpoints are unchanged.
"""

from __future__ import annotations

from typing import NamedTuple

from projections.contract import Batch, ReadModel, rows
from projections.models import due_ms
from projections.ports import Database, Tx
from projections.writes import Writes

TABLES = [
    """CREATE TABLE IF NOT EXISTS rm_clocks (
        game_id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        due_ms BIGINT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS rm_clocks_by_due ON rm_clocks (due_ms)",
]


class Due(NamedTuple):
    """A game whose clock needs the service, and when (epoch ms)."""

    game_id: str
    due_ms: int


def apply(tx: Tx, writes: Writes, batch: Batch) -> None:
    due = due_ms(batch.after, batch.clock, batch.last_activity)
    if due is None:
        writes.execute("DELETE FROM rm_clocks WHERE game_id = %s", (batch.game_id,))
    else:
        version = batch.events[-1][0].version
        writes.upsert("rm_clocks", ("game_id", "version", "due_ms"), (batch.game_id, version, due))


MODEL = ReadModel(tables=TABLES, owned=["rm_clocks"], apply=apply)


def due(db: Database, game_id: str) -> int | None:
    """When the game's clock needs the service next (epoch ms; docs/clocks.md)."""
    found = rows(db, "SELECT due_ms FROM rm_clocks WHERE game_id = %s", (game_id,))
    return int(found[0][0]) if found else None


def due_games(db: Database, now_ms: int, limit: int = 1000) -> list[Due]:
    """Games whose clock needed the service by ``now_ms`` (with when, epoch ms), the most
    overdue first."""
    found = rows(
        db,
        "SELECT game_id, due_ms FROM rm_clocks WHERE due_ms <= %s ORDER BY due_ms LIMIT %s",
        (now_ms, limit),
    )
    return [Due(str(r[0]), int(r[1])) for r in found]
