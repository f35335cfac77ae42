"""Completing a takeback request from the record (docs/table.md, T1, T2).

A player asks only "take back my last decision"; the service finds that decision in
the record — the player's latest accepted move still in the history (not set aside by
a rewind or an earlier takeback) — and gives the domain the version before it and the
position there, whole. Verification checks both against the record
(``service.audit.takebacks``), so the service cannot pick another.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from domain import commands as cmd
from domain import position
from domain.consent import restorable
from domain.events import Event
from domain.history import effective_versions
from domain.state import GameState
from service.errors import Conflict
from service.store.base import JournalEntry

PLAYED = frozenset(t.__name__ for t in cmd.PLAY_COMMANDS)


def last_decision(
    journal: Sequence[JournalEntry], events: Sequence[Event], player_id: str
) -> JournalEntry | None:
    """``player_id``'s last accepted move still in the history of ``events`` (T1)."""
    history = set(effective_versions(events))
    own = [
        j
        for j in journal
        if j.outcome == "accepted"
        and j.payload.get("type") in PLAYED
        and j.actor.get("account") == player_id
        and j.first_version is not None
        and j.last_version is not None
        and j.last_version <= len(events)
        and j.last_version in history
    ]
    return max(own, key=lambda j: j.last_version or 0, default=None)


def complete(
    journal: Sequence[JournalEntry],
    events: Sequence[Event],
    player_id: str,
    load: Callable[[int], GameState],
) -> cmd.RequestTakeback:
    """The request of ``player_id`` on the game of ``events``: back to the version before
    their last decision, with the position there (``load`` reads a past version)."""
    last = last_decision(journal, events, player_id)
    if last is None or last.first_version is None:
        raise Conflict("nothing_to_take_back", "you have taken no decision to take back", rule="T1")
    to = last.first_version - 1
    return cmd.RequestTakeback(player_id, to, position.text(restorable(load(to))))
