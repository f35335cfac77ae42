"""What a read model is to the catch-up engine, and what the engine gives it.

A ``ReadModel`` owns its tables (their DDL), and an ``apply`` that turns a
``Batch`` (one game's events after a checkpoint, with the states around them)
into writes. A ``Projection`` is what the engine keeps a checkpoint for: one
read model, or several that are always brought level together. Each read
model's module (``projections.readmodels``) also holds the queries on its
tables; ``rows`` is how they read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from domain.fold import evolve
from domain.state import GameState
from projections.ports import Database, Received, Recorded, Tx
from projections.writes import Writes


def fold_each(before: GameState, events: Sequence[tuple[Recorded, Any]]) -> list[GameState]:
    """The state after each of ``events``, from ``before``."""
    states = []
    state = before
    for _, event in events:
        state = evolve(state, event)
        states.append(state)
    return states


class Folds:
    """One game's states after each event of a catch-up, folded once and shared by every
    projection of the run (and every read model of each). Folding is deterministic, so
    projections that start at the same version are given the very same states; they
    read them and never change them."""

    def __init__(self) -> None:
        self._by_base: dict[int, tuple[int, list[GameState]]] = {}

    def states(
        self, base: int, before: GameState, events: Sequence[tuple[Recorded, Any]]
    ) -> list[GameState]:
        """The states after each of ``events`` (those after version ``base``)."""
        last = events[-1][0].version if events else base
        known = self._by_base.get(base)
        if known is None or known[0] != last:
            known = (last, fold_each(before, events))
            self._by_base[base] = known
        return known[1]


@dataclass
class Batch:
    """What a catch-up reads for one projection of one game, inside its transaction."""

    game_id: str
    before: GameState
    events: list[tuple[Recorded, Any]]
    journal: list[Received]
    base_version: int
    state_at: Callable[[int], GameState]  # the state at any version (kept, or folded)
    # one of many games a run brings level (a rebuild): work across games may be left
    # to the read model's ``settle``, once at the end of the run
    deferred: bool = False
    # the run's shared fold: every projection of one catch-up reads the same states
    folds: Folds = field(default_factory=Folds)

    def _folded_states(self) -> list[GameState]:
        """The state after each event of the batch, folded once for the whole run."""
        return self.folds.states(self.base_version, self.before, self.events)

    @property
    def after(self) -> GameState:
        """The state once every event of the batch is folded in."""
        states = self._folded_states()
        return states[-1] if states else self.before

    def folded(self) -> Iterator[tuple[Recorded, Any, GameState, GameState]]:
        """Each event with the states before and after it."""
        state = self.before
        for (stored, event), after in zip(self.events, self._folded_states(), strict=True):
            yield stored, event, state, after
            state = after

    @property
    def clock(self) -> dict[str, Any] | None:
        """The clock the batch's last transaction recorded (docs/clocks.md), if any."""
        clock = self.events[-1][0].meta().get("clock") if self.events else None
        return clock if isinstance(clock, dict) else None

    @property
    def last_activity(self) -> str:
        """When the batch's last transaction was recorded (ISO 8601 in UTC), or ""."""
        meta = self.events[-1][0].meta() if self.events else {}
        recorded = meta.get("recorded_at")
        if not isinstance(recorded, str):
            return ""
        try:  # as the service records it (ISO 8601 in UTC), whatever an imported file wrote
            moment = datetime.fromisoformat(recorded)
        except ValueError:
            return ""
        moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC).isoformat()


# a read model's rows for a batch, written through the engine's buffer; it may read its
# own tables inside the transaction
Apply = Callable[[Tx, Writes, Batch], None]
# what deferred batches left for the end of a run over many games, in its own transaction
Settle = Callable[[Tx, Writes], None]


@dataclass(frozen=True)
class ReadModel:
    """A read model: its tables and how a batch of events changes its rows."""

    tables: Sequence[str]  # CREATE … IF NOT EXISTS, as of the engine's READMODEL_SCHEMA
    owned: Sequence[str]  # tables whose rows of a game a rebuild deletes first
    apply: Apply
    journal: bool = False  # it is given the command journal's new entries too
    migrations: Mapping[int, Sequence[str]] = field(default_factory=dict)  # by schema version
    settle: Settle | None = None  # after a run of deferred batches (a rebuild)


@dataclass(frozen=True)
class Projection:
    """What has a checkpoint per game: read models brought level together, their rows
    and the checkpoint written in one transaction (a failure takes back all of them)."""

    name: str
    models: Sequence[ReadModel]

    @property
    def journal(self) -> bool:
        """Whether it follows the command journal as well as the events (the audit)."""
        return any(m.journal for m in self.models)

    @property
    def owned(self) -> list[str]:
        """The tables whose rows of a game a rebuild of this projection deletes first."""
        return [table for m in self.models for table in m.owned]


def rows(db: Database, sql: str, params: Iterable[Any] = ()) -> list[Any]:
    """Rows of one statement on the read-model tables, in a read of its own."""
    with db.reading() as cur:
        return list(cur.execute(sql, tuple(params)).fetchall())
