"""The words of the offers' events (docs/table.md, T1–T8), for the move list, the
replay and the audit: who asked, who answered, what was taken back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import offers as o
from domain.state import GameState
from projections.phrases import Phrase, Value, say
from projections.vocabulary import player_phrase


def _name(state: GameState, player_id: str) -> Value:
    return player_phrase(state, player_id)


def _requested(e: o.TakebackRequested, before: GameState) -> Phrase:
    return say(
        "{player} asks to take back their last decision (back to version"
        " {version}); every other player still playing must accept (T1, T3)",
        player=_name(before, e.player_id),
        version=e.to_version,
    )


def _accepted(e: o.TakebackAccepted, before: GameState) -> Phrase:
    return say("{player} accepts the takeback (T3)", player=_name(before, e.player_id))


def _refused(e: o.TakebackRefused, before: GameState) -> Phrase:
    return say(
        "{player} refuses the takeback: the move stands (T3)", player=_name(before, e.player_id)
    )


def _withdrawn(e: o.TakebackWithdrawn, before: GameState) -> Phrase:
    return say("{player} withdraws the takeback request (T4)", player=_name(before, e.player_id))


def _expired(e: o.TakebackExpired, before: GameState) -> Phrase:
    return say(
        "The takeback {player} asked for lapses: the game moved on (T4)",
        player=_name(before, e.player_id),
    )


def _taken_back(e: o.MovesTakenBack, before: GameState) -> Phrase:
    return say(
        "Taken back by consent: the game is back at version {version}, before"
        " {player}'s last decision; no tile was drawn since (T2, T3)",
        player=_name(before, e.player_id),
        version=e.to_version,
    )


def _proposed(e: o.EndProposed, before: GameState) -> Phrase:
    return say(
        "{player} proposes to end the game now, scored as it stands (T6)",
        player=_name(before, e.player_id),
    )


def _end_accepted(e: o.EndAccepted, before: GameState) -> Phrase:
    return say("{player} agrees to end the game (T6)", player=_name(before, e.player_id))


def _end_declined(e: o.EndDeclined, before: GameState) -> Phrase:
    return say(
        "{player} declines to end the game: play goes on (T6)", player=_name(before, e.player_id)
    )


def _end_withdrawn(e: o.EndProposalWithdrawn, before: GameState) -> Phrase:
    return say(
        "{player} withdraws the proposal to end the game (T4)", player=_name(before, e.player_id)
    )


def _end_expired(e: o.EndProposalExpired, before: GameState) -> Phrase:
    return say("The proposal to end the game lapses: the game moved on (T4)")


OFFER_WORDS: dict[type[Any], Callable[[Any, GameState], Phrase]] = {
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
