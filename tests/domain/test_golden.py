"""Golden game logs replay to their recorded final positions, and still play the same way."""

import json

import pytest

from domain import position
from domain.evolve import replay
from domain.serialization import decode_event, encode
from domain.simulation import play
from tests.domain.golden import DATA, GAMES


def load(name):
    return [decode_event(json.loads(line)) for line in (DATA / name).read_text().splitlines()]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_golden_log_replays_to_its_recorded_final_position(name):
    events = load(name)
    final = json.loads((DATA / name.replace(".ndjson", ".final.json")).read_text())
    state = replay(events)
    assert position.dump(state) == final
    assert state.result is not None


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_engine_still_plays_the_golden_game_move_for_move(name):
    params = dict(GAMES[name])
    seed, players = params.pop("seed"), params.pop("players")
    game = play(seed, players, **params)
    recorded = [json.loads(line) for line in (DATA / name).read_text().splitlines()]
    assert [encode(e) for e in game.events] == recorded


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_golden_event_survives_a_json_round_trip(name):
    for event in load(name):
        assert decode_event(json.loads(json.dumps(encode(event)))) == event
