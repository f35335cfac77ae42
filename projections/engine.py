"""The catch-up engine: every projection's rows and checkpoint in one transaction.

Catching up reads a game's events after each projection's checkpoint *inside*
the transaction that writes the rows and moves the checkpoint, with the
checkpoints locked, so the effect is exactly once (``projections.checkpoints``).
The engine knows no read model by name: it goes through the registry
(``projections.readmodels``), giving each projection a ``Batch`` and applying
its read models; it also creates their tables, rebuilds them, and says how far
behind they are.

The read side is given what it needs (``projections.ports``): a database for its
tables and the event store's history; it imports nothing of the service.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any

from domain import position
from domain.fold import evolve
from domain.serialization import decode_event
from domain.state import GameState
from projections import checkpoints
from projections.checkpoints import Checkpoint, Lag, ProjectionHalted
from projections.contract import Batch, Folds, Projection, rows
from projections.ports import Database, History, Recorded, Tx
from projections.readmodels import PROJECTIONS, REGISTRY, timeline
from projections.writes import Writes

log = logging.getLogger("tongiaki.projections")

STATE_CACHE = 256  # games whose latest folds are kept in memory
# the read-model tables' version (readmodel_schema) as the read models' TABLES make them:
# 2: rm_rewinds; 3: rm_clocks; 4: rm_notifications. Changes since are the read models'
# migrations (5: the lobby's filters; 6: the ratings' tables; 7: vacation; 8: private
# tables; 9: profiles and the queue; 10: the ratings' deferred refold; 11: the steps'
# phrases), run in the order
# of their versions.
READMODEL_SCHEMA = 4
MODELS = [m for p in REGISTRY for m in p.models]
TABLES = [checkpoints.TABLE, *(table for m in MODELS for table in m.tables)]
MIGRATIONS = {
    version: [s for m in MODELS for s in m.migrations.get(version, ())]
    for version in sorted({v for m in MODELS for v in m.migrations})
}
BY_NAME = {p.name: p for p in REGISTRY}

Hook = Callable[[str, str, Batch], None]


class Engine:
    """The read-model tables over the event store's database: catch-up and maintenance."""

    def __init__(
        self,
        db: Database,
        history: History,
        clock: Callable[[], str] | None = None,
    ) -> None:
        self.db = db
        # where the query methods read (a replica, service/store/replica.py); the
        # catch-up always writes and reads ``db``
        self.reads: Database = db
        self.history = history
        self.clock = clock or _now
        self.before_apply: Hook | None = None  # tests inject faults here
        # the folds the projections of a game need next, for the most recent games
        self._states: dict[str, dict[int, GameState]] = {}
        self._guard = threading.Lock()

    def upgrade(self) -> None:
        """Create the read-model tables and bring them to the latest version (idempotent;
        safe for processes starting together)."""
        self.db.ensure_tables(TABLES, "readmodel_schema", READMODEL_SCHEMA)
        for version, statements in MIGRATIONS.items():
            self.db.ensure_tables(statements, "readmodel_schema", version)

    # --- catching up ----------------------------------------------------------

    def catch_up_game(self, game_id: str) -> dict[str, int]:
        """Bring every projection of one game level; items applied by each.

        One transaction: the checkpoints are locked and the events read once, each
        projection computes its rows, and every write goes out together (one
        pipeline on PostgreSQL). A projection whose code fails on the events writes
        nothing and has the failure counted (it halts after ``MAX_ATTEMPTS``); the
        others commit, and the first failure is raised so the job is retried.
        Database errors are not counted: the job fails and is retried as it is.
        """
        with self.db.transaction() as cur:
            applied, failures = self._run(cur, game_id, REGISTRY, reset=False)
        if failures:
            raise next(iter(failures.values()))
        return {name: applied.get(name, 0) for name in PROJECTIONS}  # halted ones: 0

    def catch_up(self, name: str, game_id: str, *, reset: bool = False) -> int:
        """Apply what one projection has not seen yet (``ProjectionHalted`` if halted)."""
        with self.db.transaction() as cur:
            applied, failures = self._run(cur, game_id, [BY_NAME[name]], reset=reset)
        if name in failures:
            raise failures[name]
        if name not in applied:
            point = checkpoints.read(self.db, name, game_id)
            raise ProjectionHalted(name, game_id, (point.error if point else None) or "halted")
        return applied[name]

    def _run(
        self,
        cur: Tx,
        game_id: str,
        projections: Sequence[Projection],
        reset: bool,
        deferred: bool = False,
    ) -> tuple[dict[str, int], dict[str, Exception]]:
        points = checkpoints.lock(cur, self.db, [p.name for p in projections], game_id)
        writes = Writes(self.db)
        if reset:
            for p in projections:
                for table in p.owned:
                    writes.execute(f"DELETE FROM {table} WHERE game_id = %s", (game_id,))
                points[p.name] = checkpoints.fresh(p.name, game_id)
        active = [p for p in projections if points[p.name].error is None]
        applied: dict[str, int] = {}
        failures: dict[str, Exception] = {}
        if not active:
            return applied, failures
        low = min(points[p.name].version for p in active)
        stored = self.history.events_after(cur, game_id, low)
        decoded = [(e, decode_event({"type": e.type, **e.body()})) for e in stored]
        folds = Folds()  # the game folded once for every projection of the run
        for p in active:
            outcome = self._project(cur, writes, p, points[p.name], decoded, reset, deferred, folds)
            if isinstance(outcome, Exception):
                failures[p.name] = outcome
            else:
                applied[p.name] = outcome
        for name, failure in failures.items():
            checkpoints.count_failure(writes, points[name], failure, self.clock())
        writes.flush(cur)
        return applied, failures

    def _project(
        self,
        cur: Tx,
        writes: Writes,
        projection: Projection,
        point: Checkpoint,
        decoded: list[tuple[Recorded, Any]],
        reset: bool,
        deferred: bool,
        folds: Folds,
    ) -> int | Exception:
        """Apply one projection's new events (and journal entries) and move its
        checkpoint: the items applied, or what its read models raised (their writes
        taken back)."""
        game_id = point.game_id
        events = [(s, e) for s, e in decoded if s.version > point.version]
        entries = (
            list(self.history.journal_after(cur, game_id, point.seq)) if projection.journal else []
        )
        if not events and not entries:
            if reset:
                checkpoints.save(writes, point, point.version, point.seq, self.clock())
            return 0
        before = self._state_at(cur, game_id, point.version)
        state_at = partial(self._state_at, cur, game_id)
        batch = Batch(game_id, before, events, entries, point.version, state_at, deferred, folds)
        mark = writes.mark()
        try:
            if self.before_apply is not None:
                self.before_apply(projection.name, game_id, batch)
            for model in projection.models:
                model.apply(cur, writes, batch)
        except Exception as exc:
            writes.rollback(mark)
            return exc
        version = events[-1][0].version if events else point.version
        if events:
            self._remember(game_id, {point.version: batch.before, version: batch.after})
        seq = (entries[-1].seq or point.seq) if entries else point.seq
        checkpoints.save(writes, point, version, seq, self.clock())
        return len(entries) if projection.journal else len(events)

    def _state_at(self, cur: Tx, game_id: str, version: int) -> GameState:
        """The state at ``version``: kept from the last batch, or from the nearest
        keyframe (every ``KEYFRAME_EVERY`` versions, the timeline's) and the events
        since."""
        if version == 0:
            return GameState()
        known = self._states.get(game_id, {}).get(version)
        if known is not None:
            return known
        frame = timeline.nearest_keyframe(cur, game_id, version)
        start, state = (
            (frame.version, position.load(json.loads(frame.position)))
            if frame
            else (0, GameState())
        )
        for e in self.history.events_after(cur, game_id, start):
            if e.version > version:
                break
            state = evolve(state, decode_event({"type": e.type, **e.body()}))
        return state

    def _remember(self, game_id: str, states: dict[int, GameState]) -> None:
        """Keep a game's states before and after the last batch (projections share them)."""
        with self._guard:
            self._states.pop(game_id, None)
            self._states[game_id] = states
            while len(self._states) > STATE_CACHE:
                self._states.pop(next(iter(self._states)))

    # --- maintenance ------------------------------------------------------------

    def all_games(self) -> list[str]:
        """Every game, in the order they last changed (``History.heads``)."""
        with self.db.reading() as cur:
            return list(self.history.heads(cur, in_order=True))

    def behind(self) -> list[str]:
        """Games some projection has not caught up with (halted ones excluded)."""
        with self.db.reading() as cur:
            heads = self.history.heads(cur, in_order=True)
            seqs = self.history.journal_heads(cur)
            known = checkpoints.every(cur)
        lagging = []  # in the order the games last changed (``History.heads``)
        for game_id, head in heads.items():
            for p in REGISTRY:
                version, seq, error = known.get((p.name, game_id), (0, 0, None))
                if error is not None:
                    continue
                if head > version or (p.journal and seqs.get(game_id, 0) > seq):
                    lagging.append(game_id)
                    break
        return lagging

    def rebuild(
        self,
        names: Sequence[str] = PROJECTIONS,
        progress: Callable[[int], None] | None = None,
        *,
        games: Sequence[str] | None = None,
        settle: bool = True,
    ) -> int:
        """Rebuild from the event store, one game per transaction (never half-built):
        every game, or ``games`` (one share of a rebuild across processes).

        The batches are deferred: what a read model leaves for the end of the run (the
        ratings' refold across games, docs/ratings.md G5) it does once, in its
        ``settle``, after the last game (and, should the run stop early, at its next
        batch or the next rebuild); ``settle=False`` leaves it to whoever runs the
        shares (``service/cli/rebuild_jobs.py``)."""
        chosen = [BY_NAME[name] for name in names]
        total = 0
        for game_id in self.all_games() if games is None else games:
            with self.db.transaction() as cur:
                applied, failures = self._run(cur, game_id, chosen, reset=True, deferred=True)
            total += sum(applied.values())
            if failures:
                log.error("rebuild of %s failed: %s", game_id, failures)
            if progress is not None:
                progress(1)
        if settle:  # stopped before: what is left is kept for the next batch
            self.settle(chosen)
        return total

    def settle(self, projections: Sequence[Projection] = REGISTRY) -> None:
        """Run the read models' ``settle`` (what deferred batches left), each in a
        transaction of its own."""
        for model in (m for p in projections for m in p.models):
            if model.settle is None:
                continue
            with self.db.transaction() as cur:
                writes = Writes(self.db)
                model.settle(cur, writes)
                writes.flush(cur)

    def status(self) -> list[Lag]:
        """Lag per projection: games tracked, games behind, events behind, halted games."""
        with self.db.reading() as cur:
            heads = self.history.heads(cur)
            return [checkpoints.lag(cur, name, heads) for name in PROJECTIONS]

    def checkpoint(self, name: str, game_id: str) -> Checkpoint | None:
        """The projection's checkpoint for the game, where the queries read (the replica's
        with one: a reader waits for it, then reads the data from the same place)."""
        return checkpoints.read(self.reads, name, game_id)

    def resume(self, name: str, game_id: str) -> None:
        """Clear a halted projection's error so the next catch-up tries again."""
        checkpoints.resume(self.db, name, game_id)

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        """Rows of one statement on the read-model tables (tests and maintenance)."""
        return rows(self.db, sql, params)


def _now() -> str:
    return datetime.now(UTC).isoformat()
