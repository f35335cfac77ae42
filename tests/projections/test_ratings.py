"""Ratings (docs/ratings.md G1-G9) as a read model, on SQLite and on PostgreSQL: the
numbers are OpenSkill's, and the same whatever order games are caught up in."""

from __future__ import annotations

import random
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from domain import commands as cmd
from domain import events as ev
from domain.serialization import encode
from projections.skill import PROVISIONAL_GAMES
from projections.store import ReadModels
from service.store.base import CommandRecord, NewEvent

COLOURS = ("blue", "red", "green", "yellow", "orange", "purple")
RATINGS = "SELECT * FROM rm_ratings ORDER BY account_id"
HISTORY = "SELECT * FROM rm_rating_history ORDER BY account_id, ended_at, game_id"


def game_events(game_id, players, ranks=None, *, rated=True):
    """A game opened, seated, started and ended with ``players`` ranked ``ranks``."""
    ranks = ranks or list(range(1, len(players) + 1))
    scores = tuple(
        ev.PlayerScore(p, (COLOURS[i],), 20 - ranks[i], 1, 1, ranks[i])
        for i, p in enumerate(players)
    )
    winners = tuple(p for p, r in zip(players, ranks, strict=True) if r == 1)
    return [
        ev.GameCreated(game_id, cmd.GameOptions(rated=rated), "c", "a"),
        *(ev.PlayerJoined(p, i + 1, (COLOURS[i],), "") for i, p in enumerate(players)),
        ev.GameStarted(tuple(COLOURS[: len(players)]), 1),
        ev.GameEnded("agreement", scores, winners, "points", "T6"),
    ]


def minute(at):
    return f"2026-11-22T{10 + at // 60:02d}:{at % 60:02d}:00+00:00"


def append(store, game_id, events, at, version=0, received=None):
    """Append events in one commit recorded at minute ``at`` (received, and so the game
    last changed, at minute ``received``: ``at`` unless told); the new version."""
    moment = minute(at)
    new = [
        NewEvent(
            e.__class__.__name__,
            {k: v for k, v in encode(e).items() if k != "type"},
            {"recorded_at": moment},
        )
        for e in events
    ]
    came = minute(received) if received is not None else moment
    record = CommandRecord(game_id, f"c{version}", {"account": "t"}, came, {}, version)
    return store.append(record, version, new, "ended").version


@pytest.fixture
def readmodels(store):
    rm = ReadModels(store, store, clock=lambda: "2026-11-22T12:00:00+00:00")
    rm.upgrade()
    return rm


def test_g2_one_game_moves_ratings_as_openskill_computes_them(store, readmodels):
    # given a rated 3-player game ended a, b, c
    append(store, "g1", game_events("g1", ["a", "b", "c"]), 1)
    # when the read model catches up
    readmodels.catch_up_game("g1")
    # then every rating is PlackettLuce's, called directly
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(3)], ranks=[1, 2, 3])
    got = {r["account_id"]: r for r in readmodels.ratings(0, 10)}
    for player, team in zip("abc", expected, strict=True):
        assert got[player]["mu"] == team[0].mu and got[player]["sigma"] == team[0].sigma
        assert got[player]["rating"] == team[0].ordinal()
        assert got[player]["games"] == 1 and got[player]["provisional"]
    assert [r["account_id"] for r in readmodels.ratings(0, 10)] == ["a", "b", "c"]


