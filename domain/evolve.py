"""The fold: ``evolve(state, event)`` applies one recorded fact; ``replay`` folds many.

``evolve`` trusts its events (they were validated by ``decide`` when they were
recorded) and never raises on a well-formed event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain import events as ev
from domain.hexgrid import world_direction
from domain.state import (
    BOATS_PER_COLOUR,
    ChooseEmigration,
    ColonistPlacement,
    EndReason,
    GameState,
    Landing,
    Phase,
    PlacedTile,
    Player,
    SetupPlacement,
    TilePlacement,
    TurnStart,
    Voyage,
    empty_island,
)
from domain.tiles import is_island

Handler = Callable[[GameState, Any], GameState]


def _add(counts: dict[str, int], boats: Iterable[str]) -> dict[str, int]:
    new = dict(counts)
    for c in boats:
        new[c] = new.get(c, 0) + 1
    return new


def _after_move(state: GameState) -> GameState:
    """Pending decision once boats have moved: emigrate if a beach is full (R9, R14)."""
    if state.has_full_beach():
        return state.but(pending=ChooseEmigration(state.order[state.active]), voyage=None)
    return state.but(pending=None, voyage=None)


def _created(s: GameState, e: ev.GameCreated) -> GameState:
    return GameState(
        game_id=e.game_id,
        options=e.options,
        deck_commitment=e.deck_commitment,
        deck_algorithm=e.deck_algorithm,
        phase=Phase.OPEN,
    )


def _joined(s: GameState, e: ev.PlayerJoined) -> GameState:
    player = Player(e.player_id, e.seat, e.colours, e.entropy)
    supply = dict(s.supply)
    for c in e.colours:
        supply[c] = BOATS_PER_COLOUR
    return s.but(
        players=(*s.players, player), supply=supply, out={**s.out, **dict.fromkeys(e.colours, 0)}
    )


def _started(s: GameState, e: ev.GameStarted) -> GameState:
    tonga = empty_island("tonga", (0, 0), 0)
    return s.but(
        phase=Phase.SETUP,
        order=e.order,
        active=0,
        tiles={(0, 0): PlacedTile("tonga", 0)},
        islands={"tonga": tonga},
        pending=SetupPlacement(e.order[0], 1),
    )


def _starting_boat(s: GameState, e: ev.StartingBoatPlaced) -> GameState:
    tonga = s.islands["tonga"]
    tonga = tonga.with_beach(e.beach, (*tonga.beaches[e.beach], e.colour))
    supply = {**s.supply, e.colour: s.supply[e.colour] - 1}
    s = s.but(islands={**s.islands, "tonga": tonga}, supply=supply)
    nxt = s.active + 1
    if nxt < len(s.order):
        return s.but(active=nxt, pending=SetupPlacement(s.order[nxt], e.round))
    if e.round == 1:
        return s.but(active=0, pending=SetupPlacement(s.order[0], 2))
    return s.but(phase=Phase.PLAYING, active=0, turn=1, pending=TurnStart(s.order[0]))


def _boats_added(s: GameState, e: ev.BoatsAdded) -> GameState:
    islands = dict(s.islands)
    supply = s.supply
    if e.taken_from is not None:
        src_id, src_beach = e.taken_from
        src = islands[src_id]
        boats = list(src.beaches[src_beach])
        boats.remove(e.colour)
        islands[src_id] = src.with_beach(src_beach, tuple(boats))
    else:
        supply = {**supply, e.colour: supply[e.colour] - len(e.beaches)}
    target = islands[e.island]
    for b in e.beaches:
        target = target.with_beach(b, (*target.beaches[b], e.colour))
    islands[e.island] = target
    return _after_move(s.but(islands=islands, supply=supply))


def _boats_placed(s: GameState, e: ev.BoatsPlaced) -> GameState:
    target = s.islands[e.island]
    for b in e.beaches:
        target = target.with_beach(b, (*target.beaches[b], e.colour))
    supply = {**s.supply, e.colour: s.supply[e.colour] - len(e.beaches)}
    return _after_move(s.but(islands={**s.islands, e.island: target}, supply=supply))


def _emigration(s: GameState, e: ev.EmigrationStarted) -> GameState:
    departure = (e.island, e.beach, e.jetty, s.board_key())
    origin = s.islands[e.island]
    voyage = Voyage(e.island, e.fleet, origin.cell, e.direction, (origin.cell,))
    return s.but(
        islands={**s.islands, e.island: origin.with_beach(e.beach, ())},
        voyage=voyage,
        pending=None,
        departures=s.departures | {departure},
    )


def _drawn(s: GameState, e: ev.TileDrawn) -> GameState:
    s = s.but(drawn=(*s.drawn, e.tile))
    if e.last_of_kind:
        reason = EndReason.LAST_ISLAND_DRAWN if is_island(e.tile) else EndReason.LAST_OCEAN_DRAWN
        s = s.but(end_reason=reason)
    if e.placement != "oriented":
        colour = s.order[s.active]
        s = s.but(pending=TilePlacement(colour, e.tile, e.cell, e.rule))
    if s.voyage is not None:
        v = s.voyage
        s = s.but(voyage=Voyage(v.origin, v.fleet, v.cell, v.direction, v.route, v.tiles_drawn + 1))
    return s


def _tile_placed(s: GameState, e: ev.TilePlaced) -> GameState:
    tiles = {**s.tiles, e.cell: PlacedTile(e.tile, e.rotation)}
    s = s.but(tiles=tiles, pending=None)
    if is_island(e.tile):
        s = s.but(islands={**s.islands, e.tile: empty_island(e.tile, e.cell, e.rotation)})
        if e.rule == "R17":
            s = s.but(pending=ColonistPlacement(s.order[s.active], e.tile))
    return s


def _sailed(s: GameState, e: ev.FleetSailed) -> GameState:
    v = s.voyage
    assert v is not None
    placed = s.tiles[e.cell]
    direction = world_direction(e.exit_edge, placed.rotation)
    route = (*v.route, e.cell)
    return s.but(voyage=Voyage(v.origin, v.fleet, e.cell, direction, route, v.tiles_drawn))


def _failed(s: GameState, e: ev.ExpeditionFailed) -> GameState:
    return _after_move(s.but(supply=_add(s.supply, e.fleet)))


def _reached(s: GameState, e: ev.FleetReachedIsland) -> GameState:
    v = s.voyage
    assert v is not None
    voyage = Voyage(v.origin, v.fleet, e.cell, v.direction, (*v.route, e.cell), v.tiles_drawn)
    return s.but(voyage=voyage, pending=Landing(s.order[s.active], e.island, e.fleet))


def _turned_back(s: GameState, e: ev.FleetTurnedBack) -> GameState:
    v = s.voyage
    assert v is not None
    origin = s.islands[e.to_island]
    voyage = Voyage(v.origin, v.fleet, origin.cell, v.direction, (*e.route, origin.cell))
    return s.but(voyage=voyage, pending=Landing(s.order[s.active], e.to_island, e.fleet))


def _landed(s: GameState, e: ev.BoatsLanded) -> GameState:
    target = s.islands[e.island]
    for b, boats in enumerate(e.beaches):
        if boats:
            target = target.with_beach(b, (*target.beaches[b], *boats))
    s = s.but(islands={**s.islands, e.island: target}, supply=_add(s.supply, e.returned))
    return _after_move(s)


def _royal(s: GameState, e: ev.RoyalIslandFounded) -> GameState:
    isl = s.islands[e.island]
    boats = isl.count(e.colour)
    crowned = type(isl)(isl.tile, isl.cell, isl.rotation, tuple(() for _ in isl.beaches), e.colour)
    supply = {**s.supply, e.colour: s.supply[e.colour] + boats - 1}
    return s.but(islands={**s.islands, e.island: crowned}, supply=supply, pending=None)


def _colony(s: GameState, e: ev.NewColonyFounded) -> GameState:
    islands = {}
    returned = 0
    for key, isl in s.islands.items():
        n = isl.count(e.colour)
        if n:
            returned += n
            isl = type(isl)(
                isl.tile,
                isl.cell,
                isl.rotation,
                tuple(tuple(c for c in b if c != e.colour) for b in isl.beaches),
                isl.king,
            )
        islands[key] = isl
    supply = {**s.supply, e.colour: s.supply[e.colour] + returned}
    return s.but(islands=islands, supply=supply, pending=None)


def _endless(s: GameState, e: ev.ChainDeclaredEndless) -> GameState:
    return s.but(pending=None)


def _removed(s: GameState, e: ev.IslandRemoved) -> GameState:
    islands = dict(s.islands)
    del islands[e.island]
    tiles = dict(s.tiles)
    del tiles[e.cell]
    s = s.but(
        islands=islands,
        tiles=tiles,
        removed=(*s.removed, e.island),
        supply=_add(s.supply, e.returned),
    )
    return _after_move(s)


def _lost(s: GameState, e: ev.FleetLostAtSea) -> GameState:
    return _after_move(s.but(out=_add(s.out, e.fleet)))


def _turn_ended(s: GameState, e: ev.TurnEnded) -> GameState:
    if e.next_colour is None:
        return s.but(pending=None, voyage=None, departures=frozenset())
    return s.but(
        active=s.order.index(e.next_colour),
        turn=e.turn + 1,
        pending=TurnStart(e.next_colour),
        voyage=None,
        departures=frozenset(),
    )


def _ended(s: GameState, e: ev.GameEnded) -> GameState:
    return s.but(phase=Phase.ENDED, pending=None, voyage=None, result=e)


def _revealed(s: GameState, e: ev.DeckRevealed) -> GameState:
    return s.but(seed_hex=e.seed_hex)


HANDLERS: dict[type, Handler] = {
    ev.GameCreated: _created,
    ev.PlayerJoined: _joined,
    ev.GameStarted: _started,
    ev.StartingBoatPlaced: _starting_boat,
    ev.BoatsAdded: _boats_added,
    ev.BoatsPlaced: _boats_placed,
    ev.EmigrationStarted: _emigration,
    ev.TileDrawn: _drawn,
    ev.TilePlaced: _tile_placed,
    ev.FleetSailed: _sailed,
    ev.ExpeditionFailed: _failed,
    ev.FleetReachedIsland: _reached,
    ev.FleetTurnedBack: _turned_back,
    ev.BoatsLanded: _landed,
    ev.RoyalIslandFounded: _royal,
    ev.NewColonyFounded: _colony,
    ev.ChainDeclaredEndless: _endless,
    ev.IslandRemoved: _removed,
    ev.FleetLostAtSea: _lost,
    ev.TurnEnded: _turn_ended,
    ev.GameEnded: _ended,
    ev.DeckRevealed: _revealed,
}


def evolve(state: GameState, event: ev.Event) -> GameState:
    """The state after ``event`` (a recorded fact; never raises)."""
    return HANDLERS[type(event)](state, event)


def replay(events: Iterable[ev.Event], state: GameState | None = None) -> GameState:
    """Fold ``events`` onto ``state`` (a new game by default)."""
    s = state if state is not None else GameState()
    handlers = HANDLERS
    for e in events:
        s = handlers[type(e)](s, e)
    return s
