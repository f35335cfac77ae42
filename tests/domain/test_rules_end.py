"""R21–R25: the end of the game, scoring, ties, and how the engine reports."""

import pytest

from domain import commands as cmd
from domain.errors import RuleViolation
from domain.events import BoatsLanded, FleetLostAtSea, GameEnded, TileDrawn, TurnEnded
from domain.forced import apply_forced
from domain.judge import apply
from domain.legal import legal_commands
from domain.scoring import current_scores, outcome, tie_break
from domain.state import EndReason, Landing, Phase, TilePlacement
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


def last_ocean(tile="ocean13", **scenario):
    """Tonga with two full beaches, every ocean but ``tile`` drawn: blue emigrates
    from beach 0 to the south, where ``tile`` turns up last. Ocean 13 (no danger)
    is laid facing back (rotation 3) and leads the fleet on to the north-west
    cell (-1,1); ocean 7 has danger 4 on every path."""
    extra = [t[1] for t in scenario.get("tiles", [])]
    scenario.setdefault("tiles", [])
    scenario["tiles"] = [T, *scenario["tiles"]]
    state = given(
        boats={"tonga": "bbr|rrb|b|||"},
        drawn=[o for o in ALL_OCEANS if o != tile] + extra,
        pending={"kind": "choose_emigration", "colour": "blue"},
        **scenario,
    )
    return when(state, cmd.Emigrate("tonga", 0, 0), tile)


def test_R21_under_rules_1_the_fleet_that_drew_the_last_ocean_tile_was_lost_there_at_once():
    """Recorded games are re-run under the rules they were recorded with (rules-1)."""
    from domain.revisions import RULES_1, RULESETS

    state = given(
        tiles=[T],
        boats={"tonga": "bbr|rrb|b|||"},
        drawn=[o for o in ALL_OCEANS if o != "ocean13"],
        pending={"kind": "choose_emigration", "colour": "blue"},
    )
    events, _ = when(state, cmd.Emigrate("tonga", 0, 0), "ocean13", rules=RULESETS[RULES_1])
    assert names(events) == ["EmigrationStarted", "TileDrawn", "TilePlaced", "FleetLostAtSea"]
    assert only(events, FleetLostAtSea).cell == (0, 1)  # on the tile it had just placed


def test_R21_revised_after_the_last_ocean_tile_the_fleet_sails_on_and_is_lost_only_where_it_needs_another_tile():
    events, state = last_ocean()
    assert only(events, TileDrawn).last_of_kind
    assert names(events) == [
        "EmigrationStarted",
        "TileDrawn",
        "TilePlaced",
        "FleetSailed",
        "FleetLostAtSea",
    ]
    assert only(events, FleetLostAtSea).cell == (-1, 1)  # the empty cell beyond, not the tile
    assert state.out == {"blue": 2, "red": 1}
    # A later voyage of the turn goes the same way: no tile is drawn for it.
    events, state = when(state, cmd.Emigrate("tonga", 1, 1))
    assert names(events) == ["EmigrationStarted", "FleetLostAtSea", "TurnEnded", "GameEnded"]
    assert state.out == {"blue": 3, "red": 3}
    assert only(events, GameEnded).reason == "last_ocean_drawn"
    assert state.supply["blue"] + state.boats_on_board("blue") + state.out["blue"] == 15


def test_R21_revised_a_fleet_whose_path_after_the_last_ocean_leads_to_an_island_on_the_table_lands_there():
    events, state = last_ocean(tiles=[["-1,1", "samoa", 0]])
    assert names(events)[-2:] == ["FleetSailed", "FleetReachedIsland"]
    assert isinstance(state.pending, Landing) and state.pending.island == "samoa"
    assert state.out == {"blue": 0, "red": 0}
    events, state = when(state, legal_commands(state)[0])
    assert only(events, BoatsLanded).island == "samoa"
    assert state.end_reason is EndReason.LAST_OCEAN_DRAWN and state.phase is Phase.PLAYING


def test_R21_revised_after_the_last_ocean_tile_a_royal_island_still_turns_the_fleet_back_R15():
    events, state = last_ocean(tiles=[["-1,1", "samoa", 0]], kings={"samoa": "red"})
    assert names(events)[-1] == "FleetTurnedBack"
    assert isinstance(state.pending, Landing) and state.pending.island == "tonga"


def test_R21_revised_after_the_last_ocean_tile_the_danger_check_still_applies_R12():
    events, state = last_ocean("ocean7")
    assert names(events)[-1] == "ExpeditionFailed"
    assert state.out == {"blue": 0, "red": 0}  # failed boats go home, they are not lost
    assert state.supply["blue"] + state.boats_on_board("blue") == 15


