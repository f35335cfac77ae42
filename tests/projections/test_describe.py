"""Every event of a whole game is told in its own words (the descriptions are a table,
an entry for each event type: tests/projections/test_folds.py checks every type has one)."""

from __future__ import annotations

from domain.fold import evolve, replay
from domain.simulation import play
from projections.describe import describe


def test_no_event_of_a_whole_game_is_described_by_its_type_name():
    game = play(7, 3)
    state = replay([])
    for event in game.events:
        words = describe(event, state)
        assert words and words != type(event).__name__, type(event).__name__
        state = evolve(state, event)
