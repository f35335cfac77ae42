"""R16–R17: royal islands and new colonisation."""

from domain import commands as cmd
from domain.events import BoatsPlaced, NewColonyFounded, RoyalIslandFounded, TilePlaced, TurnEnded
from domain.legal import legal_commands
from domain.scoring import current_scores
from domain.state import ColonistPlacement, TilePlacement
from tests.domain.gwt import given, names, only, rejects, when

TONGA = ["0,0", "tonga", 0]


def test_R16_a_lone_colour_crowns_a_king_and_takes_its_other_boats_home():
    state = given(tiles=[TONGA, ["0,1", "samoa", 3]], boats={"tonga": "b|r||||", "samoa": "bb|b|"})
    assert cmd.FoundRoyalIsland("samoa") in legal_commands(state)
    events, after = when(state, cmd.FoundRoyalIsland("samoa"))
    assert events[0] == RoyalIslandFounded("blue", "samoa", 2)
    assert isinstance(events[-1], TurnEnded)
    samoa = after.islands["samoa"]
    assert samoa.king == "blue" and samoa.beaches == ((), (), ())
    assert after.supply["blue"] == state.supply["blue"] + 2
    assert after.boats_on_board("blue") == 2  # the king counts as one boat


def test_R16_only_where_no_other_colour_has_a_boat_and_never_on_tonga():
    state = given(tiles=[TONGA, ["0,1", "samoa", 3]], boats={"tonga": "b|||||", "samoa": "b|r|"})
    rejects(state, cmd.FoundRoyalIsland("samoa"), "other_colours_present", "R16")
    rejects(state, cmd.FoundRoyalIsland("tonga"), "tonga_never_royal", "R16")
    assert not any(isinstance(c, cmd.FoundRoyalIsland) for c in legal_commands(state))


def test_R16_each_player_founds_at_most_two_royal_islands():
    state = given(
        tiles=[TONGA, ["0,1", "samoa", 3], ["1,0", "hawaii", 0], ["-1,0", "tubuai", 0]],
        boats={"tonga": "b|||||", "tubuai": "b|"},
        kings={"samoa": "blue", "hawaii": "blue"},
    )
    rejects(state, cmd.FoundRoyalIsland("tubuai"), "two_royal_islands", "R16")


def test_R16_nobody_adds_to_or_lands_on_a_royal_island():
    state = given(
        tiles=[TONGA, ["0,1", "samoa", 3]], boats={"tonga": "b|||||"}, kings={"samoa": "blue"}
    )
    rejects(state, cmd.Expand("samoa", (0,)), "royal_island", "R16")
    rejects(state, cmd.FoundRoyalIsland("samoa"), "already_royal", "R16")


def test_R16_the_king_stays_through_a_new_colonisation_and_scores_its_island():
    state = given(
        tiles=[TONGA, ["0,1", "samoa", 3]], boats={"tonga": "bb|r||||"}, kings={"samoa": "blue"}
    )
    events, after = when(state, cmd.NewColonisation(), "tahiti")
    assert only(events, NewColonyFounded).returned == 2
    assert after.islands["samoa"].king == "blue"
    assert current_scores(after)[0].points == 5


def test_R17_new_colonisation_draws_tiles_placed_freely_until_an_island_then_one_boat():
    state = given(tiles=[TONGA], boats={"tonga": "b|b|r|||"})
    events, state = when(state, cmd.NewColonisation(), "ocean3", "ocean5", "hawaii")
    assert names(events) == ["NewColonyFounded", "TileDrawn"]
    assert state.islands["tonga"].count("blue") == 0 and state.supply["blue"] == 15
    assert state.pending == TilePlacement("blue", "ocean3", None, "R17")
    options = legal_commands(state)
    assert len(options) == 36 and cmd.PlaceTile("ocean3", (0, 1), 2) in options  # 6 cells × 6
    rejects(state, cmd.PlaceTile("ocean3", (0, 0), 0), "cell_not_free", "R17")
    rejects(state, cmd.PlaceTile("ocean3", (5, 5), 0), "cell_not_free", "R17")
    rejects(state, cmd.PlaceTile("ocean5", (0, 1), 0), "wrong_tile", "R17")
    events, state = when(state, cmd.PlaceTile("ocean3", (0, 1), 2), "ocean5", "hawaii")
    assert names(events) == ["TilePlaced", "TileDrawn"]
    events, state = when(state, cmd.PlaceTile("ocean5", (0, 2), 0), "hawaii")
    events, state = when(state, cmd.PlaceTile("hawaii", (1, 2), 4))
    assert names(events) == ["TilePlaced"]
    assert state.pending == ColonistPlacement("blue", "hawaii")
    events, state = when(state, cmd.PlaceColonist("hawaii", 1))
    assert events[0] == BoatsPlaced("blue", "hawaii", (1,), rule="R17")
    assert isinstance(events[-1], TurnEnded)
    assert {c: t.tile for c, t in state.tiles.items()} == {
        (0, 0): "tonga",
        (0, 1): "ocean3",
        (0, 2): "ocean5",
        (1, 2): "hawaii",
    }  # the ocean tiles stay on the table


def test_R17_is_allowed_at_any_time_even_with_boats_on_the_board():
    state = given(tiles=[TONGA], boats={"tonga": "b|||||"})
    assert cmd.NewColonisation() in legal_commands(state)
    events, _ = when(state, cmd.NewColonisation(), "tahiti")
    placed = [e for e in events if isinstance(e, TilePlaced)]
    assert placed == []  # the drawn tile waits for the player's placement
