"""The pure folds of projections/: descriptions, steps, scoreboard, results."""

from __future__ import annotations

import pytest

from domain import events as ev
from domain.evolve import evolve, replay
from domain.state import GameState
from domain.tiles import OCEAN_TILES, display_name
from projections.describe import describe
from projections.models import lobby_entry, results, scoreboard, step
from tests.projections.conftest import GOLDEN, golden_events, simulated


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_every_golden_event_has_its_own_one_line_description(path):
    state = GameState()
    for e in golden_events(path):
        line = describe(e, state)
        assert line and "\n" not in line and line != type(e).__name__
        state = evolve(state, e)


OCEAN = sorted(OCEAN_TILES)[0]


def test_the_rulebook_example_reads_as_a_failed_expedition():
    # R12: a fleet of 3 colours fails a "4" path
    failed = ev.ExpeditionFailed(OCEAN, (0, 1), 0, 3, 4, 3, ("yellow", "red", "blue"))
    assert describe(failed, GameState()) == (
        f"Fleet of 3 colours fails a 4 path on {display_name(OCEAN)} — boats return"
    )


def test_adding_boats_names_colour_count_and_island():
    added = ev.BoatsAdded("blue", "tahiti", (0, 2))
    assert describe(added, GameState()) == "Blue adds 2 boats to Tahiti"


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_steps_count_from_one_within_each_turn(path):
    state, previous = GameState(), None
    turns_seen = []
    for version, e in enumerate(golden_events(path), start=1):
        s = step(version, e, state, {"actor": {"account": "a"}}, previous)
        if previous is None or previous[0] != s.turn:
            assert s.step == 1
            turns_seen.append(s.turn)
        else:
            assert s.step == previous[1] + 1
        previous = (s.turn, s.step)
        state = evolve(state, e)
    assert turns_seen == sorted(turns_seen) and len(turns_seen) > 3


@pytest.mark.parametrize("seed", range(8))
def test_scoreboard_of_a_finished_game_equals_the_engines_scoring(seed):
    game = simulated(seed, players=2 + seed % 5)
    board = scoreboard(replay(game.events))
    by_player = {s["player_id"]: s for s in board["seats"]}
    for s in game.outcome.scores:
        row = by_player[s.player_id]
        assert (row["points"], row["islands"], row["boats"], row["rank"]) == (
            s.points,
            s.islands,
            s.boats,
            s.rank,
        )
        assert sum(c["points"] for c in row["colours"]) >= row["points"] or len(row["colours"]) > 1
    assert board["final"]["winners"] == list(game.outcome.winners)
    assert board["final"]["reason"] == str(game.outcome.reason)
    assert board["final"]["tie_break"] == game.outcome.tie_break
    won = {r.player_id for r in results(game.state) if r.won}
    assert won == set(game.outcome.winners)


def test_every_boat_is_in_supply_on_board_or_out_on_the_scoreboard():
    state = replay(simulated(3, players=4).events)
    for seat in scoreboard(state)["seats"]:
        for c in seat["colours"]:
            # R1: 15 boats per colour; fleets are empty once the game is over
            assert c["on_board"] + c["kings"] + c["in_supply"] + c["out_of_game"] == 15


def test_the_lobby_names_whose_turn_it_is_until_the_end():
    game = simulated(4, players=3)
    state = GameState()
    for e in game.events:
        state = evolve(state, e)
        entry = lobby_entry(state, "t")
        if entry["status"] == "playing" and state.active_colour is not None:
            assert entry["active_player"] == state.owner(state.active_colour).player_id
    assert entry["status"] == "ended" and entry["active_player"] is None