def test_R21_revised_in_the_Rody_variant_the_last_ocean_placed_by_hand_lets_the_fleet_sail_on():
    state = given(
        tiles=[T],
        boats={"tonga": "bbr|||||"},
        drawn=[o for o in ALL_OCEANS if o not in ("ocean13", "ocean14")],
        options={"free_orientation_after_first": True},
        pending={"kind": "choose_emigration", "colour": "blue"},
    )
    # ocean 14 is laid facing back (danger 2, passed by blue and red) and leads on
    # to (-1,1), where the last ocean turns up, to be turned by hand (R11)
    events, state = when(state, cmd.Emigrate("tonga", 0, 0), "ocean14", "ocean13")
    assert names(events)[-1] == "TileDrawn" and isinstance(state.pending, TilePlacement)
    at = state.pending.cell
    events, state = when(state, cmd.PlaceTile("ocean13", at, 0))
    assert names(events)[:2] == ["TilePlaced", "FleetSailed"]
    assert "FleetLostAtSea" in names(events)
    assert only(events, FleetLostAtSea).cell != at


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


TWO_COLOURS = [
    {"player_id": "ann", "seat": 1, "colours": ["blue", "red"], "entropy": ""},
    {"player_id": "bob", "seat": 2, "colours": ["green", "yellow"], "entropy": ""},
]


def test_R5_in_the_two_colour_variant_a_players_colours_are_added_together():
    state = given(
        players=TWO_COLOURS,
        tiles=[T, ["0,1", "hawaii", 3], ["1,0", "samoa", 0]],
        boats={"hawaii": "b||", "samoa": "r|r|", "tonga": "g|y||||"},
    )
    scores = {s.player_id: (s.points, s.islands, s.boats) for s in current_scores(state)}
    assert scores == {"ann": (10, 2, 3), "bob": (0, 1, 2)}


def test_R5_revised_an_island_holding_both_of_a_players_colours_scores_twice_as_if_four_seats():
    state = given(
        players=TWO_COLOURS,
        tiles=[T, ["0,1", "hawaii", 3], ["1,0", "samoa", 0]],
        boats={"hawaii": "br||", "samoa": "g|y|", "tonga": "g|y||||"},
        kings={},
    )
    scores = {s.player_id: (s.points, s.islands, s.boats) for s in current_scores(state)}
    # Hawaii (5) for blue and again for red; Samoa (5) for green and for yellow
    assert scores == {"ann": (10, 1, 2), "bob": (10, 2, 4)}


def test_R5_under_rules_1_an_island_with_both_of_a_players_colours_scored_once():
    state = given(
        players=TWO_COLOURS,
        tiles=[T, ["0,1", "hawaii", 3], ["1,0", "samoa", 0]],
        boats={"hawaii": "br||", "samoa": "g|y|", "tonga": "g|y||||"},
    )
    scores = {s.player_id: s.points for s in current_scores(state, colours_score_as_seats=False)}
    assert scores == {"ann": 5, "bob": 5}


def test_R5_R23_with_two_colours_a_player_is_present_on_an_island_once_and_boats_add_up():
    state = given(
        players=TWO_COLOURS,
        tiles=[T, ["0,1", "hawaii", 3], ["1,0", "samoa", 0], ["-1,0", "tubuai", 0]],
        # ann: Hawaii twice (10); bob: Samoa (5), Tubuai (2), Tonga (0)
        boats={"hawaii": "br||", "samoa": "g||", "tubuai": "y|", "tonga": "g|||||"},
    )
    scores = current_scores(state)
    rows = [(s.player_id, s.points, s.islands, s.boats, s.rank) for s in scores]
    assert rows == [("ann", 10, 1, 2, 1), ("bob", 7, 3, 3, 2)]
    # equal points: bob is present on two islands, ann on one (with both colours)
    state = given(
        players=TWO_COLOURS,
        tiles=[T, ["0,1", "hawaii", 3], ["1,0", "samoa", 0], ["-1,0", "fidschi", 0]],
        boats={"hawaii": "br||", "samoa": "g||", "fidschi": "y||"},
    )
    scores = current_scores(state)
    rows = [(s.player_id, s.points, s.islands, s.boats, s.rank) for s in scores]
    assert rows == [("bob", 10, 2, 2, 1), ("ann", 10, 1, 2, 2)]
    assert tie_break(scores) == "islands"


def test_R5_position_load_puts_two_colours_in_the_play_order_A1_B1_A2_B2():
    from domain import position

    state = position.load(
        {"players": TWO_COLOURS, "tiles": [T], "options": {"two_colours_each": True}}
    )
    assert state.order == ("blue", "green", "red", "yellow")
    assert state.pending.colour == "blue"


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
