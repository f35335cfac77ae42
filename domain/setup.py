"""Opening a game, taking seats, starting, and the starting boats (R1–R5)."""

from __future__ import annotations

import re
from functools import cache

from domain.commands import (
    SEAT_BOTS,
    TIME_CONTROLS,
    CreateGame,
    GameOptions,
    JoinGame,
    PlaceStartingBoat,
    StartGame,
)
from domain.context import Context, not_expected
from domain.deck import ALGORITHM, FIXED
from domain.errors import RuleViolation
from domain.events import GameCreated, GameStarted, PlayerJoined, StartingBoatPlaced
from domain.state import (
    COLOURS,
    TONGA_SETUP_LIMIT,
    GameState,
    Phase,
    SetupPlacement,
    colour_order,
)
from domain.tiles import TONGA, island

MAX_ENTROPY = 256
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def validate_options(options: GameOptions) -> None:
    """Reject options outside the rules (R1, R3, R5)."""
    if not 2 <= options.max_players <= 6:
        raise RuleViolation("player_limit", "R1", "Tongiaki is for 2 to 6 players")
    if options.two_colours_each and options.max_players != 2:
        raise RuleViolation(
            "variant_needs_two_players", "R5", "two_colours_each is the two-player variant"
        )
    if not 1 <= options.first_seat <= options.max_players:
        raise RuleViolation("first_seat_out_of_range", "R3", "first_seat must name a seat")
    validate_time_control(options)


DAY = 86_400
MOVE_SECONDS = (5, 30 * DAY)  # a decision's time under "move" (C1)
BASE_SECONDS = (10, 30 * DAY)  # a seat's time at the start under "fischer" (C1)
INCREMENT_SECONDS = (0, DAY)  # added per decision under "fischer" (C1)
ABSENT_AFTER = (1, 10)  # consecutive timeouts before a seat is absent (C4)


def validate_time_control(options: GameOptions) -> None:
    """C1: a time control the service can keep, with its settings in range."""
    control = options.time_control
    if control not in TIME_CONTROLS:
        raise RuleViolation(
            "time_control", "C1", f"time_control is one of {', '.join(TIME_CONTROLS)}"
        )
    settings = {
        "move_seconds": (options.move_seconds, MOVE_SECONDS if control == "move" else None),
        "base_seconds": (options.base_seconds, BASE_SECONDS if control == "fischer" else None),
        "increment_seconds": (
            options.increment_seconds,
            INCREMENT_SECONDS if control == "fischer" else None,
        ),
    }
    for name, (value, bounds) in settings.items():
        if bounds is None and value != 0:
            raise RuleViolation(
                "time_control_settings",
                "C1",
                f"{name} is not a setting of time_control {control!r}",
            )
        if bounds is not None and not bounds[0] <= value <= bounds[1]:
            raise RuleViolation(
                "time_control_settings",
                "C1",
                f"{name} runs from {bounds[0]} to {bounds[1]} under time_control {control!r}",
            )
    if control == "none" and options.absent_after != GameOptions().absent_after:
        raise RuleViolation(
            "time_control_settings", "C1", "absent_after is a setting of a game with a clock"
        )
    if not ABSENT_AFTER[0] <= options.absent_after <= ABSENT_AFTER[1]:
        raise RuleViolation(
            "absent_after", "C4", f"absent_after runs from {ABSENT_AFTER[0]} to {ABSENT_AFTER[1]}"
        )
    if options.vacation and control == "none":
        raise RuleViolation(
            "vacation_needs_clock", "V2", "vacation applies only to a game with a clock"
        )


