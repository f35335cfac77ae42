"""The "my move" queue read model: for every game waiting on a player's decision,
whose it is and since when (docs/profiles.md, Q1–Q3).

One row per game whose pending decision is a person's (``rm_queue``): the account,
since when the decision waits (the recorded time of the event that made it
pending: Q2), and its deadline when the game is timed (the clock the last
transaction recorded, docs/clocks.md C2). No row while the game is paused (D7),
open, over, or while the bot plays the pending seat (C5, C6). The index by account
and waiting time answers ``GET /me/queue`` without reading any game's events.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from domain.state import GameState, Phase
from projections.contract import Batch, ReadModel, rows
from projections.ports import Database, Tx
from projections.writes import Writes

TABLES = [
    """CREATE TABLE IF NOT EXISTS rm_queue (
        game_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        waiting_since TEXT NOT NULL,
        deadline TEXT,
        decision TEXT NOT NULL,
        colour TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS rm_queue_by_account"
    " ON rm_queue (account_id, waiting_since, game_id)",
]
COLUMNS = ("game_id", "account_id", "version", "waiting_since", "deadline", "decision", "colour")


def waiting_player(state: GameState) -> str | None:
    """The account whose decision the game waits for (Q1), or None."""
    if state.phase not in (Phase.SETUP, Phase.PLAYING) or state.pending is None:
        return None
    if state.paused is not None:
        return None
    owner = state.owner(state.pending.colour)
    if state.bot_reason(owner.seat) is not None:
        return None
    return owner.player_id


def _utc(recorded: object) -> str:
    """A recorded time as ISO 8601 in UTC ("" when there is none)."""
    if not isinstance(recorded, str):
        return ""
    try:
        moment = datetime.fromisoformat(recorded)
    except ValueError:
        return ""
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def _since(tx: Tx, batch: Batch) -> str | None:
    """When the pending decision became pending (Q2): the last event of the batch that
    changed it, else what this read model's row already says."""
    since = None
    for stored, _, before, after in batch.folded():
        if before.pending != after.pending or before.paused != after.paused:
            since = _utc(stored.meta().get("recorded_at"))
    if since is not None or batch.base_version == 0:
        return since
    found = tx.execute(
        "SELECT waiting_since FROM rm_queue WHERE game_id = %s", (batch.game_id,)
    ).fetchall()
    return str(found[0][0]) if found else None


def apply(tx: Tx, writes: Writes, batch: Batch) -> None:
    state = batch.after
    player = waiting_player(state)
    since = _since(tx, batch) if player is not None else None
    if player is None or state.pending is None:
        writes.execute("DELETE FROM rm_queue WHERE game_id = %s", (batch.game_id,))
        return
    clock = batch.clock or {}
    deadline = clock.get("deadline") if state.options.time_control != "none" else None
    row = (
        batch.game_id,
        player,
        batch.events[-1][0].version,
        since or batch.last_activity,
        _utc(deadline) or None,
        state.pending.kind,
        state.pending.colour,
    )
    writes.upsert("rm_queue", COLUMNS, row)


MODEL = ReadModel(tables=TABLES, owned=["rm_queue"], apply=apply, migrations={9: TABLES})


def waiting(db: Database, account_id: str, limit: int) -> list[dict[str, Any]]:
    """The games waiting for the account's decision, the one waiting longest first."""
    found = rows(
        db,
        f"SELECT {', '.join(COLUMNS)} FROM rm_queue WHERE account_id = %s"
        " ORDER BY waiting_since, game_id LIMIT %s",
        (account_id, limit),
    )
    return [
        {
            "game_id": r[0],
            "version": int(r[2]),
            "waiting_since": r[3],
            "deadline": r[4],
            "decision": r[5],
            "colour": r[6],
        }
        for r in found
    ]


def count(db: Database, account_id: str) -> int:
    """How many games wait for the account's decision."""
    found = rows(db, "SELECT COUNT(*) FROM rm_queue WHERE account_id = %s", (account_id,))
    return int(found[0][0]) if found else 0
