"""The pure folds of projections/: descriptions, steps, scoreboard, results."""

from __future__ import annotations

import pytest

from domain import events as ev
from domain.fold import evolve, replay
from domain.state import GameState
from domain.tiles import OCEAN_TILES, display_name
from projections.describe import beach_name, describe
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
        f"The fleet (3 colours) cannot pass a danger-4 path on {display_name(OCEAN)}:"
        " its boats go home"
    )
    calm = ev.FleetSailed(OCEAN, (0, 1), 0, 3, 0, 1, ("red",))
    assert (
        describe(calm, GameState())
        == f"The fleet (1 colour) sails a calm path on {display_name(OCEAN)}"
    )


def test_adding_boats_names_colour_count_and_island():
    added = ev.BoatsAdded("blue", "tahiti", (0, 2))
    assert describe(added, GameState()) == "Blue adds 2 boats to Tahiti"


def test_R19_a_departure_offered_because_the_search_budget_ran_out_says_so_in_the_timeline():
    fleet = ("blue", "blue", "red")
    proved = ev.EmigrationStarted("blue", "tonga", 0, 0, 0, fleet)
    assert describe(proved, GameState()) == (
        "Blue emigrates from Tonga, the south beach, sailing south with 2 Blue, 1 Red"
    )
    unproved = ev.EmigrationStarted(
        "blue", "tonga", 0, 0, 0, fleet, search_exhausted=True, search_budget=10_000
    )
    assert describe(unproved, GameState()).endswith(
        "(offered without proof: the R19 search reached its budget of 10,000 arrangements"
        " before finding an end)"
    )


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
            assert entry["winners"] == []
    assert entry["status"] == "ended" and entry["active_player"] is None
    assert entry["winners"] == list(state.result.winners) and entry["winners"]  # R23


def test_beaches_are_named_by_where_they_face_never_by_an_index():
    # Tonga (R3) has six beaches, each facing one of six compass points
    names = [beach_name(GameState(), "tonga", b) for b in range(6)]
    assert len(set(names)) == 6 and not any(ch.isdigit() for n in names for ch in n)
    placed = ev.StartingBoatPlaced("red", 3, 1)
    assert describe(placed, GameState()) == "Red places a starting boat on Tonga, the north beach"


def test_a_placed_tile_is_said_to_lie_beside_a_tile_already_on_the_table():
    game = simulated(7, players=2)
    state = GameState()
    seen = 0
    for e in game.events:
        if isinstance(e, ev.TilePlaced):
            line = describe(e, state)
            assert " of " in line and "[" not in line and "rotation" not in line, line
            seen += 1
        state = evolve(state, e)
    assert seen > 0


def test_every_event_type_is_told_in_words():
    """The descriptions are a table, an entry for each event type (issue 27)."""
    import typing

    from projections.describe import WORDS

    untold = [t.__name__ for t in typing.get_args(ev.Event) if t not in WORDS]
    assert untold == []
    assert set(WORDS) == set(typing.get_args(ev.Event)) == set(ev.EVENT_TYPES)


def test_the_clock_events_are_told_in_words_and_belong_to_their_seat():
    """Reclaiming and resigning happen whoever's turn it is: the step is the seat's
    colour, not the colour to play (docs/clocks.md, C3-C7)."""
    from tests.domain.gwt import given

    state = given(players=["blue", "red", "green"], tiles=[])  # blue to play
    lines = {
        ev.TurnTimedOut("blue", 1, "p1", 2): "Blue's time ran out, 2 times in a row: the bot"
        " plays this decision (C3)",
        ev.SeatMarkedAbsent(2, "p2", 3): "Red is absent after 3 timeouts in a row: the bot"
        " plays every decision until they take the seat back (C4)",
        ev.TimeoutStreakEnded(1, "p1"): "Blue plays again after timing out (C4)",
        ev.SeatPlayedByBot("red", 2, "absent"): "The bot plays for Red, who is absent (C5)",
        ev.SeatReclaimed(2, "p2"): "Red takes the seat back from the bot (C5)",
        ev.PlayerResigned(3, "p3", ("green",)): "Green resigns: the bot plays on for them, and"
        " they rank last (C6)",
    }
    for event, line in lines.items():
        assert describe(event, state) == line
    once = describe(ev.SeatMarkedAbsent(2, "p2", 1), state)
    assert once.startswith("Red is absent after 1 timeout in a row:")
    # the last seat a person plays times out: the game ends, nobody plays for it (C7)
    import dataclasses

    alone = dataclasses.replace(
        state,
        options=dataclasses.replace(state.options, absent_after=1),
        resigned=frozenset({2, 3}),
    )
    assert describe(ev.TurnTimedOut("blue", 1, "p1", 1), alone) == (
        "Blue's time ran out: nobody is left to play (C7)"
    )
    assert step(9, ev.SeatReclaimed(2, "p2"), state, {}, None).colour == "red"
    assert step(9, ev.PlayerResigned(3, "p3", ("green",)), state, {}, None).colour == "green"
    assert step(9, ev.TurnTimedOut("blue", 1, "p1", 1), state, {}, None).colour == "blue"
    ended = ev.GameEnded("last_island_drawn", (), ("p1",), "none", resigned=("p3",))
    assert describe(ended, state).endswith("; Green resigned and ranks last (C6)")


def test_a_your_move_notice_names_the_colour_when_a_player_has_two():
    """R5: with two colours each, "It is your move" says which of the two moves (a probe
    found the notifications saying only "It is your move.")."""
    from domain.simulation import play
    from projections.models import notices

    def told(game) -> list[str]:  # type: ignore[no-untyped-def]
        found = notices(
            replay([]), [(i + 1, {"command_id": str(i)}, e) for i, e in enumerate(game.events)]
        )
        return [n["text"] for n in found if n["kind"] == "your_move"]

    two = told(play(5, 2, two_colours_each=True))
    assert two and all(t.startswith("It is your move with ") for t in two)
    assert len(set(two)) >= 3  # each colour of the table, by name
    assert set(told(play(5, 2))) == {"It is your move."}