def create(ctx: Context, c: CreateGame) -> None:
    """Open a new game (R2: the deck commitment is fixed now)."""
    if ctx.state.phase is not Phase.NEW:
        raise RuleViolation("game_exists", "R2", "this game was already created")
    validate_options(c.options)
    if not _HEX64.match(c.deck_commitment):
        raise RuleViolation("bad_commitment", "R2", "deck_commitment is a sha256 hex digest")
    if c.deck_algorithm not in (ALGORITHM, FIXED):
        raise RuleViolation("unknown_deck", "R2", f"deck algorithm must be {ALGORITHM}")
    if not c.game_id:
        raise RuleViolation("bad_game_id", "R2", "a game needs an id")
    ctx.emit(GameCreated(c.game_id, c.options, c.deck_commitment, c.deck_algorithm))


def join(ctx: Context, c: JoinGame) -> None:
    """Take a seat with one colour, or two in the two-player variant (R1, R5)."""
    s = ctx.state
    if s.phase is not Phase.OPEN:
        raise (
            not_expected(s, "joining")
            if s.phase is not Phase.NEW
            else RuleViolation("no_such_game", "R2", "the game was not created")
        )
    player_id = _bot_seat(s, c) if c.bot else c.player_id
    if not player_id:
        raise RuleViolation("bad_player", "R1", "a player needs an id")
    if any(p.player_id == player_id for p in s.players):
        raise RuleViolation("already_seated", "R1", "you already have a seat at this table")
    if len(s.players) >= s.options.max_players:
        raise RuleViolation("table_full", "R1", f"all {s.options.max_players} seats are taken")
    wanted = 2 if s.options.two_colours_each else 1
    if len(c.colours) != wanted:
        rule = "R5" if s.options.two_colours_each else "R1"
        raise RuleViolation("colour_count", rule, f"choose exactly {wanted} colour(s)")
    taken = set(s.colours_in_play())
    for colour in c.colours:
        if colour not in COLOURS:
            raise RuleViolation("unknown_colour", "R1", f"colours are {', '.join(COLOURS)}")
        if colour in taken:
            raise RuleViolation("colour_taken", "R1", f"{colour} is already taken")
        taken.add(colour)
    if len(c.entropy) > MAX_ENTROPY:
        raise RuleViolation("entropy_too_long", "R2", f"entropy is at most {MAX_ENTROPY} chars")
    seat = len(s.players) + 1
    if c.bot:
        ctx.emit(PlayerJoined(player_id, seat, c.colours, "", "B1", c.bot))
    else:
        ctx.emit(PlayerJoined(player_id, seat, c.colours, c.entropy))


def _bot_seat(s: GameState, c: JoinGame) -> str:
    """B1: the next seat's player, ``bot-N``, when a bot of ``SEAT_BOTS`` may take it: an
    unrated table (G1: ratings are of people), no player id given, no entropy (a bot
    adds none to the deck; docs/bots.md)."""
    if c.bot not in SEAT_BOTS:
        levels = ", ".join(SEAT_BOTS)
        raise RuleViolation("unknown_bot", "B1", f"a table seats the bots {levels}")
    if s.options.rated:
        raise RuleViolation("bot_at_rated_table", "B1", "a rated table seats people, not bots")
    if c.player_id or c.entropy:
        raise RuleViolation("bad_player", "B1", "a bot's seat takes no player id or entropy")
    return f"bot-{len(s.players) + 1}"


def play_order(state: GameState) -> tuple[str, ...]:
    """Colours in order of play from the first seat (R3; R5 alternates A1 B1 A2 B2)."""
    return colour_order(state.players, state.options.first_seat)


def start(ctx: Context, c: StartGame) -> None:
    """Close the table; setup begins with the first seat (R3, R4)."""
    s = ctx.state
    if s.phase is not Phase.OPEN:
        raise not_expected(s, "starting")
    if len(s.players) < 2:
        raise RuleViolation("not_enough_players", "R1", "at least 2 players are needed")
    if all(p.bot for p in s.players):
        raise RuleViolation("bots_alone", "B1", "a table of bots alone has nobody to play for")
    if s.options.first_seat > len(s.players):
        raise RuleViolation("first_seat_out_of_range", "R3", "first_seat is an empty seat")
    ctx.emit(GameStarted(play_order(s), s.options.first_seat))


