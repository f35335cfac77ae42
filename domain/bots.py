"""Bots that play from ``legal_commands``: a random one and a greedy one.

Bots never see the deck: they judge a command by what is already on the table.
Their only chance is the ``random.Random`` they are given, so a seeded bot
plays the same game every time.
"""

from __future__ import annotations

import random
from typing import Protocol

from domain import commands as cmd
from domain.errors import DeckRequired
from domain.judge import apply
from domain.legal import legal_commands
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