def test_g2_ties_and_a_second_game_follow_the_library(store, readmodels):
    # given a 4-player game with a shared second place, then a 2-player game
    append(store, "g1", game_events("g1", ["a", "b", "c", "d"], [1, 2, 2, 4]), 1)
    append(store, "g2", game_events("g2", ["d", "a"]), 2)
    readmodels.catch_up_game("g2")  # caught up out of order
    readmodels.catch_up_game("g1")
    model = PlackettLuce()
    first = model.rate([[model.rating()] for _ in range(4)], ranks=[1, 2, 2, 4])
    a, d = first[0][0], first[3][0]
    second = model.rate([[model.rating(mu=d.mu, sigma=d.sigma)], [a]], ranks=[1, 2])
    got = {r["account_id"]: r for r in readmodels.ratings(0, 10)}
    assert (got["d"]["mu"], got["d"]["sigma"]) == (second[0][0].mu, second[0][0].sigma)
    assert (got["a"]["mu"], got["a"]["sigma"]) == (second[1][0].mu, second[1][0].sigma)
    assert got["a"]["games"] == 2 and got["b"]["games"] == 1
    # the history of a: its latest game first, each with its rating before and after
    rows = readmodels.rating_history("a", 10)
    assert [r["game_id"] for r in rows] == ["g2", "g1"]
    assert rows[0]["before"]["mu"] == a.mu and rows[0]["after"]["mu"] == second[1][0].mu
    assert rows[1]["before"]["mu"] == 25.0 and rows[1]["rank"] == 1 and rows[1]["players"] == 4


def test_g1_a_casual_game_moves_no_rating(store, readmodels):
    append(store, "g1", game_events("g1", ["a", "b"], rated=False), 1)
    readmodels.catch_up_game("g1")
    assert readmodels.ratings(0, 10) == []
    assert readmodels.rating("a") is None


def test_g4_an_amended_result_moves_ratings_and_an_annulment_takes_them_back(store, readmodels):
    # given two rated games, the second one later
    append(store, "g1", game_events("g1", ["a", "b", "c"]), 1)
    append(store, "g2", game_events("g2", ["a", "b"]), 2)
    for g in ("g1", "g2"):
        readmodels.catch_up_game(g)
    without_g1 = _alone(store, "g2", ["a", "b"])
    # when a ruling amends g1's ranking (D4)
    append(store, "g1", [ev.ResultAmended("d1", False, ("c", "b", "a"))], 30, version=6)
    readmodels.catch_up_game("g1")
    # then g1 counts with its new ranking, at its old place, and g2 after it
    amended = {r["account_id"]: r["mu"] for r in readmodels.ratings(0, 10)}
    model = PlackettLuce()
    c = model.rate([[model.rating()] for _ in range(3)], ranks=[3, 2, 1])[2][0]
    assert amended["c"] == c.mu
    assert [r["game_id"] for r in readmodels.rating_history("a", 10)] == ["g2", "g1"]
    # when a second ruling annuls g1, it counts for nobody: c has no rating, and a and b
    # are rated as if g1 had never been played
    append(store, "g1", [ev.ResultAmended("d2", True)], 31, version=7)
    readmodels.catch_up_game("g1")
    assert readmodels.rating("c") is None
    assert {r["account_id"]: r["mu"] for r in readmodels.ratings(0, 10)} == without_g1


def _alone(store, game_id, players):
    """The ratings a game alone gives, in a read model of its own."""
    model = PlackettLuce()
    after = model.rate([[model.rating()] for _ in players], ranks=list(range(1, len(players) + 1)))
    return {p: t[0].mu for p, t in zip(players, after, strict=True)}


def test_g8_the_leaderboard_has_a_minimum_of_games_and_a_provisional_mark(store, readmodels):
    for i in range(PROVISIONAL_GAMES):
        append(store, f"g{i}", game_events(f"g{i}", ["a", "b"]), i)
        readmodels.catch_up_game(f"g{i}")
    append(store, "x", game_events("x", ["c", "d"]), 50)
    readmodels.catch_up_game("x")
    board = readmodels.ratings(PROVISIONAL_GAMES, 10)
    assert [(r["account_id"], r["provisional"]) for r in board] == [("a", False), ("b", False)]
    assert {r["account_id"] for r in readmodels.ratings(1, 10)} == {"a", "b", "c", "d"}
    assert readmodels.rating("c")["provisional"]


