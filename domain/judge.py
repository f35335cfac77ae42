"""``decide``: validate a command against the rules and return the events it causes.

``decide`` never changes anything: it either returns the new events or raises
``RuleViolation`` (R24). ``apply`` also returns the state those events lead to,
which saves folding them a second time.
"""

from __future__ import annotations

import binascii
import hmac
import json
from collections.abc import Callable
from typing import Any

from domain import away, consent, setup, turn
from domain import commands as cmd
from domain.context import Context
from domain.deck import Deck, commitment
from domain.errors import MalformedPayload, RuleViolation
from domain.events import (
    DeckRevealed,
    Event,
    GameEnded,
    GamePaused,
    GameResumed,
    GameRewound,
    PlayerResigned,
    ResultAmended,
    SeatMarkedAbsent,
    SeatPlayedByBot,
    SeatReclaimed,
    TimeoutStreakEnded,
    TurnTimedOut,
)
from domain.revisions import CURRENT_RULES, RuleSet
from domain.scoring import current_scores, tie_break
from domain.state import EndReason, GameState, Phase


def _reveal(ctx: Context, c: cmd.RevealDeck) -> None:
    """Publish the seed once the game is over (design.md, Fair draws)."""
    s = ctx.state
    if s.phase is not Phase.ENDED:
        raise RuleViolation("game_not_over", "R21", "the seed is revealed only after the end")
    if s.seed_hex is not None:
        raise RuleViolation("already_revealed", "R2", "the seed was already revealed")
    try:
        seed = bytes.fromhex(c.seed_hex)
    except (ValueError, binascii.Error) as exc:
        raise RuleViolation("bad_seed", "R2", "the seed is hex") from exc
    if not hmac.compare_digest(commitment(seed), s.deck_commitment):
        raise RuleViolation("seed_mismatch", "R2", "sha256(seed) differs from the commitment")
    if len(c.redeals) != len(s.deals):
        raise RuleViolation("redeal_seeds", "D6", "every re-deal's seed is revealed with the first")
    for text, committed in zip(c.redeals, s.deals, strict=True):
        try:
            redealt = bytes.fromhex(text)
        except ValueError as exc:
            raise RuleViolation("bad_seed", "R2", "the seed is hex") from exc
        if not hmac.compare_digest(commitment(redealt), committed):
            raise RuleViolation(
                "seed_mismatch", "D6", "a re-deal's seed differs from its commitment"
            )
    ctx.emit(DeckRevealed(c.seed_hex, tuple(c.redeals)))


def _announce_away(ctx: Context, c: cmd.AnnounceAway) -> None:
    """V4 (docs/vacation.md): a seated player of a game with vacation, under way,
    announced a spell away; the service's clock stands still during it."""
    s = ctx.state
    if s.phase not in (Phase.SETUP, Phase.PLAYING):
        raise RuleViolation("game_not_running", "V4", "a spell is recorded in a game under way")
    if not s.options.vacation:
        raise RuleViolation("no_vacation", "V2", "this game's clocks do not stop for vacation")
    seat = next((p.seat for p in s.players if p.player_id == c.player_id), None)
    if seat is None:
        raise RuleViolation("not_seated", "R1", "this player has no seat at the table")
    if away.moment(c.until) <= away.moment(c.starts):
        raise RuleViolation("vacation_ends_before_start", "V5", "a spell ends after it starts")
    ctx.emit(away.AwayAnnounced(seat, c.player_id, c.starts, c.until))


def _pause(ctx: Context, c: cmd.PauseGame) -> None:
    """D7: an auditor pauses a game under way while a dispute on it is open."""
    if ctx.state.phase not in (Phase.SETUP, Phase.PLAYING):
        raise RuleViolation("game_not_running", "D7", "only a game under way can be paused")
    if ctx.state.paused is not None:
        raise RuleViolation("already_paused", "D7", "the game is already paused")
    ctx.emit(GamePaused(c.dispute_id))


def _resume(ctx: Context, c: cmd.ResumeGame) -> None:
    """D7: an auditor resumes a paused game."""
    if ctx.state.paused is None:
        raise RuleViolation("not_paused", "D7", "the game is not paused")
    if ctx.state.paused != c.dispute_id:
        raise RuleViolation(
            "paused_for_another",
            "D7",
            "the game was paused for another dispute: resume it with that one",
        )
    ctx.emit(GameResumed(c.dispute_id))


def _rewind(ctx: Context, c: cmd.RewindGame) -> None:
    """D6: the game continues from the position at ``to_version``, re-dealt (the service
    computed the position from the record; verification checks it against the record)."""
    if ctx.state.phase not in (Phase.SETUP, Phase.PLAYING, Phase.ENDED):
        raise RuleViolation("game_not_started", "D6", "only a game that has started is rewound")
    if c.to_version < 1:
        raise RuleViolation(
            "version_out_of_range", "D6", "a rewind goes back to version 1 or later"
        )
    consent.given_position(
        c.position,
        ctx.state.game_id,
        "D6",
        "the position to rewind to cannot be read",
        "a rewind goes back to a position of this game under way",
    )
    ctx.emit(ev_rewound(c))


