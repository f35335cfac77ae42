"""Tongiaki rules engine: pure, event-sourced, no I/O, no clock, no randomness.

The public API (from the modules ``judge`` and ``fold``)::

    decide(state, command, deck=None) -> list[Event]      # or RuleViolation
    apply(state, command, deck=None) -> (events, state)
    evolve(state, event) -> state
    replay(events) -> state
    legal_commands(state) -> list[Command]
    outcome(state) -> Outcome | None
"""

from domain import revisions
from domain.deck import Deck, verify_draws
from domain.errors import DeckRequired, DomainError, MalformedPayload, RuleViolation
from domain.fold import evolve, replay
from domain.judge import apply, decide
from domain.legal import forced_command, legal_commands
from domain.scoring import Outcome, current_scores, outcome
from domain.state import EndReason, GameState, Phase

# 1.1.0: the R19 (b) search is bounded by arrangements generated (10,000), not by
# distinct arrangements visited (20,000): a chain on a crowded island took minutes.
# Later changes to how that search goes about it (a short dive, then a guided
# search; a count of free slots first; witnesses of ends found) change its cost,
# never its answers (tests pin them to a blind search; 3,450 simulated games
# replay event for event), so the version, which keys stored snapshots, stays.
# 1.2.0, rules-2 (docs/rules.md, "Rule changes"): R5 each colour scores as a seat;
# R21 the voyage goes on after the last ocean tile; R19 (b) a departure offered
# because the search budget ran out says so in its event. Recorded games keep
# their events; verification reports where a re-run under these rules differs.
# (rules-1 was recorded as "rules.md R1-R25".)
# 1.2.1: a game's state says why it ended from its GameEnded event, so a game
# the bot had every seat of says "abandoned" (C7) as its result does (it said
# null); no event changes, stored snapshots are folded afresh.
ENGINE_VERSION = revisions.ENGINE_VERSION
RULES_VERSION = revisions.CURRENT
RULES = revisions.CURRENT_RULES  # the rule set commands are decided under

__all__ = [
    "ENGINE_VERSION",
    "RULES_VERSION",
    "Deck",
    "DeckRequired",
    "DomainError",
    "EndReason",
    "GameState",
    "MalformedPayload",
    "Outcome",
    "Phase",
    "RuleViolation",
    "apply",
    "current_scores",
    "decide",
    "evolve",
    "forced_command",
    "legal_commands",
    "outcome",
    "replay",
    "verify_draws",
]
