"""Fleets at sea and the end of a turn (R9–R12, R14, R15, R19–R21).

After every move the engine runs the turn forward by itself until it needs a
choice from the active player: a departure, a landing, a tile placement. Each
step is recorded as its own event so the log explains the whole chain.
"""

from __future__ import annotations

from domain.context import Context
from domain.endless import departure_options
from domain.events import (
    ChainDeclaredEndless,
    ExpeditionFailed,
    FleetLostAtSea,
    FleetReachedIsland,
    FleetSailed,
    FleetTurnedBack,
    IslandRemoved,
    TilePlaced,
    TurnEnded,
)
from domain.hexgrid import Cell, entry_edge, neighbour, rotation_facing_back
from domain.scoring import final_result
from domain.state import ColonistPlacement, Landing, Phase, TilePlacement
from domain.tiles import OCEAN_TILES, is_island


def sail(ctx: Context) -> None:
    """Move the fleet on until it lands, fails, is lost or waits for a tile (R11).

    Once the pile's last island or ocean tile is out (R21), no tile is drawn: the
    fleet sails on over the tiles on the table and is lost at sea only where it
    would need a new one.
    """
    while True:
        s = ctx.state
        v = s.voyage
        assert v is not None
        nxt = neighbour(v.cell, v.direction)
        if nxt not in s.tiles:
            if s.end_reason is not None:
                ctx.emit(FleetLostAtSea(nxt, v.fleet))
                return
            free = s.options.free_orientation_after_first and v.tiles_drawn >= 1
            tile = ctx.draw("free_rotation" if free else "oriented", nxt, "R11")
            if free:
                return  # the active player orients it (PlaceTile)
            ctx.emit(TilePlaced(tile, nxt, rotation_facing_back(v.direction)))
            if lost_with_last_ocean(ctx, nxt):
                return
        if not enter(ctx, nxt):
            return


def lost_with_last_ocean(ctx: Context, cell: Cell) -> bool:
    """R21 as rules-1 had it: a fleet that drew the last ocean tile stayed at sea there,
    out of the game. Under today's rules it sails on (``RuleSet.voyage_after_last_ocean``)."""
    s = ctx.state
    if ctx.rules.voyage_after_last_ocean or s.end_reason is None:
        return False
    placed = s.tiles[cell]
    if is_island(placed.tile) or s.drawn[-1] != placed.tile:
        return False
    assert s.voyage is not None
    ctx.emit(FleetLostAtSea(cell, s.voyage.fleet))
    return True


def enter(ctx: Context, cell: Cell) -> bool:
    """The fleet enters the tile at ``cell``; True if it sails on (R11, R12, R13, R15)."""
    s = ctx.state
    v = s.voyage
    assert v is not None
    placed = s.tiles[cell]
    ocean = OCEAN_TILES.get(placed.tile)
    if ocean is None:
        isl = s.islands[placed.tile]
        if isl.king is not None:
            ctx.emit(FleetTurnedBack(placed.tile, cell, v.origin, (*v.route, cell), v.fleet))
        else:
            ctx.emit(FleetReachedIsland(placed.tile, cell, v.fleet))
        return False
    entry = entry_edge(v.direction, placed.rotation)
    exit_edge, danger = ocean.exit_edge(entry)
    colours = len(set(v.fleet))
    if danger > colours:
        ctx.emit(ExpeditionFailed(placed.tile, cell, entry, exit_edge, danger, colours, v.fleet))
        return False
    ctx.emit(FleetSailed(placed.tile, cell, entry, exit_edge, danger, colours, v.fleet))
    return True


def continue_turn(ctx: Context) -> None:
    """Run the turn on after a move: next emigration, R19, or the end of the turn."""
    s = ctx.state
    if s.phase is Phase.ENDED or isinstance(s.pending, Landing | TilePlacement | ColonistPlacement):
        return
    if s.has_full_beach():
        if departure_options(s):
            return  # the active player chooses (Emigrate)
        declare_endless(ctx)
        return
    finish_turn(ctx)


def declare_endless(ctx: Context) -> None:
    """R19: no departure can end the chain; islands with a full beach leave; then R20."""
    s = ctx.state
    doomed = [isl for isl in s.islands.values() if isl.full_beaches()]
    ctx.emit(ChainDeclaredEndless(tuple(isl.tile for isl in doomed)))
    for isl in doomed:
        boats = tuple(sorted(c for b in isl.beaches for c in b))
        ctx.emit(IslandRemoved(isl.tile, isl.cell, boats))
    s = ctx.state
    colour = s.order[s.active]
    if not s.islands or s.boats_on_board(colour, kings=False) == 0:
        free_draw(ctx, "R20")
    else:
        finish_turn(ctx)


def free_draw(ctx: Context, rule: str) -> None:
    """Draw a tile to be placed freely (R17, R20); the turn ends if no draw is left."""
    if ctx.state.end_reason is not None:
        finish_turn(ctx)
        return
    ctx.draw("free", None, rule)


def finish_turn(ctx: Context) -> None:
    """End the turn (R14); after the turn that emptied a kind of tile, the game (R21)."""
    s = ctx.state
    colour = s.order[s.active]
    if s.end_reason is not None:
        ctx.emit(TurnEnded(colour, s.turn, None))
        ctx.emit(final_result(ctx.state, ctx.rules.colours_score_as_seats))
        return
    ctx.emit(TurnEnded(colour, s.turn, s.order[(s.active + 1) % len(s.order)]))
