"""Turn clocks below HTTP (docs/clocks.md C1–C6), with the service's clock frozen.

Given a timed game, when time passes (freezegun), then the deadline, the Fischer
time left, timeouts, absent and resigned seats behave as the rules say, and every
clock figure is in the metadata of the events.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from domain import commands as cmd
from domain import legal_commands
from domain.bots import GreedyBot
from domain.errors import RuleViolation
from domain.fold import replay
from domain.play import play
from domain.serialization import decode_event, encode
from domain.state import Phase
from projections.models import notices
from service.errors import Conflict
from service.play.accounts import create_account
from service.play.attempts import Attempt
from service.play.games import GameService
from service.store.base import canonical
from service.store.sqlite import SQLiteEventStore
from service.timing.clocks import Clock, parse_time

T0 = datetime(2026, 11, 25, 12, 0, 0, tzinfo=UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


def timed_game(tmp_path, players=2, **options):
    """A started game with the given time control; the service reads a frozen clock."""
    store = SQLiteEventStore(tmp_path / "c.db")
    store.upgrade()
    service = GameService(store, clock=utcnow)
    accounts = [create_account(store, n, T0)[0] for n in ("ann", "bob", "cy")[:players]]
    opts = cmd.GameOptions(max_players=players, **options)
    game_id = service.create_game(accounts[0], opts).game_id
    for a, c in zip(accounts, ("blue", "red", "green"), strict=False):
        service.join(game_id, a, [c], "")
    service.execute(game_id, accounts[0], {"type": "StartGame"})
    return service, store, game_id, {a.account_id: a for a in accounts}


def head_clock(store, game_id) -> Clock:
    last = store.read(game_id, after=store.head(game_id).version - 1, limit=1)[0]
    return Clock.from_data(last.meta()["clock"])


def mover(service, game_id, accounts):
    version, state = service.load(game_id)
    return version, state, accounts[state.owner(state.active_colour).player_id]


def move(service, game_id, accounts, rng=None):
    version, state, who = mover(service, game_id, accounts)
    command = (rng or random.Random(1)).choice(legal_commands(state))
    return service.execute(game_id, who, encode(command), version)


@freeze_time(T0)
def test_c2_the_start_sets_the_first_deadline_per_move(tmp_path):
    _service, store, game_id, _ = timed_game(tmp_path, time_control="move", move_seconds=3600)
    clock = head_clock(store, game_id)
    assert clock.seat == 1 and clock.since == T0
    assert clock.deadline == T0 + timedelta(hours=1)


def test_c2_each_decision_starts_its_own_deadline_and_records_the_time_used(tmp_path):
    with freeze_time(T0) as frozen:
        service, store, game_id, accounts = timed_game(
            tmp_path, time_control="move", move_seconds=3600
        )
        frozen.tick(timedelta(minutes=20))
        move(service, game_id, accounts)
        clock = head_clock(store, game_id)
        assert clock.used_ms == 20 * 60 * 1000
        assert clock.since == T0 + timedelta(minutes=20)
        assert clock.deadline == T0 + timedelta(minutes=80)


def test_c2_fischer_loses_the_time_used_and_gains_the_increment(tmp_path):
    with freeze_time(T0) as frozen:
        service, store, game_id, accounts = timed_game(
            tmp_path, time_control="fischer", base_seconds=300, increment_seconds=5
        )
        assert head_clock(store, game_id).deadline == T0 + timedelta(seconds=300)
        frozen.tick(timedelta(seconds=40))
        _, state, _ = mover(service, game_id, accounts)
        seat = state.owner(state.active_colour).seat
        move(service, game_id, accounts)
        clock = head_clock(store, game_id)
        assert clock.left_ms[seat] == (300 - 40 + 5) * 1000
        assert clock.used_ms == 40_000


def test_c3_no_timeout_a_microsecond_before_the_deadline(tmp_path):
    with freeze_time(T0) as frozen:
        service, store, game_id, _ = timed_game(tmp_path, time_control="move", move_seconds=60)
        version = store.head(game_id).version
        frozen.tick(timedelta(seconds=60) - timedelta(microseconds=1))
        assert service.act_for_seat(game_id) is None
        assert store.head(game_id).version == version


def test_c3_timeout_at_exactly_the_deadline_is_recorded_then_the_bot_moves(tmp_path):
    with freeze_time(T0) as frozen:
        service, store, game_id, _ = timed_game(tmp_path, time_control="move", move_seconds=60)
        version = store.head(game_id).version
        frozen.tick(timedelta(seconds=60))
        result = service.act_for_seat(game_id)
        assert result is not None and result.version > version
        kinds = [e.type for e in result.events]
        assert kinds[0] == "TurnTimedOut"
        first = result.events[0].meta()
        assert first["actor"] == {
            "bot": "greedy",
            "seat": 1,
            "acting_for": first["actor"]["acting_for"],
            "reason": "timeout",
        }
        assert parse_time(first["recorded_at"]) == T0 + timedelta(seconds=60)
        assert len(kinds) > 1  # the bot's move follows
        _, state = service.load(game_id)
        assert state.timeouts == {1: 1}


def test_c4_absent_after_consecutive_timeouts_and_the_bot_plays_on_at_once(tmp_path):
    with freeze_time(T0) as frozen:
        service, store, game_id, accounts = timed_game(
            tmp_path, time_control="move", move_seconds=60, absent_after=2
        )
        times = 0
        while True:
            _, state = service.load(game_id)
            if 1 in state.absent:
                break
            if state.owner(state.active_colour).seat == 1:
                frozen.tick(timedelta(seconds=60))
                assert service.act_for_seat(game_id) is not None
                times += 1
            else:
                move(service, game_id, accounts)
        assert times == 2
        kinds = [e.type for e in store.read(game_id)]
        assert "SeatMarkedAbsent" in kinds
        # an absent seat is due at once: no waiting for a deadline
        while True:
            _, state = service.load(game_id)
            if state.phase is Phase.ENDED or state.owner(state.active_colour).seat == 1:
                break
            move(service, game_id, accounts)
        if state.phase is not Phase.ENDED:
            result = service.act_for_seat(game_id)
            assert result is not None
            assert result.events[0].type == "SeatPlayedByBot"


def test_c4_the_players_own_move_ends_the_streak(tmp_path):
    with freeze_time(T0) as frozen:
        service, _store, game_id, accounts = timed_game(
            tmp_path, time_control="move", move_seconds=60, absent_after=3
        )
        frozen.tick(timedelta(seconds=61))
        service.act_for_seat(game_id)
        while True:
            _, state, _ = mover(service, game_id, accounts)
            if state.owner(state.active_colour).seat == 1:
                break
            move(service, game_id, accounts)
        result = move(service, game_id, accounts)
        assert result.events[0].type == "TimeoutStreakEnded"
        assert service.load(game_id)[1].timeouts == {}


def test_c3_a_move_after_the_bot_played_gets_a_clear_answer(tmp_path):
    with freeze_time(T0) as frozen:
        service, _store, game_id, accounts = timed_game(
            tmp_path, time_control="move", move_seconds=60
        )
        version, state, ann = mover(service, game_id, accounts)
        late = encode(legal_commands(state)[0])
        frozen.tick(timedelta(seconds=60))
        assert service.act_for_seat(game_id) is not None
        with pytest.raises(Conflict) as caught:
            service.execute(game_id, ann, late, version)
        assert caught.value.code == "turn_timed_out"
        assert caught.value.extra["rule"] == "C3"


def test_c2_d7_a_paused_clock_stands_still_and_resumes_with_the_time_left(tmp_path):
    with freeze_time(T0) as frozen:
        service, store, game_id, _ = timed_game(tmp_path, time_control="move", move_seconds=600)
        auditor = create_account(store, "aud", T0, kind="auditor")[0]
        frozen.tick(timedelta(minutes=4))
        service.execute_for_dispute(game_id, auditor, cmd.PauseGame("d1"))
        assert head_clock(store, game_id).deadline is None
        frozen.tick(timedelta(hours=5))
        assert service.act_for_seat(game_id) is None  # paused: no timeout
        service.execute_for_dispute(game_id, auditor, cmd.ResumeGame("d1"))
        clock = head_clock(store, game_id)
        assert clock.deadline == T0 + timedelta(hours=5, minutes=10)
        assert clock.remaining_ms(utcnow())[1] == 6 * 60 * 1000


def test_c6_a_resigned_seat_is_played_by_the_bot_and_ranks_last(tmp_path):
    with freeze_time(T0):
        service, _store, game_id, accounts = timed_game(tmp_path, players=3)
        ann = next(iter(accounts.values()))
        service.execute(game_id, ann, {"type": "Resign", "player_id": ann.account_id})
        with pytest.raises(Conflict) as caught:
            service.execute(game_id, ann, {"type": "ReclaimSeat", "player_id": ann.account_id})
        assert caught.value.extra["rule"] == "C6"
        rng = random.Random(4)
        for _ in range(5000):
            _version, state = service.load(game_id)
            if state.phase is Phase.ENDED:
                break
            if state.bot_reason(state.owner(state.active_colour).seat):
                assert service.act_for_seat(game_id) is not None
            else:
                move(service, game_id, accounts, rng)
        _, state = service.load(game_id)
        assert state.phase is Phase.ENDED
        assert state.result.resigned == (ann.account_id,)
        assert state.result.scores[-1].player_id == ann.account_id
        assert state.result.scores[-1].rank == 3


def test_c5_a_player_reclaims_an_absent_seat(tmp_path):
    with freeze_time(T0) as frozen:
        service, _store, game_id, accounts = timed_game(
            tmp_path, time_control="move", move_seconds=60, absent_after=1
        )
        ann = next(iter(accounts.values()))
        frozen.tick(timedelta(seconds=60))
        service.act_for_seat(game_id)
        assert 1 in service.load(game_id)[1].absent
        service.execute(game_id, ann, {"type": "ReclaimSeat", "player_id": ann.account_id})
        _, state = service.load(game_id)
        assert state.absent == frozenset() and state.timeouts == {}
        with pytest.raises(Conflict) as caught:
            service.execute(game_id, ann, {"type": "ReclaimSeat", "player_id": ann.account_id})
        assert caught.value.code == "seat_not_absent"


def test_c1_time_controls_out_of_range_are_refused(tmp_path):
    store = SQLiteEventStore(tmp_path / "o.db")
    store.upgrade()
    service = GameService(store)
    ann = create_account(store, "ann", T0)[0]
    for options in (
        {"time_control": "hourglass"},
        {"time_control": "move", "move_seconds": 1},
        {"time_control": "move", "move_seconds": 3600, "increment_seconds": 5},
        {"time_control": "fischer", "base_seconds": 0},
        {"time_control": "none", "move_seconds": 60},
        {"absent_after": 0},
    ):
        with pytest.raises(Conflict) as caught:
            service.create_game(ann, cmd.GameOptions(**options))
        assert caught.value.extra["rule"] in ("C1", "C4")


def test_verification_recomputes_every_clock_and_catches_an_early_timeout(tmp_path):
    from service.audit.verify import verify_game
    from service.store.base import CommandRecord, canonical

    with freeze_time(T0) as frozen:
        service, store, game_id, accounts = timed_game(
            tmp_path, time_control="fischer", base_seconds=120, increment_seconds=3
        )
        for _ in range(6):
            frozen.tick(timedelta(seconds=7))
            move(service, game_id, accounts)
        frozen.tick(timedelta(seconds=500))
        assert service.act_for_seat(game_id) is not None
        report = verify_game(store, game_id)
        assert report.ok, report.rerun_problems
        # forged: a timeout recorded 1 s into a decision (every seat has 3 s or more)
        move(service, game_id, accounts)
        frozen.tick(timedelta(seconds=1))
        version, state = service.load(game_id)
        bot = random.Random(1).choice(legal_commands(state))
        forged = cmd.ActForSeat(state.active_colour, "timeout", canonical(encode(bot)))
        record = CommandRecord(
            game_id, "forged", {"bot": "greedy"}, utcnow().isoformat(), encode(forged), version
        )
        forging = Attempt(record, forged, None, version, authorised=True)
        service._run(forging, (version, state))
        problems = verify_game(store, game_id).rerun_problems
        assert any("before its deadline" in p and "(C3)" in p for p in problems), problems


def test_c3_a_players_move_at_the_deadline_is_refused_a_microsecond_before_accepted(tmp_path):
    with freeze_time(T0) as frozen:
        service, store, game_id, accounts = timed_game(
            tmp_path, time_control="move", move_seconds=60
        )
        version, state, ann = mover(service, game_id, accounts)
        command = encode(legal_commands(state)[0])
        frozen.tick(timedelta(seconds=60))
        with pytest.raises(Conflict) as caught:
            service.execute(game_id, ann, command, version)
        assert caught.value.code == "turn_timed_out" and caught.value.extra["rule"] == "C3"
        # the late move made the service time the decision out first (the timekeeper had
        # not come yet): the answer names the game as the timeout left it
        head = store.head(game_id).version
        events = store.read(game_id, version, 100)
        assert events[0].type == "TurnTimedOut" and head == events[-1].version > version
        assert caught.value.extra["version"] == head
        assert "the bot played it for you" in caught.value.detail
        journal = store.journal(game_id, 0, 100)
        assert [e.outcome for e in journal[-2:]] == ["accepted", "rejected"]
        assert journal[-2].actor["reason"] == "timeout"

    with freeze_time(T0) as frozen:
        service, store, game_id, accounts = timed_game(
            tmp_path / "b", time_control="move", move_seconds=60
        )
        version, state, ann = mover(service, game_id, accounts)
        frozen.tick(timedelta(seconds=60) - timedelta(microseconds=1))
        assert service.execute(game_id, ann, encode(legal_commands(state)[0]), version)


def test_c3_c5_the_move_after_the_timeout_that_made_the_seat_absent_is_told_so(tmp_path):
    with freeze_time(T0) as frozen:
        service, _store, game_id, accounts = timed_game(
            tmp_path, time_control="move", move_seconds=60, absent_after=1
        )
        version, state, ann = mover(service, game_id, accounts)
        frozen.tick(timedelta(seconds=61))
        assert service.act_for_seat(game_id) is not None
        for expected in (version, None):
            with pytest.raises(Conflict) as caught:
                service.execute(game_id, ann, encode(legal_commands(state)[0]), expected)
            assert caught.value.code == "seat_played_by_bot"  # C5, as for any absent seat
            assert caught.value.extra["rule"] == "C5"
            assert "absent after 1 timeout in a row" in caught.value.detail
            assert "ReclaimSeat" in caught.value.detail
            assert caught.value.extra["version"] == service.load(game_id)[0]


def test_c7_a_game_whose_every_seat_the_bot_plays_ends_abandoned(tmp_path):
    with freeze_time(T0) as frozen:
        service, store, game_id, _accounts = timed_game(
            tmp_path, time_control="move", move_seconds=60, absent_after=1
        )
        results = []
        for _ in range(2):
            frozen.tick(timedelta(seconds=61))
            result = service.act_for_seat(game_id)
            assert result is not None and result.events[0].type == "TurnTimedOut"
            results.append(result)
        _, state = service.load(game_id)
        assert state.phase is Phase.ENDED
        assert state.result.reason == "abandoned" and state.result.rule == "C7"
        assert state.end_reason == "abandoned"  # the state says so too (it said None)
        assert state.seed_hex is not None  # the deck is revealed as at any end
        # the last timeout ends the game: no move is made, and none is journalled
        assert [e.type for e in results[1].events] == [
            "TurnTimedOut",
            "SeatMarkedAbsent",
            "GameEnded",
            "DeckRevealed",
        ]
        journal = [e for e in store.journal(game_id, 0, 100) if e.actor.get("bot")]
        assert json.loads(journal[0].payload["move"])["type"]  # the first: the bot's move
        assert journal[-1].payload["move"] == ""
        from service.audit.verify import verify_game

        assert verify_game(store, game_id).ok
        # the players are told the game is over, not that the bot plays on for them
        versions = store.read(game_id, after=0, limit=1000)
        told = notices(
            replay([]), [(e.version, e.meta(), decode_event(e.body())) for e in versions]
        )
        last = [n for n in told if n["version"] == versions[-1].version]
        assert sorted(n["kind"] for n in last) == ["game_over", "game_over"]
        assert "nobody was left to play" in last[0]["text"]


def test_c7_a_recorded_timeout_that_ends_the_game_plays_no_move_whatever_it_carries(tmp_path):
    """Records made before the service sent no move for such a timeout carried the
    bot's move: it is not played (C7), so they re-run the same."""
    with freeze_time(T0) as frozen:
        service, _store, game_id, _accounts = timed_game(
            tmp_path, time_control="move", move_seconds=60, absent_after=1
        )
        frozen.tick(timedelta(seconds=61))
        service.act_for_seat(game_id)  # the first seat is absent; the second's is pending
        _, state = service.load(game_id)
        colour = state.active_colour
        bot_move = canonical(encode(GreedyBot(random.Random(1)).choose(state)))
        for move in ("", bot_move):
            command = cmd.ActForSeat(colour, "timeout", move)
            events, after = play(state, command, lambda: service.secret(game_id), service.deck)
            assert [type(e).__name__ for e in events] == [
                "TurnTimedOut",
                "SeatMarkedAbsent",
                "GameEnded",
                "DeckRevealed",
            ]
            assert after.phase is Phase.ENDED


