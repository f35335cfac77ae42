"""Commands: what a player (or the service) asks the engine to do.

Islands are named by tile id (``"tahiti"``), beaches by their index in the
island's beach list of shared/tiles.md (0-based), jetties by local edge, cells by
axial coordinates ``(q, r)``. ``legal_commands`` produces commands in exactly
this shape, so a client can submit any of them unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from domain.frozen import quick_init
from domain.hexgrid import Cell

# written only when it differs from its default (as ``domain.events.OMITTED_AT_DEFAULT``):
# games opened before a field existed keep the bytes they were recorded with
_OMITTED = MappingProxyType({"omitted_at_default": True})

# time controls (docs/clocks.md, C1): none; a deadline per decision; a Fischer clock per seat
TIME_CONTROLS = ("none", "move", "fischer")
# why the service's bot plays a seat's decision (C3, C5, C6; a bot's own seat, B2)
BOT_REASONS = ("timeout", "absent", "resigned", "bot")
# the bots a table may seat, weakest first (docs/bots.md, B1): a one-ply bot and the
# search's levels by budget (``domain.bots``)
SEAT_BOTS = ("greedy", "mcts-easy", "mcts", "mcts-strong")


@dataclass(frozen=True, slots=True)
class GameOptions:
    """Options fixed at creation (R3, R5, R11 variants; the time control, C1).

    The engine reads the time control only to know whether timeouts exist and
    after how many a seat is absent: deadlines are the service's (docs/clocks.md).
    """

    max_players: int = 6
    two_colours_each: bool = False
    free_orientation_after_first: bool = False
    first_seat: int = 1
    time_control: str = field(default="none", metadata=_OMITTED)
    move_seconds: int = field(default=0, metadata=_OMITTED)  # "move": each decision's time
    base_seconds: int = field(default=0, metadata=_OMITTED)  # "fischer": each seat's start
    increment_seconds: int = field(default=0, metadata=_OMITTED)  # "fischer": per decision
    absent_after: int = field(default=3, metadata=_OMITTED)  # consecutive timeouts (C4)
    rated: bool = field(default=False, metadata=_OMITTED)  # moves ratings (docs/ratings.md)
    vacation: bool = field(default=False, metadata=_OMITTED)  # docs/vacation.md (V2)
    # unlisted: not in the public lobby, seats for invitees (docs/invitations.md, I1); who
    # is invited and the link's token are the service's, never in an event
    private: bool = field(default=False, metadata=_OMITTED)


@dataclass(frozen=True, slots=True)
class CreateGame:
    """Open a new game (service-issued): options and the deck commitment."""

    game_id: str
    options: GameOptions
    deck_commitment: str
    deck_algorithm: str


@dataclass(frozen=True, slots=True)
class JoinGame:
    """Take a seat with one colour (two in the ``two_colours_each`` variant, R5); or,
    with ``bot`` (one of ``SEAT_BOTS``) and an empty ``player_id``, seat that bot (B1):
    a seated player sends it, and the seat's player is ``bot-N``."""

    player_id: str
    colours: tuple[str, ...]
    entropy: str = ""
    bot: str = field(default="", metadata=_OMITTED)


@dataclass(frozen=True, slots=True)
class StartGame:
    """Close the table and start the setup (R3, R4)."""


@dataclass(frozen=True, slots=True)
class PlaceStartingBoat:
    """Put one starting boat on a Tonga beach (R4)."""

    beach: int


@dataclass(frozen=True, slots=True)
class Expand:
    """Add boats to an island, one per chosen beach (R6).

    ``take_from`` = ``(island, beach)`` is the R7 case: the supply is empty and
    that one boat is moved to the single chosen beach.
    """

    island: str
    beaches: tuple[int, ...]
    take_from: tuple[str, int] | None = None


@dataclass(frozen=True, slots=True)
class PlaceBoats:
    """R8: with no boats on the board, 2 boats on Tonga or 1 on another island."""

    island: str
    beaches: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Emigrate:
    """Send the boats of a full beach out through one of its jetties (R9, R10)."""

    island: str
    beach: int
    jetty: int


@dataclass(frozen=True, slots=True)
class Land:
    """Distribute a landing fleet (R13).

    ``beaches[i]`` lists the colours of the boats put on beach ``i`` of the
    island (one entry per beach, ``()`` for none). Boats of the fleet not listed
    go back to their owners' supplies. The command is compact: slots and boats
    of one colour are interchangeable, so only the colours per beach count.
    """

    island: str
    beaches: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class PlaceTile:
    """Place the drawn tile (R11 Rody variant, R17, R20): cell and rotation."""

    tile: str
    cell: Cell
    rotation: int


@dataclass(frozen=True, slots=True)
class FoundRoyalIsland:
    """Crown one of your boats on an island you alone occupy (R16)."""

    island: str


@dataclass(frozen=True, slots=True)
class NewColonisation:
    """Take your boats home and sail for a new island (R17)."""


@dataclass(frozen=True, slots=True)
class PlaceColonist:
    """Put the colonist on a beach of the island found by R17."""

    island: str
    beach: int


@dataclass(frozen=True, slots=True)
class ActForSeat:
    """The service's bot plays the pending decision of ``colour`` (docs/clocks.md):
    because its deadline passed (``"timeout"``, C3), or its seat is absent (C5) or
    resigned (C6). ``move`` is the bot's play command as canonical JSON; empty when
    the timeout leaves the bot every seat, so that the game ends with it (C7)."""

    colour: str
    reason: str
    move: str