def ev_rewound(c: cmd.RewindGame) -> GameRewound:
    """The event of a rewind command."""
    return GameRewound(c.dispute_id, c.to_version, c.deck_commitment, c.position)


def _amend(ctx: Context, c: cmd.AmendResult) -> None:
    """D4: a ruling amends a finished game's result: annulled, or a stated ranking."""
    s = ctx.state
    if s.phase is not Phase.ENDED:
        raise RuleViolation(
            "game_not_over",
            "D4",
            "a result is amended once the game is over; a game under way is paused or rewound",
        )
    if c.annulled == (c.ranking is not None):
        raise RuleViolation("amendment", "D4", "an amended result is annulled or a ranking")
    if c.ranking is not None and sorted(c.ranking) != sorted(p.player_id for p in s.players):
        raise RuleViolation("ranking", "D4", "a ranking names every player exactly once")
    ctx.emit(ResultAmended(c.dispute_id, c.annulled, c.ranking))


UNDER_WAY = (Phase.SETUP, Phase.PLAYING)


def _act_for_seat(ctx: Context, c: cmd.ActForSeat) -> None:
    """The service's bot plays the pending decision of ``c.colour`` (docs/clocks.md):
    timed out (C3; the seat's streak grows, and reaching ``absent_after`` marks it
    absent, C4), or the seat is absent (C5) or resigned (C6). The engine cannot see
    the clock: the service acts only once the deadline has passed, and verification
    checks that against the recorded times."""
    from domain.serialization import decode_command  # serialization sits above the judge

    s = ctx.state
    if s.phase not in UNDER_WAY:
        raise RuleViolation("game_not_running", "C3", "the bot plays only in a game under way")
    if s.active_colour != c.colour:
        raise RuleViolation("not_pending", "C3", f"no decision of {c.colour} is pending")
    player = s.owner(c.colour)
    seat, standing = player.seat, s.bot_reason(player.seat)
    if c.reason == "timeout":
        if s.options.time_control == "none":
            raise RuleViolation("no_time_control", "C1", "this game has no time control")
        if standing is not None:
            raise RuleViolation(
                "seat_played_by_bot", "C5", f"this seat is {standing}: the bot plays it at once"
            )
        streak = s.timeouts.get(seat, 0) + 1
        ctx.emit(TurnTimedOut(c.colour, seat, player.player_id, streak))
        if streak >= s.options.absent_after:
            ctx.emit(SeatMarkedAbsent(seat, player.player_id, streak))
            if abandon_if_nobody_plays(ctx):
                return  # C7: no move is played (the service sends none; old records' is unused)
    elif c.reason == "absent":
        if standing != "absent":
            raise RuleViolation("seat_not_absent", "C5", f"seat {seat} is not absent")
        ctx.emit(SeatPlayedByBot(c.colour, seat, "absent", "C5"))
    elif c.reason == "resigned":
        if standing != "resigned":
            raise RuleViolation("seat_not_resigned", "C6", f"seat {seat} has not resigned")
        ctx.emit(SeatPlayedByBot(c.colour, seat, "resigned", "C6"))
    elif c.reason == "bot":
        if standing != "bot":
            raise RuleViolation("not_a_bot_seat", "B2", f"seat {seat} is a player's, not a bot's")
        ctx.emit(SeatPlayedByBot(c.colour, seat, "bot", "B2"))
    else:
        raise RuleViolation("bot_reason", "C3", f"the bot plays for: {', '.join(cmd.BOT_REASONS)}")
    try:
        move = decode_command(json.loads(c.move))
    except (ValueError, MalformedPayload) as exc:
        raise RuleViolation("bad_move", "C3", "the bot's move cannot be read") from exc
    if not isinstance(move, cmd.PLAY_COMMANDS):
        raise RuleViolation("bad_move", "C3", "the bot plays a player's move")
    _HANDLERS[type(move)](ctx, move)


def _seated(s: GameState, player_id: str) -> int:
    for p in s.players:
        if p.player_id == player_id:
            return p.seat
    raise RuleViolation("not_seated", "R1", "this player has no seat at the table")


def _reclaim(ctx: Context, c: cmd.ReclaimSeat) -> None:
    """C5: the player of an absent seat takes it back (a resignation is final, C6)."""
    s = ctx.state
    seat = _seated(s, c.player_id)
    if s.phase not in UNDER_WAY:
        raise RuleViolation("game_not_running", "C5", "seats are reclaimed in a game under way")
    if seat in s.resigned:
        raise RuleViolation("resigned", "C6", "a resignation is final")
    if seat not in s.absent:
        raise RuleViolation("seat_not_absent", "C5", "your seat is not absent")
    ctx.emit(SeatReclaimed(seat, c.player_id))


