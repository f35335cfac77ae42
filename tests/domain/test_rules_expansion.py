"""R6–R8: expansion, the empty supply, and no boats on the board."""

from domain import commands as cmd
from domain.events import BoatsAdded, BoatsPlaced, TurnEnded
from domain.legal import legal_commands
from domain.state import ChooseEmigration, TurnStart
from tests.domain.gwt import given, names, only, rejects, when

TONGA = ["0,0", "tonga", 0]


def test_R6_you_add_as_many_boats_as_you_already_have_there_one_per_beach():
    state = given(tiles=[TONGA], boats={"tonga": "b|b|r|r||"})
    expansions = [c for c in legal_commands(state) if isinstance(c, cmd.Expand)]
    assert len(expansions) == 15  # 2 of Tonga's 6 beaches
    assert all(len(c.beaches) == 2 for c in expansions)
    events, after = when(state, cmd.Expand("tonga", (2, 5)))
    assert names(events) == ["BoatsAdded", "TurnEnded"]
    assert after.islands["tonga"].beaches == (
        ("blue",),
        ("blue",),
        ("blue", "red"),
        ("red",),
        (),
        ("blue",),
    )
    assert after.supply["blue"] == 11  # 15 - 2 on board - 2 added


def test_R6_you_must_add_as_many_as_the_limits_allow_not_fewer():
    state = given(tiles=[TONGA], boats={"tonga": "b|b|r|r||"})
    rejects(state, cmd.Expand("tonga", (2,)), "wrong_number_of_boats", "R6")
    rejects(state, cmd.Expand("tonga", (2, 2)), "beach_twice", "R6")


def test_R6_the_number_added_is_capped_by_the_islands_beaches():
    state = given(tiles=[TONGA, ["0,1", "tubuai", 3]], boats={"tubuai": "bb|bb"})
    assert [c for c in legal_commands(state) if isinstance(c, cmd.Expand)] == [
        cmd.Expand("tubuai", (0, 1))
    ]


def test_R6_the_number_added_is_capped_by_the_supply():
    state = given(tiles=[TONGA], boats={"tonga": "b|b|b|||"}, supply={"blue": 1, "red": 15})
    expansions = [c for c in legal_commands(state) if isinstance(c, cmd.Expand)]
    assert {len(c.beaches) for c in expansions} == {1}


def test_R6_you_can_only_expand_where_you_have_a_boat():
    state = given(tiles=[TONGA, ["0,1", "tubuai", 3]], boats={"tonga": "b|||||", "tubuai": "r|"})
    rejects(state, cmd.Expand("tubuai", (1,)), "no_boat_on_island", "R6")
    rejects(state, cmd.Expand("hawaii", (1,)), "no_such_island", "R6")


def test_R6_an_expansion_that_fills_a_beach_makes_it_emigrate():
    state = given(tiles=[TONGA], boats={"tonga": "bb|r||||"})
    events, after = when(state, cmd.Expand("tonga", (0, 1)))
    assert names(events) == ["BoatsAdded"]
    assert after.pending == ChooseEmigration("blue")
    assert legal_commands(after) == [cmd.Emigrate("tonga", 0, 0)]


def test_R7_with_an_empty_supply_you_move_one_boat_from_any_island():
    state = given(
        tiles=[TONGA, ["0,1", "tubuai", 3]],
        boats={"tonga": "b|b|||r|", "tubuai": "bb|"},
        supply={"blue": 0, "red": 14},
    )
    rejects(state, cmd.Expand("tonga", (2, 3)), "supply_empty", "R7")
    options = legal_commands(state)
    assert all(c.take_from is not None for c in options if isinstance(c, cmd.Expand))
    events, after = when(state, cmd.Expand("tonga", (3,), ("tubuai", 0)))
    assert only(events, BoatsAdded) == BoatsAdded("blue", "tonga", (3,), ("tubuai", 0), rule="R7")
    assert after.islands["tubuai"].beaches == (("blue",), ())
    assert after.islands["tonga"].beaches[3] == ("blue",)
    assert after.supply["blue"] == 0


def test_R7_moves_exactly_one_boat_and_only_when_the_supply_is_empty():
    state = given(tiles=[TONGA], boats={"tonga": "b|b||||"}, supply={"blue": 0, "red": 15})
    rejects(state, cmd.Expand("tonga", (2, 3), ("tonga", 0)), "one_boat_only", "R7")
    rejects(state, cmd.Expand("tonga", (0,), ("tonga", 0)), "same_beach", "R7")
    full = given(tiles=[TONGA], boats={"tonga": "b|b||||"})
    rejects(full, cmd.Expand("tonga", (2,), ("tonga", 0)), "supply_not_empty", "R7")


def test_R7_a_king_is_never_taken():
    state = given(
        tiles=[TONGA, ["0,1", "samoa", 3]],
        boats={"tonga": "b|||||"},
        kings={"samoa": "blue"},
        supply={"blue": 0, "red": 15},
    )
    assert all(
        c.take_from != ("samoa", 0) for c in legal_commands(state) if isinstance(c, cmd.Expand)
    )
    rejects(state, cmd.Expand("tonga", (2,), ("samoa", 0)), "no_boat_to_take", "R7")


def test_R8_with_no_boats_on_the_board_place_two_on_tonga_or_one_elsewhere():
    state = given(tiles=[TONGA, ["0,1", "tubuai", 3]], boats={"tonga": "r|||||"})
    options = legal_commands(state)
    assert cmd.PlaceBoats("tonga", (1, 4)) in options
    assert cmd.PlaceBoats("tubuai", (0,)) in options
    assert not any(isinstance(c, cmd.Expand) for c in options)
    events, _after = when(state, cmd.PlaceBoats("tonga", (1, 4)))
    assert events[0] == BoatsPlaced("blue", "tonga", (1, 4))
    assert isinstance(events[-1], TurnEnded)
    rejects(state, cmd.PlaceBoats("tonga", (1,)), "wrong_number_of_boats", "R8")
    rejects(state, cmd.PlaceBoats("tubuai", (0, 1)), "wrong_number_of_boats", "R8")


def test_R8_interpretation_kings_do_not_count_as_boats_on_the_board():
    state = given(
        tiles=[TONGA, ["0,1", "samoa", 3]], boats={"tonga": "r|||||"}, kings={"samoa": "blue"}
    )
    assert cmd.PlaceBoats("tonga", (0, 1)) in legal_commands(state)
    assert cmd.PlaceBoats("samoa", (0,)) not in legal_commands(state)  # royal (R16)


def test_R8_is_not_for_a_player_who_still_has_boats():
    state = given(tiles=[TONGA], boats={"tonga": "b|||||"})
    rejects(state, cmd.PlaceBoats("tonga", (1, 2)), "boats_on_board", "R8")


def test_R8_a_placement_that_fills_a_beach_is_followed_by_voyages():
    state = given(tiles=[TONGA, ["0,1", "tubuai", 3]], boats={"tubuai": "rr|"})
    events, after = when(state, cmd.PlaceBoats("tubuai", (0,)))
    assert names(events) == ["BoatsPlaced"]
    assert after.pending == ChooseEmigration("blue")


def test_a_turn_passes_to_the_next_seat():
    state = given(tiles=[TONGA], boats={"tonga": "b|r||||"})
    events, after = when(state, cmd.Expand("tonga", (3,)))
    assert events[-1] == TurnEnded("blue", 1, "red")
    assert after.pending == TurnStart("red") and after.turn == 2
