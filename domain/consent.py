"""Judging the offers at the table (docs/table.md): a takeback by consent (T1–T5), an
end by agreement (T6), who answers and how an offer ends (T4, T7, T8).

- T1 A seated player whose seat the bot does not play may ask to take back their last
  decision, in a game under way: the game would go back to the position before it
  (every decision after it set aside too). One takeback open at a time.
- T2 Never past a tile: only while no tile has been drawn since that position, and no
  ruling (D6), resignation (C6) or absence (C5) lies between.
- T3 It happens when every other seated player whose seat the bot does not play has
  accepted; one refusal ends it. With nobody else to ask, it happens at once.
- T4 An offer ends when its maker withdraws it, at the first decision taken after it
  (the game moved on, a player's or the bot's), at a resignation, or with the game.
- T5 Clocks go back as they stood at that position (the service's, docs/clocks.md).
- T6 Any player still in the game (not resigned) may propose to end it now; it ends
  when every player still in the game has accepted, scored as R21–R23 score a
  finished game; one refusal ends the proposal.
- T7 Each answers once, for their own seat; the maker of an offer does not answer it.
- T8 Offers are refused while the game is paused (D7) or over (R21).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from domain import commands as cmd
from domain import offers as o
from domain.context import Context
from domain.errors import MalformedPayload, RuleViolation
from domain.events import Event, GameEnded
from domain.scoring import current_scores, tie_break
from domain.state import EndReason, GameState, Phase

UNDER_WAY = (Phase.SETUP, Phase.PLAYING)
# what ends an open offer when it is taken (T4): a decision, or a resignation
MOVES_ON: tuple[type, ...] = (*cmd.PLAY_COMMANDS, cmd.ActForSeat, cmd.Resign)


def _seat(s: GameState, player_id: str, rule: str) -> int:
    if s.phase not in UNDER_WAY:
        raise RuleViolation("game_not_running", rule, "offers are made in a game under way")
    for p in s.players:
        if p.player_id == player_id:
            return p.seat
    raise RuleViolation("not_seated", "R1", "this player has no seat at the table")


def _playing(s: GameState, seat: int, rule: str) -> None:
    """T1, T6: the bot's seats neither ask nor answer a takeback."""
    standing = s.bot_reason(seat)
    if standing is not None:
        raise RuleViolation(
            "seat_played_by_bot", rule, f"the bot plays your seat ({standing}): reclaim it first"
        )


def answerers(s: GameState, seat: int) -> frozenset[int]:
    """T3: the seats a takeback of ``seat`` waits for (seated, not played by the bot)."""
    return frozenset(p.seat for p in s.players if p.seat != seat and s.bot_reason(p.seat) is None)


def in_the_game(s: GameState) -> frozenset[int]:
    """T6: the seats whose players are still in the game (not resigned; a bot's seat
    answers no offer, B3)."""
    return frozenset(p.seat for p in s.players if p.seat not in s.resigned and not p.bot)


def restorable(at: GameState) -> GameState:
    """The position a takeback to ``at`` restores: ``at`` without its open offers (an
    offer never survives a takeback, T4; and a position never nests another's)."""
    if at.takeback is None and at.end_offer is None:
        return at
    return replace(at, takeback=None, end_offer=None)


def given_position(
    text: str, game_id: str, rule: str, unreadable: str, elsewhere: str
) -> GameState:
    """A position a command gives whole (a rewind, D6; a takeback, T1): read back, of the
    game ``game_id`` and under way; else a violation of ``rule`` (``unreadable`` when
    it cannot be read, ``elsewhere`` when it is not this game's under way)."""
    from domain import position  # position reads events; the judge is below it

    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a position is a JSON object")
        at = position.load(data)
    except (ValueError, KeyError, TypeError, AttributeError, MalformedPayload) as exc:
        raise RuleViolation("bad_position", rule, unreadable) from exc
    if at.phase not in UNDER_WAY or at.game_id != game_id:
        raise RuleViolation("bad_position", rule, elsewhere)
    return at


def _position(s: GameState, c: cmd.RequestTakeback) -> GameState:
    if c.to_version < 1:
        raise RuleViolation("nothing_to_take_back", "T1", "you have no decision to take back")
    at = given_position(
        c.position,
        s.game_id,
        "T1",
        "the position to go back to cannot be read",
        "a takeback goes back within this game",
    )
    if at.takeback is not None or at.end_offer is not None:
        raise RuleViolation("bad_position", "T1", "a position to go back to holds no offer")
    return at


def request_takeback(ctx: Context, c: cmd.RequestTakeback) -> None:
    """T1, T2, T3: ask to go back to the position before your last decision."""
    s = ctx.state
    seat = _seat(s, c.player_id, "T1")
    _playing(s, seat, "T1")
    if s.takeback is not None:
        raise RuleViolation("takeback_open", "T1", "a takeback is already asked for")
    at = _position(s, c)
    if at.drawn != s.drawn:
        raise RuleViolation(
            "tile_drawn_since",
            "T2",
            "a tile has been drawn since that decision: a takeback never lets anyone see a"
            " tile and choose again",
        )
    if at.deals != s.deals or at.absent != s.absent or at.resigned != s.resigned:
        raise RuleViolation(
            "table_changed_since",
            "T2",
            "a ruling, a resignation or an absence lies between: that decision stands",
        )
    ctx.emit(o.TakebackRequested(seat, c.player_id, c.to_version, c.position))
    if not answerers(s, seat):
        ctx.emit(o.MovesTakenBack(seat, c.player_id, c.to_version, c.position))


