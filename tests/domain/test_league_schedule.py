"""A league's schedule (docs/leagues.md L5, L6): given a league's id, its players and
a table size, when it is scheduled, then every promise of the algorithm holds, and the
same inputs give the same schedule."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.league_schedule import MAX_MEETINGS, schedule

league_ids = st.text(alphabet="0123456789abcdef", min_size=12, max_size=12)


def tally(rounds):
    games, met = Counter(), Counter()
    for tables in rounds:
        seated = [p for table in tables for p in table]
        assert len(seated) == len(set(seated)), "a player at two tables of a round"
        for table in tables:
            games.update(table)
            met.update(frozenset(pair) for pair in itertools.combinations(table, 2))
    return games, met


@settings(max_examples=60, deadline=None)
@given(league_ids, st.integers(2, 30))
def test_l5_at_tables_of_two_every_pair_plays_exactly_once(league_id, n):
    players = [f"p{i}" for i in range(n)]
    rounds = schedule(league_id, players, 2)
    games, met = tally(rounds)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    assert all(len(t) == 2 for r in rounds for t in r)
    assert all(met[frozenset(p)] == 1 for p in itertools.combinations(players, 2))
    assert set(games.values()) == {n - 1}


@settings(max_examples=80, deadline=None)
@given(league_ids, st.integers(3, 6), st.integers(0, 27), st.randoms(use_true_random=False))
def test_l6_larger_tables_balance_games_and_every_pair_meets(league_id, k, extra, rng):
    players = [f"acct{i}" for i in range(k + extra)]
    rng.shuffle(players)
    rounds = schedule(league_id, players, k)
    games, met = tally(rounds)
    assert all(len(t) == k for r in rounds for t in r)
    counts = [games[p] for p in players]
    assert max(counts) - min(counts) <= 1
    pairs = [met[frozenset(p)] for p in itertools.combinations(players, 2)]
    assert min(pairs) >= 1
    assert max(pairs) <= MAX_MEETINGS
    # games stay within one of each other after every round, not only at the end
    for cut in range(1, len(rounds)):
        partial, _ = tally(rounds[:cut])
        assert max(partial[p] for p in players) - min(partial[p] for p in players) <= 1


@given(league_ids, st.integers(2, 6), st.integers(0, 10))
@settings(max_examples=20, deadline=None)
def test_l5_l6_the_schedule_is_a_function_of_its_inputs(league_id, k, extra):
    players = [f"x{i}" for i in range(k + extra)]
    assert schedule(league_id, players, k) == schedule(league_id, list(players), k)
