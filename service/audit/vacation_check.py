"""Verification of a game's vacation (docs/vacation.md V7): every leave a decision's clock
records is one the rules allow, and no seat spends more vacation in the game than its
days a year.

The clocks themselves are recomputed by the re-run (``service.audit.rerun``), the
recorded leave given: a leave in a game without vacation, a deadline its leave does not
give, or a move or timeout on the wrong side of it is found there. Here: the leave's own
figures (where the decision's own time runs out, the days, the reserve, the spells),
and what each seat spent, per calendar year.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from service.store.base import StoredEvent
from service.timing.clocks import Clock, parse_time
from service.timing.vacation import (
    MAX_DAYS,
    MOST_RECORDED,
    MS_PER_DAY,
    Leave,
    Span,
    run_until,
    spent_ms,
)


def vacation_problems(stored: Sequence[StoredEvent]) -> list[str]:
    """What is wrong with the vacation the game's clocks record (V7)."""
    problems: list[str] = []
    spent: dict[int, list[Span]] = {}
    days: dict[int, int] = {}
    running: Clock | None = None
    for e in stored:
        data = e.meta().get("clock")
        if not isinstance(data, dict):
            continue
        try:
            clock = Clock.from_data(data)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            problems.append(f"event {e.version}: its clock cannot be read ({exc}) (V7)")
            continue
        if running is not None and running.vacation is not None and clock.used_ms is not None:
            at = parse_time(str(e.meta().get("recorded_at")))
            seat = running.seat if running.seat is not None else 0
            spent.setdefault(seat, []).extend(_spent(running, clock, at))
        if clock.vacation is not None and clock.vacation != (running.vacation if running else None):
            problems.extend(_leave_problems(e.version, clock, clock.vacation))
            days[clock.seat or 0] = max(days.get(clock.seat or 0, 0), clock.vacation.days)
        running = clock
    for seat, spans in sorted(spent.items()):
        for year in sorted({s[0].year for s in spans} | {s[1].year for s in spans}):
            used = spent_ms(spans, year)
            if used > days.get(seat, 0) * MS_PER_DAY:
                problems.append(
                    f"seat {seat} spent {used} ms of vacation in {year} in this game, more than"
                    f" its {days.get(seat, 0)} days (V1, V7)"
                )
    return problems


def _leave_problems(version: int, clock: Clock, leave: Leave) -> list[str]:
    """A recorded leave's own figures (V3, V4)."""
    where = f"event {version}: the clock's vacation"
    found = []
    if not 0 <= leave.days <= MAX_DAYS:
        found.append(f"{where} names {leave.days} days a year (0 to {MAX_DAYS}) (V1)")
    if not 0 <= leave.reserve_ms <= leave.days * MS_PER_DAY:
        found.append(f"{where} holds {leave.reserve_ms} ms, over its {leave.days} days (V3)")
    if len(leave.away) > MOST_RECORDED or any(b <= a for a, b in leave.away):
        found.append(f"{where} records spells that are no spells (V4)")
    if clock.since is not None and clock.paused_at is None:
        starts = run_until(clock.since, clock.allowed_ms() or 0, leave.away)
        if leave.starts != starts:
            found.append(
                f"{where} starts at {leave.starts}, not where the decision's own time runs"
                f" out ({starts.isoformat()}) (V3)"
            )
    return found


def _spent(running: Clock, after: Clock, at: datetime) -> list[Span]:
    """The vacation a decision spent, taken at ``at``: its clock's stops in the seat's
    spells, and the automatic vacation its clock records it spent (V3, V4)."""
    leave = running.vacation
    assert leave is not None and running.since is not None
    spans = [(max(a, running.since), min(b, at)) for a, b in leave.away]
    used = after.vacation_used_ms or 0
    if used and leave.starts is not None:
        spans.append((leave.starts, run_until(leave.starts, used, leave.away)))
    return [s for s in spans if s[1] > s[0]]
