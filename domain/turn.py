"""The active player's moves during play (R6–R8, R9, R11, R13, R16, R17)."""

from __future__ import annotations

from domain.commands import (
    Emigrate,
    Expand,
    FoundRoyalIsland,
    Land,
    NewColonisation,
    PlaceBoats,
    PlaceColonist,
    PlaceTile,
)
from domain.context import Context
from domain.endless import departure_options, is_repeat, search_exhausted
from domain.errors import RuleViolation
from domain.events import (
    BoatsAdded,
    BoatsLanded,
    BoatsPlaced,
    EmigrationStarted,
    NewColonyFounded,
    RoyalIslandFounded,
    TilePlaced,
)
from domain.hexgrid import neighbours, world_direction
from domain.landing import validate_landing
from domain.sailing import (
    continue_turn,
    enter,
    finish_turn,
    free_draw,
    lost_with_last_ocean,
    sail,
)
from domain.state import (
    MAX_ROYAL_ISLANDS,
    ChooseEmigration,
    ColonistPlacement,
    GameState,
    IslandState,
    Landing,
    TilePlacement,
    TurnStart,
)
from domain.tiles import TONGA, display_name, is_island
from domain.tiles import island as island_tile


def _island(state: GameState, name: str, rule: str) -> IslandState:
    isl = state.islands.get(name)
    if isl is None:
        raise RuleViolation("no_such_island", rule, f"{name!r} is not an island on the table")
    return isl


def _beach(isl: IslandState, beach: int, rule: str) -> None:
    if not 0 <= beach < len(isl.beaches):
        raise RuleViolation(
            "no_such_beach", rule, f"{display_name(isl.tile)} has beaches 0–{len(isl.beaches) - 1}"
        )


def _not_royal(isl: IslandState) -> None:
    if isl.king is not None:
        raise RuleViolation(
            "royal_island", "R16", f"{display_name(isl.tile)} is royal: nobody may add boats"
        )


def expansion_size(state: GameState, colour: str, isl: IslandState) -> int:
    """How many boats R6 makes you add to ``isl``."""
    free = sum(1 for b in range(len(isl.beaches)) if isl.free(b) > 0)
    return min(isl.count(colour), free, state.supply[colour])


def expand(ctx: Context, c: Expand) -> None:
    """Add boats to an island where you have boats (R6; R7 with an empty supply)."""
    pending = ctx.expect(TurnStart, "an expansion")
    colour = pending.colour
    s = ctx.state
    isl = _island(s, c.island, "R6")
    _not_royal(isl)
    for b in c.beaches:
        _beach(isl, b, "R6")
    if len(set(c.beaches)) != len(c.beaches):
        raise RuleViolation("beach_twice", "R6", "at most one boat per beach")
    if c.take_from is not None:
        _expand_from_board(ctx, c, colour, isl)
        return
    if s.supply[colour] == 0:
        raise RuleViolation(
            "supply_empty", "R7", "your supply is empty: take one boat from an island (take_from)"
        )
    if isl.count(colour) == 0:
        raise RuleViolation("no_boat_on_island", "R6", "you have no boat on that island")
    for b in c.beaches:
        if isl.free(b) == 0:
            raise RuleViolation("beach_full", "R6", f"beach {b} has no free slot")
    k = expansion_size(s, colour, isl)
    if len(c.beaches) != k:
        raise RuleViolation(
            "wrong_number_of_boats",
            "R6",
            f"you must add exactly {k} boat(s): as many as you have there, at most one per "
            "beach and at most your supply",
        )
    ctx.emit(BoatsAdded(colour, c.island, tuple(c.beaches), None, ctx.automatic))
    continue_turn(ctx)


