"""A decision as a person says it, and back: ``say(state, command)`` and
``hear(state, text)`` (docs/notation.md).

Islands are named by their tile's name ("Tonga", "Rapa Nui"), beaches by the world
direction of their first jetty ("N", "SE": the island's rotation decides it), jetties
by their world direction, colours by their names. What is said depends on the
position (where an island's beaches face), so a phrase is read against the state it
was said in; ``hear`` raises ``Unheard`` (with the column it stopped at) for words
that name no command of that position.
"""

from __future__ import annotations

import json
import re

from domain import commands as cmd
from domain.hexgrid import DIRECTION_NAMES, world_direction
from domain.serialization import decode_command, encode
from domain.state import COLOURS, ISLAND_IDS, GameState, IslandState
from domain.tiles import PILE, TONGA, display_name, island

NAMES = {display_name(t): t for t in (TONGA, *ISLAND_IDS)}
TILES = {display_name(t): t for t in PILE}
_FOLDED = {name.casefold(): tile for name, tile in NAMES.items()}
REASONS = cmd.BOT_REASONS


class Unheard(ValueError):
    """Words that name no command here; ``column`` is where reading stopped (0-based)."""

    def __init__(self, message: str, column: int = 0) -> None:
        super().__init__(message)
        self.column = column


def colour_word(colour: str) -> str:
    """``blue`` → ``Blue``."""
    return colour.capitalize()


def _beach_word(state: GameState, island_id: str, beach: int) -> str:
    isl = state.islands[island_id]
    edge = island(isl.tile).beaches[beach].jetties[0]
    return DIRECTION_NAMES[world_direction(edge, isl.rotation)]


def _jetty_word(state: GameState, island_id: str, jetty: int) -> str:
    return DIRECTION_NAMES[world_direction(jetty, state.islands[island_id].rotation)]


def say_move(state: GameState, c: cmd.Command) -> str:
    """A play command (after its colour), e.g. ``expands on Tonga: N, NE``."""
    name = display_name(getattr(c, "island", TONGA))
    if isinstance(c, cmd.PlaceStartingBoat):
        return f"places a boat on Tonga: {_beach_word(state, TONGA, c.beach)}"
    if isinstance(c, cmd.Expand):
        said = f"expands on {name}: " + ", ".join(
            _beach_word(state, c.island, b) for b in c.beaches
        )
        if c.take_from is not None:
            source, beach = c.take_from
            said += f" taking from {display_name(source)}: {_beach_word(state, source, beach)}"
        return said
    if isinstance(c, cmd.PlaceBoats):
        return f"places boats on {name}: " + ", ".join(
            _beach_word(state, c.island, b) for b in c.beaches
        )
    if isinstance(c, cmd.Emigrate):
        return f"sails from {name} by {_jetty_word(state, c.island, c.jetty)}"
    if isinstance(c, cmd.Land):
        parts = [
            f"{_beach_word(state, c.island, b)} {' '.join(boats)}"
            for b, boats in enumerate(c.beaches)
            if boats
        ]
        return f"lands on {name}: " + ("; ".join(parts) if parts else "none")
    if isinstance(c, cmd.PlaceTile):
        return f"places {display_name(c.tile)} at {c.cell[0]},{c.cell[1]} turned {c.rotation}"
    if isinstance(c, cmd.FoundRoyalIsland):
        return f"founds a royal island on {name}"
    if isinstance(c, cmd.NewColonisation):
        return "starts a new colony"
    if isinstance(c, cmd.PlaceColonist):
        return f"places a colonist on {name}: {_beach_word(state, c.island, c.beach)}"
    raise TypeError(f"not a play command: {type(c).__name__}")


def _first_colour(state: GameState, player_id: str) -> str:
    return colour_word(next(p.colours[0] for p in state.players if p.player_id == player_id))


def say(state: GameState, c: cmd.Command) -> str:
    """The whole phrase of a decision, its colour first (``Blue expands on …``)."""
    if isinstance(c, cmd.Resign):
        return f"{_first_colour(state, c.player_id)} resigns"
    if isinstance(c, cmd.ReclaimSeat):
        return f"{_first_colour(state, c.player_id)} takes the seat back"
    colour = state.active_colour or ""
    if isinstance(c, cmd.ActForSeat):
        if not c.move:
            return f"{colour_word(c.colour)} (bot, {c.reason}) plays nothing"
        move = decode_command(json.loads(c.move))
        return f"{colour_word(c.colour)} (bot, {c.reason}) {say_move(state, move)}"
    return f"{colour_word(colour)} {say_move(state, c)}"


# --- hearing ----------------------------------------------------------------------

_COLOUR = "|".join(colour_word(c) for c in COLOURS)
_HEAD = re.compile(rf"({_COLOUR})(?: \(bot, ({'|'.join(REASONS)})\))? ")


def hear(state: GameState, text: str) -> cmd.Command:
    """The command ``text`` says in ``state`` (``Unheard`` if none)."""
    if m := re.fullmatch(rf"({_COLOUR}) (resigns|takes the seat back)", text):
        player = state.owner(m[1].lower()).player_id
        return cmd.Resign(player) if m[2] == "resigns" else cmd.ReclaimSeat(player)
    head = _HEAD.match(text)
    if head is None:
        raise Unheard("a decision starts with a colour (Blue, Red, …)", 0)
    colour, reason = head[1].lower(), head[2]
    rest, at = text[head.end() :], head.end()
    if state.active_colour != colour:
        raise Unheard(f"{head[1]} has no decision here ({state.active_colour} has)", 0)
    if reason is not None:
        if rest == "plays nothing":
            return cmd.ActForSeat(colour, reason, "")
        move = hear_move(state, rest, at)
        played = json.dumps(encode(move), sort_keys=True, separators=(",", ":"))
        return cmd.ActForSeat(colour, reason, played)
    return hear_move(state, rest, at)


