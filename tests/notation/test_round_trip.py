"""TGN (docs/notation.md, issue 32): export → load gives the very events of a game, over
thousands of simulated games of 2–6 players, both variants, random and greedy bots;
and a game still running (no seed yet) comes back as it stands."""

from __future__ import annotations

import pytest

from domain.events import DeckRevealed
from domain.notation import export, load, parse, write
from domain.serialization import encode
from tests.notation.games import recorded

VARIANTS = ("", "two_colours_each", "free_orientation")
CHUNKS = 20  # 20 × 100 games, spread over the test workers


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_export_then_load_gives_the_same_events(chunk):
    for seed in range(chunk * 100, chunk * 100 + 100):
        commands, events = recorded(seed, 2 + seed % 5, "random", VARIANTS[seed % 3])
        text = export(commands, events)
        loaded = load(text)
        assert [encode(e) for e in loaded.events] == [encode(e) for e in events], seed
        assert write(parse(text)) == text


@pytest.mark.parametrize("seed", [3, 8, 12])
def test_greedy_games_round_trip_too(seed):
    commands, events = recorded(seed, 3, "greedy")
    assert [encode(e) for e in load(export(commands, events)).events] == [encode(e) for e in events]


@pytest.mark.parametrize("seed", range(20))
def test_games_with_bots_seats_round_trip_with_their_levels(seed):
    """B1, B2: a bot's seat is a Bot tag; its decisions are "(bot, bot)" lines."""
    players = 2 + seed % 5
    commands, events = recorded(seed, players, "random", bot_seats=1 + seed % (players - 1))
    text = export(commands, events)
    assert f'[Bot{players} "greedy"]' in text and "(bot, bot)" in text
    assert [encode(e) for e in load(text).events] == [encode(e) for e in events], seed


def test_a_game_under_way_is_written_without_its_seed_and_read_back_as_it_stands():
    commands, _ = recorded(41, 4)
    cut = len(commands) // 2
    events_then = _events_after(commands[:cut], 41)
    text = export(commands[:cut], events_then)
    assert "[Seed " not in text and "[Result " not in text
    loaded = load(text)
    assert [encode(e) for e in loaded.events] == [encode(e) for e in events_then]
    assert not any(isinstance(e, DeckRevealed) for e in loaded.events)


def _events_after(commands, seed):  # type: ignore[no-untyped-def]
    """The events of the first commands of game ``seed``, played as recorded."""
    import random

    from domain.play import play
    from domain.state import GameState

    deck_seed = random.Random(seed).randbytes(32)
    state, events = GameState(), []
    for c in commands:
        new, state = play(state, c, lambda: deck_seed)
        events += new
    return events


def test_the_lines_read_as_a_person_says_them():
    commands, events = recorded(2, 4)
    text = export(commands, events)
    lines = text.splitlines()
    assert lines[0] == '[Game "sim-2"]'
    assert any(line.startswith("1. ") and "places a boat on Tonga: " in line for line in lines)
    assert any(" expands on Tonga: " in line for line in lines)
    assert any(" sails from " in line and " — draws " in line for line in lines)
    assert any(" lands on " in line for line in lines)
