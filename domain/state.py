"""The game state: an immutable value built by folding events (``evolve``).

States are never mutated once built: ``evolve`` makes a shallow copy with the
changed fields replaced, and dict fields are copied by whoever changes them
(copy-on-write), so a state can be shared freely between threads and caches.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from domain.commands import GameOptions
from domain.frozen import quick_init
from domain.hexgrid import Cell
from domain.offers import EndOffer, TakebackRequest
from domain.tiles import ISLANDS, PILE_ISLANDS, PILE_OCEANS, TONGA, island

_OMITTED = MappingProxyType({"omitted_at_default": True})  # as domain.events'

COLOURS: tuple[str, ...] = ("blue", "red", "green", "yellow", "orange", "purple")
BOATS_PER_COLOUR = 15
MAX_ROYAL_ISLANDS = 2
TONGA_SETUP_LIMIT = 2  # R4: every Tonga beach keeps at least one free slot
ISLAND_IDS = frozenset(t.id for t in ISLANDS)
CAPACITIES: dict[str, tuple[int, ...]] = {
    t.id: tuple(b.capacity for b in t.beaches) for t in ISLANDS
}


class Phase(StrEnum):
    """Where the game is in its life."""

    NEW = "new"
    OPEN = "open"
    SETUP = "setup"
    PLAYING = "playing"
    ENDED = "ended"


class EndReason(StrEnum):
    """Why the game ended (R21)."""

    LAST_ISLAND_DRAWN = "last_island_drawn"
    LAST_OCEAN_DRAWN = "last_ocean_drawn"
    ABANDONED = "abandoned"  # every seat played by the bot (docs/clocks.md, C7)
    AGREEMENT = "agreement"  # every player still in the game agreed to end it (T6)


@quick_init
@dataclass(frozen=True, slots=True)
class Player:
    """A seat at the table: who, and which colours they play (R1, R5)."""

    player_id: str
    seat: int
    colours: tuple[str, ...]
    entropy: str
    bot: str = field(default="", metadata=_OMITTED)  # a bot's seat (B1)


def colour_order(players: Sequence[Player], first_seat: int = 1) -> tuple[str, ...]:
    """Colours in order of play from ``first_seat`` (R3): each seat's first colour,
    then, with two colours each, each seat's second (R5: A1 B1 A2 B2)."""
    first = first_seat - 1
    seats = [*players[first:], *players[:first]]
    most = max((len(p.colours) for p in seats), default=0)
    return tuple(p.colours[i] for i in range(most) for p in seats if i < len(p.colours))


@quick_init
@dataclass(frozen=True, slots=True)
class PlacedTile:
    """A tile on the table and its rotation."""

    tile: str
    rotation: int


@quick_init
@dataclass(frozen=True, slots=True)
class IslandState:
    """An island on the table: where, and the boats on each beach (sorted colours)."""

    tile: str
    cell: Cell
    rotation: int
    beaches: tuple[tuple[str, ...], ...]
    king: str | None = None
    # Whether some beach is full (R9): derived from ``beaches`` once, at construction,
    # because every boat movement asks it of every island.
    full: bool = field(default=False, init=False, repr=False, compare=False)
    # Boats per colour on the beaches, derived on first use (legal moves ask it often).
    _counts: dict[str, int] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        caps = CAPACITIES[self.tile]
        full = False
        for i, b in enumerate(self.beaches):
            if len(b) == caps[i]:
                full = True
                break
        object.__setattr__(self, "full", full)

    @property
    def counts(self) -> dict[str, int]:
        """Boats per colour on the beaches (a king is not on a beach)."""
        counts = self._counts
        if counts is None:
            counts = {}
            for b in self.beaches:
                for c in b:
                    counts[c] = counts.get(c, 0) + 1
            object.__setattr__(self, "_counts", counts)
        return counts

    def has_full_beach(self) -> bool:
        """Whether some beach of this island is full (R9)."""
        return self.full

    def free(self, beach: int) -> int:
        """Free slots on ``beach``."""
        return CAPACITIES[self.tile][beach] - len(self.beaches[beach])

    def is_full(self, beach: int) -> bool:
        """Whether every slot of ``beach`` holds a boat (R9)."""
        return self.free(beach) == 0

    def full_beaches(self) -> list[int]:
        """Indices of the full beaches."""
        caps = CAPACITIES[self.tile]
        return [i for i, b in enumerate(self.beaches) if len(b) == caps[i]]

    def count(self, colour: str) -> int:
        """Boats of ``colour`` on the beaches (not counting a king)."""
        return self.counts.get(colour, 0)

    def colours(self) -> set[str]:
        """Colours with a boat on some beach."""
        return set(self.counts)

    def with_beach(self, beach: int, boats: tuple[str, ...]) -> IslandState:
        """A copy with ``beach`` holding exactly ``boats``."""
        beaches = list(self.beaches)
        beaches[beach] = tuple(sorted(boats))
        return IslandState(self.tile, self.cell, self.rotation, tuple(beaches), self.king)

    def adding(self, beaches: Iterable[int], colour: str) -> IslandState:
        """A copy with one boat of ``colour`` added to each of ``beaches``."""
        new = list(self.beaches)
        for b in beaches:
            new[b] = tuple(sorted((*new[b], colour)))
        return IslandState(self.tile, self.cell, self.rotation, tuple(new), self.king)

    def landing(self, boats: Sequence[Sequence[str]]) -> IslandState:
        """A copy with ``boats[i]`` added to beach ``i``."""
        new = tuple(
            tuple(sorted((*old, *extra))) if extra else old
            for old, extra in zip(self.beaches, boats, strict=True)
        )
        return IslandState(self.tile, self.cell, self.rotation, new, self.king)


