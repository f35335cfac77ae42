"""Read-model tables and their catch-up: rows and checkpoint in one transaction.

Every projection keeps, per game, a checkpoint (the last event version it
applied; the audit also the last journal sequence number). Catching up reads the
events after the checkpoint *inside* the transaction that writes the rows and
moves the checkpoint, with the checkpoint row locked, so a duplicate, late or
out-of-order job finds nothing to do: the effect is exactly once.

A projection that fails on a game is retried; after ``MAX_ATTEMPTS`` failures it
is halted for that game, with the error recorded and shown (never skipped).

The read side is given what it needs (``projections.ports``): a database for its
tables, the event store's history, and a way to load a state; it imports nothing
of the service. The API asks it named questions (``scoreboard``, ``lobby``,
``timeline``…), never SQL.
"""

from __future__ import annotations

import json
import logging
import threading
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from domain import position
from domain.events import GameRewound
from domain.fold import evolve
from domain.position import FOLD_VERSION
from domain.serialization import decode_event
from domain.state import GameState
from projections.models import (
    due_ms,
    epoch_ms,
    lobby_entry,
    notice_id,
    notices,
    results,
    scoreboard,
    status,
    step,
)
from projections.ports import Database, History, Received, Recorded, Tx

log = logging.getLogger("tongiaki.projections")

