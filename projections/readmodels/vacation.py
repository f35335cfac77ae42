"""The automatic vacation read model (docs/vacation.md V3, V6): the spans of automatic
vacation each account's decisions hold or spent, read from the recorded clocks.

One row per decision of a game with vacation that could spend some (``rm_vacation``):
from where the decision's own time runs out (its clock's ``vacation.starts``) to its
deadline while it runs (``running``: held), cut to when it was taken once it is; a
decision taken before its own time ran out spent nothing and leaves no row. The ledger
of an account (``service.vacation``) is these spans and its announced ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from projections.contract import Batch, ReadModel
from projections.ports import Tx
from projections.writes import Writes

TABLE = """CREATE TABLE IF NOT EXISTS rm_vacation (
        game_id TEXT NOT NULL,
        since TEXT NOT NULL,
        account_id TEXT NOT NULL,
        starts_at TEXT NOT NULL,
        ends_at TEXT NOT NULL,
        running INTEGER NOT NULL,
        PRIMARY KEY (game_id, since))"""
INDEX = "CREATE INDEX IF NOT EXISTS rm_vacation_by_account ON rm_vacation (account_id, ends_at)"


@dataclass
class _Running:
    since: str
    starts: str
    ends: str


def apply(tx: Tx, writes: Writes, batch: Batch) -> None:
    """Follow each transaction's clock: hold a new decision's reserve, cut the one it ended."""
    found = tx.execute(
        "SELECT since, starts_at, ends_at FROM rm_vacation WHERE game_id = %s AND running = 1",
        (batch.game_id,),
    ).fetchall()
    running = _Running(*(str(v) for v in found[0])) if found else None
    seats = {p.seat: p.player_id for p in batch.after.players}
    for stored, _ in batch.events:
        meta = stored.meta()
        clock = meta.get("clock")
        if not isinstance(clock, dict):
            continue
        since = clock.get("since")
        if running is not None and (clock.get("seat") is None or since != running.since):
            _end(writes, batch.game_id, running, str(meta.get("recorded_at") or ""))
            running = None
        leave = clock.get("vacation")
        if running is None and isinstance(leave, dict) and _holds(clock, leave):
            running = _Running(str(since), str(leave["starts"]), str(clock["deadline"]))
            account = seats.get(int(clock["seat"]), "")
            row = (batch.game_id, running.since, account, running.starts, running.ends, 1)
            writes.execute(
                "INSERT INTO rm_vacation (game_id, since, account_id, starts_at, ends_at, running)"
                " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (game_id, since) DO UPDATE"
                " SET account_id = excluded.account_id, starts_at = excluded.starts_at,"
                " ends_at = excluded.ends_at, running = excluded.running",
                row,
            )


def _holds(clock: dict[str, Any], leave: dict[str, Any]) -> bool:
    """Whether a clock's running decision holds a reserve of automatic vacation."""
    return (
        bool(clock.get("since") and clock.get("deadline") and leave.get("starts"))
        and int(leave.get("reserve_ms") or 0) > 0
    )


def _end(writes: Writes, game_id: str, running: _Running, at: str) -> None:
    """The decision ended at ``at``: its span cut there (gone when it spent nothing)."""
    ends = min(running.ends, at, key=_moment)
    if _moment(ends) <= _moment(running.starts):
        writes.execute(
            "DELETE FROM rm_vacation WHERE game_id = %s AND since = %s", (game_id, running.since)
        )
    else:
        writes.execute(
            "UPDATE rm_vacation SET ends_at = %s, running = 0 WHERE game_id = %s AND since = %s",
            (ends, game_id, running.since),
        )


def _moment(text: str) -> str:
    """An ISO 8601 UTC time as a sortable key (the service records them all in UTC)."""
    moment = datetime.fromisoformat(text)
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


MODEL = ReadModel(
    tables=[TABLE, INDEX], owned=["rm_vacation"], apply=apply, migrations={7: [TABLE, INDEX]}
)


def spans(tx: Tx, account_id: str, after: str, most: int = 1000) -> list[Any]:
    """An account's spans of automatic vacation ending after ``after`` (ISO time): each
    ``(game_id, since, starts_at, ends_at, running)`` (read in the caller's transaction)."""
    found = tx.execute(
        "SELECT game_id, since, starts_at, ends_at, running FROM rm_vacation"
        " WHERE account_id = %s ORDER BY starts_at LIMIT %s",
        (account_id, most),
    ).fetchall()
    return [r for r in found if _moment(str(r[3])) > _moment(after)]
