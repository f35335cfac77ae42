"""An account's vacation ledger (docs/vacation.md V1, V4, V6): its announced spells (the
``vacation_away`` table) and its automatic vacation (the ``rm_vacation`` read model, from
the recorded clocks), as spans of wall-clock time.

Spent in a year is the union of the spans that fall in it, counted once (V6): announced
spells whole from their announcement, automatic vacation as far as it has run. What a
new decision may still spend is reckoned over every span, a running decision's whole
reserve included (V3).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from projections.ports import Tx
from projections.readmodels import vacation as automatic
from service.store.base import SqlStore
from service.timing.clocks import parse_time, stamp
from service.timing.vacation import Span

HORIZON = timedelta(days=800)  # spans older than this never count again (two years back)
MOST_ROWS = 2000  # an account's spans read at once (announced ones are few: MOST_A_YEAR)


@dataclass(frozen=True)
class Spans:
    """An account's spans: announced (whole), automatic spent so far (to ``now``), and
    automatic held by running decisions (their whole reserve), each with its game."""

    announced: tuple[Span, ...]
    spent: tuple[Span, ...]
    held: tuple[tuple[str, Span], ...]

    def charged(self) -> list[Span]:
        """What counts as spent now (V1): announced spells, automatic vacation so far."""
        return [*self.announced, *self.spent]

    def covered(self, game_id: str | None = None) -> list[Span]:
        """Every span, running reserves whole (V3), but a running one of ``game_id``."""
        held = [s for g, s in self.held if g != game_id]
        return [*self.announced, *self.spent, *held]


class Ledger:
    """Reads and writes one store's vacation ledger."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    def spans(self, account_id: str, now: datetime, tx: Tx | None = None) -> Spans:
        """The account's spans that still count (ending within ``HORIZON`` of now); in
        ``tx`` when given (the in-memory store has one connection)."""
        if tx is None:
            with self.store.reading() as reading:
                return self.spans(account_id, now, reading)
        after = stamp(now - HORIZON)
        announced = _announced(tx, account_id, after)
        spent: list[Span] = []
        held: list[tuple[str, Span]] = []
        for game_id, _since, starts, ends, running in automatic.spans(
            tx, account_id, after, MOST_ROWS
        ):
            start, end = parse_time(str(starts)), parse_time(str(ends))
            if int(running):
                held.append((str(game_id), (start, end)))
                end = min(end, now)
            if end > start:
                spent.append((start, end))
        return Spans(tuple(announced), tuple(spent), tuple(held))

    def announced(self, account_id: str, now: datetime) -> list[Span]:
        """The account's announced spells that have not ended by ``now``."""
        with self.store.reading() as tx:
            return [s for s in _announced(tx, account_id, stamp(now)) if s[1] > now]

    def sits_at_vacation_game(self, account_id: str) -> bool:
        """Whether the account sits at a game not ended whose clock vacation stops (V2),
        as the lobby lists its games."""
        return bool(self.vacation_games(account_id))

    def vacation_games(self, account_id: str) -> list[str]:
        """The games not ended with vacation (V2) where the account sits, as the lobby
        lists them (the oldest first)."""
        with self.store.reading() as tx:
            found = tx.execute(
                "SELECT l.game_id, l.data FROM rm_lobby l"
                " JOIN rm_lobby_seats s ON s.game_id = l.game_id"
                " WHERE s.account_id = %s AND l.status <> 'ended' ORDER BY l.game_id LIMIT %s",
                (account_id, MOST_ROWS),
            ).fetchall()
        games = []
        for game_id, data in found:
            control = json.loads(str(data)).get("time_control") or {}
            if control.get("vacation"):
                games.append(str(game_id))
        return games

    @contextmanager
    def locked(self, account_id: str) -> Iterator[Tx]:
        """A write transaction in which no other announcement of the account runs (V5:
        two at once leave one)."""
        with self.store.transaction() as tx:
            if self.store.postgres:
                tx.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"vac:{account_id}",))
            yield tx

    @staticmethod
    def add(tx: Tx, account_id: str, spell: Span, now: datetime) -> None:
        """Record an announced spell."""
        tx.execute(
            "INSERT INTO vacation_away (account_id, starts_at, ends_at, created_at)"
            " VALUES (%s, %s, %s, %s)",
            (account_id, stamp(spell[0]), stamp(spell[1]), stamp(now)),
        )


def _announced(tx: Any, account_id: str, after: str) -> list[Span]:
    """The account's announced spells ending after ``after``, in order."""
    found = tx.execute(
        "SELECT starts_at, ends_at FROM vacation_away WHERE account_id = %s LIMIT %s",
        (account_id, MOST_ROWS),
    ).fetchall()
    spells = sorted((parse_time(str(a)), parse_time(str(b))) for a, b in found)
    bound = parse_time(after)
    return [s for s in spells if s[1] > bound]
