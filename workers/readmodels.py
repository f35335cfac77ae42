"""Read-model tables and their catch-up: rows and checkpoint in one transaction.

Every projection keeps, per game, a checkpoint (the last event version it
applied; the audit also the last journal sequence number). Catching up reads the
events after the checkpoint *inside* the transaction that writes the rows and
moves the checkpoint, with the checkpoint row locked, so a duplicate, late or
out-of-order job finds nothing to do: the effect is exactly once.

A projection that fails on a game is retried; after ``MAX_ATTEMPTS`` failures it
is halted for that game, with the error recorded and shown (never skipped).
"""

from __future__ import annotations

import json
import logging
import threading
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from domain import position
from domain.evolve import evolve
from domain.serialization import decode_event
from domain.state import GameState
from projections.models import lobby_entry, results, scoreboard, status, step
from service.games import FOLD_VERSION, GameService
from service.store.base import EventStore, JournalEntry, StoredEvent
from service.store.sql import _JOURNAL_COLUMNS, SqlEventStore, _entry, _event

log = logging.getLogger("tongiaki.projections")

PROJECTIONS = ("scoreboard", "lobby", "leaderboard", "timeline", "audit")
MAX_ATTEMPTS = 3
KEYFRAME_EVERY = 25
STATE_CACHE = 256  # games whose latest folds are kept in memory

