"""Following a fleet over the tiles already on the table (R11, R12, R15).

The engine's sailing itself happens in ``decide`` (it draws tiles and records
events); this module answers "where would this departure go?" without drawing,
which the endless-chain rule (R19) and the bots need.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from domain.frozen import quick_init
from domain.hexgrid import Cell, entry_edge, neighbour, world_direction
from domain.state import GameState
from domain.tiles import OCEAN_TILES


class RouteEnd(StrEnum):
    """How a route over the known tiles ends."""

    NEW_TILE = "new_tile"  # reaches an empty cell: a tile must be drawn
    FAILS = "fails"  # a foam path's danger is too high (R12)
    ISLAND = "island"  # reaches another, non-royal island
    LOOP = "loop"  # comes back to its own island, directly or via a royal island (R15)


@quick_init
@dataclass(frozen=True, slots=True)
class RoutePreview:
    """Where a departure goes over tiles already on the table."""

    end: RouteEnd
    cell: Cell
    island: str | None
    route: tuple[Cell, ...]


def jetty_direction(state: GameState, island_id: str, jetty: int) -> int:
    """World direction of local ``jetty`` of an island on the table."""
    return world_direction(jetty, state.islands[island_id].rotation)


def preview(state: GameState, origin: str, jetty: int, colours: int) -> RoutePreview:
    """Follow a fleet of ``colours`` distinct colours leaving ``origin`` by ``jetty``."""
    tiles = state.tiles
    start = state.islands[origin].cell
    cell, direction = start, jetty_direction(state, origin, jetty)
    route = [start]
    # Paths pair edges, so a route from an island cannot cycle among ocean
    # tiles; the bound only guards against corrupt positions.
    for _ in range(4 * len(tiles) + 8):
        nxt = neighbour(cell, direction)
        placed = tiles.get(nxt)
        if placed is None:
            return RoutePreview(RouteEnd.NEW_TILE, nxt, None, tuple(route))
        t = OCEAN_TILES.get(placed.tile)
        if t is None:
            isl = state.islands[placed.tile]
            if placed.tile == origin or isl.king is not None:
                return RoutePreview(RouteEnd.LOOP, nxt, placed.tile, tuple(route))
            return RoutePreview(RouteEnd.ISLAND, nxt, placed.tile, tuple(route))
        exit_edge, danger = t.exit_edge(entry_edge(direction, placed.rotation))
        if danger > colours:
            return RoutePreview(RouteEnd.FAILS, nxt, None, tuple(route))
        route.append(nxt)
        cell, direction = nxt, world_direction(exit_edge, placed.rotation)
    raise AssertionError("route does not end: the position is corrupt")
