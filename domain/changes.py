"""``Changes``: the fields of a ``GameState`` an event sets, typed (``domain.fold``).

A handler of the fold returns them; a misspelt field or a value of the wrong type
fails under mypy, and a test checks every key of every handler against the state's
fields at run time."""

from __future__ import annotations

from typing import Any, TypedDict

from domain.commands import GameOptions
from domain.hexgrid import Cell
from domain.offers import EndOffer, TakebackRequest
from domain.state import (
    Departure,
    EndReason,
    GameState,
    IslandState,
    Pending,
    Phase,
    PlacedTile,
    Player,
    Voyage,
)


class Changes(TypedDict, total=False):
    """The fields of ``GameState`` an event sets (``domain.state.GameState``)."""

    game_id: str
    options: GameOptions
    deck_commitment: str
    deck_algorithm: str
    phase: Phase
    players: tuple[Player, ...]
    order: tuple[str, ...]
    active: int
    turn: int
    tiles: dict[Cell, PlacedTile]
    islands: dict[str, IslandState]
    removed: tuple[str, ...]
    supply: dict[str, int]
    out: dict[str, int]
    drawn: tuple[str, ...]
    end_reason: EndReason | None
    pending: Pending | None
    voyage: Voyage | None
    departures: frozenset[Departure]
    result: Any
    seed_hex: str | None
    paused: str | None
    amendment: Any
    deals: tuple[str, ...]
    dealt: int
    redeal_hex: tuple[str, ...]
    timeouts: dict[int, int]
    absent: frozenset[int]
    resigned: frozenset[int]
    takeback: TakebackRequest | None
    end_offer: EndOffer | None


def position_of(at: GameState) -> Changes:
    """The fields of a position a rewind (D6) or a takeback (T3) restores: the board,
    the turn and what is pending, as ``at`` holds them."""
    return Changes(
        phase=at.phase,
        players=at.players,
        order=at.order,
        active=at.active,
        turn=at.turn,
        tiles=at.tiles,
        islands=at.islands,
        removed=at.removed,
        supply=at.supply,
        out=at.out,
        drawn=at.drawn,
        end_reason=at.end_reason,
        pending=at.pending,
        voyage=at.voyage,
        departures=at.departures,
        result=at.result,
    )
