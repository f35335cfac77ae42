"""The open offers at the table as the API shows them (docs/table.md): who made each,
who accepted, who is yet to answer; and a game's position without the one a takeback
carries (the record's, at its version: ``GET /state?at=`` shows it)."""

from __future__ import annotations

from typing import Any

from domain import position
from domain.consent import answerers, in_the_game
from domain.state import GameState


def _ids(state: GameState, seats: frozenset[int]) -> list[str]:
    return [p.player_id for p in state.players if p.seat in seats]


def offers_view(state: GameState) -> dict[str, Any]:
    """``{"takeback": …, "end": …}``, each None or the offer with its answers so far."""
    takeback = end = None
    t = state.takeback
    if t is not None:
        waiting = answerers(state, t.seat) - t.accepted
        takeback = {
            "seat": t.seat,
            "player_id": t.player_id,
            "to_version": t.to_version,
            "accepted": _ids(state, t.accepted),
            "waiting_for": _ids(state, waiting),
        }
    e = state.end_offer
    if e is not None:
        end = {
            "seat": e.seat,
            "player_id": e.player_id,
            "accepted": _ids(state, e.accepted),
            "waiting_for": _ids(state, in_the_game(state) - e.accepted),
        }
    return {"takeback": takeback, "end": end}


def public_position(state: GameState) -> dict[str, Any]:
    """``domain.position.dump`` without an open takeback's own copy of a position."""
    data = position.dump(state)
    if "takeback" in data:
        data["takeback"] = {k: v for k, v in data["takeback"].items() if k != "position"}
    return data
