"""R9–R15: full beaches emigrate, fleets sail, dangers, landings, chain reactions."""

from domain import commands as cmd
from domain.events import (
    BoatsLanded,
    EmigrationStarted,
    ExpeditionFailed,
    FleetReachedIsland,
    FleetSailed,
    FleetTurnedBack,
    TileDrawn,
    TilePlaced,
    TurnEnded,
)
from domain.legal import legal_commands
from domain.state import ChooseEmigration, Landing, TilePlacement
from tests.domain.gwt import given, names, only, rejects, when

TONGA = ["0,0", "tonga", 0]


def full_tonga(boats="bbr|||||", **kw):
    """Blue to play, Tonga's beach 0 full and waiting to emigrate."""
    return given(
        tiles=kw.pop("tiles", [TONGA]),
        boats={"tonga": boats, **kw.pop("boats", {})},
        pending={"kind": "choose_emigration", "colour": "blue"},
        **kw,
    )


def test_R9_the_active_player_chooses_which_full_beach_and_jetty_go_first():
    state = full_tonga("bbr|rrb||||")
    assert legal_commands(state) == [cmd.Emigrate("tonga", 0, 0), cmd.Emigrate("tonga", 1, 1)]
    rejects(state, cmd.Emigrate("tonga", 2, 2), "beach_not_full", "R9")
    rejects(state, cmd.Emigrate("tonga", 0, 3), "no_such_jetty", "R9")


def test_R10_all_boats_of_the_beach_leave_as_one_fleet_and_the_beach_is_empty():
    state = full_tonga("bbr|||||")
    events, after = when(state, cmd.Emigrate("tonga", 0, 0), "ocean7")
    started = only(events, EmigrationStarted)
    assert started.fleet == ("blue", "blue", "red") and started.direction == 0
    assert after.islands["tonga"].beaches[0] == ()


def test_R11_a_drawn_tile_is_placed_with_its_red_mark_facing_back_and_followed():
    state = full_tonga("bbb|||||")
    events, after = when(state, cmd.Emigrate("tonga", 0, 0), "ocean13", "tahiti")
    assert names(events) == [
        "EmigrationStarted",
        "TileDrawn",
        "TilePlaced",
        "FleetSailed",
        "TileDrawn",
        "TilePlaced",
        "FleetReachedIsland",
    ]
    placed = [e for e in events if isinstance(e, TilePlaced)]
    # S (0) into (0,1): rotation 3; ocean13 0-5 leaves by local 5 = world NW (2);
    # then into (-1,1): rotation 5
    assert [(p.tile, p.cell, p.rotation) for p in placed] == [
        ("ocean13", (0, 1), 3),
        ("tahiti", (-1, 1), 5),
    ]
    sailed = only(events, FleetSailed)
    assert (sailed.entry_edge, sailed.exit_edge, sailed.danger) == (0, 5, 0)
    assert after.pending == Landing("blue", "tahiti", ("blue", "blue", "blue"))
    assert only(events, FleetReachedIsland).cell == (-1, 1)
    assert [e.draw for e in events if isinstance(e, TileDrawn)] == [1, 2]


def test_R11_a_fleet_follows_tiles_already_on_the_table_without_drawing():
    tiles = [TONGA, ["0,1", "ocean13", 0], ["1,0", "tubuai", 0]]
    state = full_tonga("bbb|||||", tiles=tiles)
    events, after = when(state, cmd.Emigrate("tonga", 0, 0))
    # entering ocean13 (rotation 0) moving S: local edge 3, path 3-4, leaves NE into Tubuai
    assert names(events) == ["EmigrationStarted", "FleetSailed", "FleetReachedIsland"]
    assert after.pending.island == "tubuai"


def test_R11_rody_variant_the_second_tile_of_a_voyage_is_oriented_by_the_player():
    state = full_tonga("bbb|||||", options={"free_orientation_after_first": True})
    events, after = when(state, cmd.Emigrate("tonga", 0, 0), "ocean13", "tahiti")
    assert names(events)[-2:] == ["FleetSailed", "TileDrawn"]
    assert after.pending == TilePlacement("blue", "tahiti", (-1, 1), "R11")
    assert legal_commands(after) == [cmd.PlaceTile("tahiti", (-1, 1), r) for r in range(6)]
    rejects(after, cmd.PlaceTile("tahiti", (0, 2), 4), "wrong_cell", "R11")
    events, final = when(after, cmd.PlaceTile("tahiti", (-1, 1), 4))
    assert events[0] == TilePlaced("tahiti", (-1, 1), 4)
    assert final.pending.island == "tahiti" and final.tiles[(-1, 1)].rotation == 4


