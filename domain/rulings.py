"""The events an arbiter's ruling on a dispute records (docs/disputes.md, D4, D6, D7):
pausing and resuming the game, rewinding it, amending its result. ``domain.events``
lists them with the others (and exports them under its own name).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class GameRewound:
    """A ruling on dispute ``dispute_id`` rewound the game (D6): play continues from the
    position at ``to_version`` (given whole in ``position``, canonical JSON, so the fold
    needs nothing else); the tiles not drawn by then are re-dealt from a fresh seed
    committed to in ``deck_commitment``. The events in between stay in the chain,
    superseded."""

    dispute_id: str
    to_version: int
    deck_commitment: str
    position: str
    rule: str = "D6"


@dataclass(frozen=True, slots=True)
class GamePaused:
    """An auditor paused the game while dispute ``dispute_id`` is looked at (D7)."""

    dispute_id: str
    rule: str = "D7"


@dataclass(frozen=True, slots=True)
class GameResumed:
    """An auditor resumed the game (D7)."""

    dispute_id: str
    rule: str = "D7"


@dataclass(frozen=True, slots=True)
class ResultAmended:
    """A ruling on dispute ``dispute_id`` amended the final result (D4): the game counts
    for nobody (``annulled``), or its ranking is ``ranking`` (player ids, first first)."""

    dispute_id: str
    annulled: bool
    ranking: tuple[str, ...] | None = None
    rule: str = "D4"


# in the order ``domain.events.EVENT_TYPES`` has always listed them
RULING_EVENTS: tuple[type, ...] = (GamePaused, GameResumed, ResultAmended, GameRewound)
