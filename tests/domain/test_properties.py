"""Rule invariants over seeded random whole games (hypothesis), 2–6 players, both variants."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import commands as cmd
from domain import position
from domain.bots import RandomBot
from domain.errors import RuleViolation
from domain.fold import replay
from domain.forced import apply_forced
from domain.judge import apply
from domain.legal import legal_commands
from domain.simulation import setup_game
from domain.state import BOATS_PER_COLOUR, GameState, Phase, TurnStart
from domain.tiles import TILES, island

games = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "players": st.integers(2, 6),
        "rody": st.booleans(),
        "two": st.booleans(),
    }
)


def check_invariants(state: GameState) -> None:
    """Boat conservation, capacities, and no full beach at the start of a turn."""
    for colour in state.colours_in_play():
        total = (
            state.supply[colour]
            + state.boats_on_board(colour)
            + state.in_fleet(colour)
            + state.out[colour]
        )
        assert total == BOATS_PER_COLOUR, colour
        assert state.kings(colour) <= 2
    for isl in state.islands.values():
        for i, boats in enumerate(isl.beaches):
            assert len(boats) <= island(isl.tile).beaches[i].capacity
        if isl.king is not None:
            assert isl.beaches == tuple(() for _ in isl.beaches)
    if isinstance(state.pending, TurnStart):
        assert not state.has_full_beach()


def normalise(c: cmd.Command) -> cmd.Command:
    if isinstance(c, cmd.Expand | cmd.PlaceBoats):
        return dataclasses.replace(c, beaches=tuple(sorted(c.beaches)))
    if isinstance(c, cmd.Land):
        return dataclasses.replace(c, beaches=tuple(tuple(sorted(b)) for b in c.beaches))
    return c


def mutate(c: cmd.Command, rng: random.Random) -> cmd.Command:
    """A nearby command that may or may not be legal."""
    fields = dataclasses.fields(c)
    if not fields:
        return rng.choice([cmd.NewColonisation(), cmd.StartGame(), cmd.PlaceStartingBoat(1)])
    f = rng.choice(fields)
    value = getattr(c, f.name)
    if isinstance(value, int):
        new: object = rng.randint(-1, 7)
    elif isinstance(value, str):
        new = rng.choice(list(TILES))
    elif f.name == "beaches" and isinstance(c, cmd.Land):
        colours = ["blue", "red", "green", "yellow"]
        new = tuple(tuple(rng.sample(colours, rng.randint(0, 2))) for _ in value)
    elif f.name == "beaches":
        new = tuple(rng.sample(range(7), rng.randint(0, 3)))
    elif f.name == "cell":
        new = (rng.randint(-3, 3), rng.randint(-3, 3))
    else:
        new = None
    return dataclasses.replace(c, **{f.name: new})


def fields_of(state: GameState) -> dict[str, object]:
    """Every field of ``state`` (not its memo of derived facts)."""
    return {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}


def play_checked(params: dict[str, int | bool], probe: int) -> tuple[GameState, list]:
    """Play a random game, checking invariants and probing commands at every decision."""
    players = int(params["players"])
    two = bool(params["two"]) and players == 2
    events, state, deck = setup_game(
        int(params["seed"]),
        players,
        two_colours_each=two,
        free_orientation_after_first=bool(params["rody"]),
    )
    rng = random.Random(params["seed"])
    bot = RandomBot(rng)
    steps = 0
    while state.phase is not Phase.ENDED:
        forced, state = apply_forced(state, deck)
        events += forced
        check_invariants(state)
        if state.phase is Phase.ENDED:
            break
        options = legal_commands(state)
        assert options, state.pending
        legal = {normalise(c) for c in options}
        before = position.text(state)
        fields = fields_of(state)
        for c in rng.sample(options, min(probe, len(options))):
            apply(state, c, deck)  # every listed command is accepted
        for _ in range(probe):
            wrong = mutate(rng.choice(options), rng)
            try:
                apply(state, wrong, deck)
            except RuleViolation:
                continue
            assert normalise(wrong) in legal, wrong  # accepted only if legal
        assert position.text(state) == before  # nothing a command did changed the state
        assert fields_of(state) == fields  # nor any field the position text leaves out
        new, after = apply(state, bot.choose(state), deck)
        assert after is not state and fields_of(state) == fields  # decide folds into a copy
        state = after
        events += new
        check_invariants(state)
        steps += 1
        assert steps < 5_000, "the game must end"
    return state, events


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_random_games_end_and_keep_every_invariant(params):
    state, events = play_checked(params, probe=3)
    assert state.phase is Phase.ENDED
    assert replay(events) == state


@settings(max_examples=15, deadline=None)
@given(games)
def test_replay_equals_the_state_built_step_by_step(params):
    _, events = play_checked(params, probe=0)
    state = GameState()
    for i, e in enumerate(events):
        state = replay([e], state)
        if i % 7 == 0:
            assert replay(events[: i + 1]) == state


@settings(max_examples=15, deadline=None)
@given(games)
def test_final_scores_equal_a_recomputation_from_the_final_board(params):
    state, _ = play_checked(params, probe=0)
    result = state.result
    for score in result.scores:
        player = state.owner(score.colours[0])
        present = [
            isl
            for isl in state.islands.values()
            if isl.king in player.colours
            or any(c in player.colours for b in isl.beaches for c in b)
        ]
        # R5: each colour scores as a seat (an island with both colours counts twice)
        assert score.points == sum(
            island(i.tile).value
            for i in present
            for c in player.colours
            if i.king == c or any(c in b for b in i.beaches)
        )
        assert score.islands == len(present)  # R23: each island once per player
        assert score.boats == sum(state.boats_on_board(c) for c in player.colours)
    best = max((s.points, s.islands, -s.boats) for s in result.scores)
    winners = {s.player_id for s in result.scores if (s.points, s.islands, -s.boats) == best}
    assert set(result.winners) == winners


@st.composite
def island_and_fleet(draw):
    """An island with some boats on its beaches and a fleet arriving (R13)."""
    from domain.state import CAPACITIES

    tile = draw(st.sampled_from(sorted(CAPACITIES)))
    palette = st.sampled_from(["blue", "red", "green", "yellow", "purple"])
    beaches = tuple(
        tuple(sorted(draw(st.lists(palette, max_size=cap)))) for cap in CAPACITIES[tile]
    )
    fleet = tuple(sorted(draw(st.lists(palette, min_size=1, max_size=6))))
    return tile, beaches, fleet


@settings(max_examples=300, deadline=None)
@given(island_and_fleet())
def test_R13_R19_the_lazy_landings_of_the_search_are_the_listed_distributions_landed(case):
    """The R19 search walks arrangements lazily; they are exactly, in order, the
    islands after each landing legal_commands lists."""
    from domain.landing import arrangements_after, distributions_on, landed

    tile, beaches, fleet = case
    listed = [landed(beaches, d) for d in distributions_on(tile, beaches, fleet)]
    assert list(arrangements_after(tile, beaches, fleet)) == listed