def _first_beaches(state: GameState) -> dict[str, int]:
    tonga = state.islands[TONGA]
    return {c: i for i, boats in enumerate(tonga.beaches) for c in boats}


def setup_choices(state: GameState) -> list[int]:
    """Tonga beaches the pending starting boat may go on without a dead end (R4)."""
    pending = state.pending
    assert isinstance(pending, SetupPlacement)
    tonga = state.islands[TONGA]
    counts = tuple(len(b) for b in tonga.beaches)
    firsts = _first_beaches(state)
    remaining = _remaining(state)
    choices = []
    # With two or more spare slots beyond the boats still to come, every later boat
    # always finds a beach (each excludes at most one beach of 2 slots): no search.
    spare = sum(TONGA_SETUP_LIMIT - n for n in counts) - 1 - len(remaining)
    for beach in range(len(counts)):
        if counts[beach] >= TONGA_SETUP_LIMIT:
            continue
        if pending.round == 2 and firsts.get(pending.colour) == beach:
            continue
        if spare >= TONGA_SETUP_LIMIT:
            choices.append(beach)
            continue
        after = (*counts[:beach], counts[beach] + 1, *counts[beach + 1 :])
        own = dict(firsts)
        own.setdefault(pending.colour, beach)
        forbidden = tuple(own.get(colour, -1) for colour, _ in remaining)
        if _feasible(
            after, tuple(r for _, r in remaining), forbidden, tuple(c for c, _ in remaining)
        ):
            choices.append(beach)
    return choices


def _remaining(state: GameState) -> list[tuple[str, int]]:
    """The starting placements after the pending one, in order."""
    pending = state.pending
    assert isinstance(pending, SetupPlacement)
    order = state.order
    rest = [(c, pending.round) for c in order[state.active + 1 :]]
    if pending.round == 1:
        rest += [(c, 2) for c in order]
    return rest


@cache
def _feasible(
    counts: tuple[int, ...],
    rounds: tuple[int, ...],
    forbidden: tuple[int, ...],
    colours: tuple[str, ...],
) -> bool:
    """Whether the remaining placements can all be made (R4: no beach over 2, two beaches)."""
    if not rounds:
        return True
    colour, rnd, avoid = colours[0], rounds[0], forbidden[0]
    for beach, n in enumerate(counts):
        if n >= TONGA_SETUP_LIMIT or (rnd == 2 and beach == avoid):
            continue
        after = (*counts[:beach], n + 1, *counts[beach + 1 :])
        later = tuple(
            beach if (c == colour and f == -1) else f
            for c, f in zip(colours[1:], forbidden[1:], strict=True)
        )
        if _feasible(after, rounds[1:], later, colours[1:]):
            return True
    return False


def place_starting_boat(ctx: Context, c: PlaceStartingBoat) -> None:
    """Put a starting boat on Tonga (R4)."""
    pending = ctx.expect(SetupPlacement, "placing a starting boat")
    assert isinstance(pending, SetupPlacement)
    s = ctx.state
    if not 0 <= c.beach < len(island(TONGA).beaches):
        raise RuleViolation("no_such_beach", "R4", "Tonga's beaches are numbered 0 to 5")
    if len(s.islands[TONGA].beaches[c.beach]) >= TONGA_SETUP_LIMIT:
        raise RuleViolation(
            "tonga_beach_limit", "R4", "every Tonga beach keeps a free slot: at most 2 boats"
        )
    if pending.round == 2 and _first_beaches(s).get(pending.colour) == c.beach:
        raise RuleViolation("same_beach_twice", "R4", "your two boats go on different beaches")
    if c.beach not in setup_choices(s):
        raise RuleViolation(
            "setup_dead_end", "R4", "that beach would leave a later boat with no legal beach"
        )
    ctx.emit(StartingBoatPlaced(pending.colour, c.beach, pending.round, ctx.automatic))
