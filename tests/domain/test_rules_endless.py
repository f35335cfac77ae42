"""R18–R20: endless chain reactions and what follows them.

The scenarios surround an island at (0,0) with ocean tiles whose unnumbered
paths lead every fleet that leaves through certain directions straight back
home: direction k enters the cell beyond it, turns towards the cell beyond
direction k+1, and comes back (and the other way round).
"""

import pytest

from domain import commands as cmd
from domain.events import ChainDeclaredEndless, IslandRemoved, TileDrawn, TurnEnded
from domain.legal import legal_commands
from domain.state import Landing, TilePlacement
from tests.domain import r19_reference
from tests.domain.gwt import given, names, only, rejects, rotation_joining, when


def ring(*pairs: int) -> list[list]:
    """Ocean tiles making directions k and k+1 loop back to (0,0), for each k in ``pairs``."""
    oceans = iter(["ocean13", "ocean1", "ocean2", "ocean4", "ocean14", "ocean15"])
    steps = [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)]
    tiles = []
    for k in pairs:
        left, right = steps[k], steps[(k + 1) % 6]
        a, b = next(oceans), next(oceans)
        tiles.append([f"{left[0]},{left[1]}", a, rotation_joining(a, (k + 2) % 6, (k + 3) % 6)])
        tiles.append([f"{right[0]},{right[1]}", b, rotation_joining(b, (k + 4) % 6, (k + 5) % 6)])
    return tiles


def test_a_loop_route_that_can_still_end_the_chain_is_offered_and_lands_back_home():
    state = given(
        tiles=[["0,0", "rarotonga", 0], *ring(1)],
        boats={"rarotonga": "bbb|b"},
        pending={"kind": "choose_emigration", "colour": "blue"},
    )
    assert legal_commands(state) == [
        cmd.Emigrate("rarotonga", 0, 1),
        cmd.Emigrate("rarotonga", 0, 2),
    ]
    events, state = when(state, cmd.Emigrate("rarotonga", 0, 1))
    assert names(events) == [
        "EmigrationStarted",
        "FleetSailed",
        "FleetSailed",
        "FleetReachedIsland",
    ]
    assert state.pending == Landing("blue", "rarotonga", ("blue",) * 3)
    events, state = when(state, cmd.Land("rarotonga", (("blue", "blue"), ("blue",))))
    assert isinstance(events[-1], TurnEnded)


def test_R19a_a_departure_is_not_repeated_from_the_same_board_in_one_turn():
    board = {"rarotonga": "bbb|b"}
    made = ["rarotonga", 0, 1, {k: v for k, v in board.items()}]
    state = given(
        tiles=[["0,0", "rarotonga", 0], *ring(1)],
        boats=board,
        departures=[made],
        pending={"kind": "choose_emigration", "colour": "blue"},
    )
    assert legal_commands(state) == [cmd.Emigrate("rarotonga", 0, 2)]
    rejects(state, cmd.Emigrate("rarotonga", 0, 1), "repeated_departure", "R19")


def test_R19b_an_island_whose_every_departure_loops_forever_leaves_the_game():
    # Tubuai: beach 0 leaves SW/NW, beach 1 NE/SE; all four directions loop home.
    state = given(
        tiles=[["5,-5", "tonga", 0], ["0,0", "tubuai", 0], *ring(1, 4)],
        boats={"tubuai": "bb|bb", "tonga": "|r||||"},
    )
    events, state = when(state, cmd.Expand("tubuai", (0, 1)), "hawaii")
    assert names(events)[:4] == ["BoatsAdded", "ChainDeclaredEndless", "IslandRemoved", "TileDrawn"]
    assert only(events, ChainDeclaredEndless).islands == ("tubuai",)
    removed = only(events, IslandRemoved)
    assert (removed.island, removed.cell, removed.returned) == ("tubuai", (0, 0), ("blue",) * 6)
    assert "tubuai" in state.removed and (0, 0) not in state.tiles
    assert state.supply["blue"] == 15


