"""The words of the offers' events (docs/table.md, T1–T8), for the move list, the
replay and the audit: who asked, who answered, what was taken back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import offers as o
from domain.state import GameState


def _name(state: GameState, player_id: str) -> str:
    for p in state.players:
        if p.player_id == player_id:
            return "/".join(c.capitalize() for c in p.colours)
    return player_id


def _requested(e: o.TakebackRequested, before: GameState) -> str:
    return (
        f"{_name(before, e.player_id)} asks to take back their last decision (back to version"
        f" {e.to_version}); every other player still playing must accept (T1, T3)"
    )


def _accepted(e: o.TakebackAccepted, before: GameState) -> str:
    return f"{_name(before, e.player_id)} accepts the takeback (T3)"


def _refused(e: o.TakebackRefused, before: GameState) -> str:
    return f"{_name(before, e.player_id)} refuses the takeback: the move stands (T3)"


def _withdrawn(e: o.TakebackWithdrawn, before: GameState) -> str:
    return f"{_name(before, e.player_id)} withdraws the takeback request (T4)"


def _expired(e: o.TakebackExpired, before: GameState) -> str:
    return f"The takeback {_name(before, e.player_id)} asked for lapses: the game moved on (T4)"


def _taken_back(e: o.MovesTakenBack, before: GameState) -> str:
    return (
        f"Taken back by consent: the game is back at version {e.to_version}, before"
        f" {_name(before, e.player_id)}'s last decision; no tile was drawn since (T2, T3)"
    )


def _proposed(e: o.EndProposed, before: GameState) -> str:
    return f"{_name(before, e.player_id)} proposes to end the game now, scored as it stands (T6)"


def _end_accepted(e: o.EndAccepted, before: GameState) -> str:
    return f"{_name(before, e.player_id)} agrees to end the game (T6)"


def _end_declined(e: o.EndDeclined, before: GameState) -> str:
    return f"{_name(before, e.player_id)} declines to end the game: play goes on (T6)"


def _end_withdrawn(e: o.EndProposalWithdrawn, before: GameState) -> str:
    return f"{_name(before, e.player_id)} withdraws the proposal to end the game (T4)"


def _end_expired(e: o.EndProposalExpired, before: GameState) -> str:
    return "The proposal to end the game lapses: the game moved on (T4)"


OFFER_WORDS: dict[type[Any], Callable[[Any, GameState], str]] = {
    o.TakebackRequested: _requested,
    o.TakebackAccepted: _accepted,
    o.TakebackRefused: _refused,
    o.TakebackWithdrawn: _withdrawn,
    o.TakebackExpired: _expired,
    o.MovesTakenBack: _taken_back,
    o.EndProposed: _proposed,
    o.EndAccepted: _end_accepted,
    o.EndDeclined: _end_declined,
    o.EndProposalWithdrawn: _end_withdrawn,
    o.EndProposalExpired: _end_expired,
}
