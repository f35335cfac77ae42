"""Vacation arithmetic (docs/vacation.md, V3–V6): stopped clocks and what a reserve spends.

Pure: times in, times out; the service's clock and the ledger are the caller's. A
decision's clock in a game with vacation records a ``Leave``: the seat's announced
spells (``away``: its clock stands still during them, V4) and the automatic vacation it
may spend once its own time is up (``reserve_ms``, V3). Clock time is wall time less the
announced spells; a decision's deadline is where its clock time reaches its allowance
plus its reserve.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

MS_PER_DAY = 86_400_000
MAX_DAYS = 366  # the most days a year an account can have (TONGIAKI_VACATION_DAYS)
MOST_AWAY = 10  # announced spells a decision's clock records when it starts (V4)
# ... and at most once spells announced while it runs are added to it (V4, V9)
MOST_RECORDED = 2 * MOST_AWAY

Span = tuple[datetime, datetime]


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


def _parse(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def span_ms(start: datetime, end: datetime) -> int:
    """A span's length in whole milliseconds (0 when it is empty)."""
    if end <= start:
        return 0
    return int((end - start) / timedelta(milliseconds=1))


@dataclass(frozen=True)
class Leave:
    """A running decision's vacation as its clock records it (V3, V4): the seat's
    announced spells, the automatic vacation it may spend, when that would begin
    (``starts``: where the decision's own time runs out) and the account's days a year."""

    away: tuple[Span, ...] = ()
    reserve_ms: int = 0
    starts: datetime | None = None
    days: int = 0

    def to_data(self) -> dict[str, Any]:
        """The clock's ``vacation`` entry (JSON, integers and ISO times)."""
        return {
            "away": [[_stamp(a), _stamp(b)] for a, b in self.away],
            "reserve_ms": self.reserve_ms,
            "starts": _stamp(self.starts) if self.starts is not None else None,
            "days": self.days,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Leave:
        """The leave a clock's ``vacation`` entry describes."""
        away = tuple((_parse(str(a)), _parse(str(b))) for a, b in data.get("away") or ())
        starts = data.get("starts")
        return cls(
            away,
            int(data.get("reserve_ms") or 0),
            _parse(str(starts)) if starts else None,
            int(data.get("days") or 0),
        )


def merged(spans: Iterable[Span]) -> list[Span]:
    """The union of spans, as disjoint spans in order (empty ones dropped)."""
    out: list[Span] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def overlap(spans: Iterable[Span], start: datetime, end: datetime) -> timedelta:
    """How much of ``start``–``end`` the union of ``spans`` covers (exact)."""
    covered = [(max(a, start), min(b, end)) for a, b in merged(spans)]
    return sum((b - a for a, b in covered if b > a), timedelta())


def overlap_ms(spans: Iterable[Span], start: datetime, end: datetime) -> int:
    """How much of ``start``–``end`` the union of ``spans`` covers (whole ms, rounded down)."""
    return int(overlap(spans, start, end) / timedelta(milliseconds=1))


def clock_ms(since: datetime, until: datetime, away: Sequence[Span]) -> int:
    """Clock time from ``since`` to ``until``: wall time less the announced spells (V4),
    rounded down once (rounding the two apart could make a stopped clock tick by 1 ms)."""
    if until <= since:
        return 0
    return max(0, int((until - since - overlap(away, since, until)) / timedelta(milliseconds=1)))


def run_until(since: datetime, allowed_ms: int, away: Sequence[Span]) -> datetime:
    """When a clock started at ``since`` has run ``allowed_ms``, standing still during
    the announced spells (V4)."""
    moment, left = since, timedelta(milliseconds=max(0, allowed_ms))
    for start, end in merged(away):
        if end <= moment:
            continue
        start = max(start, moment)
        if moment + left <= start:
            return moment + left
        left -= start - moment
        moment = end
    return moment + left


def year_start(year: int) -> datetime:
    """1 January of ``year``, 00:00 UTC: vacation days are counted per calendar year (V1)."""
    return datetime(year, 1, 1, tzinfo=UTC)


def spent_ms(spans: Iterable[Span], year: int) -> int:
    """The vacation the spans spend in ``year`` (ms): their union, counted once (V6)."""
    return overlap_ms(spans, year_start(year), year_start(year + 1))


def left_ms(spans: Iterable[Span], year: int, days: int) -> int:
    """What is left of ``days`` in ``year`` (ms): never below zero (V1)."""
    return max(0, days * MS_PER_DAY - spent_ms(spans, year))


def reserve_end(start: datetime, spans: Sequence[Span], days: int) -> datetime:
    """Where automatic vacation begun at ``start`` ends (V3, V6): time the account's
    spells already cover is free (counted once), every other millisecond is charged to
    the days left in its calendar year; at most ``days`` in all for one decision."""
    covered = merged(spans)
    budgets: dict[int, int] = {}
    cap = days * MS_PER_DAY
    moment = start
    for _ in range(len(covered) + 8):
        inside = next((b for a, b in covered if a <= moment < b), None)
        if inside is not None:
            moment = inside
            continue
        following = next((a for a, _ in covered if a > moment), None)
        year = moment.year
        budget = budgets.setdefault(year, left_ms(covered, year, days))
        stop = year_start(year + 1)
        end = min(stop, following) if following is not None else stop
        room = min(budget, cap)
        length = span_ms(moment, end)
        if length >= room:
            return moment + timedelta(milliseconds=room)
        budgets[year] = budget - length
        cap -= length
        moment = end
    return moment