def test_R19_only_islands_still_holding_a_full_beach_are_removed():
    state = given(
        tiles=[["5,-5", "tonga", 0], ["0,0", "tubuai", 0], *ring(1, 4)],
        boats={"tubuai": "bbb|rrr", "tonga": "bbr|b||||"},
        pending={"kind": "choose_emigration", "colour": "blue"},
    )
    # Tubuai's departures are never offered: they cannot end the chain (R18).
    assert legal_commands(state) == [cmd.Emigrate("tonga", 0, 0)]
    rejects(state, cmd.Emigrate("tubuai", 0, 1), "endless_departure", "R18")
    events, state = when(state, cmd.Emigrate("tonga", 0, 0), "ocean7")
    assert names(events)[-4:] == [
        "ExpeditionFailed",
        "ChainDeclaredEndless",
        "IslandRemoved",
        "TurnEnded",
    ]
    assert set(state.islands) == {"tonga"}  # blue still has a boat on Tonga: no R20


def test_R20_with_no_boat_left_the_player_draws_until_an_island_and_places_no_boat():
    state = given(tiles=[["0,0", "tubuai", 0], *ring(1, 4)], boats={"tubuai": "bb|bb"})
    events, state = when(state, cmd.Expand("tubuai", (0, 1)), "ocean16", "hawaii")
    assert only(events, TileDrawn).rule == "R20"
    assert state.pending == TilePlacement("blue", "ocean16", None, "R20")
    assert not state.islands  # the only island left the game
    events, state = when(state, cmd.PlaceTile("ocean16", (0, 0), 0), "hawaii")
    assert names(events) == ["TilePlaced", "TileDrawn"]
    events, state = when(state, cmd.PlaceTile("hawaii", (0, 1), 1))
    assert names(events) == ["TilePlaced", "TurnEnded"]
    assert state.islands["hawaii"].beaches == ((), (), ())
    assert state.boats_on_board("blue") == 0


def crowded_tonga():
    """Turn 40 of a 4-player game (seed 1187): a long chain on a crowded Tonga."""
    import json
    from pathlib import Path

    from domain import position

    data = Path(__file__).parent.parent / "data" / "crowded-tonga-chain.json"
    return position.load(json.loads(data.read_text()))


def count_generated(monkeypatch) -> list[int]:
    """Arrangements each R19 (b) search generates, one entry per search."""
    from domain import endless

    generated: list[int] = []
    landings = endless._IslandSearch.landings

    def counting(self, beaches, beach):
        for arrangement in landings(self, beaches, beach):
            generated[-1] += 1
            yield arrangement

    search = endless._loop_can_end

    def one_search(*args):
        generated.append(0)
        return search(*args)

    monkeypatch.setattr(endless._IslandSearch, "landings", counting)
    monkeypatch.setattr(endless, "_loop_can_end", one_search)
    return generated


CROWDED_OPTIONS = [
    cmd.Emigrate("tonga", 0, 0),
    cmd.Emigrate("tonga", 2, 2),
    cmd.Emigrate("tonga", 5, 5),
]


def test_R19b_on_a_crowded_island_the_search_finds_the_few_deep_ways_out(monkeypatch):
    """Ways out of this chain lie a few emigrations deep, among hundreds of landings
    each: the depth-first search of engine 1.1.0 ran into its 10,000-arrangement
    bound on every departure here. The guided search, led by how close an
    arrangement looks to an end, finds an end for each."""
    from domain import endless

    generated = count_generated(monkeypatch)
    monkeypatch.setattr(endless, "DIVE_LIMIT", 0)  # the guided search alone
    assert legal_commands(crowded_tonga()) == CROWDED_OPTIONS
    assert len(generated) == 3
    # each answer was found, not given for want of time
    assert max(generated) < endless.SEARCH_LIMIT


def test_R19b_a_search_too_large_to_finish_is_bounded_and_gives_the_benefit_of_the_doubt(
    monkeypatch,
):
    from domain import endless

    generated = count_generated(monkeypatch)
    monkeypatch.setattr(endless, "SEARCH_LIMIT", 100)
    monkeypatch.setattr(endless, "DIVE_LIMIT", 0)  # the dive gives up at once
    # every full Tonga beach may still leave: no search could show the chain endless
    assert legal_commands(crowded_tonga()) == CROWDED_OPTIONS
    # each search stopped at the bound, after the one landing the dive tried
    assert generated == [1 + 101] * 3


