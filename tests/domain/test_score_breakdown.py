"""The score explained island by island (R5, R16, R22): the breakdown the end screen
shows is the count the game's score is made of."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.scoring import island_scores, separated_by
from domain.simulation import play
from domain.state import GameState
from domain.tiles import island
from tests.domain import gwt
from tests.domain.test_rules_end import TWO_COLOURS, T


def totals(found) -> dict[str, int]:
    points: dict[str, int] = {}
    for item in found:
        for player_id, earned in item.points:
            points[player_id] = points.get(player_id, 0) + earned
    return points


def by_hand(state: GameState, as_seats: bool) -> dict[str, list[tuple[str, int]]]:
    """Each island's points counted again from the beaches and kings, per player."""
    found: dict[str, list[tuple[str, int]]] = {}
    for isl in state.islands.values():
        on = {c for beach in isl.beaches for c in beach} | {isl.king} - {None}
        rows = []
        for p in state.players:
            mine = len(on & set(p.colours))
            if mine:
                rows.append((p.player_id, island(isl.tile).value * (mine if as_seats else 1)))
        if on:
            found[isl.tile] = rows
    return found


def test_R22_each_island_names_its_value_the_colours_on_it_and_what_each_player_gets():
    state = gwt.given(
        tiles=[T, ["0,1", "samoa", 3], ["1,0", "tahiti", 0], ["-1,0", "nauru", 0]],
        boats={"tonga": "b|r||||", "tahiti": "bb|r|", "nauru": "||r"},
        kings={"samoa": "blue"},
    )
    found = {i.tile: i for i in island_scores(state)}
    assert found["tonga"].value == 0 and dict(found["tonga"].points) == {"p1": 0, "p2": 0}
    assert found["samoa"].king == "blue" and found["samoa"].boats == ()
    assert dict(found["samoa"].points) == {"p1": island("samoa").value}
    assert found["tahiti"].boats == (("blue", 2), ("red", 1))
    assert totals(found.values()) == {"p1": 9, "p2": 6}


def test_R5_an_island_holding_both_of_a_players_colours_gives_its_value_twice():
    state = gwt.given(
        players=TWO_COLOURS,
        tiles=[T, ["0,1", "hawaii", 3], ["1,0", "samoa", 0]],
        boats={"hawaii": "br||", "samoa": "g|y|", "tonga": "g|y||||"},
        kings={},
    )
    hawaii = next(i for i in island_scores(state) if i.tile == "hawaii")
    assert dict(hawaii.points) == {"ann": 10}
    assert totals(island_scores(state, colours_score_as_seats=False)) == {"ann": 5, "bob": 5}


games = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "players": st.integers(2, 6),
        "two": st.booleans(),
        "rody": st.booleans(),
    }
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_the_breakdown_of_any_whole_game_sums_to_the_scores_it_recorded(params):
    players = 2 if params["two"] else params["players"]
    game = play(
        params["seed"],
        players,
        two_colours_each=params["two"],
        free_orientation_after_first=params["rody"],
    )
    found = island_scores(game.state)
    recorded = game.state.result.scores
    earned = {k: v for k, v in totals(found).items() if v}
    assert earned == {s.player_id: s.points for s in recorded if s.points}
    assert {i.tile: list(i.points) for i in found} == by_hand(game.state, True)
    for item in found:
        assert item.value == island(item.tile).value
        assert all(n > 0 for _, n in item.boats)
    # each player after the first is placed behind the one before by some criterion (R23)
    for ahead, behind in pairwise(recorded):
        assert separated_by(ahead, behind) in ("none", "islands", "boats", "shared")