TABLES = [
    """CREATE TABLE IF NOT EXISTS projection_checkpoints (
        projection TEXT NOT NULL,
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 0,
        seq BIGINT NOT NULL DEFAULT 0,
        failures INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        updated_at TEXT,
        PRIMARY KEY (projection, game_id))""",
    """CREATE TABLE IF NOT EXISTS rm_scoreboard (
        game_id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        data TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS rm_lobby (
        game_id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        status TEXT NOT NULL,
        active_player TEXT,
        last_activity TEXT NOT NULL,
        data TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS rm_lobby_by_status ON rm_lobby (status, last_activity)",
    """CREATE TABLE IF NOT EXISTS rm_lobby_seats (
        game_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        PRIMARY KEY (account_id, game_id))""",
    """CREATE TABLE IF NOT EXISTS rm_results (
        game_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        rank INTEGER NOT NULL,
        points INTEGER NOT NULL,
        won INTEGER NOT NULL,
        PRIMARY KEY (game_id, account_id))""",
    """CREATE TABLE IF NOT EXISTS rm_steps (
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        turn INTEGER NOT NULL,
        step INTEGER NOT NULL,
        colour TEXT,
        actor TEXT,
        type TEXT NOT NULL,
        rule TEXT,
        automatic INTEGER NOT NULL,
        description TEXT NOT NULL,
        PRIMARY KEY (game_id, version))""",
    """CREATE TABLE IF NOT EXISTS rm_keyframes (
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        fold_version TEXT NOT NULL,
        position TEXT NOT NULL,
        PRIMARY KEY (game_id, version))""",
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

# rows each projection owns, per game (a rebuild deletes them first)
OWNED = {
    "scoreboard": ["rm_scoreboard"],
    "lobby": ["rm_lobby", "rm_lobby_seats"],
    "leaderboard": ["rm_results"],
    "timeline": ["rm_steps", "rm_keyframes"],
    "audit": ["rm_audit"],
}


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


@dataclass
class Batch:
    """What a catch-up reads inside its transaction."""

    before: GameState
    events: list[tuple[StoredEvent, Any]]
    journal: list[JournalEntry]
    _after: GameState | None = None

    @property
    def after(self) -> GameState:
        """The state once every event of the batch is folded in."""
        if self._after is None:
            state = self.before
            for _, event in self.events:
                state = evolve(state, event)
            self._after = state
        return self._after


Hook = Callable[[str, str, Batch], None]


class ReadModels:
    """The read-model tables over the event store's database."""

    def __init__(self, store: SqlEventStore, clock: Callable[[], str] | None = None) -> None:
        self.store = store
        self.games = GameService(cast(EventStore, store))
        self.clock = clock or _now
        self.before_apply: Hook | None = None  # tests inject faults here
        # the folds the projections of a game need next, for the most recent games
        self._states: dict[str, dict[int, GameState]] = {}
        self._guard = threading.Lock()

    def upgrade(self) -> None:
        with self.store._tx() as cur:
            for statement in TABLES:
                cur.execute(statement)

    # --- catching up ----------------------------------------------------------

    def catch_up_game(self, game_id: str) -> dict[str, int]:
        """Bring every projection of one game level; events (or commands) applied each.

        One transaction, a savepoint per projection: a failing projection is
        rolled back to its savepoint and counted, the others commit; the first
        failure is raised at the end so the job is retried.
        """
        applied: dict[str, int] = {}
        failure: Exception | None = None
        with self.store._tx() as cur:
            for name in PROJECTIONS:
                self.store._exec(cur, f"SAVEPOINT {name}")
                try:
                    applied[name] = self._catch_up(cur, name, game_id, False)
                except ProjectionHalted:
                    applied[name] = 0
                except Exception as exc:
                    self.store._exec(cur, f"ROLLBACK TO SAVEPOINT {name}")
                    self._count_failure(cur, name, game_id, exc)
                    failure = failure or exc
                self.store._exec(cur, f"RELEASE SAVEPOINT {name}")
        if failure is not None:
            raise failure
        return applied

    def catch_up(self, name: str, game_id: str, *, reset: bool = False) -> int:
        """Apply what one projection has not seen yet; the number of items applied."""
        try:
            with self.store._tx() as cur:
                return self._catch_up(cur, name, game_id, reset)
        except ProjectionHalted:
            raise
        except Exception as exc:
            with self.store._tx() as cur:
                self._count_failure(cur, name, game_id, exc)
            raise

    def _catch_up(self, cur: Any, name: str, game_id: str, reset: bool) -> int:
        point = self._lock(cur, name, game_id)
        if reset:
            for table in OWNED[name]:
                self.store._exec(cur, f"DELETE FROM {table} WHERE game_id = %s", (game_id,))
            point = Checkpoint(name, game_id, 0, 0, 0, None, None)
        elif point.error is not None:
            raise ProjectionHalted(name, game_id, point.error)
        rows = self.store._exec(
            cur,
            "SELECT game_id, version, type, data, metadata, prev_hash, hash FROM events"
            " WHERE game_id = %s AND version > %s ORDER BY version",
            (game_id, point.version),
        ).fetchall()
        journal: list[JournalEntry] = []
        if name == "audit":
            journal = [
                _entry(r)
                for r in self.store._exec(
                    cur,
                    f"SELECT {_JOURNAL_COLUMNS} FROM journal WHERE game_id = %s AND seq > %s"
                    " ORDER BY seq",
                    (game_id, point.seq),
                ).fetchall()
            ]
        if not rows and not journal:
            if reset:
                self._save(cur, point, point.version, point.seq)
            return 0
        stored = [_event(r) for r in rows]
        batch = Batch(self._state_at(game_id, point.version), [], journal)
        batch.events = [(e, decode_event({"type": e.type, **e.body()})) for e in stored]
        if self.before_apply is not None:
            self.before_apply(name, game_id, batch)
        APPLY[name](self, cur, game_id, batch)
        version = stored[-1].version if stored else point.version
        if stored:
            self._remember(game_id, {point.version: batch.before, version: batch.after})
        seq = journal[-1].seq if journal else point.seq
        self._save(cur, point, version, seq)
        return len(stored) if name != "audit" else len(journal)

    def _state_at(self, game_id: str, version: int) -> GameState:
        if version == 0:
            return GameState()
        known = self._states.get(game_id, {}).get(version)
        if known is not None:
            return known
        return self.games.load(game_id, at=version)[1]

    def _remember(self, game_id: str, states: dict[int, GameState]) -> None:
        """Keep a game's states before and after the last batch (projections share them)."""
        with self._guard:
            self._states.pop(game_id, None)
            self._states[game_id] = states
            while len(self._states) > STATE_CACHE:
                self._states.pop(next(iter(self._states)))

    def _lock(self, cur: Any, name: str, game_id: str) -> Checkpoint:
        self.store._exec(
            cur,
            "INSERT INTO projection_checkpoints (projection, game_id) VALUES (%s, %s)"
            " ON CONFLICT (projection, game_id) DO NOTHING",
            (name, game_id),
        )
        row = self.store._exec(
            cur,
            "SELECT version, seq, failures, error, updated_at FROM projection_checkpoints"
            f" WHERE projection = %s AND game_id = %s {self.store.lock_suffix}",
            (name, game_id),
        ).fetchone()
        return Checkpoint(name, game_id, int(row[0]), int(row[1]), int(row[2]), row[3], row[4])

    def _save(self, cur: Any, point: Checkpoint, version: int, seq: int) -> None:
        self.store._exec(
            cur,
            "UPDATE projection_checkpoints SET version = %s, seq = %s, failures = 0,"
            " error = NULL, updated_at = %s WHERE projection = %s AND game_id = %s",
            (version, seq, self.clock(), point.projection, point.game_id),
        )

    def _count_failure(self, cur: Any, name: str, game_id: str, exc: Exception) -> None:
        """Count a failure; the last allowed one halts the projection for the game."""
        error = f"{type(exc).__name__}: {exc}"
        log.warning("projection %s failed on game %s: %s", name, game_id, error)
        point = self._lock(cur, name, game_id)
        failures = point.failures + 1
        halted = error if failures >= MAX_ATTEMPTS else None
        if halted:
            log.error(
                "projection %s halted for game %s after %d failures:\n%s",
                name,
                game_id,
                failures,
                "".join(traceback.format_exception(exc)),
            )
        self.store._exec(
            cur,
            "UPDATE projection_checkpoints SET failures = %s, error = %s, updated_at = %s"
            " WHERE projection = %s AND game_id = %s",
            (failures, halted, self.clock(), name, game_id),
        )

    def keyframe(self, game_id: str, at_most: int) -> tuple[int, str] | None:
        """The newest replay keyframe (version, position text) at or below ``at_most``."""
        rows = self.query(
            "SELECT version, position FROM rm_keyframes WHERE game_id = %s AND version <= %s"
            " AND fold_version = %s ORDER BY version DESC LIMIT 1",
            (game_id, at_most, FOLD_VERSION),
        )
        return (int(rows[0][0]), rows[0][1]) if rows else None

    def resume(self, name: str, game_id: str) -> None:
        """Clear a halted projection's error so the next catch-up tries again."""
        with self.store._tx() as cur:
            self.store._exec(
                cur,
                "UPDATE projection_checkpoints SET failures = 0, error = NULL"
                " WHERE projection = %s AND game_id = %s",
                (name, game_id),
            )

    # --- maintenance ------------------------------------------------------------

    def all_games(self) -> list[str]:
        with self.store._read() as cur:
            rows = self.store._exec(cur, "SELECT game_id FROM games ORDER BY game_id").fetchall()
        return [r[0] for r in rows]

    def behind(self) -> list[str]:
        """Games some projection has not caught up with (halted ones excluded)."""
        with self.store._read() as cur:
            rows = self.store._exec(
                cur,
                "SELECT DISTINCT g.game_id FROM games g CROSS JOIN (" + _names_sql() + ") p"
                " LEFT JOIN projection_checkpoints c"
                " ON c.projection = p.name AND c.game_id = g.game_id"
                " WHERE c.error IS NULL AND (g.version > COALESCE(c.version, 0)"
                " OR (p.name = 'audit' AND EXISTS (SELECT 1 FROM journal j"
                "  WHERE j.game_id = g.game_id AND j.seq > COALESCE(c.seq, 0))))",
            ).fetchall()
        return sorted(r[0] for r in rows)

    def rebuild(
        self, names: Sequence[str] = PROJECTIONS, progress: Callable[[int], None] | None = None
    ) -> int:
        """Rebuild from the event store, one game per transaction (never half-built)."""
        total = 0
        for game_id in self.all_games():
            for name in names:
                with self.store._tx() as cur:
                    total += self._catch_up(cur, name, game_id, reset=True)
            if progress is not None:
                progress(1)
        return total

    def status(self) -> list[Lag]:
        """Lag per projection: games tracked, games behind, events behind, halted games."""
        lags = []
        with self.store._read() as cur:
            heads = dict(self.store._exec(cur, "SELECT game_id, version FROM games").fetchall())
            for name in PROJECTIONS:
                points = {
                    r[0]: (int(r[1]), r[2])
                    for r in self.store._exec(
                        cur,
                        "SELECT game_id, version, error FROM projection_checkpoints"
                        " WHERE projection = %s",
                        (name,),
                    ).fetchall()
                }
                behind = [g for g, v in heads.items() if points.get(g, (0, None))[0] < v]
                lags.append(
                    Lag(
                        name,
                        len(heads),
                        len(behind),
                        sum(heads[g] - points.get(g, (0, None))[0] for g in behind),
                        sorted((g, e) for g, (_, e) in points.items() if e),
                    )
                )
        return lags

    def checkpoint(self, name: str, game_id: str) -> Checkpoint | None:
        with self.store._read() as cur:
            row = self.store._exec(
                cur,
                "SELECT version, seq, failures, error, updated_at FROM projection_checkpoints"
                " WHERE projection = %s AND game_id = %s",
                (name, game_id),
            ).fetchone()
        if row is None:
            return None
        return Checkpoint(name, game_id, int(row[0]), int(row[1]), int(row[2]), row[3], row[4])

    # --- queries ------------------------------------------------------------------

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        with self.store._read() as cur:
            return list(self.store._exec(cur, sql, tuple(params)).fetchall())


def _names_sql() -> str:
    return " UNION ALL ".join(f"SELECT '{n}' AS name" for n in PROJECTIONS)


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat()


def _last_activity(batch: Batch) -> str:
    meta = batch.events[-1][0].meta() if batch.events else {}
    recorded = meta.get("recorded_at")
    return recorded if isinstance(recorded, str) else ""


def _upsert(
    cur: Any, store: SqlEventStore, table: str, columns: Sequence[str], row: Sequence[Any]
) -> None:
    names = ", ".join(columns)
    marks = ", ".join(["%s"] * len(columns))
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns[1:])
    store._exec(
        cur,
        f"INSERT INTO {table} ({names}) VALUES ({marks})"
        f" ON CONFLICT ({columns[0]}) DO UPDATE SET {updates}",
        tuple(row),
    )