def test_c3_a_timeout_that_leaves_a_player_carries_the_bots_move(tmp_path):
    with freeze_time(T0):
        service, _store, game_id, _accounts = timed_game(
            tmp_path, time_control="move", move_seconds=60, absent_after=2
        )
        _, state = service.load(game_id)
        with pytest.raises(RuleViolation) as caught:
            command = cmd.ActForSeat(state.active_colour, "timeout", "")
            play(state, command, lambda: service.secret(game_id), service.deck)
        assert caught.value.code == "bad_move"


def test_c5_the_bots_moves_for_an_absent_seat_earn_no_fischer_increment(tmp_path):
    with freeze_time(T0) as frozen:
        service, store, game_id, accounts = timed_game(
            tmp_path,
            players=3,
            time_control="fischer",
            base_seconds=60,
            increment_seconds=30,
            absent_after=1,
        )
        frozen.tick(timedelta(seconds=61))
        service.act_for_seat(game_id)  # seat 1 times out: absent
        left = head_clock(store, game_id).left_ms[1]
        for _ in range(200):
            _, state = service.load(game_id)
            if state.phase is Phase.ENDED:
                break
            if state.owner(state.active_colour).seat == 1:
                assert service.act_for_seat(game_id) is not None
            else:
                frozen.tick(timedelta(seconds=1))
                move(service, game_id, accounts)
        assert head_clock(store, game_id).left_ms[1] == left
