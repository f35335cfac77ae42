"""Events: the facts a game is made of. Each names the rule it applies.

Events are fine-grained so that an auditor reading only the event log can
follow every step of a chain reaction: which beach emigrated through which
jetty, each tile drawn and where it went, each foam path passed with its danger
and the fleet's colours, where the boats landed and which went home.

``automatic`` is true when the service applied the only legal choice (R25).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from domain.away import AWAY_EVENTS, AwayAnnounced
from domain.commands import GameOptions
from domain.frozen import quick_init
from domain.hexgrid import Cell
from domain.offers import (
    OFFER_EVENTS,
    EndAccepted,
    EndDeclined,
    EndProposalExpired,
    EndProposalWithdrawn,
    EndProposed,
    MovesTakenBack,
    TakebackAccepted,
    TakebackExpired,
    TakebackRefused,
    TakebackRequested,
    TakebackWithdrawn,
)
from domain.rulings import RULING_EVENTS
from domain.rulings import GamePaused as GamePaused
from domain.rulings import GameResumed as GameResumed
from domain.rulings import GameRewound as GameRewound
from domain.rulings import ResultAmended as ResultAmended

# A field marked ``field(default=..., metadata=OMITTED_AT_DEFAULT)`` is written only
# when it differs from its default: a field added to an event by a later engine
# leaves every event that does not use it byte for byte as earlier engines wrote
# it, and old records, which lack it, read back with the default.
OMITTED_AT_DEFAULT = MappingProxyType({"omitted_at_default": True})


@dataclass(frozen=True, slots=True)
class GameCreated:
    """A game was opened with these options and this deck commitment."""

    game_id: str
    options: GameOptions
    deck_commitment: str
    deck_algorithm: str
    rule: str = "R2"


@dataclass(frozen=True, slots=True)
class PlayerJoined:
    """A player took seat ``seat`` (1-based) with these colours; with ``bot``, that bot
    took it (docs/bots.md, B1), as player ``bot-N``."""

    player_id: str
    seat: int
    colours: tuple[str, ...]
    entropy: str
    rule: str = "R1"
    bot: str = field(default="", metadata=OMITTED_AT_DEFAULT)


@dataclass(frozen=True, slots=True)
class GameStarted:
    """Play order of colours fixed (R3, R5); setup begins (R4)."""

    order: tuple[str, ...]
    first_seat: int
    rule: str = "R3"


@dataclass(frozen=True, slots=True)
class StartingBoatPlaced:
    """A starting boat went on a Tonga beach (R4)."""

    colour: str
    beach: int
    round: int
    automatic: bool = False
    rule: str = "R4"


@dataclass(frozen=True, slots=True)
class BoatsAdded:
    """Expansion: one boat added to each listed beach (R6; R7 with ``taken_from``)."""

    colour: str
    island: str
    beaches: tuple[int, ...]
    taken_from: tuple[str, int] | None = None
    automatic: bool = False
    rule: str = "R6"


@dataclass(frozen=True, slots=True)
class BoatsPlaced:
    """Boats placed from supply: R8 (no boats on the board) or the R17 colonist."""

    colour: str
    island: str
    beaches: tuple[int, ...]
    automatic: bool = False
    rule: str = "R8"


@dataclass(frozen=True, slots=True)
class EmigrationStarted:
    """A full beach's boats left as one fleet through a jetty (R9, R10).

    ``search_exhausted``: the departure's route leads home and the R19 (b) search
    reached its budget (``search_budget`` arrangements) without finding an end, so
    it was offered without proof (docs/rules.md, R19). Both are written only when
    that happened.
    """

    colour: str
    island: str
    beach: int
    jetty: int
    direction: int
    fleet: tuple[str, ...]
    automatic: bool = False
    rule: str = "R9"
    search_exhausted: bool = field(default=False, metadata=OMITTED_AT_DEFAULT)
    search_budget: int = field(default=0, metadata=OMITTED_AT_DEFAULT)


@dataclass(frozen=True, slots=True)
class TileDrawn:
    """A tile came off the pile; ``last_of_kind`` ends the game this turn (R21).

    ``placement`` says who orients it: ``"oriented"`` (red mark back, R11),
    ``"free_rotation"`` (Rody variant, cell fixed) or ``"free"`` (R17, R20).
    """

    tile: str
    draw: int
    islands_left: int
    oceans_left: int
    last_of_kind: bool
    placement: str
    cell: Cell | None = None
    rule: str = "R11"


@dataclass(frozen=True, slots=True)
class TilePlaced:
    """A drawn tile was put on the table at ``cell`` with ``rotation``."""

    tile: str
    cell: Cell
    rotation: int
    automatic: bool = False
    rule: str = "R11"


@dataclass(frozen=True, slots=True)
class FleetSailed:
    """The fleet passed one foam path: ``colours`` distinct colours vs ``danger`` (R11, R12)."""

    tile: str
    cell: Cell
    entry_edge: int
    exit_edge: int
    danger: int
    colours: int
    fleet: tuple[str, ...]
    rule: str = "R12"


@dataclass(frozen=True, slots=True)
class ExpeditionFailed:
    """The fleet could not pass a path: too few colours; boats go home (R12)."""

    tile: str
    cell: Cell
    entry_edge: int
    exit_edge: int
    danger: int
    colours: int
    fleet: tuple[str, ...]
    rule: str = "R12"


@dataclass(frozen=True, slots=True)
class FleetReachedIsland:
    """The fleet arrived at an island and must land (R11, R13)."""

    island: str
    cell: Cell
    fleet: tuple[str, ...]
    rule: str = "R13"


@dataclass(frozen=True, slots=True)
class FleetTurnedBack:
    """The fleet met a royal island and returns by the same route (R15)."""

    royal_island: str
    cell: Cell
    to_island: str
    route: tuple[Cell, ...]
    fleet: tuple[str, ...]
    rule: str = "R15"


@dataclass(frozen=True, slots=True)
class BoatsLanded:
    """The fleet's boats went onto these beaches; ``returned`` went home (R13)."""

    island: str
    beaches: tuple[tuple[str, ...], ...]
    returned: tuple[str, ...]
    automatic: bool = False
    rule: str = "R13"