def empty_island(tile_id: str, cell: Cell, rotation: int) -> IslandState:
    """A newly placed island with empty beaches."""
    n = len(island(tile_id).beaches)
    return IslandState(tile_id, cell, rotation, tuple(() for _ in range(n)))


# --- pending decisions -------------------------------------------------------


@quick_init
@dataclass(frozen=True, slots=True)
class SetupPlacement:
    """``colour`` places starting boat number ``round`` on Tonga (R4)."""

    colour: str
    round: int
    kind: str = "setup_placement"


@quick_init
@dataclass(frozen=True, slots=True)
class TurnStart:
    """``colour`` starts a turn: expand, place (R8), found a royal island or colonise."""

    colour: str
    kind: str = "turn_start"


@quick_init
@dataclass(frozen=True, slots=True)
class ChooseEmigration:
    """A beach is full: ``colour`` chooses which beach and jetty go first (R9)."""

    colour: str
    kind: str = "choose_emigration"


@quick_init
@dataclass(frozen=True, slots=True)
class Landing:
    """A fleet must land on ``island``; ``colour`` distributes it (R13, R15)."""

    colour: str
    island: str
    fleet: tuple[str, ...]
    kind: str = "landing"


@quick_init
@dataclass(frozen=True, slots=True)
class TilePlacement:
    """``colour`` places drawn ``tile``: in ``cell`` if fixed, else any adjacent cell."""

    colour: str
    tile: str
    cell: Cell | None
    rule: str
    kind: str = "tile_placement"


@quick_init
@dataclass(frozen=True, slots=True)
class ColonistPlacement:
    """``colour`` puts the colonist on a beach of ``island`` (R17)."""

    colour: str
    island: str
    kind: str = "colonist_placement"


Pending = (
    SetupPlacement | TurnStart | ChooseEmigration | Landing | TilePlacement | ColonistPlacement
)


@quick_init
@dataclass(frozen=True, slots=True)
class Voyage:
    """A fleet under way: where it is, where it heads, the route behind it."""

    origin: str
    fleet: tuple[str, ...]
    cell: Cell
    direction: int
    route: tuple[Cell, ...]
    tiles_drawn: int = 0


Departure = tuple[str, int, int, tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]]


