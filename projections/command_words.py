"""A player's command in words, in the position it would be played in: what an arbiter
reads among "what else the player could have done" (docs/disputes.md, the evidence)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import commands as cmd
from domain.state import GameState
from domain.tiles import display_name, island
from projections.describe import DIRECTIONS, _beaches, _boats, _placed_beside, beach_name, colour


def _starting(c: cmd.PlaceStartingBoat, s: GameState) -> str:
    return f"place a starting boat on Tonga, {beach_name(s, 'tonga', c.beach)} (R4)"


def _expand(c: cmd.Expand, s: GameState) -> str:
    where = f"{display_name(c.island)}, {_beaches(s, c.island, c.beaches)}"
    if c.take_from is not None:
        moved_from = f"{display_name(c.take_from[0])}, {beach_name(s, *c.take_from)}"
        return f"move a boat from {moved_from} to {where} (R7)"
    return f"add {_boats(len(c.beaches))} to {where} (R6)"


def _place_boats(c: cmd.PlaceBoats, s: GameState) -> str:
    where = f"{display_name(c.island)}, {_beaches(s, c.island, c.beaches)}"
    return f"place {_boats(len(c.beaches))} on {where} (R8)"


def _emigrate(c: cmd.Emigrate, s: GameState) -> str:
    placed = s.islands.get(c.island)
    rotation = placed.rotation if placed is not None else 0
    beaches = island(c.island).beaches
    way = ""
    if 0 <= c.beach < len(beaches) and 0 <= c.jetty < len(beaches[c.beach].jetties):
        way = f", sailing {DIRECTIONS[(beaches[c.beach].jetties[c.jetty] + rotation) % 6]}"
    return f"emigrate from {display_name(c.island)}, {beach_name(s, c.island, c.beach)}{way} (R9)"


def _land(c: cmd.Land, s: GameState) -> str:
    parts = [
        f"{', '.join(colour(x) for x in boats)} on {beach_name(s, c.island, i)}"
        for i, boats in enumerate(c.beaches)
        if boats
    ]
    return f"land on {display_name(c.island)}: {'; '.join(parts) or 'nobody stays'} (R13)"


def _place_tile(c: cmd.PlaceTile, s: GameState) -> str:
    return f"place {display_name(c.tile)}{_placed_beside(s, c.cell)}, turned {c.rotation} (R11)"


def _royal(c: cmd.FoundRoyalIsland, s: GameState) -> str:
    return f"found a royal island on {display_name(c.island)} (R16)"


def _colonisation(c: cmd.NewColonisation, s: GameState) -> str:
    return "take the boats home and sail for a new island (R17)"


def _colonist(c: cmd.PlaceColonist, s: GameState) -> str:
    return f"put the colonist on {display_name(c.island)}, {beach_name(s, c.island, c.beach)}"


WORDS: dict[type[Any], Callable[[Any, GameState], str]] = {
    cmd.PlaceStartingBoat: _starting,
    cmd.Expand: _expand,
    cmd.PlaceBoats: _place_boats,
    cmd.Emigrate: _emigrate,
    cmd.Land: _land,
    cmd.PlaceTile: _place_tile,
    cmd.FoundRoyalIsland: _royal,
    cmd.NewColonisation: _colonisation,
    cmd.PlaceColonist: _colonist,
}


def command_words(command: cmd.Command, state: GameState) -> str:
    """``command`` in words, as played in ``state`` (its type's name if it has none)."""
    words = WORDS.get(type(command))
    try:
        text = words(command, state) if words is not None else type(command).__name__
    except (KeyError, IndexError, ValueError):
        text = type(command).__name__
    return text[0].upper() + text[1:]
