"""The audit read model: every command the game received, beside the steps it caused.

One row per journal entry (``rm_audit``): who sent what, when, the version it
was judged at and the turn then, the outcome (with the rejection, if any) and
the versions of the events it caused. The only read model that follows the
command journal as well as the events.
"""

from __future__ import annotations

import json
from typing import Any

from projections.contract import Batch, ReadModel, rows
from projections.ports import Database, Tx
from projections.readmodels import timeline
from projections.writes import Writes

TABLES = [
    """CREATE TABLE IF NOT EXISTS rm_audit (
        game_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        turn INTEGER NOT NULL,
        command_id TEXT NOT NULL,
        actor TEXT NOT NULL,
        received_at TEXT NOT NULL,
        payload TEXT NOT NULL,
        judged_version INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        first_version INTEGER,
        last_version INTEGER,
        rejection TEXT,
        PRIMARY KEY (game_id, seq))""",
]
COLUMNS = (
    "game_id", "seq", "turn", "command_id", "actor", "received_at", "payload", "judged_version",
    "outcome", "first_version", "last_version", "rejection",
)  # fmt: skip


def apply(tx: Tx, writes: Writes, batch: Batch) -> None:
    if not batch.journal:
        return
    # the turn at every version this batch covers; older ones (a command judged
    # before the last catch-up but journalled after it) are loaded
    turns = {batch.base_version: batch.before.turn}
    for stored, _, _, after in batch.folded():
        turns[stored.version] = after.turn
    found = []
    for j in batch.journal:
        turn = turns.get(j.judged_version)
        if turn is None:
            turn = batch.state_at(j.judged_version).turn
        found.append(
            (
                batch.game_id,
                j.seq,
                turn,
                j.command_id,
                json.dumps(j.actor, sort_keys=True),
                j.received_at,
                json.dumps(j.payload, sort_keys=True),
                j.judged_version,
                j.outcome,
                j.first_version,
                j.last_version,
                json.dumps(j.rejection, sort_keys=True) if j.rejection is not None else None,
            )
        )
    writes.many("rm_audit", COLUMNS, found)


MODEL = ReadModel(tables=TABLES, owned=["rm_audit"], apply=apply, journal=True)


def commands(db: Database, game_id: str, after: int, limit: int) -> list[dict[str, Any]]:
    """Commands received after a sequence number, each with the steps it caused."""
    found = rows(
        db,
        "SELECT seq, turn, command_id, actor, received_at, payload, judged_version, outcome,"
        " first_version, last_version, rejection FROM rm_audit WHERE game_id = %s AND seq > %s"
        " ORDER BY seq LIMIT %s",
        (game_id, after, limit),
    )
    firsts = [r[8] for r in found if r[8] is not None]
    lasts = [r[9] for r in found if r[9] is not None]
    gone = timeline.rewinds(db, game_id) if firsts else []
    steps = (
        timeline.steps_between(db, game_id, min(firsts), max(lasts), gone)
        if firsts and lasts
        else {}
    )
    return [_command(r, steps) for r in found]


def _command(r: Any, steps: dict[int, timeline.StepRow]) -> dict[str, Any]:
    """One command as read, with the steps (of ``steps``) it caused."""
    first, last = r[8], r[9]
    versions = range(first, last + 1) if first is not None and last is not None else ()
    return {
        "seq": r[0],
        "turn": r[1],
        "command_id": r[2],
        "actor": json.loads(r[3]),
        "received_at": r[4],
        "payload": json.loads(r[5]),
        "judged_version": r[6],
        "outcome": r[7],
        "first_version": first,
        "last_version": last,
        "rejection": json.loads(r[10]) if r[10] is not None else None,
        "events": [steps[v] for v in versions if v in steps],
    }