def _apply_scoreboard(rm: ReadModels, cur: Any, game_id: str, batch: Batch) -> None:
    state = batch.after
    version = batch.events[-1][0].version
    data = json.dumps(scoreboard(state), sort_keys=True)
    _upsert(
        cur, rm.store, "rm_scoreboard", ("game_id", "version", "data"), (game_id, version, data)
    )


def _apply_lobby(rm: ReadModels, cur: Any, game_id: str, batch: Batch) -> None:
    state = batch.after
    version = batch.events[-1][0].version
    entry = lobby_entry(state, _last_activity(batch))
    _upsert(
        cur,
        rm.store,
        "rm_lobby",
        ("game_id", "version", "status", "active_player", "last_activity", "data"),
        (
            game_id,
            version,
            status(state),
            entry["active_player"],
            entry["last_activity"],
            json.dumps(entry, sort_keys=True),
        ),
    )
    rm.store._exec(cur, "DELETE FROM rm_lobby_seats WHERE game_id = %s", (game_id,))
    for p in state.players:
        rm.store._exec(
            cur,
            "INSERT INTO rm_lobby_seats (game_id, account_id) VALUES (%s, %s)"
            " ON CONFLICT DO NOTHING",
            (game_id, p.player_id),
        )


def _apply_leaderboard(rm: ReadModels, cur: Any, game_id: str, batch: Batch) -> None:
    rm.store._exec(cur, "DELETE FROM rm_results WHERE game_id = %s", (game_id,))
    for r in results(batch.after):
        rm.store._exec(
            cur,
            "INSERT INTO rm_results (game_id, account_id, rank, points, won)"
            " VALUES (%s, %s, %s, %s, %s)",
            (game_id, r.player_id, r.rank, r.points, int(r.won)),
        )