def test_R19b_a_search_depends_on_the_position_alone_never_on_what_a_process_judged_before(
    monkeypatch,
):
    """Nothing a search learns outlives its decision: judging the same position
    again, after other positions (and so in any process), costs the same searches
    and gives the same answers, so whether a search reached its budget (recorded
    in the event) is a fact of the position."""
    from domain.simulation import play

    generated = count_generated(monkeypatch)
    assert legal_commands(crowded_tonga()) == CROWDED_OPTIONS
    first = list(generated)
    assert len(first) == 3 and min(first) > 1
    play(238, 3)  # a game with chains shown endless: its searches leave nothing behind
    del generated[:]
    assert legal_commands(crowded_tonga()) == CROWDED_OPTIONS  # a new state, no memo
    assert generated == first


@pytest.mark.parametrize("players, seed", [(3, 238), (5, 2303), (6, 2178)])
def test_R19b_the_search_order_changes_the_cost_never_the_answer(players, seed):
    """At every emigration choice of games with chains shown endless, the engine's
    search (the dive, then the guided search) judges every looping departure as an
    independent, unbounded reference written from the rule does (the guided search
    alone too, None meaning the benefit of the doubt), and the count that spares
    most searches agrees with trying the landings one by one."""
    from domain import endless
    from domain.fold import replay
    from domain.simulation import play
    from domain.state import ChooseEmigration
    from domain.tiles import island
    from domain.voyage import RouteEnd, preview

    game = play(seed, players)
    state = replay(())
    answers = set()
    shortcuts = set()
    for event in game.events:
        state = replay((event,), state)
        if not isinstance(state.pending, ChooseEmigration):
            continue
        for isl, beach in state.full_beaches():
            colours = len(set(isl.beaches[beach]))
            for jetty in island(isl.tile).beaches[beach].jetties:
                if preview(state, isl.tile, jetty, colours).end is not RouteEnd.LOOP:
                    continue
                fresh = replay((), state)  # nothing remembered from other searches
                answer = endless._loop_can_end(fresh, fresh.islands[isl.tile], beach, jetty)
                # the rule itself, searched the plain way (tests/domain/r19_reference.py)
                assert answer is None or answer == r19_reference.can_end(
                    state, isl.tile, beach, jetty
                )
                answers.add(answer)
                # the guided search alone, without the dive before it
                fresh = replay((), state)
                alone = endless._IslandSearch(fresh, fresh.islands[isl.tile], beach, jetty)
                assert endless._guided(alone, beach, endless.SEARCH_LIMIT) in (answer, None)
                # the shortcut by counting says whether one landing leaves no beach full
                search = endless._IslandSearch(state, isl, beach, jetty)
                at_once = any(
                    all(len(b) < cap for b, cap in zip(landed, search.caps, strict=True))
                    for landed in search.landings(isl.beaches, beach)
                )
                assert endless._lands_with_no_beach_full(isl, beach) == at_once
                shortcuts.add(at_once)
    assert answers == {True, False}  # chains that can end, and chains that cannot
    assert shortcuts == {True, False}


@pytest.mark.parametrize("players, seed", [(3, 238), (3, 456), (5, 2303), (6, 2178)])
def test_R19b_what_other_searches_learnt_never_changes_which_departures_are_offered(players, seed):
    """Games with chains shown endless: at every emigration choice, each departure
    judged alone, on a fresh state and without witnesses, is offered exactly when
    it is offered together with the others, with the witnesses of their searches."""
    from domain import endless
    from domain.fold import replay
    from domain.simulation import play
    from domain.state import ChooseEmigration
    from domain.tiles import island

    game = play(seed, players)
    state = replay(())
    judged = endless_seen = 0
    for event in game.events:
        state = replay((event,), state)
        if not isinstance(state.pending, ChooseEmigration):
            continue
        together = endless.departure_options(state)
        alone = []
        for isl, beach in state.full_beaches():
            for jetty in island(isl.tile).beaches[beach].jetties:
                fresh = replay((), state)  # the same position, nothing remembered
                if endless._allowed(fresh, fresh.islands[isl.tile], beach, jetty) is not False:
                    alone.append(cmd.Emigrate(isl.tile, beach, jetty))
                else:
                    endless_seen += 1
        assert together == alone
        judged += 1
    assert judged and endless_seen  # the game had departures ruled out