GAMES = [  # (game, players, ranks, minute)
    ("g0", ["a", "b", "c"], [1, 2, 3], 1),
    ("g1", ["b", "d"], [1, 2], 2),
    ("g2", ["a", "d", "e", "b"], [2, 1, 4, 3], 3),
    ("g3", ["c", "e"], [1, 1], 4),
    ("g4", ["e", "a", "c", "d", "b", "f"], [1, 2, 3, 4, 5, 6], 4),  # the same minute as g3
    ("g5", ["f", "a"], [2, 1], 7),
]


def _fill(store):
    for game_id, players, ranks, minute in GAMES:
        append(store, game_id, game_events(game_id, players, ranks), minute)
    append(store, "g2", [ev.ResultAmended("d", False, ("e", "b", "a", "d"))], 40, version=7)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(order=st.permutations([g for g, *_ in GAMES]))
def test_g5_any_order_of_catching_up_gives_the_same_ratings(tmp_path_factory, order):
    from service.store.sqlite import SQLiteEventStore

    # given the same games in two stores, caught up in order and in another order
    stores = [SQLiteEventStore(tmp_path_factory.mktemp("rt5") / "e.db") for _ in range(2)]
    try:
        models = []
        for store, games in zip(stores, [sorted(order), order], strict=True):
            store.upgrade()
            _fill(store)
            rm = ReadModels(store, store)
            rm.upgrade()
            for game_id in games:
                rm.catch_up_game(game_id)
            models.append(rm)
        # then every rating and every line of history is the same
        assert models[0].query(RATINGS) == models[1].query(RATINGS)
        assert models[0].query(HISTORY) == models[1].query(HISTORY)
    finally:
        for s in stores:
            s.close()


