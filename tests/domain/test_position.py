"""The canonical position: compact, loadable, and equal for equal states."""

import json

from domain import position
from domain.simulation import play
from domain.state import Phase, TurnStart
from tests.domain.gwt import given


def test_a_position_round_trips_at_every_step_of_a_game():
    game = play(21, 3)
    from domain.fold import evolve
    from domain.state import GameState

    state = GameState()
    for event in game.events:
        state = evolve(state, event)
        if state.phase is not Phase.NEW:
            text = position.text(state)
            loaded = position.load(json.loads(text))
            assert loaded == state
            assert position.text(loaded) == text


def test_a_short_scenario_fills_in_sensible_defaults():
    state = given(tiles=[["0,0", "tonga", 0]], boats={"tonga": "bb|r||||"})
    assert state.phase is Phase.PLAYING and state.pending == TurnStart("blue")
    assert state.supply == {"blue": 13, "red": 14}
    assert position.dump(state)["boats"] == {"tonga": "bb|r||||"}


def test_the_position_never_contains_the_undrawn_order():
    game = play(4, 2)
    dumped = position.dump(game.state)
    assert "pile" in dumped and set(dumped["pile"]) == {"islands", "oceans"}
    assert dumped["drawn"] == list(game.state.drawn)
