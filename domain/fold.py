"""The fold: ``evolve(state, event)`` applies one recorded fact; ``replay`` folds many.

``evolve`` trusts its events (they were validated by ``decide`` when they were
recorded) and never raises on a well-formed event.

Each handler reads the state and returns the fields the event changes (new
values, never mutated old ones) as ``Changes``, a typed dict of the state's own
fields: a misspelt field or a value of the wrong type fails under mypy, and a
test checks every key of every handler against the state's fields at run time.
``evolve`` copies the state once and applies them; ``replay`` copies once for
the whole fold, which is what makes folding a long game cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Unpack, cast

from domain import events as ev
from domain.away import AwayAnnounced
from domain.changes import Changes, position_of
from domain.hexgrid import world_direction
from domain.offers_fold import OFFER_HANDLERS
from domain.state import (
    BOATS_PER_COLOUR,
    ChooseEmigration,
    ColonistPlacement,
    EndReason,
    GameState,
    IslandState,
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

Handler = Callable[[GameState, Any], Changes]


def _add(counts: dict[str, int], boats: Iterable[str]) -> dict[str, int]:
    new = dict(counts)
    for c in boats:
        new[c] = new.get(c, 0) + 1
    return new


def _moved(s: GameState, **changes: Unpack[Changes]) -> Changes:
    """Boats have moved: emigrate next if a beach is full (R9, R14), else nothing pending."""
    islands = changes.get("islands", s.islands)
    pending = None
    for isl in islands.values():
        if isl.full:
            pending = ChooseEmigration(s.order[s.active])
            break
    changes["pending"] = pending
    changes["voyage"] = None
    return changes


def _created(s: GameState, e: ev.GameCreated) -> Changes:
    fresh = GameState(
        game_id=e.game_id,
        options=e.options,
        deck_commitment=e.deck_commitment,
        deck_algorithm=e.deck_algorithm,
        phase=Phase.OPEN,
    )
    return cast(Changes, dict(vars(fresh)))


def _joined(s: GameState, e: ev.PlayerJoined) -> Changes:
    player = Player(e.player_id, e.seat, e.colours, e.entropy, e.bot)
    return Changes(
        players=(*s.players, player),
        supply={**s.supply, **dict.fromkeys(e.colours, BOATS_PER_COLOUR)},
        out={**s.out, **dict.fromkeys(e.colours, 0)},
    )


def _started(s: GameState, e: ev.GameStarted) -> Changes:
    return Changes(
        phase=Phase.SETUP,
        order=e.order,
        active=0,
        tiles={(0, 0): PlacedTile("tonga", 0)},
        islands={"tonga": empty_island("tonga", (0, 0), 0)},
        pending=SetupPlacement(e.order[0], 1),
    )


def _starting_boat(s: GameState, e: ev.StartingBoatPlaced) -> Changes:
    islands = {**s.islands, "tonga": s.islands["tonga"].adding((e.beach,), e.colour)}
    supply = {**s.supply, e.colour: s.supply[e.colour] - 1}
    nxt = s.active + 1
    if nxt < len(s.order):
        return Changes(
            islands=islands,
            supply=supply,
            active=nxt,
            pending=SetupPlacement(s.order[nxt], e.round),
        )
    if e.round == 1:
        return Changes(
            islands=islands, supply=supply, active=0, pending=SetupPlacement(s.order[0], 2)
        )
    return Changes(
        islands=islands,
        supply=supply,
        phase=Phase.PLAYING,
        active=0,
        turn=1,
        pending=TurnStart(s.order[0]),
    )


def _boats_added(s: GameState, e: ev.BoatsAdded) -> Changes:
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
    islands[e.island] = islands[e.island].adding(e.beaches, e.colour)
    return _moved(s, islands=islands, supply=supply)


def _boats_placed(s: GameState, e: ev.BoatsPlaced) -> Changes:
    islands = {**s.islands, e.island: s.islands[e.island].adding(e.beaches, e.colour)}
    supply = {**s.supply, e.colour: s.supply[e.colour] - len(e.beaches)}
    return _moved(s, islands=islands, supply=supply)


def _emigration(s: GameState, e: ev.EmigrationStarted) -> Changes:
    departure = (e.island, e.beach, e.jetty, s.board_key())
    origin = s.islands[e.island]
    return Changes(
        islands={**s.islands, e.island: origin.with_beach(e.beach, ())},
        voyage=Voyage(e.island, e.fleet, origin.cell, e.direction, (origin.cell,)),
        pending=None,
        departures=s.departures | {departure},
    )


def _drawn(s: GameState, e: ev.TileDrawn) -> Changes:
    changes: Changes = {"drawn": (*s.drawn, e.tile)}
    if e.last_of_kind:
        last_island = is_island(e.tile)
        changes["end_reason"] = (
            EndReason.LAST_ISLAND_DRAWN if last_island else EndReason.LAST_OCEAN_DRAWN
        )
    if e.placement != "oriented":
        changes["pending"] = TilePlacement(s.order[s.active], e.tile, e.cell, e.rule)
    v = s.voyage
    if v is not None:
        changes["voyage"] = Voyage(
            v.origin, v.fleet, v.cell, v.direction, v.route, v.tiles_drawn + 1
        )
    return changes


def _tile_placed(s: GameState, e: ev.TilePlaced) -> Changes:
    tiles = {**s.tiles, e.cell: PlacedTile(e.tile, e.rotation)}
    if not is_island(e.tile):
        return Changes(tiles=tiles, pending=None)
    islands = {**s.islands, e.tile: empty_island(e.tile, e.cell, e.rotation)}
    colonist = e.rule == "R17"
    pending = ColonistPlacement(s.order[s.active], e.tile) if colonist else None
    return Changes(tiles=tiles, islands=islands, pending=pending)


def _sailed(s: GameState, e: ev.FleetSailed) -> Changes:
    v = s.voyage
    assert v is not None
    direction = world_direction(e.exit_edge, s.tiles[e.cell].rotation)
    route = (*v.route, e.cell)
    return Changes(voyage=Voyage(v.origin, v.fleet, e.cell, direction, route, v.tiles_drawn))


def _failed(s: GameState, e: ev.ExpeditionFailed) -> Changes:
    return _moved(s, supply=_add(s.supply, e.fleet))


def _reached(s: GameState, e: ev.FleetReachedIsland) -> Changes:
    v = s.voyage
    assert v is not None
    voyage = Voyage(v.origin, v.fleet, e.cell, v.direction, (*v.route, e.cell), v.tiles_drawn)
    return Changes(voyage=voyage, pending=Landing(s.order[s.active], e.island, e.fleet))


def _turned_back(s: GameState, e: ev.FleetTurnedBack) -> Changes:
    v = s.voyage
    assert v is not None
    origin = s.islands[e.to_island]
    voyage = Voyage(v.origin, v.fleet, origin.cell, v.direction, (*e.route, origin.cell))
    return Changes(voyage=voyage, pending=Landing(s.order[s.active], e.to_island, e.fleet))


def _landed(s: GameState, e: ev.BoatsLanded) -> Changes:
    islands = {**s.islands, e.island: s.islands[e.island].landing(e.beaches)}
    return _moved(s, islands=islands, supply=_add(s.supply, e.returned))


def _royal(s: GameState, e: ev.RoyalIslandFounded) -> Changes:
    isl = s.islands[e.island]
    boats = isl.count(e.colour)
    crowned = IslandState(
        isl.tile, isl.cell, isl.rotation, tuple(() for _ in isl.beaches), e.colour
    )
    supply = {**s.supply, e.colour: s.supply[e.colour] + boats - 1}
    return Changes(islands={**s.islands, e.island: crowned}, supply=supply, pending=None)


def _colony(s: GameState, e: ev.NewColonyFounded) -> Changes:
    islands = {}
    returned = 0
    for key, isl in s.islands.items():
        n = isl.count(e.colour)
        if n:
            returned += n
            beaches = tuple(tuple(c for c in b if c != e.colour) for b in isl.beaches)
            isl = IslandState(isl.tile, isl.cell, isl.rotation, beaches, isl.king)
        islands[key] = isl
    supply = {**s.supply, e.colour: s.supply[e.colour] + returned}
    return Changes(islands=islands, supply=supply, pending=None)


def _endless(s: GameState, e: ev.ChainDeclaredEndless) -> Changes:
    return Changes(pending=None)


def _removed(s: GameState, e: ev.IslandRemoved) -> Changes:
    islands = dict(s.islands)
    del islands[e.island]
    tiles = dict(s.tiles)
    del tiles[e.cell]
    return _moved(
        s,
        islands=islands,
        tiles=tiles,
        removed=(*s.removed, e.island),
        supply=_add(s.supply, e.returned),
    )


def _lost(s: GameState, e: ev.FleetLostAtSea) -> Changes:
    return _moved(s, out=_add(s.out, e.fleet))


def _turn_ended(s: GameState, e: ev.TurnEnded) -> Changes:
    if e.next_colour is None:
        return Changes(pending=None, voyage=None, departures=frozenset())
    return Changes(
        active=s.order.index(e.next_colour),
        turn=e.turn + 1,
        pending=TurnStart(e.next_colour),
        voyage=None,
        departures=frozenset(),
    )


def _ended(s: GameState, e: ev.GameEnded) -> Changes:
    """R21 (or C7): the game is over; why is the event's reason (a game abandoned to the
    bot draws no last tile, so only the event says it)."""
    return Changes(
        phase=Phase.ENDED,
        pending=None,
        voyage=None,
        result=e,
        end_reason=EndReason(e.reason),
        takeback=None,  # an open offer ends with the game (T4)
        end_offer=None,
    )


def _revealed(s: GameState, e: ev.DeckRevealed) -> Changes:
    return Changes(seed_hex=e.seed_hex, redeal_hex=e.redeals)


def _rewound(s: GameState, e: ev.GameRewound) -> Changes:
    """D6: the position at ``to_version`` as the event gives it, with one re-deal more."""
    import json

    from domain import position  # position reads events; the fold is below it

    at = position.load(json.loads(e.position))
    return Changes(
        **position_of(at),
        seed_hex=None,
        paused=None,
        amendment=None,
        deals=(*s.deals, e.deck_commitment),
        dealt=len(at.drawn),
        redeal_hex=(),
    )


def _away(s: GameState, e: AwayAnnounced) -> Changes:
    return Changes()  # V4: the service's clock keeps it, not the position


def _paused(s: GameState, e: ev.GamePaused) -> Changes:
    return Changes(paused=e.dispute_id)


def _resumed(s: GameState, e: ev.GameResumed) -> Changes:
    return Changes(paused=None)


def _amended(s: GameState, e: ev.ResultAmended) -> Changes:
    return Changes(amendment=e)


def _timed_out(s: GameState, e: ev.TurnTimedOut) -> Changes:
    return Changes(timeouts={**s.timeouts, e.seat: e.streak})


def _marked_absent(s: GameState, e: ev.SeatMarkedAbsent) -> Changes:
    return Changes(absent=s.absent | {e.seat})


def _streak_ended(s: GameState, e: ev.TimeoutStreakEnded) -> Changes:
    return Changes(timeouts={k: v for k, v in s.timeouts.items() if k != e.seat})


def _bot_played(s: GameState, e: ev.SeatPlayedByBot) -> Changes:
    return Changes()


def _reclaimed(s: GameState, e: ev.SeatReclaimed) -> Changes:
    return Changes(
        absent=s.absent - {e.seat},
        timeouts={k: v for k, v in s.timeouts.items() if k != e.seat},
    )


def _resigned(s: GameState, e: ev.PlayerResigned) -> Changes:
    return Changes(resigned=s.resigned | {e.seat})


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
    AwayAnnounced: _away,
    ev.GamePaused: _paused,
    ev.GameResumed: _resumed,
    ev.ResultAmended: _amended,
    ev.GameRewound: _rewound,
    ev.TurnTimedOut: _timed_out,
    ev.SeatMarkedAbsent: _marked_absent,
    ev.TimeoutStreakEnded: _streak_ended,
    ev.SeatPlayedByBot: _bot_played,
    ev.SeatReclaimed: _reclaimed,
    ev.PlayerResigned: _resigned,
    **OFFER_HANDLERS,
}


def _copy(state: GameState) -> GameState:
    """A shallow copy of ``state`` without its memo."""
    new = object.__new__(GameState)
    fields = new.__dict__
    fields.update(state.__dict__)
    fields.pop("_memo", None)
    return new


def evolve(state: GameState, event: ev.Event) -> GameState:
    """The state after ``event`` (a recorded fact; never raises)."""
    new = _copy(state)
    new.__dict__.update(HANDLERS[type(event)](state, event))
    return new


def evolve_in_place(state: GameState, event: ev.Event) -> None:
    """Apply ``event`` to ``state`` itself: only for a state nobody else holds yet
    (``replay``'s, or ``decide``'s working copy). Its memo is dropped: what it held
    (the board key, say) described the state before the event."""
    fields = state.__dict__
    fields.update(HANDLERS[type(event)](state, event))
    fields.pop("_memo", None)


def replay(events: Iterable[ev.Event], state: GameState | None = None) -> GameState:
    """Fold ``events`` onto ``state`` (a new game by default)."""
    s = _copy(state if state is not None else GameState())
    for e in events:
        evolve_in_place(s, e)
    return s
