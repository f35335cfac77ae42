"""Read models in the database, on SQLite and on real PostgreSQL."""

from __future__ import annotations

import json

import pytest

from domain import position
from domain.fold import replay
from projections.store import KEYFRAME_EVERY, MAX_ATTEMPTS, PROJECTIONS, ProjectionHalted
from tests.projections.conftest import GOLDEN, append_game, golden_events, simulated

TABLES = {
    "rm_scoreboard": "game_id",
    "rm_lobby": "game_id",
    "rm_lobby_seats": "game_id, account_id",
    "rm_results": "game_id, account_id",
    "rm_steps": "game_id, version",
    "rm_keyframes": "game_id, version",
    "rm_audit": "game_id, seq",
    "projection_checkpoints": "projection, game_id",
}


def dump(rm):
    """Every read-model row (checkpoints without their wall-clock time)."""
    rows = {t: rm.query(f"SELECT * FROM {t} ORDER BY {order}") for t, order in TABLES.items()}
    rows["projection_checkpoints"] = [r[:-1] for r in rows["projection_checkpoints"]]
    return rows


@pytest.mark.parametrize("path", GOLDEN[:2], ids=lambda p: p.stem)
def test_incremental_application_equals_a_rebuild_from_scratch(readmodels, store, path):
    events = golden_events(path)
    append_game(store, events, after_each=readmodels.catch_up_game)
    incremental = dump(readmodels)
    readmodels.rebuild()
    assert dump(readmodels) == incremental
    assert len(incremental["rm_steps"]) == len(events)


def test_a_catch_up_folds_each_event_once_for_every_projection(readmodels, store, monkeypatch):
    """Issue 34: the projections of one catch-up share one fold of the game (it was
    folded again by each projection, and by each read model that walked the events:
    the notifications' too)."""
    import sys

    from domain import fold

    events = simulated(11).events
    game_id = append_game(store, events)
    folded = []

    def counted(state, event):
        folded.append(event)
        return fold.evolve(state, event)

    readers = [m for n, m in sys.modules.items() if n.startswith("projections") and m]
    for module in readers:  # every fold the read side can call, wherever it is imported
        if getattr(module, "evolve", None) is fold.evolve:
            monkeypatch.setattr(module, "evolve", counted)
    readmodels.rebuild()
    assert len(folded) == len(events)
    assert readmodels.catch_up_game(game_id) == dict.fromkeys(PROJECTIONS, 0)
    assert len(folded) == len(events)


def test_applying_everything_again_changes_nothing(readmodels, store):
    game_id = append_game(store, simulated(11).events)
    first = readmodels.catch_up_game(game_id)
    assert sum(first.values()) > 0
    before = dump(readmodels)
    # a duplicate job, and a late one for a game already level, apply nothing
    assert readmodels.catch_up_game(game_id) == dict.fromkeys(PROJECTIONS, 0)
    assert readmodels.catch_up("scoreboard", game_id) == 0
    assert dump(readmodels) == before


@pytest.mark.parametrize("back", [1, 7, 40])
def test_applying_events_a_second_time_changes_no_row(readmodels, store, back):
    # as if a checkpoint had fallen behind its rows: the events after it come again
    game_id = append_game(store, simulated(19).events)
    readmodels.catch_up_game(game_id)
    before = dump(readmodels)
    head = store.head(game_id).version
    with store._tx() as cur:
        store._exec(
            cur,
            "UPDATE projection_checkpoints SET version = %s,"
            " seq = CASE WHEN projection = 'audit' THEN seq - %s ELSE 0 END WHERE game_id = %s",
            (head - back, back, game_id),
        )
    readmodels._states.clear()
    applied = readmodels.catch_up_game(game_id)
    assert applied["timeline"] == back and applied["audit"] == back
    assert dump(readmodels) == before


def test_a_job_between_commands_sees_only_committed_events(readmodels, store):
    events = simulated(12).events
    game_id = append_game(store, events[:30])
    readmodels.catch_up_game(game_id)
    assert readmodels.checkpoint("timeline", game_id).version == 30
    store_events = store.read(game_id)
    assert len(store_events) == 30


def test_the_scoreboard_rows_equal_the_engines_scoring_for_finished_games(readmodels, store):
    for seed in (20, 21, 22):
        game = simulated(seed, players=2 + seed % 4)
        game_id = append_game(store, game.events)
        readmodels.catch_up_game(game_id)
        (data,) = readmodels.query("SELECT data FROM rm_scoreboard WHERE game_id = %s", (game_id,))[
            0
        ]
        board = json.loads(data)
        assert [(r["player_id"], r["rank"], r["points"]) for r in board["final"]["ranking"]] == [
            (s.player_id, s.rank, s.points) for s in game.outcome.scores
        ]
        results = readmodels.query(
            "SELECT account_id, rank, points, won FROM rm_results WHERE game_id = %s"
            " ORDER BY rank, account_id",
            (game_id,),
        )
        assert sorted(results) == sorted(
            (s.player_id, s.rank, s.points, int(s.player_id in game.outcome.winners))
            for s in game.outcome.scores
        )


