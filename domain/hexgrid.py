"""Flat-topped hex geometry in axial coordinates (shared/tiles.md, Geometry).

World directions, numbered clockwise as seen from above: 0 = S, 1 = SW,
2 = NW, 3 = N, 4 = NE, 5 = SE. A tile placed with rotation ``r`` has its local
edge ``k`` facing world direction ``(k + r) % 6``.
"""

from __future__ import annotations

from functools import lru_cache

Cell = tuple[int, int]

ORIGIN: Cell = (0, 0)
DIRECTION_NAMES = ("S", "SW", "NW", "N", "NE", "SE")
STEPS: tuple[Cell, ...] = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0))


def neighbour(cell: Cell, direction: int) -> Cell:
    """The cell across world ``direction`` from ``cell``."""
    dq, dr = STEPS[direction]
    return (cell[0] + dq, cell[1] + dr)


@lru_cache(maxsize=4096)
def neighbours(cell: Cell) -> tuple[Cell, ...]:
    """The six cells around ``cell``, in direction order (cached: listing free cells
    asks it of every tile on the table)."""
    return tuple(neighbour(cell, d) for d in range(6))


def opposite(direction: int) -> int:
    """The direction pointing back."""
    return (direction + 3) % 6


def world_direction(local_edge: int, rotation: int) -> int:
    """World direction faced by ``local_edge`` of a tile with ``rotation``."""
    return (local_edge + rotation) % 6


def entry_edge(travel_direction: int, rotation: int) -> int:
    """Local edge by which a fleet travelling ``travel_direction`` enters a tile."""
    return (travel_direction + 3 - rotation) % 6


def rotation_facing_back(travel_direction: int) -> int:
    """Rotation of a newly drawn tile whose red mark faces where the fleet came from (R11)."""
    return (travel_direction + 3) % 6


def cell_key(cell: Cell) -> str:
    """Text form ``"q,r"`` of a cell (JSON object keys, positions)."""
    return f"{cell[0]},{cell[1]}"


def parse_cell(text: str) -> Cell:
    """Inverse of ``cell_key``."""
    q, r = text.split(",")
    return (int(q), int(r))