@dataclass(frozen=True, slots=True)
class RoyalIslandFounded:
    """``colour`` crowned a king on ``island``; its other boats went home (R16)."""

    colour: str
    island: str
    returned: int
    automatic: bool = False
    rule: str = "R16"


@dataclass(frozen=True, slots=True)
class NewColonyFounded:
    """``colour`` took all its boats but kings home to colonise anew (R17)."""

    colour: str
    returned: int
    automatic: bool = False
    rule: str = "R17"


@dataclass(frozen=True, slots=True)
class ChainDeclaredEndless:
    """No departure can end the chain: these islands are removed (R18, R19)."""

    islands: tuple[str, ...]
    rule: str = "R19"


@dataclass(frozen=True, slots=True)
class IslandRemoved:
    """An island left the game; its boats went home; its cell is empty (R19)."""

    island: str
    cell: Cell
    returned: tuple[str, ...]
    rule: str = "R19"


@dataclass(frozen=True, slots=True)
class FleetLostAtSea:
    """No tile may be drawn any more: the fleet stays at sea, out of the game (R21)."""

    cell: Cell
    fleet: tuple[str, ...]
    rule: str = "R21"


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """No beach is full: the turn is over (R14)."""

    colour: str
    turn: int
    next_colour: str | None
    rule: str = "R14"


@dataclass(frozen=True, slots=True)
class PlayerScore:
    """One player's final score and tie-break figures (R22, R23)."""

    player_id: str
    colours: tuple[str, ...]
    points: int
    islands: int
    boats: int
    rank: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """Final scores and ranking; ``tie_break`` names the criterion that decided (R21–R23)."""

    reason: str
    scores: tuple[PlayerScore, ...]
    winners: tuple[str, ...]
    tie_break: str
    rule: str = "R21"
    # players who resigned, ranked after every player who did not (C6)
    resigned: tuple[str, ...] = field(default=(), metadata=OMITTED_AT_DEFAULT)


