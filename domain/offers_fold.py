"""The fold of the offers' events (docs/table.md, T1–T8): what a game keeps of an open
takeback or proposal to end, and the position a takeback restores."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from domain import offers as o
from domain.changes import Changes, position_of
from domain.state import GameState


def _asked(s: GameState, e: o.TakebackRequested) -> Changes:
    return Changes(takeback=o.TakebackRequest(e.seat, e.player_id, e.to_version, e.position))


def _accepted(s: GameState, e: o.TakebackAccepted) -> Changes:
    t = s.takeback
    if t is None:  # never recorded without an open takeback (the judge checks)
        return Changes()
    return Changes(
        takeback=o.TakebackRequest(
            t.seat, t.player_id, t.to_version, t.position, t.accepted | {e.seat}
        )
    )


def _closed(s: GameState, e: Any) -> Changes:
    return Changes(takeback=None)


def _taken_back(s: GameState, e: o.MovesTakenBack) -> Changes:
    """T3, T5: the position of ``to_version`` as the event gives it; every offer closed.
    The seats' timeouts are as they stood there (absences and resignations cannot lie
    between, T2)."""
    from domain import position  # position reads events; the fold is below it

    at = position.load(json.loads(e.position))
    return Changes(**position_of(at), timeouts=dict(at.timeouts), takeback=None, end_offer=None)


def _proposed(s: GameState, e: o.EndProposed) -> Changes:
    return Changes(end_offer=o.EndOffer(e.seat, e.player_id, frozenset({e.seat})))


def _end_accepted(s: GameState, e: o.EndAccepted) -> Changes:
    offer = s.end_offer
    if offer is None:
        return Changes()
    return Changes(end_offer=o.EndOffer(offer.seat, offer.player_id, offer.accepted | {e.seat}))


def _end_closed(s: GameState, e: Any) -> Changes:
    return Changes(end_offer=None)


OFFER_HANDLERS: dict[type, Callable[[GameState, Any], Changes]] = {
    o.TakebackRequested: _asked,
    o.TakebackAccepted: _accepted,
    o.TakebackRefused: _closed,
    o.TakebackWithdrawn: _closed,
    o.TakebackExpired: _closed,
    o.MovesTakenBack: _taken_back,
    o.EndProposed: _proposed,
    o.EndAccepted: _end_accepted,
    o.EndDeclined: _end_closed,
    o.EndProposalWithdrawn: _end_closed,
    o.EndProposalExpired: _end_closed,
}
