"""``domain.play``: the deck from the record alone, and the one move sequence (R2, R25)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import commands as cmd
from domain.deck import ALGORITHM, Deck, commitment, verify_draws
from domain.errors import DeckUnavailable, RuleViolation
from domain.judge import apply
from domain.legal import legal_commands
from domain.play import deck_of, play
from domain.state import GameState, Phase

SEED = bytes(range(32))


def opened(players: int = 2, entropy: str = "e") -> GameState:
    state = GameState()
    commands: list[cmd.Command] = [
        cmd.CreateGame("g1", cmd.GameOptions(max_players=4), commitment(SEED), ALGORITHM)
    ]
    colours = ["blue", "red", "green", "yellow"]
    commands += [cmd.JoinGame(f"p{i}", (colours[i],), f"{entropy}{i}") for i in range(players)]
    for command in commands:
        _, state = apply(state, command)
    return state


def test_given_a_table_not_started_when_the_deck_is_asked_for_then_it_does_not_exist_yet():
    with pytest.raises(DeckUnavailable):
        deck_of(opened(), SEED)


def test_given_a_seed_that_is_not_the_commitment_when_the_deck_is_derived_then_it_is_refused():
    _, started = apply(opened(), cmd.StartGame())
    with pytest.raises(DeckUnavailable):
        deck_of(started, b"\x01" * 32)


def test_given_a_started_game_the_deck_is_seed_game_and_every_seat_entropy():
    _, started = apply(opened(3, "x"), cmd.StartGame())
    assert deck_of(started, SEED) == Deck.from_seed(SEED, "g1", ["x0", "x1", "x2"])


def test_given_one_seat_a_refused_start_asks_for_no_deck_and_a_later_seat_counts():
    """R1: a start with one player is refused before any deck is derived; the deck the
    game later draws from holds the entropy of the seat taken after that refusal."""
    asked: list[GameState] = []

    def decks(state: GameState, seed: bytes) -> Deck:
        asked.append(state)
        return deck_of(state, seed)

    lonely = opened(1)
    with pytest.raises(RuleViolation) as refused:
        play(lonely, cmd.StartGame(), lambda: SEED, decks)
    assert refused.value.rule == "R1" and asked == []
    _, two = apply(lonely, cmd.JoinGame("p1", ("red",), "late"))
    _, started = play(two, cmd.StartGame(), lambda: SEED, decks)
    assert [p.entropy for p in asked[0].players] == ["e0", "late"]
    assert started.phase is Phase.SETUP


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4))
def test_every_draw_of_a_played_game_checks_against_the_revealed_seed(seed, players):
    """``play`` draws from ``deck_of`` and reveals the seed at the end: every
    TileDrawn verifies with the published algorithm (design.md, Fair draws)."""
    rng = random.Random(seed)
    secret = rng.randbytes(32)
    state = GameState()
    commands: list[cmd.Command] = [
        cmd.CreateGame(
            f"g{seed}", cmd.GameOptions(max_players=players), commitment(secret), ALGORITHM
        )
    ]
    colours = ["blue", "red", "green", "yellow"]
    commands += [
        cmd.JoinGame(f"p{i}", (colours[i],), rng.randbytes(4).hex()) for i in range(players)
    ]
    commands.append(cmd.StartGame())
    for command in commands:
        _, state = play(state, command, lambda: secret)
    for _ in range(5000):
        if state.phase is Phase.ENDED:
            break
        _, state = play(state, rng.choice(legal_commands(state)), lambda: secret)
    assert state.phase is Phase.ENDED and state.seed_hex == secret.hex()
    report = verify_draws(
        secret,
        state.deck_commitment,
        state.game_id,
        [p.entropy for p in state.players],
        state.drawn,
    )
    assert report.ok and report.draws_checked == len(state.drawn) > 0
