"""``legal_commands``: every legal command of the pending decision (R25).

Each command is in exactly the shape ``decide`` accepts, so a client can submit
any item unchanged. Landings list every distinct distribution (see
``domain.landing`` for how a client builds one itself).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

from domain import commands as cmd
from domain.endless import departure_options
from domain.hexgrid import Cell, neighbours
from domain.landing import Beaches, distributions_on
from domain.setup import setup_choices
from domain.state import (
    CAPACITIES,
    MAX_ROYAL_ISLANDS,
    ChooseEmigration,
    ColonistPlacement,
    GameState,
    IslandState,
    Landing,
    Phase,
    SetupPlacement,
    TilePlacement,
    TurnStart,
)
from domain.tiles import TONGA


def legal_commands(state: GameState) -> list[cmd.Command]:
    """Every command that answers the pending decision legally (a fresh list)."""
    return list(_listed(state))


def _listed(state: GameState) -> list[cmd.Command]:
    """The legal commands, listed once per state (callers must not change the list)."""
    memo = state.memo()
    found: list[cmd.Command] | None = memo.get("legal")
    if found is None:
        found = memo["legal"] = _legal(state)
    return found


def _legal(state: GameState) -> list[cmd.Command]:
    p = state.pending
    if state.paused is not None:  # D7: nothing is played while an auditor has paused it
        return []
    if state.phase is Phase.OPEN:
        return [cmd.StartGame()] if len(state.players) >= 2 else []
    if isinstance(p, SetupPlacement):
        return [cmd.PlaceStartingBoat(b) for b in setup_choices(state)]
    if isinstance(p, TurnStart):
        return _turn_start(state, p.colour)
    if isinstance(p, ChooseEmigration):
        return list(departure_options(state))
    if isinstance(p, Landing):
        isl = state.islands[p.island]
        return list(_landings(p.island, isl.beaches, tuple(sorted(p.fleet))))
    if isinstance(p, TilePlacement):
        cells = [p.cell] if p.cell is not None else free_cells(state)
        options: list[cmd.Command] = []
        for c in cells:
            options += _placements_at(p.tile, c)
        return options
    if isinstance(p, ColonistPlacement):
        isl = state.islands[p.island]
        return [cmd.PlaceColonist(p.island, b) for b in range(len(isl.beaches)) if isl.free(b)]
    return []


@lru_cache(maxsize=16384)
def _placements_at(tile: str, cell: Cell) -> tuple[cmd.PlaceTile, ...]:
    """The six rotations of ``tile`` at ``cell``; commands are immutable, so lists share them."""
    return tuple(cmd.PlaceTile(tile, cell, r) for r in range(6))


@lru_cache(maxsize=4096)
def _landings(island: str, beaches: Beaches, fleet: tuple[str, ...]) -> tuple[cmd.Land, ...]:
    return tuple(cmd.Land(island, d) for d in distributions_on(island, beaches, fleet))


@lru_cache(maxsize=16384)
def _expand(tile: str, beaches: tuple[int, ...], take_from: tuple[str, int] | None) -> cmd.Expand:
    return cmd.Expand(tile, beaches, take_from)


def free_cells(state: GameState) -> list[Cell]:
    """Empty cells next to a tile on the table, sorted (R17, R20)."""
    tiles = state.tiles
    cells: set[Cell] = set()
    for cell in tiles:
        cells.update(neighbours(cell))
    cells.difference_update(tiles)
    return sorted(cells)


def _turn_start(state: GameState, colour: str) -> list[cmd.Command]:
    # one pass over the islands: where ``colour`` has boats, and its kings
    on_board = False
    mine: list[IslandState] = []
    kings = 0
    for isl in state.islands.values():
        if colour in isl.counts:
            on_board = True
            if isl.king is None:
                mine.append(isl)
        if isl.king == colour:
            kings += 1
    options: list[cmd.Command]
    if not on_board:
        options = _placements(state, colour)
    else:
        options = _expansions(state, colour, mine)
        if kings < MAX_ROYAL_ISLANDS:
            # R16: an island other than Tonga where only ``colour`` has boats
            options += [
                cmd.FoundRoyalIsland(isl.tile)
                for isl in mine
                if isl.tile != TONGA and len(isl.counts) == 1
            ]
    options.append(cmd.NewColonisation())
    return options


def _expansions(state: GameState, colour: str, mine: list[IslandState]) -> list[cmd.Command]:
    """R6 expansions, or R7 moves of one boat when the supply is empty, on the
    non-royal islands ``mine`` where ``colour`` has boats."""
    options: list[cmd.Command] = []
    supply = state.supply[colour]
    if supply > 0:
        for isl in mine:
            options += _island_expansions(isl, min(isl.count(colour), supply))
        return options
    for src in mine:
        for sb, boats in enumerate(src.beaches):
            if colour not in boats:
                continue
            for isl in mine:
                left = isl.count(colour) - (1 if isl.tile == src.tile else 0)
                if left < 1:
                    continue
                for b in range(len(isl.beaches)):
                    if isl.free(b) and not (isl.tile == src.tile and b == sb):
                        options.append(_expand(isl.tile, (b,), (src.tile, sb)))
    return options


def _island_expansions(isl: IslandState, most: int) -> tuple[cmd.Expand, ...]:
    """R6 on one island: one boat on each of ``most`` free beaches, or on every free
    beach if fewer."""
    caps = CAPACITIES[isl.tile]
    free = tuple(b for b, boats in enumerate(isl.beaches) if len(boats) < caps[b])
    return _expansions_on(isl.tile, free, min(most, len(free)))


@lru_cache(maxsize=16384)
def _expansions_on(tile: str, free: tuple[int, ...], k: int) -> tuple[cmd.Expand, ...]:
    return tuple(cmd.Expand(tile, chosen, None) for chosen in combinations(free, k))


def _placements(state: GameState, colour: str) -> list[cmd.Command]:
    """R8: two boats on different Tonga beaches, or one on another non-royal island."""
    options: list[cmd.Command] = []
    supply = state.supply[colour]
    for isl in state.islands.values():
        if isl.king is not None:
            continue
        free = [b for b in range(len(isl.beaches)) if isl.free(b)]
        if isl.tile == TONGA:
            if supply >= 2:
                options += [cmd.PlaceBoats(TONGA, pair) for pair in combinations(free, 2)]
        elif supply >= 1:
            options += [cmd.PlaceBoats(isl.tile, (b,)) for b in free]
    return options


def forced_command(state: GameState) -> cmd.Command | None:
    """The only legal command, if the decision has exactly one (R25)."""
    options = _listed(state)
    return options[0] if len(options) == 1 else None
