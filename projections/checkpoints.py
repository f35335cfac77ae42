"""Checkpoints: how far each projection has got with each game, and its failures.

Per projection and game, the last event version applied (the audit also the
last journal sequence number). A catch-up locks the game's rows first, so a
duplicate, late or out-of-order job finds nothing to do. A projection that
fails on a game is retried; after ``MAX_ATTEMPTS`` failures it is halted for
that game, with the error recorded and shown (never skipped).
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Sequence
from dataclasses import dataclass

from projections.ports import Database, Tx
from projections.writes import Writes

log = logging.getLogger("tongiaki.projections")

MAX_ATTEMPTS = 3

TABLE = """CREATE TABLE IF NOT EXISTS projection_checkpoints (
        projection TEXT NOT NULL,
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 0,
        seq BIGINT NOT NULL DEFAULT 0,
        failures INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        updated_at TEXT,
        PRIMARY KEY (projection, game_id))"""


class ProjectionHalted(Exception):
    """The projection stopped for a game after repeated failures (a poison event)."""

    def __init__(self, projection: str, game_id: str, error: str) -> None:
        super().__init__(f"{projection} is halted for game {game_id}: {error}")
        self.projection = projection
        self.game_id = game_id
        self.error = error


@dataclass(frozen=True)
class Checkpoint:
    projection: str
    game_id: str
    version: int
    seq: int
    failures: int
    error: str | None
    updated_at: str | None


@dataclass(frozen=True)
class Lag:
    """How far one projection is behind the event store."""

    projection: str
    games: int
    behind: int
    events_behind: int
    halted: list[tuple[str, str]]


def fresh(name: str, game_id: str) -> Checkpoint:
    """A checkpoint before anything is applied (as a rebuild starts)."""
    return Checkpoint(name, game_id, 0, 0, 0, None, None)


def lock(tx: Tx, db: Database, names: Sequence[str], game_id: str) -> dict[str, Checkpoint]:
    """The game's checkpoints of ``names``, created if new, locked until commit."""
    values = ", ".join(["(%s, %s)"] * len(names))
    tx.execute(
        f"INSERT INTO projection_checkpoints (projection, game_id) VALUES {values}"
        " ON CONFLICT (projection, game_id) DO NOTHING",
        [x for name in names for x in (name, game_id)],
    )
    marks = ", ".join(["%s"] * len(names))
    rows = tx.execute(
        "SELECT projection, version, seq, failures, error, updated_at"
        f" FROM projection_checkpoints WHERE game_id = %s AND projection IN ({marks})"
        f" ORDER BY projection {db.lock_suffix}",
        (game_id, *names),
    ).fetchall()
    return {
        r[0]: Checkpoint(r[0], game_id, int(r[1]), int(r[2]), int(r[3]), r[4], r[5]) for r in rows
    }


def save(writes: Writes, point: Checkpoint, version: int, seq: int, now: str) -> None:
    """Move a checkpoint on (its failures forgotten)."""
    writes.execute(
        "UPDATE projection_checkpoints SET version = %s, seq = %s, failures = 0,"
        " error = NULL, updated_at = %s WHERE projection = %s AND game_id = %s",
        (version, seq, now, point.projection, point.game_id),
    )


def count_failure(writes: Writes, point: Checkpoint, exc: Exception, now: str) -> None:
    """Count a failure; the last allowed one halts the projection for the game."""
    error = f"{type(exc).__name__}: {exc}"
    failures = point.failures + 1
    log.warning("projection %s failed on game %s: %s", point.projection, point.game_id, error)
    halted = error if failures >= MAX_ATTEMPTS else None
    if halted:
        log.error(
            "projection %s halted for game %s after %d failures:\n%s",
            point.projection,
            point.game_id,
            failures,
            "".join(traceback.format_exception(exc)),
        )
    writes.execute(
        "UPDATE projection_checkpoints SET failures = %s, error = %s, updated_at = %s"
        " WHERE projection = %s AND game_id = %s",
        (failures, halted, now, point.projection, point.game_id),
    )


def resume(db: Database, name: str, game_id: str) -> None:
    """Clear a halted projection's error so the next catch-up tries again."""
    with db.transaction() as tx:
        tx.execute(
            "UPDATE projection_checkpoints SET failures = 0, error = NULL"
            " WHERE projection = %s AND game_id = %s",
            (name, game_id),
        )


def read(db: Database, name: str, game_id: str) -> Checkpoint | None:
    """One projection's checkpoint for one game, if it has one."""
    with db.reading() as tx:
        row = tx.execute(
            "SELECT version, seq, failures, error, updated_at FROM projection_checkpoints"
            " WHERE projection = %s AND game_id = %s",
            (name, game_id),
        ).fetchone()
    if row is None:
        return None
    return Checkpoint(name, game_id, int(row[0]), int(row[1]), int(row[2]), row[3], row[4])


def every(tx: Tx) -> dict[tuple[str, str], tuple[int, int, str | None]]:
    """Every checkpoint: (projection, game) → (version, seq, error)."""
    points = tx.execute(
        "SELECT projection, game_id, version, seq, error FROM projection_checkpoints"
    ).fetchall()
    return {(r[0], r[1]): (int(r[2]), int(r[3]), r[4]) for r in points}


def lag(tx: Tx, name: str, heads: dict[str, int]) -> Lag:
    """How far one projection is behind the games' ``heads``."""
    points = {
        r[0]: (int(r[1]), r[2])
        for r in tx.execute(
            "SELECT game_id, version, error FROM projection_checkpoints WHERE projection = %s",
            (name,),
        ).fetchall()
    }
    behind = [g for g, v in heads.items() if points.get(g, (0, None))[0] < v]
    return Lag(
        name,
        len(heads),
        len(behind),
        sum(heads[g] - points.get(g, (0, None))[0] for g in behind),
        sorted((g, e) for g, (_, e) in points.items() if e),
    )