@dataclass(frozen=True, slots=True)
class ReclaimSeat:
    """A player whose seat was marked absent takes it back from the bot (C5)."""

    player_id: str


@dataclass(frozen=True, slots=True)
class Resign:
    """A player gives up: the bot plays on for their colours, and the result says so (C6)."""

    player_id: str


@dataclass(frozen=True, slots=True)
class RequestTakeback:
    """Ask to take back your last decision (docs/table.md, T1, T2). The client sends
    only the type: the service gives ``to_version`` (the version before that decision)
    and the ``position`` there from the record, and verification checks both."""

    player_id: str
    to_version: int = 0
    position: str = ""


@dataclass(frozen=True, slots=True)
class AnswerTakeback:
    """Accept or refuse the open takeback (T3)."""

    player_id: str
    accept: bool


@dataclass(frozen=True, slots=True)
class WithdrawTakeback:
    """Withdraw your own open takeback (T4)."""

    player_id: str


@dataclass(frozen=True, slots=True)
class ProposeEnd:
    """Propose to end the game now, scored as it stands (T6)."""

    player_id: str


@dataclass(frozen=True, slots=True)
class AnswerEnd:
    """Accept or decline the open proposal to end the game (T6)."""

    player_id: str
    accept: bool


@dataclass(frozen=True, slots=True)
class WithdrawEnd:
    """Withdraw your own proposal to end the game (T4, T6)."""

    player_id: str


@dataclass(frozen=True, slots=True)
class AnnounceAway:
    """The service records at a game under way that ``player_id`` announced a spell away
    from ``starts`` to ``until`` (ISO 8601 in UTC; docs/vacation.md V4): sent from the
    announcement, never by a client, so that the decision already running stands still
    during it too."""

    player_id: str
    starts: str
    until: str


@dataclass(frozen=True, slots=True)
class RevealDeck:
    """Publish the seed after the game ended (service-issued; design.md Fair draws)."""

    seed_hex: str
    redeals: tuple[str, ...] = ()  # the re-deals' seeds (D6), in order


@dataclass(frozen=True, slots=True)
class PauseGame:
    """Pause a game under way while dispute ``dispute_id`` is open (auditors; D7)."""

    dispute_id: str


@dataclass(frozen=True, slots=True)
class ResumeGame:
    """Resume a paused game (auditors; D7)."""

    dispute_id: str


@dataclass(frozen=True, slots=True)
class RewindGame:
    """Carry out a rewind ruling (auditors; D6): the service gives the position at
    ``to_version`` (canonical JSON) and the commitment to a fresh seed for the re-deal."""

    dispute_id: str
    to_version: int
    position: str
    deck_commitment: str


@dataclass(frozen=True, slots=True)
class AmendResult:
    """Carry out a ruling that amends a finished game's result (auditors; D4)."""

    dispute_id: str
    annulled: bool
    ranking: tuple[str, ...] | None = None


Command = (
    CreateGame
    | JoinGame
    | StartGame
    | PlaceStartingBoat
    | Expand
    | PlaceBoats
    | Emigrate
    | Land
    | PlaceTile
    | FoundRoyalIsland
    | NewColonisation
    | PlaceColonist
    | ActForSeat
    | ReclaimSeat
    | Resign
    | RequestTakeback
    | AnswerTakeback
    | WithdrawTakeback
    | ProposeEnd
    | AnswerEnd
    | WithdrawEnd
    | AnnounceAway
    | RevealDeck
    | PauseGame
    | ResumeGame
    | AmendResult
    | RewindGame
)

COMMAND_TYPES: tuple[type, ...] = (
    CreateGame,
    JoinGame,
    StartGame,
    PlaceStartingBoat,
    Expand,
    PlaceBoats,
    Emigrate,
    Land,
    PlaceTile,
    FoundRoyalIsland,
    NewColonisation,
    PlaceColonist,
    ActForSeat,
    ReclaimSeat,
    Resign,
    RequestTakeback,
    AnswerTakeback,
    WithdrawTakeback,
    ProposeEnd,
    AnswerEnd,
    WithdrawEnd,
    AnnounceAway,
    RevealDeck,
    PauseGame,
    ResumeGame,
    AmendResult,
    RewindGame,
)

# Commands a seated player sends during play; the others come from the service.
PLAY_COMMANDS: tuple[type, ...] = (
    PlaceStartingBoat,
    Expand,
    PlaceBoats,
    Emigrate,
    Land,
    PlaceTile,
    FoundRoyalIsland,
    NewColonisation,
    PlaceColonist,
)

# Offers at the table (docs/table.md): a seated player sends them whoever's turn it is.
OFFER_COMMANDS: tuple[type, ...] = (
    RequestTakeback,
    AnswerTakeback,
    WithdrawTakeback,
    ProposeEnd,
    AnswerEnd,
    WithdrawEnd,
)

# Fields of a player's command the service fills in from the record (T1): a client
# sends the command without them (what it sends there is replaced).
SERVICE_FIELDS: dict[type, tuple[str, ...]] = {RequestTakeback: ("to_version", "position")}

# Commands a seated player sends whoever's turn it is (C5, C6, T1–T8).
SEAT_COMMANDS: tuple[type, ...] = (ReclaimSeat, Resign, *OFFER_COMMANDS)

# Commands an auditor's ruling or pause sends (docs/disputes.md); never a player's.
AUDITOR_COMMANDS: tuple[type, ...] = (PauseGame, ResumeGame, AmendResult, RewindGame)

# built by the hundred per turn: construct them through their slots (domain.frozen)
for _type in (*COMMAND_TYPES, GameOptions):
    quick_init(_type)