@dataclass(frozen=True, slots=True)
class DeckRevealed:
    """The secret seed, published after the end so anyone can check every draw."""

    seed_hex: str
    # the seeds of the re-deals made by rewinds (D6), in order; absent when none
    redeals: tuple[str, ...] = field(default=(), metadata=OMITTED_AT_DEFAULT)
    rule: str = "R2"


@dataclass(frozen=True, slots=True)
class TurnTimedOut:
    """The pending decision of ``colour`` passed its deadline (C3): the bot plays it.
    ``streak``: the seat's consecutive timeouts, this one included (C4)."""

    colour: str
    seat: int
    player_id: str
    streak: int
    rule: str = "C3"


@dataclass(frozen=True, slots=True)
class SeatMarkedAbsent:
    """After ``streak`` consecutive timeouts the bot plays every decision of the seat
    until its player reclaims it (C4)."""

    seat: int
    player_id: str
    streak: int
    rule: str = "C4"


@dataclass(frozen=True, slots=True)
class TimeoutStreakEnded:
    """The player of a seat that had timed out played a decision themselves (C4)."""

    seat: int
    player_id: str
    rule: str = "C4"


@dataclass(frozen=True, slots=True)
class SeatPlayedByBot:
    """The bot plays a decision of an absent or resigned seat (C5, C6); its move's
    events follow."""

    colour: str
    seat: int
    reason: str
    rule: str = "C5"


@dataclass(frozen=True, slots=True)
class SeatReclaimed:
    """The player of an absent seat took it back from the bot (C5)."""

    seat: int
    player_id: str
    rule: str = "C5"


@dataclass(frozen=True, slots=True)
class PlayerResigned:
    """The player gave up (C6): the bot plays on for their colours; they rank last."""

    seat: int
    player_id: str
    colours: tuple[str, ...]
    rule: str = "C6"


Event = (
    GameCreated
    | PlayerJoined
    | GameStarted
    | StartingBoatPlaced
    | BoatsAdded
    | BoatsPlaced
    | EmigrationStarted
    | TileDrawn
    | TilePlaced
    | FleetSailed
    | ExpeditionFailed
    | FleetReachedIsland
    | FleetTurnedBack
    | BoatsLanded
    | RoyalIslandFounded
    | NewColonyFounded
    | ChainDeclaredEndless
    | IslandRemoved
    | FleetLostAtSea
    | TurnEnded
    | GameEnded
    | DeckRevealed
    | GamePaused
    | GameResumed
    | ResultAmended
    | GameRewound
    | TurnTimedOut
    | SeatMarkedAbsent
    | TimeoutStreakEnded
    | SeatPlayedByBot
    | SeatReclaimed
    | PlayerResigned
    | TakebackRequested
    | TakebackAccepted
    | TakebackRefused
    | TakebackWithdrawn
    | TakebackExpired
    | MovesTakenBack
    | EndProposed
    | EndAccepted
    | EndDeclined
    | EndProposalWithdrawn
    | EndProposalExpired
    | AwayAnnounced
)

EVENT_TYPES: tuple[type, ...] = (
    GameCreated,
    PlayerJoined,
    GameStarted,
    StartingBoatPlaced,
    BoatsAdded,
    BoatsPlaced,
    EmigrationStarted,
    TileDrawn,
    TilePlaced,
    FleetSailed,
    ExpeditionFailed,
    FleetReachedIsland,
    FleetTurnedBack,
    BoatsLanded,
    RoyalIslandFounded,
    NewColonyFounded,
    ChainDeclaredEndless,
    IslandRemoved,
    FleetLostAtSea,
    TurnEnded,
    GameEnded,
    DeckRevealed,
    *RULING_EVENTS,
    TurnTimedOut,
    SeatMarkedAbsent,
    TimeoutStreakEnded,
    SeatPlayedByBot,
    SeatReclaimed,
    PlayerResigned,
    *OFFER_EVENTS,
    *AWAY_EVENTS,
)

# built by the hundred per turn: construct them through their slots (domain.frozen)
for _type in (*EVENT_TYPES[: -len(OFFER_EVENTS) - len(AWAY_EVENTS)], PlayerScore):
    quick_init(_type)
