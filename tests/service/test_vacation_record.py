"""Vacation in the record (docs/vacation.md V1, V3, V6, V7), below HTTP: the arithmetic
as properties (hypothesis), games whose decisions record random leaves verified as
recorded, and forged leaves caught by verification."""

from __future__ import annotations

import dataclasses
import json
import random
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import commands as cmd
from domain import legal_commands
from domain.serialization import decode_event, encode
from service.audit.rerun import check_record
from service.audit.vacation_check import vacation_problems
from service.audit.verify import verify_game
from service.play.accounts import create_account
from service.play.games import GameService
from service.store.base import canonical
from service.store.in_memory import InMemoryStore
from service.timing.vacation import (
    MS_PER_DAY,
    Leave,
    left_ms,
    merged,
    reserve_end,
    run_until,
    spent_ms,
)

T0 = datetime(2026, 12, 20, tzinfo=UTC)  # near New Year: spans cross it
moments = st.integers(0, 40 * 24).map(lambda h: T0 + timedelta(hours=h))
spans = st.lists(
    st.tuples(moments, st.integers(1, 5 * 24)).map(lambda s: (s[0], s[0] + timedelta(hours=s[1]))),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(spans, moments, st.integers(0, 30))
def test_v1_v6_a_reserve_never_takes_a_year_past_its_days(ledger, start, days):
    """Given an account whose spans keep within its days, when a decision's reserve is
    reckoned from ``start``, then with it every year still keeps within its days and
    days left are never negative."""
    years = (T0.year, T0.year + 1)
    ledger = [s for s in merged(ledger)]
    if any(spent_ms(ledger, y) > days * MS_PER_DAY for y in years):
        return  # not an account the service can have
    end = reserve_end(start, ledger, days)
    assert end >= start
    assert (end - start) <= timedelta(days=days) + sum(
        (b - a for a, b in ledger), timedelta()
    )  # only covered time comes free
    after = [*ledger, (start, end)]
    for year in years:
        assert spent_ms(after, year) <= days * MS_PER_DAY
        assert left_ms(after, year, days) >= 0


@settings(max_examples=300, deadline=None)
@given(moments, st.integers(0, 10 * 3_600_000), spans)
def test_v4_a_clock_standing_still_runs_exactly_its_allowance(since, allowed, away):
    """Given announced spells, the deadline is where the clock time (wall time less the
    spells) reaches the allowance, and never inside a spell."""
    from service.timing.vacation import clock_ms

    deadline = run_until(since, allowed, away)
    assert clock_ms(since, deadline, away) == allowed
    assert not any(a < deadline < b and a > since for a, b in merged(away))


@settings(max_examples=300, deadline=None)
@given(moments, st.integers(0, 999_999), spans, st.integers(0, 10**6), st.integers(0, 10**6))
def test_v4_the_clock_stands_still_to_the_millisecond_during_a_spell(hour, micros, away, a, b):
    """Given a spell under way, the clock time read at any two moments inside it is the
    same: not a millisecond apart (rounding the wall time and the spell apart made it
    tick by 1 ms on a served game)."""
    from service.timing.vacation import clock_ms

    since = hour + timedelta(microseconds=micros)  # recorded times carry microseconds
    for start, end in merged(away):
        if start <= since:
            continue
        first = start + (end - start) * (min(a, b) / 10**6)
        second = start + (end - start) * (max(a, b) / 10**6)
        assert clock_ms(since, first, away) == clock_ms(since, second, away)


def play(service, store, game_id, accounts, rng, steps):
    """Moves and timeouts at random times (the clock moves by ``now``)."""
    for _ in range(steps):
        version, state = service.load(game_id)
        if state.active_colour is None:
            return
        service.now += timedelta(minutes=rng.choice([1, 30, 90, 600, 3000]))
        if service.act_for_seat(game_id) is not None:
            continue
        version, state = service.load(game_id)
        who = accounts[state.owner(state.active_colour).player_id]
        command = rng.choice(legal_commands(state))
        service.execute(game_id, who, encode(command), version)


class Clocked(GameService):
    """A game service on a clock the test moves."""

    now = T0

    def __init__(self, store):
        super().__init__(store, clock=lambda: self.now)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.sampled_from(["move", "fischer"]))