def test_g5_a_rebuild_and_games_caught_up_at_once_give_the_same_rows(store, readmodels):
    _fill(store)
    order = [g for g, *_ in GAMES]
    random.Random(5).shuffle(order)
    # two workers catching up games at the same moment
    threads = [
        threading.Thread(target=lambda part=part: [readmodels.catch_up_game(g) for g in part])
        for part in (order[:3], order[3:])
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    kept = readmodels.query(RATINGS), readmodels.query(HISTORY)
    assert len(kept[0]) == 6
    readmodels.rebuild()
    assert (readmodels.query(RATINGS), readmodels.query(HISTORY)) == kept
    # and from empty tables, in the rebuild's own order
    for table in ("rm_ratings", "rm_rating_history", "rm_rating_games"):
        with store._tx() as cur:
            store._exec(cur, f"DELETE FROM {table}")
    readmodels.rebuild(["ratings"])
    assert (readmodels.query(RATINGS), readmodels.query(HISTORY)) == kept


def test_g6_a_resigned_seat_keeps_its_rank_and_a_game_of_one_account_is_not_rated():
    from dataclasses import replace

    from domain.fold import replay
    from projections.skill import rated_ranking

    # given a game where c resigned (C6: ranked last) and the bot played on for c
    events = game_events("g", ["a", "b", "c"])
    events[-1] = replace(events[-1], resigned=("c",))
    events.insert(-1, ev.PlayerResigned(3, "c", ("green",)))
    assert rated_ranking(replay(events)) == (("a", 1), ("b", 2), ("c", 3))
    # a casual game, and one naming the same account twice, are not rated
    assert rated_ranking(replay(game_events("g", ["a", "b"], rated=False))) is None
    assert rated_ranking(replay(game_events("g", ["a", "a"]))) is None


def test_g5_a_rebuild_from_empty_rates_each_game_once(store, readmodels, monkeypatch):
    """A rebuild took the games by id: each game's refold rated every later game again,
    the square of the games (1,000 games: 9.5 s; 3,000: 84 s). It goes in the order the
    games last changed, so each ended game is rated once, after those before it."""
    import projections.readmodels.ratings as ratings

    players = [f"acct{i}" for i in range(6)]
    rng = random.Random(3)
    count = 30
    for n in range(count):  # ids in the reverse of the order the games ended
        gid = f"g{count - n:03d}"
        append(store, gid, game_events(gid, rng.sample(players, 2)), n)
        readmodels.catch_up_game(gid)
    kept = readmodels.query(RATINGS), readmodels.query(HISTORY)
    for table in ("rm_ratings", "rm_rating_history", "rm_rating_games"):
        with store._tx() as cur:
            store._exec(cur, f"DELETE FROM {table}")
    rated = []
    real = ratings.rate
    monkeypatch.setattr(ratings, "rate", lambda *a: rated.append(a) or real(*a))
    readmodels.rebuild(["ratings"])
    assert len(rated) == count
    assert (readmodels.query(RATINGS), readmodels.query(HISTORY)) == kept


def _empty_ratings(store):
    for table in ("rm_ratings", "rm_rating_history", "rm_rating_games"):
        with store._tx() as cur:
            store._exec(cur, f"DELETE FROM {table}")


def _imported_last_first(store, readmodels, count):
    """``count`` rated games that last changed in the reverse of the order they ended, as
    games imported from another service do (kept ends, changed when imported)."""
    players = [f"acct{i}" for i in range(6)]
    rng = random.Random(4)
    for n in range(count):
        gid = f"g{n:03d}"
        append(store, gid, game_events(gid, rng.sample(players, 2)), n, received=3 * count - n)
        readmodels.catch_up_game(gid)


def test_g5_a_rebuild_rates_each_game_once_whatever_order_the_games_last_changed_in(
    store, readmodels, monkeypatch
):
    """Taken in the order the games last changed, a rebuild refolded every game that
    changed after a later-ended one from its place: imported games, the square of them
    again. It leaves the refold to its end and does it once, from the earliest place."""
    import projections.readmodels.ratings as ratings

    count = 30
    _imported_last_first(store, readmodels, count)
    kept = readmodels.query(RATINGS), readmodels.query(HISTORY)
    _empty_ratings(store)
    rated = []
    real = ratings.rate
    monkeypatch.setattr(ratings, "rate", lambda *a: rated.append(a) or real(*a))
    readmodels.rebuild(["ratings"])
    assert len(rated) == count
    assert (readmodels.query(RATINGS), readmodels.query(HISTORY)) == kept


def test_g5_a_rebuild_stopped_before_its_refold_is_finished_by_the_next_game_or_rebuild(
    store, readmodels, monkeypatch
):
    """The place left to refold is kept in the database: a rebuild stopped after its last
    game (a process killed) loses nothing; the next game caught up, or the next rebuild
    (which has no game to change), refolds from there."""
    _imported_last_first(store, readmodels, 8)
    kept = readmodels.query(RATINGS), readmodels.query(HISTORY)
    _empty_ratings(store)
    with monkeypatch.context() as m:
        m.setattr(ReadModels, "settle", lambda self, projections=(): None)  # killed
        readmodels.rebuild(["ratings"])
    assert readmodels.query(HISTORY) != kept[1]  # not refolded yet
    readmodels.rebuild(["ratings"])
    assert (readmodels.query(RATINGS), readmodels.query(HISTORY)) == kept
    # and a live game after a stopped rebuild refolds from the earliest place left
    _empty_ratings(store)
    with monkeypatch.context() as m:
        m.setattr(ReadModels, "settle", lambda self, projections=(): None)
        readmodels.rebuild(["ratings"])
    append(store, "late", game_events("late", ["acct0", "acct1"]), 200)
    readmodels.catch_up_game("late")
    live = readmodels.query(RATINGS), readmodels.query(HISTORY)
    _empty_ratings(store)
    readmodels.rebuild(["ratings"])
    assert (readmodels.query(RATINGS), readmodels.query(HISTORY)) == live
    assert len(live[1]) == len(kept[1]) + 2