def _apply_timeline(rm: ReadModels, cur: Any, game_id: str, batch: Batch) -> None:
    last = rm.store._exec(
        cur,
        "SELECT turn, step FROM rm_steps WHERE game_id = %s ORDER BY version DESC LIMIT 1",
        (game_id,),
    ).fetchone()
    previous = (int(last[0]), int(last[1])) if last else None
    state = batch.before
    for stored, event in batch.events:
        s = step(stored.version, event, state, stored.meta(), previous)
        previous = (s.turn, s.step)
        state = evolve(state, event)
        rm.store._exec(
            cur,
            "INSERT INTO rm_steps (game_id, version, turn, step, colour, actor, type, rule,"
            " automatic, description) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                game_id,
                s.version,
                s.turn,
                s.step,
                s.colour,
                s.actor,
                s.type,
                s.rule,
                int(s.automatic),
                s.description,
            ),
        )
        if stored.version % KEYFRAME_EVERY == 0:
            rm.store._exec(
                cur,
                "INSERT INTO rm_keyframes (game_id, version, fold_version, position)"
                " VALUES (%s, %s, %s, %s)",
                (game_id, stored.version, FOLD_VERSION, position.text(state)),
            )


def _apply_audit(rm: ReadModels, cur: Any, game_id: str, batch: Batch) -> None:
    if not batch.journal:
        return
    wanted = {j.judged_version for j in batch.journal}
    turns: dict[int, int] = {}
    low = min(wanted)
    state = rm._state_at(game_id, low)
    turns[low] = state.turn
    if max(wanted) > low:
        for stored in rm.store._exec(
            cur,
            "SELECT game_id, version, type, data, metadata, prev_hash, hash FROM events"
            " WHERE game_id = %s AND version > %s AND version <= %s ORDER BY version",
            (game_id, low, max(wanted)),
        ).fetchall():
            e = _event(stored)
            state = evolve(state, decode_event({"type": e.type, **e.body()}))
            turns[e.version] = state.turn
    for j in batch.journal:
        rm.store._exec(
            cur,
            "INSERT INTO rm_audit (game_id, seq, turn, command_id, actor, received_at, payload,"
            " judged_version, outcome, first_version, last_version, rejection)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                game_id,
                j.seq,
                turns[j.judged_version],
                j.command_id,
                json.dumps(j.actor, sort_keys=True),
                j.received_at,
                json.dumps(j.payload, sort_keys=True),
                j.judged_version,
                j.outcome,
                j.first_version,
                j.last_version,
                json.dumps(j.rejection, sort_keys=True) if j.rejection is not None else None,
            ),
        )


APPLY: dict[str, Callable[[ReadModels, Any, str, Batch], None]] = {
    "scoreboard": _apply_scoreboard,
    "lobby": _apply_lobby,
    "leaderboard": _apply_leaderboard,
    "timeline": _apply_timeline,
    "audit": _apply_audit,
}