def _island(word: str, at: int) -> str:
    found = _FOLDED.get(word.casefold())
    if found is None:
        raise Unheard(f"no island is called {word!r}", at)
    return found


def _on_table(state: GameState, island_id: str, at: int) -> IslandState:
    """The island a phrase names, which must have been placed already."""
    isl = state.islands.get(island_id)
    if isl is None:
        raise Unheard(f"{display_name(island_id)} is not on the table", at)
    return isl


def _beach(state: GameState, island_id: str, word: str, at: int) -> int:
    isl = _on_table(state, island_id, at)
    for i, beach in enumerate(island(isl.tile).beaches):
        if word in (DIRECTION_NAMES[world_direction(j, isl.rotation)] for j in beach.jetties):
            return i
    raise Unheard(f"{display_name(island_id)} has no beach facing {word!r}", at)


def _beaches(state: GameState, island_id: str, words: str, at: int) -> tuple[int, ...]:
    out, col = [], at
    for word in words.split(", "):
        out.append(_beach(state, island_id, word, col))
        col += len(word) + 2
    return tuple(out)


_ISLE = r"([A-Za-z]+(?: [A-Za-z]+)?)"
_DIRS = r"((?:[NS][EW]?|[NS])(?:, (?:[NS][EW]?))*)"


def hear_move(state: GameState, text: str, at: int = 0) -> cmd.Command:
    """A play command from its phrase after the colour (``Unheard`` if none)."""
    if m := re.fullmatch(r"places a boat on Tonga: ([NS][EW]?)", text):
        return cmd.PlaceStartingBoat(_beach(state, TONGA, m[1], at + m.start(1)))
    if m := re.fullmatch(
        rf"expands on {_ISLE}: {_DIRS}(?: taking from {_ISLE}: ([NS][EW]?))?", text
    ):
        where = _island(m[1], at + m.start(1))
        take = None
        if m[3] is not None:
            source = _island(m[3], at + m.start(3))
            take = (source, _beach(state, source, m[4], at + m.start(4)))
        return cmd.Expand(where, _beaches(state, where, m[2], at + m.start(2)), take)
    if m := re.fullmatch(rf"places boats on {_ISLE}: {_DIRS}", text):
        where = _island(m[1], at + m.start(1))
        return cmd.PlaceBoats(where, _beaches(state, where, m[2], at + m.start(2)))
    if m := re.fullmatch(rf"sails from {_ISLE} by ([NS][EW]?)", text):
        return _emigrate(state, _island(m[1], at + m.start(1)), m[2], at + m.start(2))
    if m := re.fullmatch(rf"lands on {_ISLE}: (.+)", text):
        return _land(state, _island(m[1], at + m.start(1)), m[2], at + m.start(2))
    if m := re.fullmatch(
        r"places ([A-Z][a-z]+(?: [A-Z0-9][a-z0-9]*)?) at (-?\d{1,3}),(-?\d{1,3}) turned ([0-5])",
        text,
    ):
        tile = TILES.get(m[1])
        if tile is None:
            raise Unheard(f"no tile is called {m[1]!r}", at + m.start(1))
        return cmd.PlaceTile(tile, (int(m[2]), int(m[3])), int(m[4]))
    if m := re.fullmatch(rf"founds a royal island on {_ISLE}", text):
        return cmd.FoundRoyalIsland(_island(m[1], at + m.start(1)))
    if text == "starts a new colony":
        return cmd.NewColonisation()
    if m := re.fullmatch(rf"places a colonist on {_ISLE}: ([NS][EW]?)", text):
        where = _island(m[1], at + m.start(1))
        return cmd.PlaceColonist(where, _beach(state, where, m[2], at + m.start(2)))
    raise Unheard(f"no decision reads {text[:60]!r} (docs/notation.md lists them)", at)


def _emigrate(state: GameState, island_id: str, word: str, at: int) -> cmd.Emigrate:
    isl = _on_table(state, island_id, at)
    for i, beach in enumerate(island(isl.tile).beaches):
        for jetty in beach.jetties:
            if DIRECTION_NAMES[world_direction(jetty, isl.rotation)] == word:
                return cmd.Emigrate(island_id, i, jetty)
    raise Unheard(f"{display_name(island_id)} has no jetty facing {word!r}", at)


def _land(state: GameState, island_id: str, words: str, at: int) -> cmd.Land:
    isl = _on_table(state, island_id, at)
    beaches: list[tuple[str, ...]] = [() for _ in isl.beaches]
    if words != "none":
        col = at
        for part in words.split("; "):
            direction, _, boats = part.partition(" ")
            colours = tuple(boats.split(" ")) if boats else ()
            if not colours or any(c not in COLOURS for c in colours):
                raise Unheard(f"a beach lists its boats' colours: {part!r}", col)
            beaches[_beach(state, island_id, direction, col)] = colours
            col += len(part) + 2
    return cmd.Land(island_id, tuple(beaches))
