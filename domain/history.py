"""Which versions a game's history is made of now: a rewind (D6) or a takeback (T3)
continues from an earlier version, setting aside what came between (it stays in the
hash chain, superseded)."""

from __future__ import annotations

from collections.abc import Sequence

from domain.events import Event, GameRewound
from domain.offers import MovesTakenBack


def effective_versions(events: Sequence[Event]) -> list[int]:
    """The versions the game's history is made of now, oldest first: each ``GameRewound``
    (D6) and ``MovesTakenBack`` (T3) continues from its ``to_version``."""
    parent: dict[int, int] = {}
    for version, e in enumerate(events, start=1):
        back = isinstance(e, GameRewound | MovesTakenBack)
        parent[version] = e.to_version if back else version - 1  # type: ignore[union-attr]
    chain, at = [], len(events)
    while at > 0:
        chain.append(at)
        at = parent[at]
    return chain[::-1]
