"""Vacation as the service keeps it (docs/vacation.md): an account's days a year (V1), the
leave each decision of a game with vacation records (V3, V4), announcing a spell "away
until …" (V4) and what is refused (V5), and what the other players see (V8)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from service.errors import Conflict
from service.store.base import Account, SqlStore
from service.timing.clocks import stamp
from service.timing.vacation import (
    MOST_AWAY,
    MS_PER_DAY,
    Leave,
    Span,
    clock_ms,
    left_ms,
    merged,
    reserve_end,
    run_until,
    spent_ms,
)
from service.vacation.ledger import Ledger, Spans
from service.vacation.schema import TABLES, VACATION_SCHEMA

MOST_A_YEAR = 10  # announced spells an account may have ending in the next year (V5)
AHEAD = timedelta(days=366)  # a spell ends within a year of its announcement (V5)


@dataclass(frozen=True)
class Standing:
    """An account's vacation now (V1, V8): its days a year, what is left this year, and
    its announced spells not over yet."""

    days: int
    year: int
    spent_ms: int
    left_ms: int
    announced: tuple[Span, ...]
    away_until: datetime | None  # the end of the announced spell it is in now, if any
    # (year, spent, left) for this year and each later one an announced spell reaches
    years: tuple[tuple[int, int, int], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """As the API shows it."""
        return {
            "days_a_year": self.days,
            "year": self.year,
            "spent_ms": self.spent_ms,
            "left_ms": self.left_ms,
            "days_left": days_text(self.left_ms),
            "announced": [{"from": stamp(a), "until": stamp(b)} for a, b in self.announced],
            "away_until": stamp(self.away_until) if self.away_until else None,
            "years": [
                {"year": y, "spent_ms": spent, "left_ms": left, "days_left": days_text(left)}
                for y, spent, left in self.years
            ],
        }


def days_text(ms: int) -> float:
    """Milliseconds as days, to a tenth (rounded down: never more than there is)."""
    return (ms * 10 // MS_PER_DAY) / 10


class Vacations:
    """Vacation, the one object the app holds for it."""

    def __init__(self, store: SqlStore, days: int, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.days = days
        self.clock = clock
        self.ledger = Ledger(store)
        # records an announced spell at the account's games under way (V4; bootstrap)
        self.tell: Callable[[Account, Span], object] | None = None

    def upgrade(self) -> None:
        """Create the announced spells' table (idempotent)."""
        self.store.ensure_tables(TABLES, "vacation_schema", VACATION_SCHEMA)

    def plan(self, game_id: str, player_id: str, since: datetime, allowed_ms: int) -> Leave:
        """The leave of a decision ``player_id`` starts at ``since`` (V3, V4): the clock
        stands still during the account's announced spells; once its own time is up, its
        reserve is what the account may still spend, time already covered for free (V6)."""
        spans = self.ledger.spans(player_id, since)
        away = tuple(s for s in spans.announced if s[1] > since)[:MOST_AWAY]
        starts = run_until(since, allowed_ms, away)
        end = reserve_end(starts, spans.covered(game_id), self.days)
        return Leave(away, clock_ms(starts, end, away), starts, self.days)

    def standing(self, account_id: str) -> Standing:
        """The account's vacation now (V1)."""
        now = self.clock()
        spans = self.ledger.spans(account_id, now)
        return _standing(spans, self.days, now)

    def announce(self, who: Account, starts: datetime | None, until: datetime) -> Standing:
        """Announce a spell away (V4), refused with the reason when it cannot be (V5)."""
        now = self.clock()
        start = max(starts or now, now)
        if starts is not None and starts < now - timedelta(minutes=1):
            raise Conflict(
                "vacation_in_past", f"a vacation starts now or later, not {starts.isoformat()}",
                rule="V5",
            )  # fmt: skip
        if until <= start:
            raise Conflict(
                "vacation_ends_before_start",
                f"a vacation ends after it starts ({stamp(start)}), not at {until.isoformat()}",
                rule="V5",
            )
        if until > now + AHEAD:
            raise Conflict(
                "vacation_too_far", "a vacation ends within a year of its announcement",
                rule="V5",
            )  # fmt: skip
        if not self.ledger.sits_at_vacation_game(who.account_id):
            raise Conflict(
                "no_vacation_games",
                "you sit at no game open or under way whose clock vacation stops:"
                " nothing to announce",
                rule="V5",
            )
        with self.ledger.locked(who.account_id) as tx:
            self._check(tx, who.account_id, (start, until), now)
            self.ledger.add(tx, who.account_id, (start, until), now)
        if self.tell is not None:
            self.tell(who, (start, until))
        return self.standing(who.account_id)

    def _check(self, tx: Any, account_id: str, spell: Span, now: datetime) -> None:
        """V5: no overlap with another announced spell, not too many, within days left."""
        spans = self.ledger.spans(account_id, now, tx)
        announced = list(spans.announced)
        if any(a < spell[1] and spell[0] < b for a, b in announced):
            raise Conflict(
                "vacation_overlaps", "this vacation overlaps one you announced already",
                rule="V5",
            )  # fmt: skip
        if sum(1 for _, b in announced if b > now) >= MOST_A_YEAR:
            raise Conflict(
                "too_many_vacations",
                f"at most {MOST_A_YEAR} announced vacations at a time", rule="V5",
            )  # fmt: skip
        spent = spans.charged()
        for year in range(spell[0].year, spell[1].year + 1):
            left = left_ms(spent, year, self.days)
            needed = spent_ms([*spent, spell], year) - spent_ms(spent, year)
            if needed > left:
                raise Conflict(
                    "vacation_days_exhausted",
                    f"this vacation takes {days_text(needed)} days of {year}; you have"
                    f" {days_text(left)} left (of {self.days} a year)",
                    rule="V1",
                )

    def notices(self, state_players: list[tuple[int, str]], clock: Any) -> list[dict[str, Any]]:
        """Who is on vacation now at a game with vacation, until when, and their days
        left (V8): announced spells, and automatic vacation once a decision's own time
        is up (``clock``: the game's recorded clock)."""
        now = self.clock()
        shown = []
        for seat, player_id in state_players:
            spans = self.ledger.spans(player_id, now)
            until, kind = _away_until(spans.announced, now), "announced"
            leave = getattr(clock, "vacation", None)
            if until is None and leave is not None and getattr(clock, "seat", None) == seat:
                deadline = clock.deadline
                if leave.starts is not None and deadline and leave.starts <= now < deadline:
                    until, kind = deadline, "automatic"
            if until is not None:
                left = _standing(spans, self.days, now).left_ms
                shown.append(
                    {"seat": seat, "player_id": player_id, "kind": kind,
                     "until": stamp(until), "left_ms": left, "days_left": days_text(left)}
                )  # fmt: skip
        return shown


def _away_until(announced: tuple[Span, ...], now: datetime) -> datetime | None:
    """The end of the announced spell ``now`` falls in (spells back to back run on)."""
    for start, end in merged(announced):
        if start <= now < end:
            return end
    return None


def _standing(spans: Spans, days: int, now: datetime) -> Standing:
    year = now.astimezone(UTC).year
    charged = spans.charged()
    left = left_ms(charged, year, days)
    upcoming = tuple(s for s in spans.announced if s[1] > now)
    spent = min(days * MS_PER_DAY, spent_ms(charged, year))
    last = max([year, *(b.astimezone(UTC).year for _, b in upcoming)])
    years = tuple(
        (y, min(days * MS_PER_DAY, spent_ms(charged, y)), left_ms(charged, y, days))
        for y in range(year, last + 1)
    )
    away = _away_until(spans.announced, now)
    return Standing(days, year, spent, left, upcoming, away, years)