def test_R12_worked_example_a_yellow_fleet_of_3_colours_fails_a_4_path():
    state = given(
        players=["yellow", "blue", "red"],
        tiles=[TONGA],
        boats={"tonga": "bry|||||"},
        pending={"kind": "choose_emigration", "colour": "yellow"},
    )
    events, after = when(state, cmd.Emigrate("tonga", 0, 0), "ocean7")
    failed = only(events, ExpeditionFailed)
    assert (failed.danger, failed.colours, failed.tile) == (4, 3, "ocean7")
    assert after.supply == {"yellow": 15, "blue": 15, "red": 15}  # the boats went home
    assert isinstance(events[-1], TurnEnded)


def test_R12_an_unnumbered_path_is_passable_even_for_one_colour():
    state = full_tonga("bbb|||||")
    events, _ = when(state, cmd.Emigrate("tonga", 0, 0), "ocean13", "tahiti")
    assert only(events, FleetSailed).danger == 0 and only(events, FleetSailed).colours == 1


def test_R12_a_fleet_with_enough_colours_passes_a_numbered_path():
    state = full_tonga("bgr|||||", players=["blue", "red", "green"])
    # ocean3 placed with rotation 3: enters local 0, path 0-1 danger 3
    events, _ = when(state, cmd.Emigrate("tonga", 0, 0), "ocean3", "tahiti")
    sailed = only(events, FleetSailed)
    assert (sailed.danger, sailed.colours) == (3, 3)


def test_R12_after_a_failure_the_other_full_beaches_still_emigrate():
    state = full_tonga("bbr|rrb||||")
    events, after = when(state, cmd.Emigrate("tonga", 0, 0), "ocean7")
    assert isinstance(events[-1], ExpeditionFailed)
    assert after.pending == ChooseEmigration("blue")
    assert legal_commands(after) == [cmd.Emigrate("tonga", 1, 1)]


def landing(boats, fleet):
    return given(
        tiles=[TONGA, ["0,1", "tubuai", 3], ["2,2", "nauru", 0]],
        boats={"tonga": "b|r||||", **boats},
        voyage={
            "origin": "tonga",
            "fleet": fleet,
            "cell": "0,1",
            "direction": 0,
            "route": ["0,0", "0,1"],
            "tiles_drawn": 0,
        },
        pending={"kind": "landing", "colour": "blue", "island": next(iter(boats)), "fleet": fleet},
    )


def test_R13_first_one_boat_on_each_beach_with_a_free_slot_then_the_rest_freely():
    state = landing({"tubuai": "|"}, ["blue", "blue", "red"])
    options = legal_commands(state)
    assert sorted(o.beaches for o in options) == sorted(
        [
            (("blue",), ("blue", "red")),
            (("red",), ("blue", "blue")),
            (("blue", "blue"), ("red",)),
            (("blue", "red"), ("blue",)),
        ]
    )
    rejects(state, cmd.Land("tubuai", (("blue", "blue", "red"), ())), "landing_not_spread", "R13")


def test_R13_a_fleet_smaller_than_the_free_beaches_sends_each_boat_to_a_different_beach():
    state = landing({"nauru": "||"}, ["blue", "red"])
    options = legal_commands(state)
    assert all(max(len(b) for b in o.beaches) == 1 for o in options)
    assert len(options) == 6  # 3 beaches for the blue boat × 2 left for the red one
    rejects(state, cmd.Land("nauru", (("blue", "red"), (), ())), "landing_not_spread", "R13")


def test_R13_boats_without_a_free_slot_go_home_and_the_player_chooses_which():
    state = landing({"tubuai": "bb|rr"}, ["blue", "red", "green"])
    options = legal_commands(state)
    returned = sorted(
        {
            tuple(sorted({"blue", "red", "green"} - {c for b in o.beaches for c in b}))
            for o in options
        }
    )
    assert returned == [("blue",), ("green",), ("red",)]
    events, after = when(state, cmd.Land("tubuai", (("green",), ("red",))))
    assert only(events, BoatsLanded).returned == ("blue",)
    assert after.supply["blue"] == state.supply["blue"] + 1