def test_keyframes_hold_the_state_at_their_version(readmodels, store):
    events = simulated(13).events
    game_id = append_game(store, events)
    readmodels.catch_up_game(game_id)
    frames = readmodels.query(
        "SELECT version, position FROM rm_keyframes WHERE game_id = %s", (game_id,)
    )
    assert len(frames) == len(events) // KEYFRAME_EVERY
    for version, text in frames:
        assert position.load(json.loads(text)) == replay(events[:version])
    assert readmodels.keyframe(game_id, 65)[0] == 65 - 65 % KEYFRAME_EVERY


def test_a_poison_event_halts_only_that_projection_for_that_game_with_a_visible_error(
    readmodels, store
):
    bad = append_game(store, simulated(14).events, game_id="bad")
    good = append_game(store, simulated(15).events, game_id="good")

    def poison(name, game_id, batch):
        if name == "timeline" and game_id == "bad":
            raise ValueError("cannot describe this event")

    readmodels.before_apply = poison
    for attempt in range(1, MAX_ATTEMPTS + 1):
        with pytest.raises(ValueError):
            readmodels.catch_up_game(bad)
        point = readmodels.checkpoint("timeline", bad)
        assert point.failures == attempt and point.version == 0
    assert point.error == "ValueError: cannot describe this event"
    # halted: never skipped, never retried silently
    with pytest.raises(ProjectionHalted):
        readmodels.catch_up("timeline", bad)
    assert readmodels.catch_up_game(bad)["timeline"] == 0
    assert readmodels.checkpoint("timeline", bad).version == 0
    # the other projections of that game, and other games, went on
    assert readmodels.checkpoint("scoreboard", bad).version == store.head(bad).version
    readmodels.catch_up_game(good)
    assert readmodels.checkpoint("timeline", good).version == store.head(good).version
    halted = {lag.projection: lag.halted for lag in readmodels.status()}
    assert halted["timeline"] == [("bad", "ValueError: cannot describe this event")]
    assert "bad" not in readmodels.behind()  # the sweeper leaves halted games alone
    # fixed, then resumed
    readmodels.before_apply = None
    readmodels.resume("timeline", bad)
    assert readmodels.catch_up("timeline", bad) == store.head(bad).version


def test_the_sweeper_lists_games_some_projection_lags_behind(readmodels, store):
    a = append_game(store, simulated(16).events[:20], game_id="a")
    b = append_game(store, simulated(17).events[:20], game_id="b")
    assert readmodels.behind() == ["a", "b"]
    readmodels.catch_up_game(a)
    assert readmodels.behind() == ["b"]
    readmodels.catch_up_game(b)
    assert readmodels.behind() == []


def test_the_audit_keeps_rejected_commands_with_the_turn_they_were_judged_in(readmodels, store):
    from service.store.base import CommandRecord

    events = simulated(18).events
    game_id = append_game(store, events[:40])
    store.reject(
        CommandRecord(
            game_id, "bad-1", {"account": "x"}, "2026-11-22T11:00:00", {"type": "Expand"}, 40
        ),
        40,
        {"code": "not_your_turn", "rule": None, "detail": "not your turn"},
    )
    readmodels.catch_up_game(game_id)
    rows = readmodels.query(
        "SELECT command_id, outcome, judged_version, turn, rejection FROM rm_audit"
        " WHERE game_id = %s ORDER BY seq",
        (game_id,),
    )
    assert rows[-1][:3] == ("bad-1", "rejected", 40)
    assert rows[-1][3] == replay(events[:40]).turn
    assert json.loads(rows[-1][4])["code"] == "not_your_turn"
    assert readmodels.checkpoint("audit", game_id).seq == len(rows)


def test_processes_starting_together_create_the_read_model_tables_once(pg_schema):
    # gunicorn boots its workers at the same time: each upgrades the schema
    import threading

    from projections.store import ReadModels
    from service.store.postgres import PostgresEventStore

    _, url = pg_schema
    errors = []

    def boot():
        store = PostgresEventStore(url, max_size=2)
        try:
            store.upgrade()
            ReadModels(store, store).upgrade()
        except Exception as exc:  # collected: the test fails below with it
            errors.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=boot) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
