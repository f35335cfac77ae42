"""Bots that play from ``legal_commands``: a random one, a greedy one, and the
tree search of ``domain.mcts`` at levels of its budget.

Bots never see the deck: they judge a command by what is already on the table
(the search by the tiles still in the pile, in orders it deals itself). Their only
chance is the ``random.Random`` they are given, so a seeded bot plays the same game
every time (the search: with a budget of iterations, not of time).
"""

from __future__ import annotations

import random
from typing import Protocol

from domain import commands as cmd
from domain.errors import DeckRequired
from domain.judge import apply
from domain.legal import legal_commands
from domain.mcts import MAX_PLAYOUTS, Budget, MctsBot
from domain.scoring import current_scores
from domain.state import GameState
from domain.tiles import island
from domain.voyage import RouteEnd, preview


class Bot(Protocol):
    """Chooses one of the legal commands of the pending decision."""

    def choose(self, state: GameState) -> cmd.Command:
        """The command to play now."""
        ...


class RandomBot:
    """Picks uniformly among the legal commands."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: GameState) -> cmd.Command:
        """A uniformly random legal command."""
        return self.rng.choice(legal_commands(state))


def evaluate(state: GameState, colour: str) -> float:
    """How good ``state`` looks for the player of ``colour`` (higher is better)."""
    owner = state.owner(colour).player_id
    mine = 0.0
    best_other = 0.0
    for s in current_scores(state):
        value = s.points + 0.5 * s.islands
        if s.player_id == owner:
            mine = value
        else:
            best_other = max(best_other, value)
    supply = sum(state.supply[c] for c in state.owner(colour).colours)
    return mine - 0.7 * best_other + 0.05 * supply


class GreedyBot:
    """Plays the command whose visible result scores best (one ply, no peeking)."""

    name = "greedy"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: GameState) -> cmd.Command:
        """The legal command with the best one-ply evaluation (random tie-break)."""
        colour = state.active_colour
        assert colour is not None
        options = legal_commands(state)
        if len(options) == 1:
            return options[0]
        base = evaluate(state, colour)
        best: list[cmd.Command] = []
        best_score = float("-inf")
        for command in options:
            score = self._score(state, command, colour, base)
            if score > best_score + 1e-9:
                best, best_score = [command], score
            elif abs(score - best_score) <= 1e-9:
                best.append(command)
        return self.rng.choice(best)

    def _score(self, state: GameState, command: cmd.Command, colour: str, base: float) -> float:
        if isinstance(command, cmd.NewColonisation):
            return base - (0.5 if state.boats_on_board(colour, kings=False) == 0 else 6.0)
        if isinstance(command, cmd.Emigrate):
            return base + self._route_value(state, command, colour)
        try:
            _, after = apply(state, command)
        except DeckRequired:
            return base
        return evaluate(after, colour)

    def _route_value(self, state: GameState, command: cmd.Emigrate, colour: str) -> float:
        isl = state.islands[command.island]
        fleet = isl.beaches[command.beach]
        route = preview(state, command.island, command.jetty, len(set(fleet)))
        if route.end is RouteEnd.FAILS:
            return -1.0
        if route.end is RouteEnd.ISLAND and route.island is not None:
            target = state.islands[route.island]
            fresh = colour not in target.colours()
            return (island(route.island).value if fresh else 0.5) * fleet.count(colour) / len(fleet)
        if route.end is RouteEnd.NEW_TILE:
            return 1.0
        return 0.0


BOTS: dict[str, type[RandomBot] | type[GreedyBot]] = {"random": RandomBot, "greedy": GreedyBot}
"""The one-ply bots by name (each made from a ``random.Random`` alone)."""

LEVELS: dict[str, int] = {"mcts-easy": 50, "mcts": 200, "mcts-strong": 800}
"""The search's levels: iterations a decision (``mcts:N`` names any other budget)."""


def bot_names() -> tuple[str, ...]:
    """Every bot name ``make_bot`` takes besides ``mcts:N``."""
    return (*BOTS, *LEVELS)


def budget_of(name: str) -> int | None:
    """The search's iterations a decision for bot ``name``; None for a one-ply bot.
    ``ValueError`` for a name that is neither (the message lists the names)."""
    if name in BOTS:
        return None
    if name in LEVELS:
        return LEVELS[name]
    head, _, playouts = name.partition(":")
    if head == "mcts" and playouts.isdigit() and len(playouts) <= 6:
        value = int(playouts)
        if 1 <= value <= MAX_PLAYOUTS:
            return value
        raise ValueError(f"the search's budget is 1 to {MAX_PLAYOUTS:,} iterations, not {value}")
    raise ValueError(
        f"no bot named {name[:40]!r}: one of {', '.join(bot_names())}, or mcts:N"
        f" (N iterations a decision, 1 to {MAX_PLAYOUTS:,})"
    )


def make_bot(name: str, rng: random.Random) -> Bot:
    """The bot called ``name`` (``random``, ``greedy``, a level, or ``mcts:N``)."""
    playouts = budget_of(name)
    if playouts is None:
        return BOTS[name](rng)
    return MctsBot(rng, Budget(playouts))
