"""Applying forced single choices automatically (R25)."""

from __future__ import annotations

from domain.deck import Deck
from domain.events import Event
from domain.judge import apply
from domain.legal import forced_command
from domain.revisions import CURRENT_RULES, RuleSet
from domain.state import GameState, Phase


def apply_forced(
    state: GameState, deck: Deck | None, rules: RuleSet = CURRENT_RULES
) -> tuple[list[Event], GameState]:
    """Play every decision that has exactly one legal command; events say ``automatic``."""
    events: list[Event] = []
    while state.phase in (Phase.SETUP, Phase.PLAYING):
        command = forced_command(state)
        if command is None:
            break
        new, state = apply(state, command, deck, automatic=True, rules=rules)
        events += new
    return events, state