PROJECTIONS = ("scoreboard", "lobby", "leaderboard", "timeline", "audit", "notifications")
MAX_ATTEMPTS = 3
KEYFRAME_EVERY = 10
STATE_CACHE = 256  # games whose latest folds are kept in memory
# the read-model tables' version (readmodel_schema); raise it with TABLES. 2: rm_rewinds;
# 3: rm_clocks
# 4: rm_notifications
READMODEL_SCHEMA = 4  # the tables as TABLES makes them; MIGRATIONS bring them further
# 5: the lobby's filters as columns (players, seats taken, variant, clock); the lobby is
# projected again for every game (its checkpoints dropped: the sweeper refills it)
MIGRATIONS = {
    5: [
        "ALTER TABLE rm_lobby ADD COLUMN players INTEGER",
        "ALTER TABLE rm_lobby ADD COLUMN seated INTEGER",
        "ALTER TABLE rm_lobby ADD COLUMN two_colours INTEGER",
        "ALTER TABLE rm_lobby ADD COLUMN free_orientation INTEGER",
        "ALTER TABLE rm_lobby ADD COLUMN clock TEXT",
        "DELETE FROM projection_checkpoints WHERE projection = 'lobby'",
    ]
}
VARIANTS = ("standard", "two_colours", "free_orientation")
CLOCKS = ("none", "move", "fischer")
MAX_VERSION = 2**31 - 1  # versions are 32-bit in the store

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
    """CREATE TABLE IF NOT EXISTS rm_clocks (
        game_id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        due_ms BIGINT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS rm_clocks_by_due ON rm_clocks (due_ms)",
    """CREATE TABLE IF NOT EXISTS rm_notifications (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        kind TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_ms BIGINT NOT NULL,
        text TEXT NOT NULL,
        planned INTEGER NOT NULL DEFAULT 0)""",
    "CREATE INDEX IF NOT EXISTS rm_notifications_by_account ON rm_notifications"
    " (account_id, created_ms)",
    "CREATE INDEX IF NOT EXISTS rm_notifications_to_plan ON rm_notifications (planned)",
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
    """CREATE TABLE IF NOT EXISTS rm_rewinds (
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        to_version INTEGER NOT NULL,
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
    "lobby": ["rm_lobby", "rm_lobby_seats", "rm_clocks"],
    "leaderboard": ["rm_results"],
    "timeline": ["rm_steps", "rm_keyframes", "rm_rewinds"],
    "audit": ["rm_audit"],
    # never deleted: a rebuild finds every notification already there (same ids) and
    # sends nothing twice
    "notifications": [],
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
    events: list[tuple[Recorded, Any]]
    journal: list[Received]
    base_version: int = 0
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


class Writes:
    """Writes collected while the projections compute, sent together at the end."""

    def __init__(self, db: Database) -> None:
        self.postgres = db.postgres
        self.ops: list[tuple[str, Any, bool]] = []  # (sql, params, many)

    def execute(self, sql: str, params: Sequence[Any]) -> None:
        self.ops.append((sql, tuple(params), False))

    def many(self, table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
        """Insert many rows: one JSON argument on PostgreSQL, ``executemany`` on SQLite."""
        if not rows:
            return
        names = ", ".join(columns)
        # a row already there is the same row (folds are deterministic): applying an
        # event twice, should a checkpoint ever fall behind its rows, changes nothing
        if self.postgres:
            records = [dict(zip(columns, row, strict=True)) for row in rows]
            self.execute(
                f"INSERT INTO {table} ({names}) SELECT {names}"
                f" FROM json_populate_recordset(NULL::{table}, %s) ON CONFLICT DO NOTHING",
                (json.dumps(records),),
            )
        else:
            marks = ", ".join(["%s"] * len(columns))
            sql = f"INSERT INTO {table} ({names}) VALUES ({marks}) ON CONFLICT DO NOTHING"
            self.ops.append((sql, rows, True))

    def save(self, point: Checkpoint, version: int, seq: int, now: str) -> None:
        self.execute(
            "UPDATE projection_checkpoints SET version = %s, seq = %s, failures = 0,"
            " error = NULL, updated_at = %s WHERE projection = %s AND game_id = %s",
            (version, seq, now, point.projection, point.game_id),
        )

    def mark(self) -> int:
        return len(self.ops)

    def rollback(self, mark: int) -> None:
        del self.ops[mark:]

    def flush(self, tx: Tx) -> None:
        """Send every write (PostgreSQL: in one pipeline, a single round trip)."""
        with tx.pipeline():
            for sql, params, many in self.ops:
                if many:
                    tx.executemany(sql, params)
                else:
                    tx.execute(sql, params)
        self.ops.clear()


class ReadModels:
    """The read-model tables over the event store's database: catch-up, maintenance
    and the named queries the API asks."""

    def __init__(
        self,
        db: Database,
        history: History,
        clock: Callable[[], str] | None = None,
    ) -> None:
        self.db = db
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
        for version, statements in sorted(MIGRATIONS.items()):
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
            applied, failures = self._run(cur, game_id, PROJECTIONS, reset=False)
        if failures:
            raise next(iter(failures.values()))
        return {name: applied.get(name, 0) for name in PROJECTIONS}  # halted ones: 0

    def catch_up(self, name: str, game_id: str, *, reset: bool = False) -> int:
        """Apply what one projection has not seen yet (``ProjectionHalted`` if halted)."""
        with self.db.transaction() as cur:
            applied, failures = self._run(cur, game_id, (name,), reset=reset)
        if name in failures:
            raise failures[name]
        if name not in applied:
            point = self.checkpoint(name, game_id)
            raise ProjectionHalted(name, game_id, (point.error if point else None) or "halted")
        return applied[name]

    def _run(
        self, cur: Any, game_id: str, names: Sequence[str], reset: bool
    ) -> tuple[dict[str, int], dict[str, Exception]]:
        points = self._lock_all(cur, names, game_id)
        writes = Writes(self.db)
        if reset:
            for name in names:
                for table in OWNED[name]:
                    writes.execute(f"DELETE FROM {table} WHERE game_id = %s", (game_id,))
                points[name] = Checkpoint(name, game_id, 0, 0, 0, None, None)
        active = [n for n in names if points[n].error is None]
        applied: dict[str, int] = {}
        failures: dict[str, Exception] = {}
        if not active:
            return applied, failures
        low = min(points[n].version for n in active)
        stored = self.history.events_after(cur, game_id, low)
        decoded = [(e, decode_event({"type": e.type, **e.body()})) for e in stored]
        journal: list[Received] = []
        if "audit" in active:
            journal = list(self.history.journal_after(cur, game_id, points["audit"].seq))
        for name in active:
            point = points[name]
            events = [(s, e) for s, e in decoded if s.version > point.version]
            entries = journal if name == "audit" else []
            if not events and not entries:
                if reset:
                    writes.save(point, point.version, point.seq, self.clock())
                applied[name] = 0
                continue
            before = self._state_at(cur, game_id, point.version)
            batch = Batch(before, events, entries, point.version)
            mark = writes.mark()
            try:
                if self.before_apply is not None:
                    self.before_apply(name, game_id, batch)
                APPLY[name](self, cur, writes, game_id, batch)
            except Exception as exc:
                writes.rollback(mark)
                failures[name] = exc
                continue
            version = events[-1][0].version if events else point.version
            if events:
                self._remember(game_id, {point.version: batch.before, version: batch.after})
            seq = (entries[-1].seq or point.seq) if entries else point.seq
            writes.save(point, version, seq, self.clock())
            applied[name] = len(events) if name != "audit" else len(entries)
        for name, failure in failures.items():
            self._count_failure(writes, points[name], failure)
        writes.flush(cur)
        return applied, failures

    def _state_at(self, cur: Tx, game_id: str, version: int) -> GameState:
        """The state at ``version``: kept from the last batch, or from the nearest
        keyframe (every ``KEYFRAME_EVERY`` versions) and the events since."""
        if version == 0:
            return GameState()
        known = self._states.get(game_id, {}).get(version)
        if known is not None:
            return known
        frame = cur.execute(
            "SELECT version, position FROM rm_keyframes WHERE game_id = %s AND version <= %s"
            " AND fold_version = %s ORDER BY version DESC LIMIT 1",
            (game_id, version, FOLD_VERSION),
        ).fetchone()
        start, state = (
            (int(frame[0]), position.load(json.loads(frame[1]))) if frame else (0, GameState())
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

    def _lock_all(self, cur: Any, names: Sequence[str], game_id: str) -> dict[str, Checkpoint]:
        """The game's checkpoints of ``names``, created if new, locked until commit."""
        values = ", ".join(["(%s, %s)"] * len(names))
        cur.execute(
            f"INSERT INTO projection_checkpoints (projection, game_id) VALUES {values}"
            " ON CONFLICT (projection, game_id) DO NOTHING",
            [x for name in names for x in (name, game_id)],
        )
        marks = ", ".join(["%s"] * len(names))
        rows = cur.execute(
            "SELECT projection, version, seq, failures, error, updated_at"
            f" FROM projection_checkpoints WHERE game_id = %s AND projection IN ({marks})"
            f" ORDER BY projection {self.db.lock_suffix}",
            (game_id, *names),
        ).fetchall()
        return {
            r[0]: Checkpoint(r[0], game_id, int(r[1]), int(r[2]), int(r[3]), r[4], r[5])
            for r in rows
        }

    def _count_failure(self, writes: Writes, point: Checkpoint, exc: Exception) -> None:
        """Count a failure; the last allowed one halts the projection for the game."""
        error = f"{type(exc).__name__}: {exc}"
        failures = point.failures + 1
        log.warning("projection %s failed on game %s: %s", point.projection, point.game_id, error)
        halted = error if failures >= MAX_ATTEMPTS else None
        if halted:
            log.error(
                "projection %s halted for game %s after %d failures:\n%s",
                point.projection,
                point.game_id,
                failures,
                "".join(traceback.format_exception(exc)),
            )
        writes.execute(
            "UPDATE projection_checkpoints SET failures = %s, error = %s, updated_at = %s"
            " WHERE projection = %s AND game_id = %s",
            (failures, halted, self.clock(), point.projection, point.game_id),
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
        with self.db.transaction() as cur:
            cur.execute(
                "UPDATE projection_checkpoints SET failures = 0, error = NULL"
                " WHERE projection = %s AND game_id = %s",
                (name, game_id),
            )

    # --- maintenance ------------------------------------------------------------

    def all_games(self) -> list[str]:
        with self.db.reading() as cur:
            return sorted(self.history.heads(cur))

    def behind(self) -> list[str]:
        """Games some projection has not caught up with (halted ones excluded)."""
        with self.db.reading() as cur:
            heads = self.history.heads(cur)
            seqs = self.history.journal_heads(cur)
            points = cur.execute(
                "SELECT projection, game_id, version, seq, error FROM projection_checkpoints"
            ).fetchall()
        known = {(r[0], r[1]): (int(r[2]), int(r[3]), r[4]) for r in points}
        lagging = set()
        for game_id, head in heads.items():
            for name in PROJECTIONS:
                version, seq, error = known.get((name, game_id), (0, 0, None))
                if error is not None:
                    continue
                if head > version or (name == "audit" and seqs.get(game_id, 0) > seq):
                    lagging.add(game_id)
        return sorted(lagging)

    def rebuild(
        self, names: Sequence[str] = PROJECTIONS, progress: Callable[[int], None] | None = None
    ) -> int:
        """Rebuild from the event store, one game per transaction (never half-built)."""
        total = 0
        for game_id in self.all_games():
            with self.db.transaction() as cur:
                applied, failures = self._run(cur, game_id, names, reset=True)
            total += sum(applied.values())
            if failures:
                log.error("rebuild of %s failed: %s", game_id, failures)
            if progress is not None:
                progress(1)
        return total

    def status(self) -> list[Lag]:
        """Lag per projection: games tracked, games behind, events behind, halted games."""
        lags = []
        with self.db.reading() as cur:
            heads = self.history.heads(cur)
            for name in PROJECTIONS:
                points = {
                    r[0]: (int(r[1]), r[2])
                    for r in cur.execute(
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
        with self.db.reading() as cur:
            row = cur.execute(
                "SELECT version, seq, failures, error, updated_at FROM projection_checkpoints"
                " WHERE projection = %s AND game_id = %s",
                (name, game_id),
            ).fetchone()
        if row is None:
            return None
        return Checkpoint(name, game_id, int(row[0]), int(row[1]), int(row[2]), row[3], row[4])

    # --- named queries (what the API asks) ---------------------------------------

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        """Rows of one statement on the read-model tables (tests and the named queries)."""
        with self.db.reading() as cur:
            return list(cur.execute(sql, tuple(params)).fetchall())

    def scoreboard(self, game_id: str) -> dict[str, Any] | None:
        """The game's scoreboard with its ``version``, or None before it is built."""
        rows = self.query("SELECT version, data FROM rm_scoreboard WHERE game_id = %s", (game_id,))
        if not rows:
            return None
        board: dict[str, Any] = json.loads(rows[0][1])
        return {"version": int(rows[0][0]), **board}

    def leaderboard(self, limit: int, offset: int = 0) -> list[dict[str, Any]]:
        """Accounts by wins, then points (ties by account id)."""
        rows = self.query(
            "SELECT account_id, COUNT(*), SUM(won), SUM(points), AVG(rank * 1.0)"
            " FROM rm_results GROUP BY account_id"
            " ORDER BY SUM(won) DESC, SUM(points) DESC, account_id LIMIT %s OFFSET %s",
            (limit, offset),
        )
        return [
            {
                "account_id": r[0],
                "games": int(r[1]),
                "wins": int(r[2]),
                "points": int(r[3]),
                "average_rank": round(float(r[4]), 3),
            }
            for r in rows
        ]

    def lobby(
        self,
        status: str | None,
        limit: int,
        offset: int = 0,
        *,
        before: tuple[str, str] | None = None,
        players: int | None = None,
        variant: str | None = None,
        clock: str | None = None,
        free_seat: bool = False,
        among: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Lobby entries by last activity, newest first: ``limit`` rows after the cursor
        ``before`` (the last activity and game id of the last row seen) or from
        ``offset``; only games of ``players`` seats, of a ``variant`` (``VARIANTS``), a
        ``clock`` (``CLOCKS``), with a free seat, or with one of the accounts ``among``
        seated, when asked."""
        where: list[str] = []
        params: list[Any] = []
        if status:
            where.append("status = %s")
            params.append(status)
        if before is not None:
            where.append("(last_activity < %s OR (last_activity = %s AND game_id > %s))")
            params += [before[0], before[0], before[1]]
        if players is not None:
            where.append("players = %s")
            params.append(players)
        if variant == "two_colours":
            where.append("two_colours = 1")
        elif variant == "free_orientation":
            where.append("free_orientation = 1")
        elif variant == "standard":
            where.append("two_colours = 0 AND free_orientation = 0")
        if clock is not None:
            where.append("clock = %s")
            params.append(clock)
        if free_seat:
            where.append("status = 'open' AND seated < players")
        if among is not None:
            if not among:
                return []
            marks = ", ".join(["%s"] * len(among))
            where.append(
                f"game_id IN (SELECT game_id FROM rm_lobby_seats WHERE account_id IN ({marks}))"
            )
            params += list(among)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        return _entries(
            self.query(
                f"SELECT version, data FROM rm_lobby {clause}"
                " ORDER BY last_activity DESC, game_id LIMIT %s OFFSET %s",
                (*params, limit, offset),
            )
        )

    def due(self, game_id: str) -> int | None:
        """When the game's clock needs the service next (epoch ms; docs/clocks.md)."""
        rows = self.query("SELECT due_ms FROM rm_clocks WHERE game_id = %s", (game_id,))
        return int(rows[0][0]) if rows else None

    def due_games(self, now_ms: int, limit: int = 1000) -> list[tuple[str, int]]:
        """Games whose clock needed the service by ``now_ms`` (with when, epoch ms),
        the most overdue first."""
        rows = self.query(
            "SELECT game_id, due_ms FROM rm_clocks WHERE due_ms <= %s ORDER BY due_ms LIMIT %s",
            (now_ms, limit),
        )
        return [(str(r[0]), int(r[1])) for r in rows]

    def notifications(
        self, account_id: str, limit: int, before: tuple[int, str] | None
    ) -> list[Any]:
        """An account's notifications, newest first (rows: id, game, version, kind, when,
        text, when in epoch ms), after the cursor ``before`` (epoch ms, id) when given."""
        where, params = "account_id = %s", list[Any]([account_id])
        if before is not None:
            where += " AND (created_ms < %s OR (created_ms = %s AND id > %s))"
            params += [before[0], before[0], before[1]]
        return self.query(
            "SELECT id, game_id, version, kind, created_at, text, created_ms"
            f" FROM rm_notifications WHERE {where} ORDER BY created_ms DESC, id LIMIT %s",
            (*params, limit),
        )

    def my_games(self, account_id: str, limit: int, offset: int) -> list[dict[str, Any]]:
        """An account's games, the ones waiting for its move first, each with ``my_move``."""
        games = _entries(
            self.query(
                "SELECT l.version, l.data FROM rm_lobby l"
                " JOIN rm_lobby_seats s ON s.game_id = l.game_id WHERE s.account_id = %s"
                " ORDER BY CASE WHEN l.active_player = %s THEN 0 ELSE 1 END,"
                " l.last_activity DESC, l.game_id LIMIT %s OFFSET %s",
                (account_id, account_id, limit, offset),
            )
        )
        for game in games:
            game["my_move"] = game["active_player"] == account_id
        return games

    def steps(
        self, game_id: str, after: int, limit: int, upto: int | None = None
    ) -> list[dict[str, Any]]:
        """The replay steps after a version (up to ``upto``), in order; ``superseded`` marks
        those a rewind (D6) went back over (kept in the record, no longer the history)."""
        upto = upto if upto is not None else MAX_VERSION
        rewinds = self.rewinds(game_id, upto)
        rows = [
            _step_row(r)
            for r in self.query(
                f"SELECT {STEP_READ} FROM rm_steps WHERE game_id = %s AND version > %s"
                " AND version <= %s ORDER BY version LIMIT %s",
                (game_id, after, upto, limit),
            )
        ]
        for row in rows:
            row["superseded"] = _superseded(row["version"], rewinds)
        return rows

    def rewinds(self, game_id: str, upto: int | None = None) -> list[dict[str, int]]:
        """The game's rewinds (D6) up to ``upto``: each ``GameRewound``'s version and where
        it went."""
        return [
            {"version": int(v), "to_version": int(t)}
            for v, t in self.query(
                "SELECT version, to_version FROM rm_rewinds WHERE game_id = %s"
                " AND version <= %s ORDER BY version",
                (game_id, upto if upto is not None else MAX_VERSION),
            )
        ]

    def turns(self, game_id: str, upto: int | None = None) -> list[dict[str, int]]:
        """Each turn with the version of its first step (in the history as it stands)."""
        upto = upto if upto is not None else MAX_VERSION
        rewinds = self.rewinds(game_id, upto)
        if not rewinds:
            return [
                {"turn": int(t), "first_version": int(v)}
                for t, v in self.query(
                    "SELECT turn, MIN(version) FROM rm_steps WHERE game_id = %s"
                    " AND version <= %s GROUP BY turn ORDER BY turn",
                    (game_id, upto),
                )
            ]
        first: dict[int, int] = {}
        for t, v in self.query(
            "SELECT turn, version FROM rm_steps WHERE game_id = %s AND version <= %s"
            " ORDER BY version",
            (game_id, upto),
        ):
            if not _superseded(int(v), rewinds):
                first.setdefault(int(t), int(v))
        return [{"turn": t, "first_version": v} for t, v in sorted(first.items())]

    def audit(self, game_id: str, after: int, limit: int) -> list[dict[str, Any]]:
        """Commands received after a sequence number, each with the steps it caused."""
        rows = self.query(
            "SELECT seq, turn, command_id, actor, received_at, payload, judged_version, outcome,"
            " first_version, last_version, rejection FROM rm_audit WHERE game_id = %s AND seq > %s"
            " ORDER BY seq LIMIT %s",
            (game_id, after, limit),
        )
        firsts = [r[8] for r in rows if r[8] is not None]
        lasts = [r[9] for r in rows if r[9] is not None]
        rewinds = self.rewinds(game_id) if firsts else []
        steps = (
            {
                r[0]: {**_step_row(r), "superseded": _superseded(int(r[0]), rewinds)}
                for r in self.query(
                    f"SELECT {STEP_READ} FROM rm_steps WHERE game_id = %s"
                    " AND version BETWEEN %s AND %s",
                    (game_id, min(firsts), max(lasts)),
                )
            }
            if firsts and lasts
            else {}
        )
        commands = []
        for r in rows:
            first, last = r[8], r[9]
            versions = range(first, last + 1) if first is not None and last is not None else ()
            commands.append(
                {
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
            )
        return commands


STEP_READ = "version, turn, step, colour, actor, type, rule, automatic, description"


def _superseded(version: int, rewinds: Sequence[dict[str, int]]) -> bool:
    """Whether a rewind went back over ``version`` (D6)."""
    return any(r["to_version"] < version < r["version"] for r in rewinds)


def _step_row(row: Sequence[Any]) -> dict[str, Any]:
    return {
        "version": row[0],
        "turn": row[1],
        "step": row[2],
        "colour": row[3],
        "actor": row[4],
        "type": row[5],
        "rule": row[6],
        "automatic": bool(row[7]),
        "description": row[8],
    }


def _entries(rows: Sequence[Any]) -> list[dict[str, Any]]:
    return [{"version": version, **json.loads(data)} for version, data in rows]


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _last_activity(batch: Batch) -> str:
    meta = batch.events[-1][0].meta() if batch.events else {}
    recorded = meta.get("recorded_at")
    if not isinstance(recorded, str):
        return ""
    try:  # as the service records it (ISO 8601 in UTC), whatever an imported file wrote
        moment = datetime.fromisoformat(recorded)
    except ValueError:
        return ""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC).isoformat()


def _upsert(w: Writes, table: str, columns: Sequence[str], row: Sequence[Any]) -> None:
    names = ", ".join(columns)
    marks = ", ".join(["%s"] * len(columns))
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns[1:])
    w.execute(
        f"INSERT INTO {table} ({names}) VALUES ({marks})"
        f" ON CONFLICT ({columns[0]}) DO UPDATE SET {updates}",
        tuple(row),
    )


def _apply_scoreboard(rm: ReadModels, cur: Any, w: Writes, game_id: str, batch: Batch) -> None:
    version = batch.events[-1][0].version
    data = json.dumps(scoreboard(batch.after), sort_keys=True)
    _upsert(w, "rm_scoreboard", ("game_id", "version", "data"), (game_id, version, data))


LOBBY_COLUMNS = (
    "game_id", "version", "status", "active_player", "last_activity", "data",
    "players", "seated", "two_colours", "free_orientation", "clock",
)  # fmt: skip


def _apply_lobby(rm: ReadModels, cur: Any, w: Writes, game_id: str, batch: Batch) -> None:
    state = batch.after
    version = batch.events[-1][0].version
    meta = batch.events[-1][0].meta()  # the last transaction's: its clock (docs/clocks.md)
    clock = meta.get("clock") if isinstance(meta.get("clock"), dict) else None
    entry = lobby_entry(state, _last_activity(batch), clock)
    due = due_ms(state, clock, _last_activity(batch))
    if due is None:
        w.execute("DELETE FROM rm_clocks WHERE game_id = %s", (game_id,))
    else:
        _upsert(w, "rm_clocks", ("game_id", "version", "due_ms"), (game_id, version, due))
    options = state.options
    _upsert(
        w,
        "rm_lobby",
        LOBBY_COLUMNS,
        (
            game_id,
            version,
            status(state),
            entry["active_player"],
            entry["last_activity"],
            json.dumps(entry, sort_keys=True),
            options.max_players,
            len(state.players),
            int(options.two_colours_each),
            int(options.free_orientation_after_first),
            options.time_control,
        ),
    )
    w.execute("DELETE FROM rm_lobby_seats WHERE game_id = %s", (game_id,))
    w.many(
        "rm_lobby_seats", ("game_id", "account_id"), [(game_id, p.player_id) for p in state.players]
    )


def _apply_leaderboard(rm: ReadModels, cur: Any, w: Writes, game_id: str, batch: Batch) -> None:
    w.execute("DELETE FROM rm_results WHERE game_id = %s", (game_id,))
    w.many(
        "rm_results",
        ("game_id", "account_id", "rank", "points", "won"),
        [(game_id, r.player_id, r.rank, r.points, int(r.won)) for r in results(batch.after)],
    )


STEP_COLUMNS = (
    "game_id", "version", "turn", "step", "colour", "actor", "type", "rule", "automatic",
    "description",
)  # fmt: skip
AUDIT_COLUMNS = (
    "game_id", "seq", "turn", "command_id", "actor", "received_at", "payload", "judged_version",
    "outcome", "first_version", "last_version", "rejection",
)  # fmt: skip


def _apply_timeline(rm: ReadModels, cur: Any, w: Writes, game_id: str, batch: Batch) -> None:
    previous = None
    if batch.base_version > 0:  # (a rebuild starts at 0: its deletes are not sent yet)
        last = cur.execute(
            "SELECT turn, step FROM rm_steps WHERE game_id = %s AND version = %s",
            (game_id, batch.base_version),
        ).fetchone()
        previous = (int(last[0]), int(last[1])) if last else None
    state = batch.before
    steps: list[tuple[Any, ...]] = []
    frames: list[tuple[Any, ...]] = []
    rewinds: list[tuple[Any, ...]] = []
    for stored, event in batch.events:
        if isinstance(event, GameRewound):
            rewinds.append((game_id, stored.version, event.to_version))
        s = step(stored.version, event, state, stored.meta(), previous)
        previous = (s.turn, s.step)
        state = evolve(state, event)
        steps.append(
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
            )
        )
        if stored.version % KEYFRAME_EVERY == 0:
            frames.append((game_id, stored.version, FOLD_VERSION, position.text(state)))
    batch._after = state
    w.many("rm_steps", STEP_COLUMNS, steps)
    w.many("rm_keyframes", ("game_id", "version", "fold_version", "position"), frames)
    w.many("rm_rewinds", ("game_id", "version", "to_version"), rewinds)


def _apply_audit(rm: ReadModels, cur: Any, w: Writes, game_id: str, batch: Batch) -> None:
    if not batch.journal:
        return
    # the turn at every version this batch covers; older ones (a command judged
    # before the last catch-up but journalled after it) are loaded
    state = batch.before
    turns = {batch.base_version: state.turn}
    for stored, event in batch.events:
        state = evolve(state, event)
        turns[stored.version] = state.turn
    batch._after = state
    rows = []
    for j in batch.journal:
        turn = turns.get(j.judged_version)
        if turn is None:
            turn = rm._state_at(cur, game_id, j.judged_version).turn
        rows.append(
            (
                game_id,
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
    w.many("rm_audit", AUDIT_COLUMNS, rows)


def _apply_notifications(rm: ReadModels, cur: Any, w: Writes, game_id: str, batch: Batch) -> None:
    found = notices(batch.before, [(s.version, s.meta(), e) for s, e in batch.events])
    for n in found:
        w.execute(
            "INSERT INTO rm_notifications (id, account_id, game_id, version, kind, created_at,"
            " created_ms, text) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (id) DO NOTHING",
            (
                notice_id(n["account_id"], game_id, n["version"], n["kind"]),
                n["account_id"],
                game_id,
                n["version"],
                n["kind"],
                n["at"],
                epoch_ms(n["at"]) if n["at"] else 0,
                n["text"],
            ),
        )


APPLY: dict[str, Callable[[ReadModels, Any, Writes, str, Batch], None]] = {
    "scoreboard": _apply_scoreboard,
    "lobby": _apply_lobby,
    "leaderboard": _apply_leaderboard,
    "timeline": _apply_timeline,
    "audit": _apply_audit,
    "notifications": _apply_notifications,
}
