"""Given / when / then helpers: tests that read like the rulebook."""

from __future__ import annotations

from typing import Any

import pytest

from domain import position
from domain.deck import Deck
from domain.errors import RuleViolation
from domain.events import Event
from domain.judge import apply
from domain.revisions import CURRENT_RULES, RuleSet
from domain.state import GameState
from domain.tiles import OCEAN_TILES


def given(**scenario: Any) -> GameState:
    """A position from the short scenario form of ``domain.position.load``."""
    scenario.setdefault("players", ["blue", "red"])
    return position.load(scenario)


def when(
    state: GameState, command: Any, *next_tiles: str, rules: RuleSet = CURRENT_RULES
) -> tuple[list[Event], GameState]:
    """Apply ``command`` (under ``rules``); the pile yields ``next_tiles`` first."""
    deck = Deck.fixed((*state.drawn, *next_tiles))
    return apply(state, command, deck, rules=rules)


def names(events: list[Event]) -> list[str]:
    """Event type names, in order."""
    return [type(e).__name__ for e in events]


def only(events: list[Event], kind: type) -> Any:
    """The single event of ``kind``."""
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, names(events)
    return found[0]


def rejects(state: GameState, command: Any, code: str, rule: str) -> RuleViolation:
    """``command`` is refused with ``code`` citing ``rule``, and nothing changes (R24)."""
    before = position.text(state)
    with pytest.raises(RuleViolation) as info:
        when(state, command)
    assert (info.value.code, info.value.rule) == (code, rule), info.value
    assert position.text(state) == before
    return info.value


def rotation_joining(tile_id: str, world_a: int, world_b: int, max_danger: int = 0) -> int:
    """A rotation at which ocean ``tile_id`` joins world edges a and b by a safe path."""
    ocean = OCEAN_TILES[tile_id]
    for r in range(6):
        a, b = (world_a - r) % 6, (world_b - r) % 6
        path = ocean.path_from(a)
        if b in (path.a, path.b) and path.danger <= max_danger:
            return r
    raise AssertionError(f"{tile_id} cannot join {world_a} and {world_b}")


def new_game(*colours: str | tuple[str, ...], **options: Any) -> GameState:
    """A started game (setup pending) with one player per entry of ``colours``."""
    from domain import commands as cmd
    from domain.deck import commitment

    state = GameState()
    opts = cmd.GameOptions(max_players=options.pop("max_players", 6), **options)
    seed = Deck.fixed().fixed_seed()
    state = apply(state, cmd.CreateGame("g", opts, commitment(seed), "fixed"))[1]
    for i, c in enumerate(colours, start=1):
        chosen = c if isinstance(c, tuple) else (c,)
        state = apply(state, cmd.JoinGame(f"p{i}", chosen, f"entropy{i}"))[1]
    return apply(state, cmd.StartGame())[1]
