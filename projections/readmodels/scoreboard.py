"""The scoreboard read model: each game's scoreboard as of its last event.

One row per game (``rm_scoreboard``): the scoreboard ``projections.models``
computes from the state, as JSON, with the version it stands at.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict, cast

from projections.contract import Batch, ReadModel, rows
from projections.models import scoreboard
from projections.ports import Database, Tx
from projections.writes import Writes

TABLES = [
    """CREATE TABLE IF NOT EXISTS rm_scoreboard (
        game_id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        data TEXT NOT NULL)""",
]


class Scoreboard(TypedDict):
    """A game's scoreboard (``projections.models.scoreboard``) at ``version``."""

    version: int
    final: dict[str, Any] | None
    seats: list[dict[str, Any]]
    status: str
    turn: int


def apply(tx: Tx, writes: Writes, batch: Batch) -> None:
    version = batch.events[-1][0].version
    data = json.dumps(scoreboard(batch.after), sort_keys=True)
    writes.upsert("rm_scoreboard", ("game_id", "version", "data"), (batch.game_id, version, data))


MODEL = ReadModel(tables=TABLES, owned=["rm_scoreboard"], apply=apply)


def board(db: Database, game_id: str) -> Scoreboard | None:
    """The game's scoreboard with its ``version``, or None before it is built."""
    found = rows(db, "SELECT version, data FROM rm_scoreboard WHERE game_id = %s", (game_id,))
    if not found:
        return None
    # as stored (its keys sorted), after the version
    return cast(Scoreboard, {"version": int(found[0][0]), **json.loads(found[0][1])})
