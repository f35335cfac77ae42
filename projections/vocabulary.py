"""The game's vocabulary, said in the reader's language: colours, compass points, tile
and beach names, fleets and counts, as phrases (``projections.phrases``) for the replay's
words (``projections.describe``), with their English for the commands' words
(``projections.command_words``)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from domain import events as ev
from domain.hexgrid import neighbour
from domain.state import GameState
from domain.tiles import TILES, IslandTile, display_name, island
from projections.phrases import Listing, Phrase, Value, english, listing, say, say_n

# world directions (0 = south, clockwise, as drawn) and the eight points of a compass
DIRECTIONS = ("south", "south-west", "north-west", "north", "north-east", "south-east")
COMPASS = ("east", "south-east", "south", "south-west", "west", "north-west", "north", "north-east")
WAYS = {  # each direction's word, to be said in the reader's language
    "south": say("south"), "south-west": say("south-west"), "north-west": say("north-west"),
    "north": say("north"), "north-east": say("north-east"), "south-east": say("south-east"),
    "east": say("east"), "west": say("west"),
}  # fmt: skip
COLOURS = {
    "blue": say("Blue"), "red": say("Red"), "green": say("Green"), "yellow": say("Yellow"),
    "orange": say("Orange"), "purple": say("Purple"),
}  # fmt: skip
ENDINGS = {
    "last_island_drawn": say("the last island tile was drawn"),
    "last_ocean_drawn": say("the last ocean tile was drawn"),
    "abandoned": say("the bot played every seat: nobody was left to play (C7)"),
    "agreement": say("every player still in the game agreed to end it (T6)"),
}
TIE_BREAKS = {
    "islands": say("equal points: more islands decide"),
    "boats": say("equal points and islands: fewer boats on the board decide"),
    "shared": say("a shared win"),
}


def colour_phrase(name: str | None) -> Value:
    """A colour's name (``"blue"`` → Blue), said in the reader's language."""
    if name is None:
        return say("nobody")
    return COLOURS.get(name, name.capitalize())


def colour(name: str | None) -> str:
    """``"blue"`` → ``"Blue"``."""
    return english(colour_phrase(name))


def tile_name(tile_id: str) -> Value:
    """An island's name (a name: never translated), or "Ocean 7"."""
    tile = TILES.get(tile_id)
    if tile is None or isinstance(tile, IslandTile):
        return display_name(tile_id) if tile is not None else tile_id
    return say("Ocean {number}", number=tile.number)


def boats_phrase(n: int) -> Phrase:
    return say_n("{n} boat", "{n} boats", n)


def _boats(n: int) -> str:
    return boats_phrase(n).english()


def fleet_phrase(boats: Iterable[str]) -> Value:
    """``("blue", "blue", "red")`` → ``"2 Blue, 1 Red"``."""
    counts = Counter(boats)
    if not counts:
        return say("no boats")
    return listing(
        (say("{n} {colour}", n=n, colour=colour_phrase(c)) for c, n in sorted(counts.items())),
        "comma",
    )


def _facing(jetties: Iterable[int], rotation: int) -> str:
    """The compass point a beach faces: the mean of its jetties' world directions."""
    x = y = 0.0
    for j in jetties:
        angle = math.radians(90 + 60 * ((j + rotation) % 6))
        x, y = x + math.cos(angle), y + math.sin(angle)
    return COMPASS[round(math.degrees(math.atan2(y, x)) / 45) % 8]


def beach_phrase(state: GameState, tile: str, beach: int) -> Phrase:
    """ "the north-west beach": where a beach of a placed island faces (numbered from 1
    as well when two beaches of the island face the same way)."""
    placed = state.islands.get(tile)
    rotation = placed.rotation if placed is not None else 0  # Tonga never turns
    beaches = island(tile).beaches
    if not 0 <= beach < len(beaches):
        return say("beach {number}", number=beach + 1)
    facing = [_facing(b.jetties, rotation) for b in beaches]
    if facing.count(facing[beach]) > 1:
        return say("the {facing} beach ({number})", facing=WAYS[facing[beach]], number=beach + 1)
    return say("the {facing} beach", facing=WAYS[facing[beach]])


def beach_name(state: GameState, tile: str, beach: int) -> str:
    """``"the north-west beach"`` (``beach_phrase`` in English)."""
    return beach_phrase(state, tile, beach).english()


def beaches_phrase(state: GameState, tile: str, beaches: tuple[int, ...]) -> Listing:
    return listing(beach_phrase(state, tile, b) for b in sorted(set(beaches)))


def _beaches(state: GameState, tile: str, beaches: tuple[int, ...]) -> str:
    return beaches_phrase(state, tile, beaches).english()


def _colours(n: int) -> Phrase:
    return say_n("{n} colour", "{n} colours", n)


def _path(e: ev.FleetSailed | ev.ExpeditionFailed) -> Phrase:
    return say("a calm path") if e.danger == 0 else say("a danger-{danger} path", danger=e.danger)


def beside(state: GameState, cell: tuple[int, int]) -> tuple[Value, Value] | None:
    """The direction from the first neighbour on the table, and its name, if any."""
    for d in range(len(DIRECTIONS)):
        placed = state.tiles.get(neighbour(cell, d))
        if placed is not None:
            # the new tile lies across direction d+3 from that neighbour
            return WAYS[DIRECTIONS[(d + 3) % 6]], tile_name(placed.tile)
    return None


def _placed_beside(state: GameState, cell: tuple[int, int]) -> str:
    """``" north-east of Tonga"``: the first neighbour on the table, if any."""
    found = beside(state, cell)
    return f" {english(found[0])} of {english(found[1])}" if found else ""


def player_phrase(state: GameState, player_id: str) -> Value:
    for p in state.players:
        if p.player_id == player_id:
            return listing((colour_phrase(c) for c in p.colours), "slash")
    return player_id


def _colours_of(colours: Iterable[str], joined: str = "slash") -> Listing:
    return listing((colour_phrase(c) for c in colours), joined)
