"""The timeline read model: every event as a replay step, keyframes, and rewinds.

Per game and version: the step (``rm_steps``: turn, step within the turn,
colour, actor, description), a keyframe every ``KEYFRAME_EVERY`` versions
(``rm_keyframes``: the position, which replays and the engine's folds start
from), and each rewind a ruling made (``rm_rewinds``, D6): the steps it went
back over are answered ``superseded``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple, TypedDict

from domain import position
from domain.events import GameRewound
from domain.offers import MovesTakenBack
from domain.position import FOLD_VERSION
from projections.contract import Batch, ReadModel, rows
from projections.models import step
from projections.ports import Database, Tx
from projections.writes import Writes

KEYFRAME_EVERY = 10
MAX_VERSION = 2**31 - 1  # versions are 32-bit in the store

TABLES = [
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
]
# 11: each step's description as a phrase too (``words``: projections.phrases, JSON), said
# in the reader's language where it is shown; a step made before has none (its English
# is shown) until the timeline is rebuilt (``tongiaki projections rebuild timeline``)
MIGRATIONS = {11: ["ALTER TABLE rm_steps ADD COLUMN words TEXT"]}
STEP_COLUMNS = (
    "game_id", "version", "turn", "step", "colour", "actor", "type", "rule", "automatic",
    "description", "words",
)  # fmt: skip
STEP_READ = "version, turn, step, colour, actor, type, rule, automatic, description, words"


class StepRow(TypedDict):
    """One replay step, as the timeline and the audit answer it."""

    version: int
    turn: int
    step: int
    colour: str | None
    actor: str | None
    type: str
    rule: str | None
    automatic: bool
    description: str
    words: str | None  # the description's phrase as JSON (projections.phrases), if kept
    superseded: bool  # a rewind (D6) went back over it


class Rewind(TypedDict):
    """A ``GameRewound`` at ``version``, back to ``to_version``."""

    version: int
    to_version: int


class Turn(TypedDict):
    """A turn and the version of its first step."""

    turn: int
    first_version: int


class Keyframe(NamedTuple):
    """A kept position: its version and its text (``domain.position``)."""

    version: int
    position: str


def apply(tx: Tx, writes: Writes, batch: Batch) -> None:
    previous = None
    if batch.base_version > 0:  # (a rebuild starts at 0: its deletes are not sent yet)
        last = tx.execute(
            "SELECT turn, step FROM rm_steps WHERE game_id = %s AND version = %s",
            (batch.game_id, batch.base_version),
        ).fetchone()
        previous = (int(last[0]), int(last[1])) if last else None
    steps: list[tuple[Any, ...]] = []
    frames: list[tuple[Any, ...]] = []
    rewinds: list[tuple[Any, ...]] = []
    for stored, event, before, after in batch.folded():
        if isinstance(event, GameRewound | MovesTakenBack):  # D6, T3: the steps between set aside
            rewinds.append((batch.game_id, stored.version, event.to_version))
        s = step(stored.version, event, before, stored.meta(), previous)
        previous = (s.turn, s.step)
        steps.append(
            (
                batch.game_id,
                s.version,
                s.turn,
                s.step,
                s.colour,
                s.actor,
                s.type,
                s.rule,
                int(s.automatic),
                s.description,
                json.dumps(s.words, separators=(",", ":")) if s.words is not None else None,
            )
        )
        if stored.version % KEYFRAME_EVERY == 0:
            frames.append((batch.game_id, stored.version, FOLD_VERSION, position.text(after)))
    writes.many("rm_steps", STEP_COLUMNS, steps)
    writes.many("rm_keyframes", ("game_id", "version", "fold_version", "position"), frames)
    writes.many("rm_rewinds", ("game_id", "version", "to_version"), rewinds)


MODEL = ReadModel(
    tables=TABLES,
    owned=["rm_steps", "rm_keyframes", "rm_rewinds"],
    apply=apply,
    migrations=MIGRATIONS,
)


def nearest_keyframe(tx: Tx, game_id: str, at_most: int) -> Keyframe | None:
    """The newest keyframe at or below ``at_most`` of this engine's folds."""
    row = tx.execute(
        "SELECT version, position FROM rm_keyframes WHERE game_id = %s AND version <= %s"
        " AND fold_version = %s ORDER BY version DESC LIMIT 1",
        (game_id, at_most, FOLD_VERSION),
    ).fetchone()
    return Keyframe(int(row[0]), row[1]) if row else None


def steps(
    db: Database, game_id: str, after: int, limit: int, upto: int | None = None
) -> list[StepRow]:
    """The replay steps after a version (up to ``upto``), in order; ``superseded`` marks
    those a rewind (D6) went back over (kept in the record, no longer the history)."""
    upto = upto if upto is not None else MAX_VERSION
    gone = rewinds(db, game_id, upto)
    found = rows(
        db,
        f"SELECT {STEP_READ} FROM rm_steps WHERE game_id = %s AND version > %s"
        " AND version <= %s ORDER BY version LIMIT %s",
        (game_id, after, upto, limit),
    )
    return [step_row(r, gone) for r in found]


def steps_between(
    db: Database, game_id: str, first: int, last: int, gone: Sequence[Rewind]
) -> dict[int, StepRow]:
    """The steps from version ``first`` to ``last``, by version (``gone``: the rewinds)."""
    found = rows(
        db,
        f"SELECT {STEP_READ} FROM rm_steps WHERE game_id = %s AND version BETWEEN %s AND %s",
        (game_id, first, last),
    )
    return {r[0]: step_row(r, gone) for r in found}


def rewinds(db: Database, game_id: str, upto: int | None = None) -> list[Rewind]:
    """The game's rewinds (D6) up to ``upto``: each ``GameRewound``'s version and where it
    went."""
    return [
        {"version": int(v), "to_version": int(t)}
        for v, t in rows(
            db,
            "SELECT version, to_version FROM rm_rewinds WHERE game_id = %s"
            " AND version <= %s ORDER BY version",
            (game_id, upto if upto is not None else MAX_VERSION),
        )
    ]


def turns(db: Database, game_id: str, upto: int | None = None) -> list[Turn]:
    """Each turn with the version of its first step (in the history as it stands)."""
    upto = upto if upto is not None else MAX_VERSION
    gone = rewinds(db, game_id, upto)
    if not gone:
        return [
            {"turn": int(t), "first_version": int(v)}
            for t, v in rows(
                db,
                "SELECT turn, MIN(version) FROM rm_steps WHERE game_id = %s"
                " AND version <= %s GROUP BY turn ORDER BY turn",
                (game_id, upto),
            )
        ]
    first: dict[int, int] = {}
    for t, v in rows(
        db,
        "SELECT turn, version FROM rm_steps WHERE game_id = %s AND version <= %s ORDER BY version",
        (game_id, upto),
    ):
        if not superseded(int(v), gone):
            first.setdefault(int(t), int(v))
    return [{"turn": t, "first_version": v} for t, v in sorted(first.items())]


def superseded(version: int, gone: Sequence[Rewind]) -> bool:
    """Whether a rewind went back over ``version`` (D6)."""
    return any(r["to_version"] < version < r["version"] for r in gone)


def step_row(row: Sequence[Any], gone: Sequence[Rewind]) -> StepRow:
    """A step as read (``STEP_READ``), ``superseded`` by one of the rewinds ``gone``."""
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
        "words": row[9],
        "superseded": superseded(int(row[0]), gone),
    }
