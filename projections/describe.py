"""One line per event, for replays and audits: its phrase (``phrase``), said in the
reader's language where it is shown, and its English (``describe``).

``phrase(event, before)`` reads the state *before* the event only for names (whose
fleet, which island); the event itself says what happened and which rule applied, so
the line is as trustworthy as the event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import events as ev
from domain.away import AwayAnnounced
from domain.state import GameState
from projections.describe_offers import OFFER_WORDS
from projections.phrases import Moment, Phrase, listing, say, say_n
from projections.vocabulary import (
    COMPASS,
    DIRECTIONS,
    ENDINGS,
    TIE_BREAKS,
    WAYS,
    _beaches,
    _boats,
    _colours,
    _colours_of,
    _path,
    _placed_beside,
    beach_name,
    beach_phrase,
    beaches_phrase,
    beside,
    boats_phrase,
    colour,
    colour_phrase,
    fleet_phrase,
    player_phrase,
    tile_name,
)

__all__ = [
    "COMPASS", "DIRECTIONS", "WORDS", "_beaches", "_boats", "_placed_beside", "beach_name",
    "colour", "describe", "phrase",
]  # fmt: skip


def _game_created(e: ev.GameCreated, _before: GameState) -> Phrase:
    n = e.options.max_players
    return say_n("Game created for up to {n} player", "Game created for up to {n} players", n)


def _player_joined(e: ev.PlayerJoined, _before: GameState) -> Phrase:
    if e.bot:  # a bot's seat (docs/bots.md, B1): its level is a name, never translated
        return say("The bot {bot} takes seat {seat} with {colours} (B1)",
                   bot=e.bot, seat=e.seat, colours=_colours_of(e.colours))  # fmt: skip
    return say("{colours} takes seat {seat}", colours=_colours_of(e.colours), seat=e.seat)


def _game_started(e: ev.GameStarted, _before: GameState) -> Phrase:
    return say("Game starts; turn order {order}", order=_colours_of(e.order, "comma"))


def _starting_boat_placed(e: ev.StartingBoatPlaced, before: GameState) -> Phrase:
    return say(
        "{colour} places a starting boat on Tonga, {beach}",
        colour=colour_phrase(e.colour),
        beach=beach_phrase(before, "tonga", e.beach),
    )


def _boats_added(e: ev.BoatsAdded, _before: GameState) -> Phrase:
    said = {"colour": colour_phrase(e.colour), "boats": boats_phrase(len(e.beaches))}
    if e.taken_from:
        origin = tile_name(e.taken_from[0])
        return say("{colour} adds {boats} to {island} (from {origin})", **said,
                   island=tile_name(e.island), origin=origin)  # fmt: skip
    return say("{colour} adds {boats} to {island}", **said, island=tile_name(e.island))


def _boats_placed(e: ev.BoatsPlaced, before: GameState) -> Phrase:
    return say(
        "{colour} places {boats} on {island}, {beaches}",
        colour=colour_phrase(e.colour),
        boats=boats_phrase(len(e.beaches)),
        island=tile_name(e.island),
        beaches=beaches_phrase(before, e.island, e.beaches),
    )


def _emigration_started(e: ev.EmigrationStarted, before: GameState) -> Phrase:
    said = {
        "colour": colour_phrase(e.colour),
        "island": tile_name(e.island),
        "beach": beach_phrase(before, e.island, e.beach),
        "direction": WAYS[DIRECTIONS[e.direction % 6]],
        "fleet": fleet_phrase(e.fleet),
    }
    if e.search_exhausted:
        return say(
            "{colour} emigrates from {island}, {beach}, sailing {direction} with {fleet}"
            " (offered without proof: the R19 search reached its budget of {budget}"
            " arrangements before finding an end)",
            **said,
            budget=f"{e.search_budget:,}",
        )
    return say(
        "{colour} emigrates from {island}, {beach}, sailing {direction} with {fleet}", **said
    )


def _tile_drawn(e: ev.TileDrawn, _before: GameState) -> Phrase:
    return say(
        "Tile {tile} drawn ({islands} and {oceans} left)",
        tile=tile_name(e.tile),
        islands=say_n("{n} island", "{n} islands", e.islands_left),
        oceans=say_n("{n} ocean", "{n} oceans", e.oceans_left),
    )


def _tile_placed(e: ev.TilePlaced, before: GameState) -> Phrase:
    found = beside(before, e.cell)
    if found is None:
        return say("{tile} is placed", tile=tile_name(e.tile))
    direction, other = found
    return say("{tile} is placed {direction} of {other}", tile=tile_name(e.tile),
               direction=direction, other=other)  # fmt: skip


def _fleet_sailed(e: ev.FleetSailed, _before: GameState) -> Phrase:
    return say("The fleet ({colours}) sails {path} on {tile}", colours=_colours(e.colours),
               path=_path(e), tile=tile_name(e.tile))  # fmt: skip


def _expedition_failed(e: ev.ExpeditionFailed, _before: GameState) -> Phrase:
    return say("The fleet ({colours}) cannot pass {path} on {tile}: its boats go home",
               colours=_colours(e.colours), path=_path(e), tile=tile_name(e.tile))  # fmt: skip


def _fleet_reached_island(e: ev.FleetReachedIsland, _before: GameState) -> Phrase:
    return say("Fleet ({fleet}) reaches {island}", fleet=fleet_phrase(e.fleet),
               island=tile_name(e.island))  # fmt: skip


def _fleet_turned_back(e: ev.FleetTurnedBack, _before: GameState) -> Phrase:
    return say("Fleet turns back at royal island {royal} to {island}",
               royal=tile_name(e.royal_island), island=tile_name(e.to_island))  # fmt: skip


def _boats_landed(e: ev.BoatsLanded, _before: GameState) -> Phrase:
    landed = fleet_phrase(b for beach in e.beaches for b in beach)
    if e.returned:
        return say("{fleet} land on {island}; {returned} go home", fleet=landed,
                   island=tile_name(e.island), returned=fleet_phrase(e.returned))  # fmt: skip
    return say("{fleet} land on {island}", fleet=landed, island=tile_name(e.island))


def _royal_island_founded(e: ev.RoyalIslandFounded, _before: GameState) -> Phrase:
    return say("{colour} founds a royal island on {island}", colour=colour_phrase(e.colour),
               island=tile_name(e.island))  # fmt: skip


def _new_colony_founded(e: ev.NewColonyFounded, _before: GameState) -> Phrase:
    return say("{colour} starts a new colonisation", colour=colour_phrase(e.colour))


def _chain_declared_endless(e: ev.ChainDeclaredEndless, _before: GameState) -> Phrase:
    islands = listing((tile_name(i) for i in e.islands), "comma")
    return say("Endless chain declared over {islands}", islands=islands)


def _island_removed(e: ev.IslandRemoved, _before: GameState) -> Phrase:
    if e.returned:
        return say("{island} is removed from the game; {returned} go home",
                   island=tile_name(e.island), returned=fleet_phrase(e.returned))  # fmt: skip
    return say("{island} is removed from the game", island=tile_name(e.island))


def _fleet_lost_at_sea(e: ev.FleetLostAtSea, _before: GameState) -> Phrase:
    return say("Fleet ({fleet}) is lost at sea", fleet=fleet_phrase(e.fleet))


def _turn_ended(e: ev.TurnEnded, _before: GameState) -> Phrase:
    said = {"colour": colour_phrase(e.colour), "turn": e.turn}
    if e.next_colour:
        return say("{colour} ends turn {turn}; {next} to play", **said,
                   next=colour_phrase(e.next_colour))  # fmt: skip
    return say("{colour} ends turn {turn}", **said)


def _game_ended(e: ev.GameEnded, before: GameState) -> Phrase:
    winners = listing((player_phrase(before, w) for w in e.winners), "and")
    why = ENDINGS.get(e.reason, e.reason.replace("_", " "))
    n = len(e.winners)
    if e.tie_break in TIE_BREAKS:
        ended = say_n("Game over, {why}: {winners} wins ({how})",
                      "Game over, {why}: {winners} win ({how})", n,
                      why=why, winners=winners, how=TIE_BREAKS[e.tie_break])  # fmt: skip
    else:
        ended = say_n("Game over, {why}: {winners} wins", "Game over, {why}: {winners} win", n,
                      why=why, winners=winners)  # fmt: skip
    if not e.resigned:
        return ended
    gone = listing((player_phrase(before, p) for p in e.resigned), "and")
    resigned = say_n("{who} resigned and ranks last (C6)", "{who} resigned and rank last (C6)",
                     len(e.resigned), who=gone)  # fmt: skip
    return say("{ended}; {resigned}", ended=ended, resigned=resigned)


def _turn_timed_out(e: ev.TurnTimedOut, before: GameState) -> Phrase:
    who = colour_phrase(e.colour)
    nobody = before.timeout_leaves_nobody(e.seat)
    if e.streak > 1 and nobody:
        return say("{colour}'s time ran out, {streak} times in a row: nobody is left to play (C7)",
                   colour=who, streak=e.streak)  # fmt: skip
    if e.streak > 1:
        return say("{colour}'s time ran out, {streak} times in a row: the bot plays this decision"
                   " (C3)", colour=who, streak=e.streak)  # fmt: skip
    if nobody:
        return say("{colour}'s time ran out: nobody is left to play (C7)", colour=who)
    return say("{colour}'s time ran out: the bot plays this decision (C3)", colour=who)


def _seat_marked_absent(e: ev.SeatMarkedAbsent, before: GameState) -> Phrase:
    return say(
        "{player} is absent after {timeouts} in a row: the bot plays every decision until"
        " they take the seat back (C4)",
        player=player_phrase(before, e.player_id),
        timeouts=say_n("{n} timeout", "{n} timeouts", e.streak),
    )


def _timeout_streak_ended(e: ev.TimeoutStreakEnded, before: GameState) -> Phrase:
    return say("{player} plays again after timing out (C4)",
               player=player_phrase(before, e.player_id))  # fmt: skip


def _seat_played_by_bot(e: ev.SeatPlayedByBot, _before: GameState) -> Phrase:
    said = {"colour": colour_phrase(e.colour), "rule": e.rule}
    if e.reason == "resigned":
        return say("The bot plays for {colour}, who resigned ({rule})", **said)
    if e.reason == "bot":  # the bot's own seat (B2)
        return say("The bot plays its seat, {colour} ({rule})", **said)
    return say("The bot plays for {colour}, who is absent ({rule})", **said)


def _seat_reclaimed(e: ev.SeatReclaimed, before: GameState) -> Phrase:
    return say("{player} takes the seat back from the bot (C5)",
               player=player_phrase(before, e.player_id))  # fmt: skip


def _player_resigned(e: ev.PlayerResigned, _before: GameState) -> Phrase:
    return say("{colours} resigns: the bot plays on for them, and they rank last (C6)",
               colours=_colours_of(e.colours))  # fmt: skip


def _away_announced(e: AwayAnnounced, before: GameState) -> Phrase:
    return say(
        "{player} is away from {starts} to {until}: the clocks of their decisions stand"
        " still then (V4)",
        player=player_phrase(before, e.player_id),
        starts=Moment(e.starts),
        until=Moment(e.until),
    )


def _deck_revealed(e: ev.DeckRevealed, _before: GameState) -> Phrase:
    if e.redeals:
        return say(
            "The deck seed is revealed, with the seeds of its re-deals,: every draw can now"
            " be verified"
        )
    return say("The deck seed is revealed: every draw can now be verified")


def _game_paused(e: ev.GamePaused, _before: GameState) -> Phrase:
    return say("An auditor pauses the game while a dispute is looked at")


def _game_resumed(e: ev.GameResumed, _before: GameState) -> Phrase:
    return say("The game resumes")


def _result_amended(e: ev.ResultAmended, before: GameState) -> Phrase:
    if e.annulled:
        return say("A ruling annuls the result: the game counts for nobody")
    order = listing((player_phrase(before, p) for p in e.ranking or ()), "comma")
    return say("A ruling amends the result: {order}", order=order)


def _game_rewound(e: ev.GameRewound, _before: GameState) -> Phrase:
    return say(
        "A ruling rewinds the game to version {version}: play continues from there, the"
        " tiles not yet drawn re-dealt from a fresh seed",
        version=e.to_version,
    )


# the words of each event type: every type has its own (tests/projections/test_describe.py)
WORDS: dict[type[Any], Callable[[Any, GameState], Phrase]] = {
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


def phrase(event: ev.Event, before: GameState) -> Phrase:
    """What ``event`` did, as a phrase (the state before it only for names); an event
    without words of its own is said by its type's name."""
    words = WORDS.get(type(event))
    return words(event, before) if words is not None else say(type(event).__name__)


def describe(event: ev.Event, before: GameState) -> str:
    """A one-line description of ``event`` in English (``phrase``'s)."""
    return phrase(event, before).english()