def test_R13_landing_must_put_down_every_boat_that_has_a_slot():
    state = landing({"tubuai": "|"}, ["blue", "blue", "red"])
    rejects(state, cmd.Land("tubuai", (("blue",), ("red",))), "landing_boats_left_behind", "R13")
    rejects(state, cmd.Land("tubuai", (("green",), ("blue", "red"))), "landing_not_in_fleet", "R13")
    rejects(state, cmd.Land("tubuai", (("blue",),)), "landing_shape", "R13")
    rejects(state, cmd.Land("nauru", ((), (), ())), "wrong_island", "R13")


def test_R13_colours_already_on_the_island_play_no_role():
    mine = landing({"tubuai": "b|b"}, ["red", "red"])
    theirs = landing({"tubuai": "g|g"}, ["red", "red"])
    assert legal_commands(mine) == legal_commands(theirs)


def test_R14_a_chain_reaction_runs_across_several_islands_until_no_beach_is_full():
    tiles = [TONGA, ["0,1", "tubuai", 3], ["1,0", "nauru", 0]]
    state = given(tiles=tiles, boats={"tonga": "bb|b||||", "tubuai": "b|rr"})
    events, state = when(state, cmd.Expand("tonga", (0, 2, 3)))
    assert legal_commands(state) == [cmd.Emigrate("tonga", 0, 0)]
    events, state = when(state, cmd.Emigrate("tonga", 0, 0))
    assert only(events, FleetReachedIsland).island == "tubuai"
    assert legal_commands(state) == [cmd.Land("tubuai", (("blue", "blue"), ("blue",)))]
    events, state = when(state, cmd.Land("tubuai", (("blue", "blue"), ("blue",))))
    assert state.islands["tubuai"].full_beaches() == [0, 1]
    # Tubuai (rotation 3): beach 0 leaves NE/SE, beach 1 SW/NW
    assert legal_commands(state) == [
        cmd.Emigrate("tubuai", 0, 1),
        cmd.Emigrate("tubuai", 0, 2),
        cmd.Emigrate("tubuai", 1, 4),
        cmd.Emigrate("tubuai", 1, 5),
    ]
    events, state = when(state, cmd.Emigrate("tubuai", 0, 1))
    assert only(events, FleetReachedIsland).island == "nauru"
    events, state = when(state, cmd.Land("nauru", (("blue",), ("blue",), ("blue",))))
    assert names(events) == ["BoatsLanded"]  # Tubuai's beach 1 is still full
    events, state = when(state, cmd.Emigrate("tubuai", 1, 4), "ocean7")
    assert names(events) == [
        "EmigrationStarted",
        "TileDrawn",
        "TilePlaced",
        "ExpeditionFailed",
        "TurnEnded",
    ]
    assert not state.has_full_beach()


def test_R15_a_fleet_meeting_a_royal_island_turns_back_and_lands_on_its_own_island():
    tiles = [TONGA, ["0,1", "ocean13", 0], ["1,0", "samoa", 0]]
    state = full_tonga("bbr|||||", tiles=tiles, kings={"samoa": "red"})
    events, after = when(state, cmd.Emigrate("tonga", 0, 0))
    assert names(events) == ["EmigrationStarted", "FleetSailed", "FleetTurnedBack"]
    back = only(events, FleetTurnedBack)
    assert (back.royal_island, back.to_island, back.route) == (
        "samoa",
        "tonga",
        ((0, 0), (0, 1), (1, 0)),
    )
    assert after.pending == Landing("blue", "tonga", ("blue", "blue", "red"))


def test_R15_interpretation_the_way_home_makes_no_new_danger_check():
    # ocean14 (all paths danger 2) in rotation 0: a two-colour fleet passes out; nothing is
    # checked on the way back: the landing follows FleetTurnedBack directly.
    tiles = [TONGA, ["0,1", "ocean14", 0], ["1,0", "samoa", 0]]
    state = full_tonga("bbr|||||", tiles=tiles, kings={"samoa": "red"})
    events, after = when(state, cmd.Emigrate("tonga", 0, 0))
    assert [e.danger for e in events if isinstance(e, FleetSailed)] == [2]
    assert names(events)[-1] == "FleetTurnedBack"
    assert isinstance(after.pending, Landing) and after.pending.island == "tonga"
