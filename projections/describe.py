"""One line of plain English per event, for replays and audits.

``describe(event, before)`` reads the state *before* the event only for names
(whose fleet, which island); the event itself says what happened and which
rule applied, so the line is as trustworthy as the event.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from domain import events as ev
from domain.away import AwayAnnounced
from domain.hexgrid import neighbour
from domain.state import GameState
from domain.tiles import display_name, island
from projections.describe_offers import OFFER_WORDS

# world directions (0 = south, clockwise, as drawn) and the eight points of a compass
DIRECTIONS = ("south", "south-west", "north-west", "north", "north-east", "south-east")
COMPASS = ("east", "south-east", "south", "south-west", "west", "north-west", "north", "north-east")
ENDINGS = {
    "last_island_drawn": "the last island tile was drawn",
    "last_ocean_drawn": "the last ocean tile was drawn",
    "abandoned": "the bot played every seat: nobody was left to play (C7)",
    "agreement": "every player still in the game agreed to end it (T6)",
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


def _game_created(e: ev.GameCreated, _before: GameState) -> str:
    return f"Game created for up to {e.options.max_players} players"


def _player_joined(e: ev.PlayerJoined, _before: GameState) -> str:
    return f"{'/'.join(colour(c) for c in e.colours)} takes seat {e.seat}"


def _game_started(e: ev.GameStarted, _before: GameState) -> str:
    return f"Game starts; turn order {', '.join(colour(c) for c in e.order)}"


def _starting_boat_placed(e: ev.StartingBoatPlaced, before: GameState) -> str:
    return (
        f"{colour(e.colour)} places a starting boat on Tonga, "
        f"{beach_name(before, 'tonga', e.beach)}"
    )


def _boats_added(e: ev.BoatsAdded, _before: GameState) -> str:
    where = display_name(e.island)
    moved = f" (from {display_name(e.taken_from[0])})" if e.taken_from else ""
    return f"{colour(e.colour)} adds {_boats(len(e.beaches))} to {where}{moved}"


def _boats_placed(e: ev.BoatsPlaced, before: GameState) -> str:
    where = f"{display_name(e.island)}, {_beaches(before, e.island, e.beaches)}"
    return f"{colour(e.colour)} places {_boats(len(e.beaches))} on {where}"


def _emigration_started(e: ev.EmigrationStarted, before: GameState) -> str:
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


def _tile_drawn(e: ev.TileDrawn, _before: GameState) -> str:
    left = f"{_count(e.islands_left, 'island')} and {_count(e.oceans_left, 'ocean')} left"
    return f"Tile {display_name(e.tile)} drawn ({left})"


def _tile_placed(e: ev.TilePlaced, before: GameState) -> str:
    return f"{display_name(e.tile)} is placed{_placed_beside(before, e.cell)}"


def _fleet_sailed(e: ev.FleetSailed, _before: GameState) -> str:
    return f"The fleet ({_colours(e.colours)}) sails {_path(e)} on {display_name(e.tile)}"


def _expedition_failed(e: ev.ExpeditionFailed, _before: GameState) -> str:
    return (
        f"The fleet ({_colours(e.colours)}) cannot pass {_path(e)} on "
        f"{display_name(e.tile)}: its boats go home"
    )


def _fleet_reached_island(e: ev.FleetReachedIsland, _before: GameState) -> str:
    return f"Fleet ({_fleet(e.fleet)}) reaches {display_name(e.island)}"


def _fleet_turned_back(e: ev.FleetTurnedBack, _before: GameState) -> str:
    return (
        f"Fleet turns back at royal island {display_name(e.royal_island)} "
        f"to {display_name(e.to_island)}"
    )


def _boats_landed(e: ev.BoatsLanded, _before: GameState) -> str:
    landed = [b for beach in e.beaches for b in beach]
    home = f"; {_fleet(e.returned)} go home" if e.returned else ""
    return f"{_fleet(landed)} land on {display_name(e.island)}{home}"


def _royal_island_founded(e: ev.RoyalIslandFounded, _before: GameState) -> str:
    return f"{colour(e.colour)} founds a royal island on {display_name(e.island)}"


def _new_colony_founded(e: ev.NewColonyFounded, _before: GameState) -> str:
    return f"{colour(e.colour)} starts a new colonisation"


def _chain_declared_endless(e: ev.ChainDeclaredEndless, _before: GameState) -> str:
    return f"Endless chain declared over {', '.join(display_name(i) for i in e.islands)}"


def _island_removed(e: ev.IslandRemoved, _before: GameState) -> str:
    home = f"; {_fleet(e.returned)} go home" if e.returned else ""
    return f"{display_name(e.island)} is removed from the game{home}"


def _fleet_lost_at_sea(e: ev.FleetLostAtSea, _before: GameState) -> str:
    return f"Fleet ({_fleet(e.fleet)}) is lost at sea"


def _turn_ended(e: ev.TurnEnded, _before: GameState) -> str:
    following = f"; {colour(e.next_colour)} to play" if e.next_colour else ""
    return f"{colour(e.colour)} ends turn {e.turn}{following}"


def _game_ended(e: ev.GameEnded, before: GameState) -> str:
    winners = " and ".join(_player_name(before, w) for w in e.winners)
    how = f" ({TIE_BREAKS[e.tie_break]})" if e.tie_break in TIE_BREAKS else ""
    why = ENDINGS.get(e.reason, e.reason.replace("_", " "))
    text = f"Game over, {why}: {winners} win{'' if len(e.winners) > 1 else 's'}{how}"
    if e.resigned:
        quit = " and ".join(_player_name(before, p) for p in e.resigned)
        text += f"; {quit} resigned and rank{'' if len(e.resigned) > 1 else 's'} last (C6)"
    return text


def _turn_timed_out(e: ev.TurnTimedOut, before: GameState) -> str:
    again = f", {e.streak} times in a row" if e.streak > 1 else ""
    if before.timeout_leaves_nobody(e.seat):
        return f"{colour(e.colour)}'s time ran out{again}: nobody is left to play (C7)"
    return f"{colour(e.colour)}'s time ran out{again}: the bot plays this decision (C3)"


def _seat_marked_absent(e: ev.SeatMarkedAbsent, before: GameState) -> str:
    times = f"{e.streak} timeout{'' if e.streak == 1 else 's'}"
    return (
        f"{_player_name(before, e.player_id)} is absent after {times} in a row:"
        " the bot plays every decision until they take the seat back (C4)"
    )


def _timeout_streak_ended(e: ev.TimeoutStreakEnded, before: GameState) -> str:
    return f"{_player_name(before, e.player_id)} plays again after timing out (C4)"


def _seat_played_by_bot(e: ev.SeatPlayedByBot, _before: GameState) -> str:
    why = "who resigned" if e.reason == "resigned" else "who is absent"
    return f"The bot plays for {colour(e.colour)}, {why} ({e.rule})"


def _seat_reclaimed(e: ev.SeatReclaimed, before: GameState) -> str:
    return f"{_player_name(before, e.player_id)} takes the seat back from the bot (C5)"


def _player_resigned(e: ev.PlayerResigned, _before: GameState) -> str:
    return (
        f"{'/'.join(colour(c) for c in e.colours)} resigns: the bot plays on for them,"
        " and they rank last (C6)"
    )


def _away_announced(e: AwayAnnounced, before: GameState) -> str:
    def when(text: str) -> str:
        return datetime.fromisoformat(text).astimezone(UTC).strftime("%-d %b %Y, %H:%M UTC")

    return (
        f"{_player_name(before, e.player_id)} is away from {when(e.starts)} to"
        f" {when(e.until)}: the clocks of their decisions stand still then (V4)"
    )


def _deck_revealed(e: ev.DeckRevealed, _before: GameState) -> str:
    extra = ", with the seeds of its re-deals," if e.redeals else ""
    return f"The deck seed is revealed{extra}: every draw can now be verified"


def _game_paused(e: ev.GamePaused, _before: GameState) -> str:
    return "An auditor pauses the game while a dispute is looked at"


def _game_resumed(e: ev.GameResumed, _before: GameState) -> str:
    return "The game resumes"


def _result_amended(e: ev.ResultAmended, before: GameState) -> str:
    if e.annulled:
        return "A ruling annuls the result: the game counts for nobody"
    order = ", ".join(_player_name(before, p) for p in e.ranking or ())
    return f"A ruling amends the result: {order}"


def _game_rewound(e: ev.GameRewound, _before: GameState) -> str:
    return (
        f"A ruling rewinds the game to version {e.to_version}: play continues from there,"
        " the tiles not yet drawn re-dealt from a fresh seed"
    )


# the words of each event type: every type has its own (tests/projections/test_describe.py)
WORDS: dict[type[Any], Callable[[Any, GameState], str]] = {
    ev.GameCreated: _game_created,
    ev.PlayerJoined: _player_joined,
    ev.GameStarted: _game_started,
    ev.StartingBoatPlaced: _starting_boat_placed,
    ev.BoatsAdded: _boats_added,
    ev.BoatsPlaced: _boats_placed,
    ev.EmigrationStarted: _emigration_started,
    ev.TileDrawn: _tile_drawn,
    ev.TilePlaced: _tile_placed,
    ev.FleetSailed: _fleet_sailed,
    ev.ExpeditionFailed: _expedition_failed,
    ev.FleetReachedIsland: _fleet_reached_island,
    ev.FleetTurnedBack: _fleet_turned_back,
    ev.BoatsLanded: _boats_landed,
    ev.RoyalIslandFounded: _royal_island_founded,
    ev.NewColonyFounded: _new_colony_founded,
    ev.ChainDeclaredEndless: _chain_declared_endless,
    ev.IslandRemoved: _island_removed,
    ev.FleetLostAtSea: _fleet_lost_at_sea,
    ev.TurnEnded: _turn_ended,
    ev.GameEnded: _game_ended,
    ev.TurnTimedOut: _turn_timed_out,
    ev.SeatMarkedAbsent: _seat_marked_absent,
    ev.TimeoutStreakEnded: _timeout_streak_ended,
    ev.SeatPlayedByBot: _seat_played_by_bot,
    ev.SeatReclaimed: _seat_reclaimed,
    ev.PlayerResigned: _player_resigned,
    AwayAnnounced: _away_announced,
    ev.DeckRevealed: _deck_revealed,
    ev.GamePaused: _game_paused,
    ev.GameResumed: _game_resumed,
    ev.ResultAmended: _result_amended,
    ev.GameRewound: _game_rewound,
    **OFFER_WORDS,
}


def describe(event: ev.Event, before: GameState) -> str:
    """A one-line human-readable description of ``event`` (the state before it only
    for names)."""
    words = WORDS.get(type(event))
    return words(event, before) if words is not None else type(event).__name__