def test_R19b_R13_the_count_of_free_slots_says_whether_a_returning_fleet_can_land_leaving_no_beach_full():
    """Every island, every way of filling its beaches with one of them full: the
    shortcut agrees with trying every R13 landing of that beach's fleet."""
    from itertools import product

    from domain import endless
    from domain.landing import distributions_on, landed
    from domain.state import CAPACITIES, IslandState

    palette = ("blue", "red", "green", "yellow")
    tried = answers = 0
    for tile, caps in CAPACITIES.items():
        for counts in product(*(range(c + 1) for c in caps)):
            for beach, cap in enumerate(caps):
                if counts[beach] != cap:
                    continue
                # colours do not matter to the answer; vary them anyway
                beaches = tuple(
                    tuple(sorted(palette[(i + k) % len(palette)] for k in range(n)))
                    for i, n in enumerate(counts)
                )
                isl = IslandState(tile, (0, 0), 0, beaches)
                emptied = (*beaches[:beach], (), *beaches[beach + 1 :])
                at_once = any(
                    all(len(b) < c for b, c in zip(landed(emptied, d), caps, strict=True))
                    for d in distributions_on(tile, emptied, beaches[beach])
                )
                assert endless._lands_with_no_beach_full(isl, beach) == at_once, (tile, counts)
                tried += 1
                answers += at_once
    assert tried > 1000 and 0 < answers < tried


def test_R19b_a_departure_offered_because_the_search_budget_ran_out_says_so_in_its_event(
    monkeypatch,
):
    """The budget is part of the rule (docs/rules.md, R19): a departure offered
    without proof records ``search_exhausted`` and the budget in its event; one
    the search proved records neither field (its bytes are as engine 1.1 wrote)."""
    from domain import endless
    from domain.events import EmigrationStarted
    from domain.serialization import decode_event, encode

    started = only(when(crowded_tonga(), CROWDED_OPTIONS[0])[0], EmigrationStarted)
    assert not started.search_exhausted and started.search_budget == 0
    assert "search_exhausted" not in encode(started) and "search_budget" not in encode(started)

    monkeypatch.setattr(endless, "SEARCH_LIMIT", 100)
    monkeypatch.setattr(endless, "DIVE_LIMIT", 0)
    state = crowded_tonga()
    assert legal_commands(state) == CROWDED_OPTIONS
    assert all(endless.search_exhausted(state, d) == 100 for d in CROWDED_OPTIONS)
    started = only(when(state, CROWDED_OPTIONS[0])[0], EmigrationStarted)
    assert started.search_exhausted and started.search_budget == 100
    data = encode(started)
    assert data["search_exhausted"] is True and data["search_budget"] == 100
    assert decode_event(data) == started


def test_R19b_a_departure_the_search_proved_is_not_marked_even_when_others_ran_out(monkeypatch):
    """Only the departures whose own search reached the budget are marked: a loop
    whose fleet can land home leaving no beach full (counted, not searched) is
    offered by proof, never by want of time, however small the budget."""
    from domain import endless

    monkeypatch.setattr(endless, "SEARCH_LIMIT", 100)
    monkeypatch.setattr(endless, "DIVE_LIMIT", 0)
    state = given(
        tiles=[["0,0", "tonga", 0], *ring(0)],
        boats={"tonga": "bbr|||||"},
        pending={"kind": "choose_emigration", "colour": "blue"},
    )
    for departure in legal_commands(state):
        assert endless.search_exhausted(state, departure) is None
