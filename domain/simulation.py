"""Whole games played by bots, reproducible from one integer seed."""

from __future__ import annotations

import random
from dataclasses import dataclass

from domain import commands as cmd
from domain.bots import make_bot
from domain.deck import ALGORITHM, Deck, commitment
from domain.events import Event
from domain.forced import apply_forced
from domain.judge import apply
from domain.revisions import CURRENT_RULES, RuleSet
from domain.scoring import Outcome, outcome
from domain.state import COLOURS, GameState, Phase

MAX_COMMANDS = 20_000  # a guard: every game ends long before (R19, R21)


@dataclass(frozen=True)
class SimulatedGame:
    """One finished bot game: its events, final state, outcome and effort."""

    seed: int
    events: tuple[Event, ...]
    state: GameState
    outcome: Outcome
    commands: int


def setup_game(
    seed: int,
    players: int,
    *,
    two_colours_each: bool = False,
    free_orientation_after_first: bool = False,
) -> tuple[list[Event], GameState, Deck]:
    """Create, seat and start a game whose deck and entropy derive from ``seed``."""
    rng = random.Random(seed)
    deck_seed = rng.randbytes(32)
    game_id = f"sim-{seed}"
    options = cmd.GameOptions(
        max_players=players,
        two_colours_each=two_colours_each,
        free_orientation_after_first=free_orientation_after_first,
    )
    events: list[Event] = []
    state = GameState()
    colours = list(COLOURS)
    rng.shuffle(colours)
    per_player = 2 if two_colours_each else 1
    setup: list[cmd.Command] = [cmd.CreateGame(game_id, options, commitment(deck_seed), ALGORITHM)]
    for i in range(players):
        chosen = tuple(colours[i * per_player : (i + 1) * per_player])
        setup.append(cmd.JoinGame(f"player{i + 1}", chosen, rng.randbytes(8).hex()))
    setup.append(cmd.StartGame())
    for command in setup:
        new, state = apply(state, command)
        events += new
    deck = Deck.from_seed(deck_seed, game_id, [p.entropy for p in state.players])
    return events, state, deck


class GameDidNotEnd(RuntimeError):
    """Bots that keep playing the same moves: a game past ``MAX_COMMANDS``."""


def play(
    seed: int,
    players: int,
    *,
    bots: str = "random",
    two_colours_each: bool = False,
    free_orientation_after_first: bool = False,
    rules: RuleSet = CURRENT_RULES,
) -> SimulatedGame:
    """Play one whole game with ``bots`` (a name ``domain.bots.make_bot`` takes) for
    every seat."""
    events, state, deck = setup_game(
        seed,
        players,
        two_colours_each=two_colours_each,
        free_orientation_after_first=free_orientation_after_first,
    )
    bot = make_bot(bots, random.Random(seed ^ 0x5EED))
    commands = 0
    while state.phase is not Phase.ENDED:
        forced, state = apply_forced(state, deck, rules)
        events += forced
        if state.phase is Phase.ENDED:
            break
        new, state = apply(state, bot.choose(state), deck, rules=rules)
        events += new
        commands += 1
        if commands > MAX_COMMANDS:
            raise GameDidNotEnd(f"game {seed} did not end after {MAX_COMMANDS} commands")
    result = outcome(state)
    assert result is not None
    return SimulatedGame(seed, tuple(events), state, result, commands)
