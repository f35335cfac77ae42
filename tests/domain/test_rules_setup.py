"""R1–R5: components, seats, starting boats, the two-player variant."""

import pickle

import pytest

from domain import commands as cmd
from domain.errors import RuleViolation
from domain.events import StartingBoatPlaced
from domain.judge import apply
from domain.legal import legal_commands
from domain.state import GameState, Phase, SetupPlacement, TurnStart
from tests.domain.gwt import new_game, rejects


def _opened(**options):
    state = GameState()
    opts = cmd.GameOptions(**options)
    return apply(state, cmd.CreateGame("g", opts, "0" * 64, "tongiaki-deck-v1"))[1]


def test_R1_each_player_gets_15_boats_of_their_colour():
    state = new_game("blue", "red")
    assert state.supply == {"blue": 15, "red": 15}


def test_R1_only_the_six_colours_exist_and_each_is_taken_once():
    state = _opened()
    state = apply(state, cmd.JoinGame("p1", ("blue",)))[1]
    rejects(state, cmd.JoinGame("p2", ("pink",)), "unknown_colour", "R1")
    rejects(state, cmd.JoinGame("p2", ("blue",)), "colour_taken", "R1")
    rejects(state, cmd.JoinGame("p1", ("red",)), "already_seated", "R1")


def test_R1_a_table_holds_at_most_its_player_limit_and_starts_with_two():
    state = _opened(max_players=2)
    state = apply(state, cmd.JoinGame("p1", ("blue",)))[1]
    rejects(state, cmd.StartGame(), "not_enough_players", "R1")
    state = apply(state, cmd.JoinGame("p2", ("red",)))[1]
    rejects(state, cmd.JoinGame("p3", ("green",)), "table_full", "R1")
    with pytest.raises(RuleViolation) as info:
        apply(GameState(), cmd.CreateGame("g", cmd.GameOptions(max_players=7), "0" * 64, "fixed"))
    assert info.value.rule == "R1"


def test_R2_tonga_starts_on_the_table_and_the_pile_holds_15_islands_and_16_oceans():
    state = new_game("blue", "red")
    assert list(state.tiles) == [(0, 0)] and "tonga" in state.islands
    assert (state.islands_left(), state.oceans_left()) == (15, 16)


def test_R3_seat_order_is_play_order_starting_with_seat_1():
    state = new_game("green", "blue", "red")
    assert state.order == ("green", "blue", "red")
    assert state.pending == SetupPlacement("green", 1)


def test_R3_the_options_may_name_another_first_seat():
    state = new_game("green", "blue", "red", first_seat=2)
    assert state.order == ("blue", "red", "green")


def test_R4_two_rounds_of_starting_boats_in_seat_order_then_the_first_turn():
    state = new_game("blue", "red")
    placed = []
    for beach in (0, 1, 2, 3):
        events, state = apply(state, cmd.PlaceStartingBoat(beach))
        placed.append((events[0].colour, events[0].round))
    assert placed == [("blue", 1), ("red", 1), ("blue", 2), ("red", 2)]
    assert state.phase is Phase.PLAYING and state.pending == TurnStart("blue")
    assert state.supply == {"blue": 13, "red": 13}


def test_R4_a_tonga_beach_keeps_a_free_slot_so_at_most_two_starting_boats():
    state = new_game("blue", "red", "green")
    for _ in range(2):
        state = apply(state, cmd.PlaceStartingBoat(0))[1]
    rejects(state, cmd.PlaceStartingBoat(0), "tonga_beach_limit", "R4")


def test_R4_a_players_two_starting_boats_go_on_different_beaches():
    state = new_game("blue", "red")
    state = apply(state, cmd.PlaceStartingBoat(0))[1]
    state = apply(state, cmd.PlaceStartingBoat(1))[1]
    rejects(state, cmd.PlaceStartingBoat(0), "same_beach_twice", "R4")
    assert cmd.PlaceStartingBoat(0) not in legal_commands(state)


def test_R4_with_six_players_no_starting_boat_may_leave_a_later_one_without_a_beach():
    state = new_game("blue", "red", "green", "yellow", "orange", "purple")
    # Round 1: one boat on each beach. Round 2: blue..orange fill beaches 1..5.
    for beach in (0, 1, 2, 3, 4, 5, 1, 2, 3, 4):
        state = apply(state, cmd.PlaceStartingBoat(beach))[1]
    # Orange must not take beach 0: purple (first boat on 5) would be left with only beach 5.
    assert state.pending == SetupPlacement("orange", 2)
    assert legal_commands(state) == [cmd.PlaceStartingBoat(5)]
    rejects(state, cmd.PlaceStartingBoat(0), "setup_dead_end", "R4")
    state = apply(state, cmd.PlaceStartingBoat(5))[1]
    events, state = apply(state, cmd.PlaceStartingBoat(0))
    assert events[0] == StartingBoatPlaced("purple", 0, 2)
    assert all(len(b) == 2 for b in state.islands["tonga"].beaches)


def test_R5_two_colours_each_play_as_four_seats_A1_B1_A2_B2():
    state = new_game(("blue", "red"), ("green", "yellow"), two_colours_each=True, max_players=2)
    assert state.order == ("blue", "green", "red", "yellow")
    assert state.owner("red").player_id == "p1"


def test_R5_the_two_colour_variant_needs_two_colours_and_two_players():
    state = _opened(two_colours_each=True, max_players=2)
    rejects(state, cmd.JoinGame("p1", ("blue",)), "colour_count", "R5")
    with pytest.raises(RuleViolation) as info:
        apply(
            GameState(),
            cmd.CreateGame(
                "g", cmd.GameOptions(max_players=3, two_colours_each=True), "0" * 64, "fixed"
            ),
        )
    assert info.value.rule == "R5"


def test_R24_a_violation_survives_pickling_as_a_worker_would_pass_it_on():
    violation = RuleViolation("variant_needs_two_players", "R5", "two_colours_each is two-player")
    copy = pickle.loads(pickle.dumps(violation))
    assert (copy.code, copy.rule, copy.message, str(copy)) == (
        violation.code,
        violation.rule,
        violation.message,
        str(violation),
    )


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_R4_the_offered_starting_beaches_are_exactly_those_that_avoid_a_dead_end(players):
    """The quick check used below six players agrees with an exhaustive search."""
    import random

    from domain.setup import _feasible, _first_beaches, _remaining

    colours = ["blue", "red", "green", "yellow", "orange", "purple"][:players]
    rng = random.Random(players)
    for _ in range(30):
        state = new_game(*colours)
        while isinstance(state.pending, SetupPlacement):
            pending = state.pending
            counts = tuple(len(b) for b in state.islands["tonga"].beaches)
            firsts = _first_beaches(state)
            remaining = _remaining(state)
            brute = []
            for beach in range(6):
                if counts[beach] >= 2 or (
                    pending.round == 2 and firsts.get(pending.colour) == beach
                ):
                    continue
                after = (*counts[:beach], counts[beach] + 1, *counts[beach + 1 :])
                own = {**firsts}
                own.setdefault(pending.colour, beach)
                forbidden = tuple(own.get(c, -1) for c, _ in remaining)
                rounds = tuple(r for _, r in remaining)
                if _feasible(after, rounds, forbidden, tuple(c for c, _ in remaining)):
                    brute.append(beach)
            offered = [c.beach for c in legal_commands(state)]
            assert offered == brute
            state = apply(state, cmd.PlaceStartingBoat(rng.choice(offered)))[1]
        assert state.phase is Phase.PLAYING
