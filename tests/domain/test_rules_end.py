"""R21–R25: the end of the game, scoring, ties, and how the engine reports."""

import pytest

from domain import commands as cmd
from domain.decide import apply
from domain.errors import RuleViolation
from domain.events import GameEnded, TileDrawn, TurnEnded
from domain.forced import apply_forced
from domain.legal import legal_commands
from domain.scoring import current_scores, outcome, tie_break
from domain.state import EndReason, Phase
from domain.tiles import ISLANDS, OCEANS, TONGA
from tests.domain.gwt import given, names, only, rejects, when

T = ["0,0", "tonga", 0]
ALL_ISLANDS = [i.id for i in ISLANDS if i.id != TONGA]
ALL_OCEANS = [o.id for o in OCEANS]


def test_R21_drawing_the_last_island_ends_the_game_after_the_fleet_lands_on_it():
    drawn = [i for i in ALL_ISLANDS if i != "samoa"]
    state = given(
        tiles=[T],
        boats={"tonga": "bbr|||||"},
        drawn=drawn,
        pending={"kind": "choose_emigration", "colour": "blue"},
    )
    events, state = when(state, cmd.Emigrate("tonga", 0, 0), "samoa")
    drawn_event = only(events, TileDrawn)
    assert drawn_event.last_of_kind and drawn_event.islands_left == 0
    assert state.end_reason is EndReason.LAST_ISLAND_DRAWN and state.phase is Phase.PLAYING
    events, state = when(state, legal_commands(state)[0])
    assert names(events)[-2:] == ["TurnEnded", "GameEnded"]
    assert only(events, TurnEnded).next_colour is None
    assert state.phase is Phase.ENDED
    result = outcome(state)
    assert result is not None and result.reason is EndReason.LAST_ISLAND_DRAWN
    assert result.scores[0].points == 5  # blue and red each sit on Samoa (5) and Tonga (0)


def test_R21_interpretation_a_fleet_that_draws_the_last_ocean_stays_at_sea_out_of_the_game():
    drawn = [o for o in ALL_OCEANS if o != "ocean7"]
    state = given(
        tiles=[T],
        boats={"tonga": "bbr|rrb|b|||"},
        drawn=drawn,
        pending={"kind": "choose_emigration", "colour": "blue"},
    )
    events, state = when(state, cmd.Emigrate("tonga", 0, 0), "ocean7")
    assert names(events) == ["EmigrationStarted", "TileDrawn", "TilePlaced", "FleetLostAtSea"]
    assert state.out == {"blue": 2, "red": 1}
    # A later emigration that needs a new tile is lost at sea the same way; no tile is drawn.
    events, state = when(state, cmd.Emigrate("tonga", 1, 1))
    assert names(events) == ["EmigrationStarted", "FleetLostAtSea", "TurnEnded", "GameEnded"]
    assert state.out == {"blue": 3, "red": 3}
    assert only(events, GameEnded).reason == "last_ocean_drawn"
    assert state.supply["blue"] + state.boats_on_board("blue") + state.out["blue"] == 15


def test_R21_nothing_can_be_played_after_the_end():
    drawn = [o for o in ALL_OCEANS if o != "ocean7"]
    state = given(
        tiles=[T],
        boats={"tonga": "bbr|||||"},
        drawn=drawn,
        pending={"kind": "choose_emigration", "colour": "blue"},
    )
    _, state = when(state, cmd.Emigrate("tonga", 0, 0), "ocean7")
    assert state.phase is Phase.ENDED and legal_commands(state) == []
    rejects(state, cmd.NewColonisation(), "game_over", "R21")


def test_R22_each_island_you_are_on_scores_its_value_a_king_counts_tonga_is_worth_0():
    state = given(
        tiles=[T, ["0,1", "samoa", 3], ["1,0", "tahiti", 0], ["-1,0", "nauru", 0]],
        boats={"tonga": "b|r||||", "tahiti": "bb|r|", "nauru": "||r"},
        kings={"samoa": "blue"},
    )
    scores = {s.player_id: (s.points, s.islands, s.boats) for s in current_scores(state)}
    assert scores == {"p1": (9, 3, 4), "p2": (6, 3, 3)}


def test_R23_a_tie_on_points_goes_to_the_player_on_more_islands():
    state = given(
        tiles=[T, ["0,1", "hawaii", 3], ["1,0", "tubuai", 0], ["-1,0", "rarotonga", 0]],
        boats={"hawaii": "b||", "tubuai": "r|", "rarotonga": "r|"},
    )
    scores = current_scores(state)
    assert [(s.player_id, s.points, s.islands, s.rank) for s in scores] == [
        ("p2", 5, 2, 1),
        ("p1", 5, 1, 2),
    ]
    assert tie_break(scores) == "islands"


def test_R23_then_to_the_player_with_fewer_boats_on_the_board_kings_counting_one():
    state = given(
        tiles=[T, ["0,1", "hawaii", 3], ["1,0", "samoa", 0]],
        boats={"hawaii": "bb||"},
        kings={"samoa": "red"},
    )
    scores = current_scores(state)
    assert [(s.player_id, s.points, s.islands, s.boats, s.rank) for s in scores] == [
        ("p2", 5, 1, 1, 1),
        ("p1", 5, 1, 2, 2),
    ]
    assert tie_break(scores) == "boats"


def test_R23_a_tie_on_points_islands_and_boats_is_a_shared_win():
    state = given(
        tiles=[T, ["0,1", "hawaii", 3], ["1,0", "samoa", 0]],
        boats={"hawaii": "b||", "samoa": "r||"},
    )
    scores = current_scores(state)
    assert tie_break(scores) == "shared" and [s.rank for s in scores] == [1, 1]


def test_R5_in_the_two_colour_variant_a_players_colours_are_added_together():
    state = given(
        players=[
            {"player_id": "ann", "seat": 1, "colours": ["blue", "red"], "entropy": ""},
            {"player_id": "bob", "seat": 2, "colours": ["green", "yellow"], "entropy": ""},
        ],
        order=["blue", "green", "red", "yellow"],
        tiles=[T, ["0,1", "hawaii", 3], ["1,0", "samoa", 0]],
        boats={"hawaii": "b||", "samoa": "r|r|", "tonga": "g|y||||"},
    )
    scores = {s.player_id: (s.points, s.islands, s.boats) for s in current_scores(state)}
    assert scores == {"ann": (10, 2, 3), "bob": (0, 1, 2)}


def test_R24_every_rejection_names_a_code_a_rule_and_a_message_and_changes_nothing():
    state = given(tiles=[T], boats={"tonga": "b|r||||"})
    violation = rejects(state, cmd.Land("tonga", ()), "unexpected_command", "R25")
    assert violation.as_dict()["message"].startswith("a landing is not possible now")


def test_R25_a_decision_with_one_legal_choice_is_applied_automatically_and_says_so():
    state = given(
        tiles=[T],
        boats={"tonga": "bbr|||||"},
        pending={"kind": "choose_emigration", "colour": "blue"},
    )
    assert len(legal_commands(state)) == 1
    from domain.deck import Deck

    events, state = apply_forced(state, Deck.fixed(["ocean7"]))
    assert events[0].automatic is True and names(events)[0] == "EmigrationStarted"
    assert isinstance(events[-1], TurnEnded)


def test_a_command_of_an_unknown_kind_is_refused():
    from domain.errors import MalformedPayload

    with pytest.raises(MalformedPayload):
        apply(given(tiles=[T]), object())  # type: ignore[arg-type]
    with pytest.raises(RuleViolation):
        apply(given(tiles=[T]), cmd.StartGame())
