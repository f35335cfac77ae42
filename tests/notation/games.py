"""Seeded bot games recorded as the service records them: every accepted command
(setup too) played through ``domain.play.play``, the seed revealed at the end."""

from __future__ import annotations

import json
import random

from domain import commands as cmd
from domain.bots import make_bot
from domain.deck import ALGORITHM, commitment
from domain.events import Event
from domain.play import play
from domain.serialization import encode
from domain.state import COLOURS, GameState, Phase


def recorded(
    seed: int, players: int, bots: str = "random", variant: str = "", bot_seats: int = 0
) -> tuple[list[cmd.Command], list[Event]]:
    """A whole game's accepted commands and events (at most 3,000 decisions); the last
    ``bot_seats`` seats are bots' (docs/bots.md B1), played as the service plays them."""
    rng = random.Random(seed)
    deck_seed = rng.randbytes(32)
    colours = list(COLOURS)
    rng.shuffle(colours)
    two = variant == "two_colours_each" and players == 2
    options = cmd.GameOptions(
        max_players=players,
        two_colours_each=two,
        free_orientation_after_first=variant == "free_orientation",
    )
    commands: list[cmd.Command] = [
        cmd.CreateGame(f"sim-{seed}", options, commitment(deck_seed), ALGORITHM)
    ]
    per = 2 if two else 1
    for i in range(players):
        mine = tuple(colours[i * per : (i + 1) * per])
        if i >= players - bot_seats:
            commands.append(cmd.JoinGame("", mine, bot="greedy"))
        else:
            commands.append(cmd.JoinGame(f"player{i + 1}", mine, rng.randbytes(8).hex()))
    commands.append(cmd.StartGame())
    state, events = GameState(), []
    for c in commands:
        new, state = play(state, c, lambda: deck_seed)
        events += new
    bot = make_bot(bots, random.Random(seed))
    for _ in range(3000):
        if state.phase is Phase.ENDED:
            break
        c = bot.choose(state)
        colour = state.active_colour
        if colour is not None and state.bot_reason(state.owner(colour).seat) == "bot":
            c = cmd.ActForSeat(colour, "bot", json.dumps(encode(c)))  # B2
        commands.append(c)
        new, state = play(state, c, lambda: deck_seed)
        events += new
    return commands, events