def _open_takeback(s: GameState) -> o.TakebackRequest:
    if s.takeback is None:
        raise RuleViolation("no_takeback", "T3", "no takeback is asked for")
    return s.takeback


def answer_takeback(ctx: Context, c: cmd.AnswerTakeback) -> None:
    """T3, T7: accept or refuse; the last acceptance takes the moves back."""
    s = ctx.state
    seat = _seat(s, c.player_id, "T3")
    t = _open_takeback(s)
    if seat == t.seat:
        raise RuleViolation("own_offer", "T7", "you asked for it: withdraw it instead")
    waiting = answerers(s, t.seat)
    if seat not in waiting:
        raise RuleViolation("not_asked", "T3", "the bot plays your seat: it is not asked")
    if seat in t.accepted:
        raise RuleViolation("already_answered", "T7", "you have already accepted")
    if not c.accept:
        ctx.emit(o.TakebackRefused(seat, c.player_id))
        return
    ctx.emit(o.TakebackAccepted(seat, c.player_id))
    if waiting <= t.accepted | {seat}:
        ctx.emit(o.MovesTakenBack(t.seat, t.player_id, t.to_version, t.position))


def withdraw_takeback(ctx: Context, c: cmd.WithdrawTakeback) -> None:
    """T4: the player who asked withdraws."""
    s = ctx.state
    seat = _seat(s, c.player_id, "T4")
    t = _open_takeback(s)
    if t.seat != seat:
        raise RuleViolation("not_your_offer", "T4", "only the player who asked withdraws it")
    ctx.emit(o.TakebackWithdrawn(seat, c.player_id))


def _end_now(ctx: Context) -> None:
    """T6: the game ends as it stands, scored as R21–R23 score a finished game."""
    s = ctx.state
    scores = current_scores(s, ctx.rules.colours_score_as_seats)
    winners = tuple(x.player_id for x in scores if x.rank == 1)
    resigned = tuple(p.player_id for p in s.players if p.seat in s.resigned)
    reason = EndReason.AGREEMENT.value
    ctx.emit(GameEnded(reason, scores, winners, tie_break(scores), "T6", resigned=resigned))


def propose_end(ctx: Context, c: cmd.ProposeEnd) -> None:
    """T6: propose to end the game now."""
    s = ctx.state
    seat = _seat(s, c.player_id, "T6")
    if seat in s.resigned:
        raise RuleViolation("resigned", "T6", "you resigned: you are no longer in the game")
    if s.end_offer is not None:
        raise RuleViolation("end_offer_open", "T6", "an end is already proposed")
    ctx.emit(o.EndProposed(seat, c.player_id))
    if in_the_game(s) <= {seat}:
        _end_now(ctx)


def answer_end(ctx: Context, c: cmd.AnswerEnd) -> None:
    """T6, T7: accept or decline; the last acceptance ends the game."""
    s = ctx.state
    seat = _seat(s, c.player_id, "T6")
    offer = s.end_offer
    if offer is None:
        raise RuleViolation("no_end_offer", "T6", "no end is proposed")
    if seat in s.resigned:
        raise RuleViolation("resigned", "T6", "you resigned: you are no longer in the game")
    if seat == offer.seat:
        raise RuleViolation("own_offer", "T7", "you proposed it: withdraw it instead")
    if seat in offer.accepted:
        raise RuleViolation("already_answered", "T7", "you have already accepted")
    if not c.accept:
        ctx.emit(o.EndDeclined(seat, c.player_id))
        return
    ctx.emit(o.EndAccepted(seat, c.player_id))
    if in_the_game(s) <= offer.accepted | {seat}:
        _end_now(ctx)


def withdraw_end(ctx: Context, c: cmd.WithdrawEnd) -> None:
    """T4, T6: the proposer withdraws."""
    s = ctx.state
    seat = _seat(s, c.player_id, "T4")
    if s.end_offer is None:
        raise RuleViolation("no_end_offer", "T6", "no end is proposed")
    if s.end_offer.seat != seat:
        raise RuleViolation("not_your_offer", "T4", "only the player who proposed it withdraws it")
    ctx.emit(o.EndProposalWithdrawn(seat, c.player_id))


def expire_offers(state: GameState, command: cmd.Command) -> list[Event]:
    """T4: a decision taken (or a resignation) ends the open offers, recorded before it.
    ``domain.play.play`` asks before judging the command itself."""
    if not isinstance(command, MOVES_ON):
        return []
    expired: list[Event] = []
    if state.takeback is not None:
        t = state.takeback
        expired.append(o.TakebackExpired(t.seat, t.player_id))
    if state.end_offer is not None:
        e = state.end_offer
        expired.append(o.EndProposalExpired(e.seat, e.player_id))
    return expired


HANDLERS: dict[type, Callable[[Context, Any], None]] = {
    cmd.RequestTakeback: request_takeback,
    cmd.AnswerTakeback: answer_takeback,
    cmd.WithdrawTakeback: withdraw_takeback,
    cmd.ProposeEnd: propose_end,
    cmd.AnswerEnd: answer_end,
    cmd.WithdrawEnd: withdraw_end,
}
