"""Golden game logs replay to their recorded final positions, and still play the same way."""

import json

import pytest

from domain import position
from domain.fold import replay
from domain.serialization import decode_event, encode
from domain.simulation import play
from tests.domain.golden import DATA, GAMES


def load(name):
    return [decode_event(json.loads(line)) for line in (DATA / name).read_text().splitlines()]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_golden_log_replays_to_its_recorded_final_position(name):
    events = load(name)
    final = json.loads((DATA / name.replace(".ndjson", ".final.json")).read_text())
    state = replay(events)
    assert position.dump(state) == final
    assert state.result is not None


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_engine_still_plays_the_golden_game_move_for_move(name):
    params = dict(GAMES[name])
    seed, players = params.pop("seed"), params.pop("players")
    game = play(seed, players, **params)
    recorded = [json.loads(line) for line in (DATA / name).read_text().splitlines()]
    assert [encode(e) for e in game.events] == recorded


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_golden_event_survives_a_json_round_trip(name):
    for event in load(name):
        assert decode_event(json.loads(json.dumps(encode(event)))) == event


HISTORY = DATA / "history"
RECORDED = sorted(p.relative_to(DATA).as_posix() for p in HISTORY.glob("rules-*/golden-*.ndjson"))


def test_the_recorded_history_holds_the_golden_logs_of_every_earlier_rules_version():
    assert [p for p in RECORDED if p.startswith("history/rules-1/")] == [
        f"history/rules-1/{name}" for name in sorted(GAMES)
    ]


@pytest.mark.parametrize("name", RECORDED)
def test_a_log_recorded_under_earlier_rules_still_replays_to_its_recorded_final_position(name):
    """Events are facts: whatever the rules are now, an old log folds as recorded."""
    events = load(name)
    final = json.loads((DATA / name.replace(".ndjson", ".final.json")).read_text())
    assert position.dump(replay(events)) == final
    for event in events:
        assert decode_event(json.loads(json.dumps(encode(event)))) == event


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_golden_game_differs_from_its_rules_1_recording_only_where_rules_2_changed_a_rule(
    name,
):
    """The same seeds under rules-1 and rules-2: the logs are equal event for event
    except where a documented change of rules-2 accounts for the difference (here
    R5: the two-colour game's final scores)."""
    from domain import revisions

    old = [json.loads(line) for line in (HISTORY / "rules-1" / name).read_text().splitlines()]
    new = [json.loads(line) for line in (DATA / name).read_text().splitlines()]
    diff = revisions.first_difference(old, new)
    if "two-colours" not in name:
        assert diff is None
        return
    assert diff is not None and diff.recorded["type"] == "GameEnded"
    assert revisions.explained_by("rules.md R1-R25", old, diff) == "R5, changed in rules-2"
    assert revisions.explained_by("rules-2", old, diff) is None  # no excuse under rules-2
    i = diff.index  # the only event that differs
    assert len(old) == len(new) and old[:i] == new[:i] and old[i + 1 :] == new[i + 1 :]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_engine_still_plays_each_rules_1_golden_game_move_for_move_under_rules_1(name):
    """The engine keeps every earlier rules version it can replay a command under: the
    golden games of engine 1.1.0 come out byte for byte under rules-1."""
    from domain.revisions import RULES_1, RULESETS

    params = dict(GAMES[name])
    seed, players = params.pop("seed"), params.pop("players")
    game = play(seed, players, rules=RULESETS[RULES_1], **params)
    recorded = [json.loads(line) for line in (HISTORY / "rules-1" / name).read_text().splitlines()]
    assert [encode(e) for e in game.events] == recorded


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_fold_step_changes_only_fields_the_state_has(name, monkeypatch):
    """The fold's changes are typed (mypy checks each handler); at run time too, no
    handler may set a field GameState does not have (a misspelt key once would have
    been stored silently)."""
    import dataclasses

    from domain import fold
    from domain.state import GameState

    fields = {f.name for f in dataclasses.fields(GameState)}
    seen: set[str] = set()

    def checked(handler):
        def run(state, event):
            changes = handler(state, event)
            assert set(changes) <= fields, (type(event).__name__, set(changes) - fields)
            seen.update(changes)
            return changes

        return run

    monkeypatch.setattr(fold, "HANDLERS", {k: checked(h) for k, h in fold.HANDLERS.items()})
    replay(load(name))
    assert {"islands", "pending", "voyage", "result"} <= seen