def test_v7_deadlines_with_vacation_are_recomputed_identically_by_verification(seed, control):
    """Given a game with vacation whose decisions record random leaves (spells, reserves),
    when moves and timeouts come at random times, then verification recomputes every
    clock and finds nothing wrong."""
    rng = random.Random(seed)
    store = InMemoryStore()
    store.upgrade()
    service = Clocked(store)

    def leave(game_id, player_id, since, allowed):
        away = []
        for _ in range(rng.randint(0, 2)):
            a = since + timedelta(minutes=rng.randint(-60, 600))
            away.append((a, a + timedelta(minutes=rng.randint(1, 900))))
        away = tuple(s for s in merged(away) if s[1] > since)
        reserve = rng.choice([0, 60_000, 3_600_000, MS_PER_DAY])
        return Leave(away, reserve, run_until(since, allowed, away), 366)

    service.leaves = leave
    accounts = [create_account(store, n, T0)[0] for n in ("ann", "bob")]
    timing = (
        {"time_control": "move", "move_seconds": 3600}
        if control == "move"
        else {"time_control": "fischer", "base_seconds": 7200, "increment_seconds": 60}
    )
    opts = cmd.GameOptions(max_players=2, vacation=True, absent_after=10, **timing)
    game_id = service.create_game(accounts[0], opts).game_id
    for a, c in zip(accounts, ("blue", "red"), strict=True):
        service.join(game_id, a, [c], "")
    service.execute(game_id, accounts[0], {"type": "StartGame"})
    play(service, store, game_id, {a.account_id: a for a in accounts}, rng, 25)
    report = verify_game(store, game_id)
    assert report.ok, report.rerun_problems


def recorded_game(vacation: bool):
    """A timed game, one decision taken on automatic vacation, as recorded."""
    store = InMemoryStore()
    store.upgrade()
    service = Clocked(store)
    service.leaves = lambda g, p, since, allowed: Leave(
        (), MS_PER_DAY, run_until(since, allowed, ()), 1
    )
    accounts = [create_account(store, n, T0)[0] for n in ("ann", "bob")]
    opts = cmd.GameOptions(max_players=2, vacation=vacation, time_control="move", move_seconds=3600)
    game_id = service.create_game(accounts[0], opts).game_id
    for a, c in zip(accounts, ("blue", "red"), strict=True):
        service.join(game_id, a, [c], "")
    service.execute(game_id, accounts[0], {"type": "StartGame"})
    service.now += timedelta(hours=5 if vacation else 0.5)
    version, state = service.load(game_id)
    service.execute(game_id, accounts[0], encode(legal_commands(state)[0]), version)
    return store, game_id


def forged(stored, version, change):
    """The record with the clock of ``version`` changed (hashes need not matter here:
    the re-run and the vacation check read the metadata)."""
    out = []
    for e in stored:
        if e.version == version:
            meta = e.meta()
            change(meta["clock"])
            e = dataclasses.replace(e, metadata=canonical(meta))
        out.append(e)
    return out


def rerun_problems(store, game_id, stored):
    events = [decode_event(e.body()) for e in stored]
    return check_record(store.journal(game_id), stored, events, store.get_secret(game_id)).problems


def test_v7_an_honest_record_of_vacation_has_no_problems():
    store, game_id = recorded_game(vacation=True)
    stored = store.read(game_id)
    assert vacation_problems(stored) == []
    clocks = [e.meta()["clock"] for e in stored if "clock" in e.meta()]
    assert clocks[-1]["vacation_used_ms"] == 4 * 3_600_000


def test_v7_a_leave_forged_into_a_game_without_vacation_is_caught():
    store, game_id = recorded_game(vacation=False)
    stored = store.read(game_id)
    start = next(e.version for e in stored if "clock" in e.meta())
    leave = Leave((), MS_PER_DAY, T0, 1).to_data()
    bad = forged(stored, start, lambda c: c.update(vacation=leave))
    assert any("(C2)" in p for p in rerun_problems(store, game_id, bad))


def test_v7_a_reserve_forged_past_the_days_is_caught():
    store, game_id = recorded_game(vacation=True)
    stored = store.read(game_id)
    start = next(e.version for e in stored if "clock" in e.meta())

    def more(clock):
        clock["vacation"]["reserve_ms"] = 40 * MS_PER_DAY
        clock["deadline"] = json.loads(json.dumps(clock["deadline"]))

    problems = vacation_problems(forged(stored, start, more))
    assert any("(V3)" in p for p in problems)
    many = forged(stored, start, lambda c: c["vacation"].update(days=400))
    assert any("(V1)" in p for p in vacation_problems(many))


def test_v7_vacation_spent_past_the_days_is_caught():
    store, game_id = recorded_game(vacation=True)
    stored = store.read(game_id)
    last = stored[-1].version
    problems = vacation_problems(
        forged(stored, last, lambda c: c.update(vacation_used_ms=3 * MS_PER_DAY))
    )
    assert any("more than its 1 days" in p for p in problems)


def test_v7_a_leave_that_cannot_be_read_is_a_problem_not_a_failure():
    store, game_id = recorded_game(vacation=True)
    stored = store.read(game_id)
    start = next(e.version for e in stored if "clock" in e.meta())
    bad = forged(stored, start, lambda c: c["vacation"].update(away=[["soon"]]))
    assert any("cannot be read" in p for p in vacation_problems(bad))
    assert any("cannot be read" in p for p in rerun_problems(store, game_id, bad))