def _resign(ctx: Context, c: cmd.Resign) -> None:
    """C6: a player gives up; the bot plays on for their colours."""
    s = ctx.state
    seat = _seated(s, c.player_id)
    if s.phase not in UNDER_WAY:
        raise RuleViolation("game_not_running", "C6", "only a game under way can be resigned")
    if seat in s.resigned:
        raise RuleViolation("already_resigned", "C6", "you have already resigned")
    colours = next(p.colours for p in s.players if p.seat == seat)
    ctx.emit(PlayerResigned(seat, c.player_id, colours))
    abandon_if_nobody_plays(ctx)


def abandon_if_nobody_plays(ctx: Context) -> bool:
    """C7: once the bot plays every seat (absent or resigned), the game ends as it
    stands (bots alone may circle for ever: nobody is left to play for)."""
    s = ctx.state
    if any(s.bot_reason(p.seat) is None for p in s.players):
        return False
    scores = current_scores(s, ctx.rules.colours_score_as_seats)
    winners = tuple(x.player_id for x in scores if x.rank == 1)
    resigned = tuple(p.player_id for p in s.players if p.seat in s.resigned)
    ctx.emit(
        GameEnded(
            EndReason.ABANDONED.value,
            scores,
            winners,
            tie_break(scores),
            "C7",
            resigned=resigned,
        )
    )
    return True


def _played_by_bot(standing: str) -> RuleViolation:
    """A person's move on a seat the bot plays (C5, C6, B2)."""
    if standing == "resigned":
        return RuleViolation(
            "seat_played_by_bot", "C6", "the bot plays this seat: a resignation is final"
        )
    if standing == "bot":
        return RuleViolation("seat_played_by_bot", "B2", "the bot plays this seat: it is a bot's")
    return RuleViolation("seat_played_by_bot", "C5", "the bot plays this seat: reclaim it first")


def own_move(state: GameState, command: cmd.Command) -> list[Event]:
    """What a player's own move means for their seat (C4, C5, C6): refused while the
    bot has the seat; it ends the seat's streak of timeouts (the event returned).
    ``domain.play.play`` asks before judging the move itself; bots looking ahead
    with ``apply`` do not."""
    s = state
    if s.pending is None or not isinstance(command, cmd.PLAY_COMMANDS):
        return []
    player = s.owner(s.pending.colour)
    standing = s.bot_reason(player.seat)
    if standing is not None:
        raise _played_by_bot(standing)
    if s.timeouts.get(player.seat):
        return [TimeoutStreakEnded(player.seat, player.player_id)]
    return []


_HANDLERS: dict[type, Callable[[Context, Any], None]] = {
    cmd.CreateGame: setup.create,
    cmd.JoinGame: setup.join,
    cmd.StartGame: setup.start,
    cmd.PlaceStartingBoat: setup.place_starting_boat,
    cmd.Expand: turn.expand,
    cmd.PlaceBoats: turn.place_boats,
    cmd.Emigrate: turn.emigrate,
    cmd.Land: turn.land,
    cmd.PlaceTile: turn.place_tile,
    cmd.FoundRoyalIsland: turn.found_royal_island,
    cmd.NewColonisation: turn.new_colonisation,
    cmd.PlaceColonist: turn.place_colonist,
    cmd.RevealDeck: _reveal,
    cmd.AnnounceAway: _announce_away,
    cmd.PauseGame: _pause,
    cmd.ResumeGame: _resume,
    cmd.AmendResult: _amend,
    cmd.RewindGame: _rewind,
    cmd.ActForSeat: _act_for_seat,
    cmd.ReclaimSeat: _reclaim,
    cmd.Resign: _resign,
    **consent.HANDLERS,
}


def apply(
    state: GameState,
    command: cmd.Command,
    deck: Deck | None = None,
    *,
    automatic: bool = False,
    rules: RuleSet = CURRENT_RULES,
) -> tuple[list[Event], GameState]:
    """The events ``command`` causes and the state after them (R24: or a violation).

    ``deck`` supplies tiles when the command draws; ``automatic`` marks a
    forced single choice applied by the service (R25); ``rules`` is the rules
    version that decides (today's unless a recorded game is re-run).
    """
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise MalformedPayload(f"not a command: {type(command).__name__}")
    if state.phase is Phase.ENDED and not isinstance(
        command, (cmd.RevealDeck, *cmd.AUDITOR_COMMANDS)
    ):
        raise RuleViolation("game_over", "R21", "the game is over")
    if state.paused is not None and not isinstance(command, cmd.AUDITOR_COMMANDS):
        raise RuleViolation(
            "game_paused", "D7", "the game is paused while an auditor looks at a dispute"
        )
    ctx = Context(state, deck, automatic, rules)
    handler(ctx, command)
    return ctx.events, ctx.state


def decide(
    state: GameState,
    command: cmd.Command,
    deck: Deck | None = None,
    *,
    automatic: bool = False,
    rules: RuleSet = CURRENT_RULES,
) -> list[Event]:
    """The events ``command`` causes in ``state``, or ``RuleViolation`` (R24)."""
    return apply(state, command, deck, automatic=automatic, rules=rules)[0]
