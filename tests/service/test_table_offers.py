"""Offers at the table through the service (docs/table.md): the takeback completed from
the record (T1), refused past a tile (T2), clocks put back (T5), an end by agreement
(T6), races that leave exactly one outcome, and verification re-running all of it."""

from __future__ import annotations

import random
import threading
from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from domain import commands as cmd
from domain import legal_commands, position
from domain.consent import restorable
from domain.fold import replay
from domain.serialization import encode
from domain.state import Phase
from service.audit.verify import verify_game
from service.errors import Conflict, Forbidden
from service.play.accounts import create_account
from service.play.games import GameService
from service.play.repository import decode_events
from service.store.postgres import PostgresEventStore
from service.store.sqlite import SQLiteEventStore
from service.timing.clocks import Clock

T0 = datetime(2026, 11, 27, 12, 0, 0, tzinfo=UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = SQLiteEventStore(tmp_path / "t.db")
    else:
        _, url = request.getfixturevalue("pg_schema")
        s = PostgresEventStore(url, max_size=6)
    s.upgrade()
    yield s
    s.close()


def table(store, players=2, **options):
    service = GameService(store, clock=utcnow)
    accounts = [create_account(store, n, T0)[0] for n in ("ann", "bob", "cy")[:players]]
    opts = cmd.GameOptions(max_players=players, **options)
    game_id = service.create_game(accounts[0], opts).game_id
    for a, c in zip(accounts, ("blue", "red", "green"), strict=False):
        service.join(game_id, a, [c], "")
    service.execute(game_id, accounts[0], {"type": "StartGame"})
    return service, game_id, accounts


def move(service, game_id, accounts, rng=None):
    """The pending decision, by its player (If-Match: the version judged)."""
    version, state = service.load(game_id)
    who = next(a for a in accounts if a.account_id == state.owner(state.active_colour).player_id)
    command = (rng or random.Random(1)).choice(legal_commands(state))
    return who, service.execute(game_id, who, encode(command), version)


def send(service, game_id, account, kind, **fields):
    payload = {"type": kind, "player_id": account.account_id, **fields}
    return service.execute(game_id, account, payload)


def kinds(result):
    return (
        [e["type"] for e in result.events]
        if isinstance(result.events[0], dict)
        else [e.type for e in result.events]
    )


def test_t1_t3_the_service_completes_the_request_from_the_record_and_verification_agrees(store):
    service, game_id, (ann, bob) = table(store)
    move(service, game_id, [ann, bob])  # ann places a starting boat
    before = position.text(restorable(service.load(game_id, at=service.load(game_id)[0] - 1)[1]))
    # a client's own version and position are replaced by the record's
    asked = send(service, game_id, ann, "RequestTakeback", to_version=1, position="{}")
    taken = decode_events(store.read(game_id))[-1]
    assert taken.to_version == asked.version - 2 and taken.position == before
    send(service, game_id, bob, "AnswerTakeback", accept=True)
    _, state = service.load(game_id)
    assert position.text(state) == before
    journal = store.journal(game_id)
    assert journal[-2].payload["to_version"] == taken.to_version
    assert verify_game(store, game_id).ok


def test_t1_nothing_to_take_back_is_refused_journalled_and_changes_nothing(store):
    service, game_id, (ann, _bob) = table(store)
    version = service.load(game_id)[0]
    with pytest.raises(Conflict) as info:
        send(service, game_id, ann, "RequestTakeback")
    assert (info.value.code, info.value.extra.get("rule")) == ("nothing_to_take_back", "T1")
    assert service.load(game_id)[0] == version
    assert store.journal(game_id)[-1].outcome == "rejected"


def test_a_request_for_another_seat_or_a_stranger_is_refused_as_not_yours(store):
    service, game_id, (ann, bob) = table(store)
    move(service, game_id, [ann, bob])
    for someone in (bob.account_id, "nobody-at-all"):
        with pytest.raises(Forbidden) as info:
            service.execute(game_id, ann, {"type": "RequestTakeback", "player_id": someone})
        assert info.value.code == "not_your_seat"


def test_an_answer_for_another_seat_is_refused(store):
    service, game_id, (ann, bob) = table(store)
    move(service, game_id, [ann, bob])
    send(service, game_id, ann, "RequestTakeback")
    with pytest.raises(Forbidden) as info:
        service.execute(
            game_id, ann, {"type": "AnswerTakeback", "player_id": bob.account_id, "accept": True}
        )
    assert info.value.code == "not_your_seat"


def test_t2_a_decision_that_drew_a_tile_stands(store):
    service, game_id, accounts = table(store)
    rng = random.Random(3)
    for _ in range(400):
        who, result = move(service, game_id, accounts, rng)
        if any(
            e.type == "TileDrawn"
            for e in store.read(game_id, after=result.version - len(result.events))
        ):
            break
    with pytest.raises(Conflict) as info:
        send(service, game_id, who, "RequestTakeback")
    assert (info.value.code, info.value.extra.get("rule")) == ("tile_drawn_since", "T2")
    assert verify_game(store, game_id).ok


def test_t5_clocks_are_put_back_as_they_stood(tmp_path):
    store = SQLiteEventStore(tmp_path / "c.db")
    store.upgrade()
    with freeze_time(T0) as frozen:
        service, game_id, (ann, bob) = table(
            store, time_control="fischer", base_seconds=300, increment_seconds=5
        )
        start = store.read(game_id)[-1]
        frozen.tick(timedelta(seconds=40))
        move(service, game_id, [ann, bob])  # ann used 40 s
        frozen.tick(timedelta(seconds=25))
        send(service, game_id, ann, "RequestTakeback")
        frozen.tick(timedelta(seconds=10))
        send(service, game_id, bob, "AnswerTakeback", accept=True)
        head = store.read(game_id)[-1]
        clock = Clock.from_data(head.meta()["clock"])
        then = Clock.from_data(start.meta()["clock"])
        assert clock.left_ms == then.left_ms  # ann's 40 s are hers again
        assert clock.seat == then.seat and clock.since == T0 + timedelta(seconds=75)
    assert verify_game(store, game_id).ok
    store.close()


def test_t6_an_end_by_agreement_ends_the_game_scored_and_verified(store):
    service, game_id, (ann, bob) = table(store)
    for _ in range(4):
        move(service, game_id, [ann, bob])
    send(service, game_id, bob, "ProposeEnd")
    send(service, game_id, ann, "AnswerEnd", accept=True)
    _, state = service.load(game_id)
    assert state.phase is Phase.ENDED and state.result.reason == "agreement"
    assert state.seed_hex is not None  # the deck is revealed at every end
    assert verify_game(store, game_id).ok


def test_verification_catches_a_takeback_to_another_version_than_the_record_gives(tmp_path):
    store = SQLiteEventStore(tmp_path / "v.db")
    store.upgrade()
    service, game_id, (ann, bob) = table(store)
    move(service, game_id, [ann, bob])
    move(service, game_id, [ann, bob])
    move(service, game_id, [ann, bob])  # ann's second decision
    send(service, game_id, ann, "RequestTakeback")
    events = decode_events(store.read(game_id))
    asked = events[-1]
    # an operator who rewrote the request to go back two decisions (same pile) is caught
    from service.audit.takebacks import takeback_problems

    forged = type(asked)(
        asked.seat, asked.player_id, 3, position.text(restorable(replay(events[:3])))
    )
    problems = takeback_problems(store.journal(game_id), [*events[:-1], forged])
    assert problems and "T1" in problems[0]
    assert takeback_problems(store.journal(game_id), events) == []
    store.close()


def test_two_players_answering_at_once_leave_exactly_one_outcome(store):
    service, game_id, (ann, bob, cy) = table(store, players=3)
    move(service, game_id, [ann, bob, cy])
    send(service, game_id, ann, "RequestTakeback")
    errors: list[Exception] = []
    barrier = threading.Barrier(2)

    def answer(who, accept):
        barrier.wait()
        try:
            send(service, game_id, who, "AnswerTakeback", accept=accept)
        except Conflict as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=answer, args=(bob, True)),
        threading.Thread(target=answer, args=(cy, False)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    names = [e.type for e in store.read(game_id)]
    closed = names.count("TakebackRefused") + names.count("MovesTakenBack")
    assert closed == 1
    if "TakebackRefused" in names and names.index("TakebackRefused") < len(names) - 1:
        assert errors and errors[0].code == "no_takeback"  # the acceptance came too late
    assert verify_game(store, game_id).ok


def test_a_takeback_racing_the_bots_timeout_leaves_exactly_one_outcome(tmp_path):
    store = SQLiteEventStore(tmp_path / "r.db")
    store.upgrade()
    with freeze_time(T0) as frozen:
        service, game_id, (ann, bob) = table(store, time_control="move", move_seconds=60)
        move(service, game_id, [ann, bob])  # ann's decision; bob's runs
        send(service, game_id, ann, "RequestTakeback")
        frozen.tick(timedelta(seconds=61))  # bob's deadline passed while he thought
        service.act_for_seat(game_id)  # the bot plays bob's decision: the takeback expired
        with pytest.raises(Conflict) as info:
            send(service, game_id, bob, "AnswerTakeback", accept=True)
        assert info.value.code == "no_takeback"
    names = [e.type for e in store.read(game_id)]
    assert "TakebackExpired" in names and "MovesTakenBack" not in names
    assert verify_game(store, game_id).ok
    store.close()
