"""One line of plain English per event, for replays and audits.

``describe(event, before)`` reads the state *before* the event only for names
(whose fleet, which island); the event itself says what happened and which
rule applied, so the line is as trustworthy as the event.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from domain import events as ev
from domain.hexgrid import neighbour
from domain.state import GameState
from domain.tiles import display_name, island

# world directions (0 = south, clockwise, as drawn) and the eight points of a compass
DIRECTIONS = ("south", "south-west", "north-west", "north", "north-east", "south-east")
COMPASS = ("east", "south-east", "south", "south-west", "west", "north-west", "north", "north-east")
ENDINGS = {
    "last_island_drawn": "the last island tile was drawn",
    "last_ocean_drawn": "the last ocean tile was drawn",
    "abandoned": "the bot played every seat: nobody was left to play (C7)",
}
TIE_BREAKS = {
    "islands": "equal points: more islands decide",
    "boats": "equal points and islands: fewer boats on the board decide",
    "shared": "a shared win",
}


def colour(name: str | None) -> str:
    """``"blue"`` → ``"Blue"``."""
    return (name or "nobody").capitalize()


def _boats(n: int) -> str:
    return f"{n} boat" if n == 1 else f"{n} boats"


def _fleet(boats: Iterable[str]) -> str:
    """``("blue", "blue", "red")`` → ``"2 Blue, 1 Red"``."""
    counts = Counter(boats)
    if not counts:
        return "no boats"
    return ", ".join(f"{n} {colour(c)}" for c, n in sorted(counts.items()))


def _facing(jetties: Iterable[int], rotation: int) -> str:
    """The compass point a beach faces: the mean of its jetties' world directions."""
    x = y = 0.0
    for j in jetties:
        angle = math.radians(90 + 60 * ((j + rotation) % 6))
        x, y = x + math.cos(angle), y + math.sin(angle)
    return COMPASS[round(math.degrees(math.atan2(y, x)) / 45) % 8]


def beach_name(state: GameState, tile: str, beach: int) -> str:
    """``"the north-west beach"``: where a beach of a placed island faces (numbered
    from 1 as well when two beaches of the island face the same way)."""
    placed = state.islands.get(tile)
    rotation = placed.rotation if placed is not None else 0  # Tonga never turns
    beaches = island(tile).beaches
    if not 0 <= beach < len(beaches):
        return f"beach {beach + 1}"
    facing = [_facing(b.jetties, rotation) for b in beaches]
    if facing.count(facing[beach]) > 1:
        return f"the {facing[beach]} beach ({beach + 1})"
    return f"the {facing[beach]} beach"


def _beaches(state: GameState, tile: str, beaches: tuple[int, ...]) -> str:
    names = [beach_name(state, tile, b) for b in sorted(set(beaches))]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _colours(n: int) -> str:
    return f"{n} colour" if n == 1 else f"{n} colours"


def _path(e: ev.FleetSailed | ev.ExpeditionFailed) -> str:
    return "a calm path" if e.danger == 0 else f"a danger-{e.danger} path"


def _placed_beside(state: GameState, cell: tuple[int, int]) -> str:
    """``" north-east of Tonga"``: the first neighbour on the table, if any."""
    for d in range(len(DIRECTIONS)):
        placed = state.tiles.get(neighbour(cell, d))
        if placed is not None:
            # the new tile lies across direction d+3 from that neighbour
            return f" {DIRECTIONS[(d + 3) % 6]} of {display_name(placed.tile)}"
    return ""


def _player_name(state: GameState, player_id: str) -> str:
    for p in state.players:
        if p.player_id == player_id:
            return "/".join(colour(c) for c in p.colours)
    return player_id