@dataclass(frozen=True)
class GameState:
    """Everything the rules need to know about one game."""

    game_id: str = ""
    options: GameOptions = field(default_factory=GameOptions)
    deck_commitment: str = ""
    deck_algorithm: str = ""
    phase: Phase = Phase.NEW
    players: tuple[Player, ...] = ()
    order: tuple[str, ...] = ()
    active: int = 0
    turn: int = 0
    tiles: dict[Cell, PlacedTile] = field(default_factory=dict)
    islands: dict[str, IslandState] = field(default_factory=dict)
    removed: tuple[str, ...] = ()
    supply: dict[str, int] = field(default_factory=dict)
    out: dict[str, int] = field(default_factory=dict)
    drawn: tuple[str, ...] = ()
    end_reason: EndReason | None = None
    pending: Pending | None = None
    voyage: Voyage | None = None
    departures: frozenset[Departure] = frozenset()
    result: Any = None  # the GameEnded event, once the game is over
    seed_hex: str | None = None
    paused: str | None = None  # the dispute an auditor paused the game for (D7)
    amendment: Any = None  # the ResultAmended event of a ruling (D4), if any
    deals: tuple[str, ...] = ()  # commitments of the re-deals rewinds made (D6), in order
    dealt: int = 0  # tiles drawn when the last re-deal was made
    redeal_hex: tuple[str, ...] = ()  # the re-deals' seeds, once revealed
    timeouts: dict[int, int] = field(default_factory=dict)  # seat → consecutive timeouts (C4)
    absent: frozenset[int] = frozenset()  # seats the bot plays until reclaimed (C5)
    resigned: frozenset[int] = frozenset()  # seats whose players resigned (C6)
    takeback: TakebackRequest | None = None  # an open takeback (docs/table.md, T1)
    end_offer: EndOffer | None = None  # an open proposal to end the game (T6)

    def memo(self) -> dict[str, Any]:
        """A per-state cache for derived facts (not a field: ``evolve`` drops it)."""
        cache: dict[str, Any] | None = self.__dict__.get("_memo")
        if cache is None:
            cache = {}
            self.__dict__["_memo"] = cache
        return cache

    # --- derived facts --------------------------------------------------------

    @property
    def active_colour(self) -> str | None:
        """The colour whose decision is pending, if any."""
        return self.pending.colour if self.pending is not None else None

    def owner(self, colour: str) -> Player:
        """The player who plays ``colour``."""
        for p in self.players:
            if colour in p.colours:
                return p
        raise KeyError(colour)

    def bot_reason(self, seat: int) -> str | None:
        """Why the bot plays every decision of ``seat`` now (C5, C6; B2: it is the bot's
        seat), or None."""
        if any(p.seat == seat and p.bot for p in self.players):
            return "bot"
        if seat in self.resigned:
            return "resigned"
        if seat in self.absent:
            return "absent"
        return None

    def timeout_leaves_nobody(self, seat: int) -> bool:
        """Whether timing out ``seat``'s decision marks it absent (C4) and so leaves the
        bot every seat: the game then ends there (C7) and no move is played for it."""
        if self.timeouts.get(seat, 0) + 1 < self.options.absent_after:
            return False
        return all(p.seat == seat or self.bot_reason(p.seat) is not None for p in self.players)

    def colours_in_play(self) -> tuple[str, ...]:
        """Every colour at the table, in seat order."""
        return tuple(c for p in self.players for c in p.colours)

    def islands_left(self) -> int:
        """Island tiles still in the pile (public: the pile's make-up is known)."""
        return PILE_ISLANDS - sum(1 for t in self.drawn if t in ISLAND_IDS)

    def oceans_left(self) -> int:
        """Ocean tiles still in the pile."""
        return PILE_OCEANS - sum(1 for t in self.drawn if t not in ISLAND_IDS)

    def boats_on_board(self, colour: str, *, kings: bool = True) -> int:
        """Boats of ``colour`` on the table; kings count unless ``kings=False``."""
        n = 0
        for isl in self.islands.values():
            n += isl.counts.get(colour, 0)
            if kings and isl.king == colour:
                n += 1
        return n

    def kings(self, colour: str) -> int:
        """Royal islands founded by ``colour`` (R16)."""
        return sum(1 for isl in self.islands.values() if isl.king == colour)

    def in_fleet(self, colour: str) -> int:
        """Boats of ``colour`` in a fleet under way."""
        return self.voyage.fleet.count(colour) if self.voyage is not None else 0

    def full_beaches(self) -> Iterator[tuple[IslandState, int]]:
        """Every full beach on the table, in island placement order (R9)."""
        for isl in self.islands.values():
            if isl.full:
                for b in isl.full_beaches():
                    yield isl, b

    def has_full_beach(self) -> bool:
        """Whether some beach must still emigrate (R14)."""
        return any(isl.full for isl in self.islands.values())

    def board_key(self) -> tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]:
        """The boats on every beach, as one hashable value (R19 'same board')."""
        memo = self.memo()
        key: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] | None = memo.get("board")
        if key is None:
            key = memo["board"] = tuple((i, s.beaches) for i, s in self.islands.items())
        return key

    def tonga(self) -> IslandState | None:
        """Tonga, unless it was removed (R19)."""
        return self.islands.get(TONGA)