def _expand_from_board(ctx: Context, c: Expand, colour: str, isl: IslandState) -> None:
    """R7: with an empty supply, move one of your boats from any island."""
    s = ctx.state
    assert c.take_from is not None
    if s.supply[colour] != 0:
        raise RuleViolation("supply_not_empty", "R7", "take_from is only for an empty supply")
    src_name, src_beach = c.take_from
    src = _island(s, src_name, "R7")
    _beach(src, src_beach, "R7")
    if colour not in src.beaches[src_beach]:
        raise RuleViolation("no_boat_to_take", "R7", "you have no boat on that beach")
    if len(c.beaches) != 1:
        raise RuleViolation("one_boat_only", "R7", "R7 moves exactly one boat")
    target = c.beaches[0]
    same_island = src_name == c.island
    if same_island and src_beach == target:
        raise RuleViolation("same_beach", "R7", "the boat must go to another beach")
    if isl.count(colour) - (1 if same_island else 0) < 1:
        raise RuleViolation("no_boat_on_island", "R6", "you would have no boat on that island")
    if isl.free(target) == 0:
        raise RuleViolation("beach_full", "R6", f"beach {target} has no free slot")
    ctx.emit(BoatsAdded(colour, c.island, (target,), (src_name, src_beach), ctx.automatic, "R7"))
    continue_turn(ctx)


def place_boats(ctx: Context, c: PlaceBoats) -> None:
    """R8: no boats on the board: 2 boats on Tonga, or 1 on another island."""
    pending = ctx.expect(TurnStart, "placing boats")
    colour = pending.colour
    s = ctx.state
    if s.boats_on_board(colour, kings=False) > 0:
        raise RuleViolation("boats_on_board", "R8", "you still have boats on the board: expand")
    isl = _island(s, c.island, "R8")
    _not_royal(isl)
    for b in c.beaches:
        _beach(isl, b, "R8")
        if isl.free(b) == 0:
            raise RuleViolation("beach_full", "R8", f"beach {b} has no free slot")
    wanted = 2 if c.island == TONGA else 1
    if len(c.beaches) != wanted or len(set(c.beaches)) != wanted:
        raise RuleViolation(
            "wrong_number_of_boats", "R8", "2 boats on different Tonga beaches, or 1 elsewhere"
        )
    if s.supply[colour] < wanted:
        raise RuleViolation("supply_empty", "R8", "not enough boats in your supply")
    ctx.emit(BoatsPlaced(colour, c.island, tuple(c.beaches), ctx.automatic, "R8"))
    continue_turn(ctx)


def emigrate(ctx: Context, c: Emigrate) -> None:
    """A full beach's boats leave through a jetty (R9, R10, R19) and sail (R11)."""
    pending = ctx.expect(ChooseEmigration, "an emigration")
    s = ctx.state
    isl = _island(s, c.island, "R9")
    _beach(isl, c.beach, "R9")
    if not isl.is_full(c.beach):
        raise RuleViolation("beach_not_full", "R9", f"beach {c.beach} is not full")
    if c.jetty not in island_tile(isl.tile).beaches[c.beach].jetties:
        raise RuleViolation(
            "no_such_jetty", "R9", f"beach {c.beach} has no jetty on edge {c.jetty}"
        )
    if is_repeat(s, c.island, c.beach, c.jetty):
        raise RuleViolation(
            "repeated_departure", "R19", "this departure was already made from this very board"
        )
    if c not in departure_options(s):
        raise RuleViolation(
            "endless_departure", "R18", "this route leads back here and can never end the chain"
        )
    direction = world_direction(c.jetty, isl.rotation)
    fleet = isl.beaches[c.beach]
    # R19 (b): offered because the budget ran out (recorded since rules-2)
    budget = search_exhausted(s, c) if ctx.rules.records_search_budget else None
    ctx.emit(
        EmigrationStarted(
            pending.colour,
            c.island,
            c.beach,
            c.jetty,
            direction,
            fleet,
            ctx.automatic,
            search_exhausted=budget is not None,
            search_budget=budget or 0,
        )
    )
    sail(ctx)
    continue_turn(ctx)


def land(ctx: Context, c: Land) -> None:
    """Distribute the arriving fleet on the island's beaches (R13)."""
    pending = ctx.expect(Landing, "a landing")
    assert isinstance(pending, Landing)
    if c.island != pending.island:
        raise RuleViolation("wrong_island", "R13", f"the fleet is landing on {pending.island}")
    isl = ctx.state.islands[pending.island]
    returned = validate_landing(isl, pending.fleet, c.beaches)
    beaches = tuple(tuple(sorted(b)) for b in c.beaches)
    ctx.emit(BoatsLanded(c.island, beaches, returned, ctx.automatic))
    continue_turn(ctx)