def describe(event: ev.Event, before: GameState) -> str:
    """A one-line human-readable description of ``event``."""
    e = event
    if isinstance(e, ev.GameCreated):
        return f"Game created for up to {e.options.max_players} players"
    if isinstance(e, ev.PlayerJoined):
        return f"{'/'.join(colour(c) for c in e.colours)} takes seat {e.seat}"
    if isinstance(e, ev.GameStarted):
        return f"Game starts; turn order {', '.join(colour(c) for c in e.order)}"
    if isinstance(e, ev.StartingBoatPlaced):
        return (
            f"{colour(e.colour)} places a starting boat on Tonga, "
            f"{beach_name(before, 'tonga', e.beach)}"
        )
    if isinstance(e, ev.BoatsAdded):
        where = display_name(e.island)
        moved = f" (from {display_name(e.taken_from[0])})" if e.taken_from else ""
        return f"{colour(e.colour)} adds {_boats(len(e.beaches))} to {where}{moved}"
    if isinstance(e, ev.BoatsPlaced):
        where = f"{display_name(e.island)}, {_beaches(before, e.island, e.beaches)}"
        return f"{colour(e.colour)} places {_boats(len(e.beaches))} on {where}"
    if isinstance(e, ev.EmigrationStarted):
        text = (
            f"{colour(e.colour)} emigrates from {display_name(e.island)}, "
            f"{beach_name(before, e.island, e.beach)}, sailing {DIRECTIONS[e.direction % 6]}"
            f" with {_fleet(e.fleet)}"
        )
        if e.search_exhausted:
            text += (
                f" (offered without proof: the R19 search reached its budget of "
                f"{e.search_budget:,} arrangements before finding an end)"
            )
        return text
    if isinstance(e, ev.TileDrawn):
        left = f"{_count(e.islands_left, 'island')} and {_count(e.oceans_left, 'ocean')} left"
        return f"Tile {display_name(e.tile)} drawn ({left})"
    if isinstance(e, ev.TilePlaced):
        return f"{display_name(e.tile)} is placed{_placed_beside(before, e.cell)}"
    if isinstance(e, ev.FleetSailed):
        return f"The fleet ({_colours(e.colours)}) sails {_path(e)} on {display_name(e.tile)}"
    if isinstance(e, ev.ExpeditionFailed):
        return (
            f"The fleet ({_colours(e.colours)}) cannot pass {_path(e)} on "
            f"{display_name(e.tile)}: its boats go home"
        )
    if isinstance(e, ev.FleetReachedIsland):
        return f"Fleet ({_fleet(e.fleet)}) reaches {display_name(e.island)}"
    if isinstance(e, ev.FleetTurnedBack):
        return (
            f"Fleet turns back at royal island {display_name(e.royal_island)} "
            f"to {display_name(e.to_island)}"
        )
    if isinstance(e, ev.BoatsLanded):
        landed = [b for beach in e.beaches for b in beach]
        home = f"; {_fleet(e.returned)} go home" if e.returned else ""
        return f"{_fleet(landed)} land on {display_name(e.island)}{home}"
    if isinstance(e, ev.RoyalIslandFounded):
        return f"{colour(e.colour)} founds a royal island on {display_name(e.island)}"
    if isinstance(e, ev.NewColonyFounded):
        return f"{colour(e.colour)} starts a new colonisation"
    if isinstance(e, ev.ChainDeclaredEndless):
        return f"Endless chain declared over {', '.join(display_name(i) for i in e.islands)}"
    if isinstance(e, ev.IslandRemoved):
        home = f"; {_fleet(e.returned)} go home" if e.returned else ""
        return f"{display_name(e.island)} is removed from the game{home}"
    if isinstance(e, ev.FleetLostAtSea):
        return f"Fleet ({_fleet(e.fleet)}) is lost at sea"
    if isinstance(e, ev.TurnEnded):
        following = f"; {colour(e.next_colour)} to play" if e.next_colour else ""
        return f"{colour(e.colour)} ends turn {e.turn}{following}"
    if isinstance(e, ev.GameEnded):
        winners = " and ".join(_player_name(before, w) for w in e.winners)
        how = f" ({TIE_BREAKS[e.tie_break]})" if e.tie_break in TIE_BREAKS else ""
        why = ENDINGS.get(e.reason, e.reason.replace("_", " "))
        text = f"Game over, {why}: {winners} win{'' if len(e.winners) > 1 else 's'}{how}"
        if e.resigned:
            quit = " and ".join(_player_name(before, p) for p in e.resigned)
            text += f"; {quit} resigned and rank{'' if len(e.resigned) > 1 else 's'} last (C6)"
        return text
    if isinstance(e, ev.TurnTimedOut):
        again = f", {e.streak} times in a row" if e.streak > 1 else ""
        if before.timeout_leaves_nobody(e.seat):
            return f"{colour(e.colour)}'s time ran out{again}: nobody is left to play (C7)"
        return f"{colour(e.colour)}'s time ran out{again}: the bot plays this decision (C3)"
    if isinstance(e, ev.SeatMarkedAbsent):
        times = f"{e.streak} timeout{'' if e.streak == 1 else 's'}"
        return (
            f"{_player_name(before, e.player_id)} is absent after {times} in a row:"
            " the bot plays every decision until they take the seat back (C4)"
        )
    if isinstance(e, ev.TimeoutStreakEnded):
        return f"{_player_name(before, e.player_id)} plays again after timing out (C4)"
    if isinstance(e, ev.SeatPlayedByBot):
        why = "who resigned" if e.reason == "resigned" else "who is absent"
        return f"The bot plays for {colour(e.colour)}, {why} ({e.rule})"
    if isinstance(e, ev.SeatReclaimed):
        return f"{_player_name(before, e.player_id)} takes the seat back from the bot (C5)"
    if isinstance(e, ev.PlayerResigned):
        return (
            f"{'/'.join(colour(c) for c in e.colours)} resigns: the bot plays on for them,"
            " and they rank last (C6)"
        )
    if isinstance(e, ev.DeckRevealed):
        extra = ", with the seeds of its re-deals," if e.redeals else ""
        return f"The deck seed is revealed{extra}: every draw can now be verified"
    if isinstance(e, ev.GamePaused):
        return "An auditor pauses the game while a dispute is looked at"
    if isinstance(e, ev.GameResumed):
        return "The game resumes"
    if isinstance(e, ev.ResultAmended):
        if e.annulled:
            return "A ruling annuls the result: the game counts for nobody"
        order = ", ".join(_player_name(before, p) for p in e.ranking or ())
        return f"A ruling amends the result: {order}"
    if isinstance(e, ev.GameRewound):
        return (
            f"A ruling rewinds the game to version {e.to_version}: play continues from there,"
            " the tiles not yet drawn re-dealt from a fresh seed"
        )
    return type(e).__name__