def place_tile(ctx: Context, c: PlaceTile) -> None:
    """Place a drawn tile: Rody variant (R11), new colonisation (R17) or R20."""
    pending = ctx.expect(TilePlacement, "placing a tile")
    assert isinstance(pending, TilePlacement)
    s = ctx.state
    if c.tile != pending.tile:
        raise RuleViolation("wrong_tile", pending.rule, f"the drawn tile is {pending.tile}")
    if not 0 <= c.rotation < 6:
        raise RuleViolation("bad_rotation", pending.rule, "rotation is 0 to 5")
    cell = tuple(c.cell)
    if pending.cell is not None and cell != pending.cell:
        raise RuleViolation(
            "wrong_cell", "R11", f"the tile goes where the fleet is: {pending.cell}"
        )
    if pending.cell is None and not is_free_cell(s, (cell[0], cell[1])):
        raise RuleViolation(
            "cell_not_free", pending.rule, "place it on an empty cell next to a tile on the table"
        )
    at = (cell[0], cell[1])
    ctx.emit(TilePlaced(c.tile, at, c.rotation, ctx.automatic, pending.rule))
    if pending.rule == "R11":
        if not lost_with_last_ocean(ctx, at) and enter(ctx, at):
            sail(ctx)
        continue_turn(ctx)
    elif is_island(c.tile):
        if pending.rule == "R20":
            finish_turn(ctx)
    else:
        free_draw(ctx, pending.rule)


def is_free_cell(state: GameState, cell: tuple[int, int]) -> bool:
    """An empty cell next to at least one tile on the table (R17)."""
    return cell not in state.tiles and any(n in state.tiles for n in neighbours(cell))


def found_royal_island(ctx: Context, c: FoundRoyalIsland) -> None:
    """Crown a king on an island only you occupy (R16)."""
    pending = ctx.expect(TurnStart, "founding a royal island")
    colour = pending.colour
    s = ctx.state
    isl = _island(s, c.island, "R16")
    if c.island == TONGA:
        raise RuleViolation("tonga_never_royal", "R16", "Tonga can never be royal")
    if isl.king is not None:
        raise RuleViolation("already_royal", "R16", "that island is already royal")
    if isl.count(colour) == 0:
        raise RuleViolation("no_boat_on_island", "R16", "you have no boat on that island")
    if isl.colours() != {colour}:
        raise RuleViolation("other_colours_present", "R16", "other colours have boats there")
    if s.kings(colour) >= MAX_ROYAL_ISLANDS:
        raise RuleViolation("two_royal_islands", "R16", "each player founds at most 2")
    ctx.emit(RoyalIslandFounded(colour, c.island, isl.count(colour) - 1, ctx.automatic))
    finish_turn(ctx)


def new_colonisation(ctx: Context, c: NewColonisation) -> None:
    """Take every boat but kings home and draw until an island turns up (R17)."""
    pending = ctx.expect(TurnStart, "a new colonisation")
    colour = pending.colour
    returned = ctx.state.boats_on_board(colour, kings=False)
    ctx.emit(NewColonyFounded(colour, returned, ctx.automatic))
    free_draw(ctx, "R17")


def place_colonist(ctx: Context, c: PlaceColonist) -> None:
    """Put the colonist on a free slot of the island found by R17."""
    pending = ctx.expect(ColonistPlacement, "placing the colonist")
    assert isinstance(pending, ColonistPlacement)
    if c.island != pending.island:
        raise RuleViolation("wrong_island", "R17", f"the colonist goes to {pending.island}")
    isl = ctx.state.islands[pending.island]
    _beach(isl, c.beach, "R17")
    if isl.free(c.beach) == 0:
        raise RuleViolation("beach_full", "R17", f"beach {c.beach} has no free slot")
    ctx.emit(BoatsPlaced(pending.colour, c.island, (c.beach,), ctx.automatic, "R17"))
    finish_turn(ctx)
