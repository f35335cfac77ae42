"""One contract for every event store adapter (design.md, Event store)."""

from __future__ import annotations

import re
import sqlite3
import threading
from dataclasses import FrozenInstanceError, replace

import psycopg
import pytest

from service.store.base import (
    GENESIS,
    CommandRecord,
    ConcurrencyConflict,
    InvalidData,
    NewEvent,
    Snapshot,
    canonical,
    check_chain,
)
from service.store.memory import MemoryEventStore
from service.store.postgres import PostgresEventStore
from service.store.sql import SCHEMA_VERSION
from service.store.sqlite import SQLiteEventStore


def record(game="g1", command="c1", expected=None, fingerprint=None):
    return CommandRecord(
        game,
        command,
        {"account": "a1", "seat": 1},
        "2026-11-22T10:00:00+00:00",
        {"type": "Expand", "island": "tonga"},
        expected,
        fingerprint,
    )


def events(n, start=0):
    return [
        NewEvent("BoatsAdded", {"n": start + i, "z": [1, 2], "a": "é"}, {"actor": "a1"})
        for i in range(n)
    ]


def test_upgrade_is_idempotent_and_records_the_schema_version(store):
    assert store.upgrade() == store.upgrade() == SCHEMA_VERSION == 6


def test_upgrade_from_schema_1_replaces_the_array_append_function(pg_schema):
    # schema 1's tongiaki_append took five text arrays; an upgraded database keeps one function
    _, url = pg_schema
    old = PostgresEventStore(url, max_size=1)
    old.upgrade()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE FUNCTION tongiaki_append(text, integer, text, integer, text, text, text, text,"
            " text, text, text[], text[], text[], text[], text[]) RETURNS integer"
            " LANGUAGE sql AS 'SELECT 1'"
        )
        conn.execute("DELETE FROM schema_version WHERE version >= 2")
    assert old.upgrade() == SCHEMA_VERSION == 6
    with psycopg.connect(url, autocommit=True) as conn:
        (count,) = conn.execute(
            "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE proname = 'tongiaki_append' AND nspname = current_schema()"
        ).fetchone()
    assert count == 1
    appended = old.append(record(command="c1"), 0, events(2), "open")
    assert appended.version == 2
    old.close()


def test_upgrade_from_schema_2_adds_the_journal_fingerprint(pg_schema):
    # schema 2 had no journal.fingerprint and a tongiaki_append without it
    _, url = pg_schema
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE journal (game_id TEXT NOT NULL, command_id TEXT NOT NULL,"
            " seq BIGSERIAL, actor TEXT NOT NULL, received_at TEXT NOT NULL, payload TEXT NOT NULL,"
            " judged_version INTEGER NOT NULL, outcome TEXT NOT NULL, first_version INTEGER,"
            " last_version INTEGER, rejection TEXT, PRIMARY KEY (game_id, command_id))"
        )
        conn.execute(
            "CREATE FUNCTION tongiaki_append(text, integer, text, integer, text, text, text, text,"
            " text, text, json) RETURNS integer LANGUAGE sql AS 'SELECT 1'"
        )
    store = PostgresEventStore(url, max_size=1)
    assert store.upgrade() == SCHEMA_VERSION
    with psycopg.connect(url, autocommit=True) as conn:
        (count,) = conn.execute(
            "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE proname = 'tongiaki_append' AND nspname = current_schema()"
        ).fetchone()
    assert count == 1
    appended = store.append(record(command="c1", fingerprint="f" * 64), 0, events(2), "open")
    assert appended.entry.fingerprint == "f" * 64
    assert store.outcome("g1", "c1").fingerprint == "f" * 64
    store.close()


def test_the_fingerprint_is_journalled_with_accepted_and_rejected_commands(store):
    store.append(record(command="c1", fingerprint="a" * 64), 0, events(1), "open")
    store.reject(record(command="c2", fingerprint="b" * 64), 1, {"code": "x", "status": 409})
    assert store.outcome("g1", "c1").fingerprint == "a" * 64
    assert store.outcome("g1", "c2").fingerprint == "b" * 64
    assert [j.fingerprint for j in store.journal("g1")] == ["a" * 64, "b" * 64]


def test_appended_events_are_numbered_from_1_and_chained(store):
    first = store.append(record(command="c1"), 0, events(3), "open")
    second = store.append(record(command="c2"), 3, events(2, 3), "running")
    assert [e.version for e in first.events] == [1, 2, 3]
    assert (second.version, second.hash) == (5, second.events[-1].hash)
    stored = store.read("g1")
    assert [e.version for e in stored] == [1, 2, 3, 4, 5]
    assert stored[0].prev_hash == GENESIS and stored[1].prev_hash == stored[0].hash
    assert check_chain(stored).ok
    head = store.head("g1")
    assert (head.version, head.hash, head.status) == (5, second.hash, "running")


def test_stored_bytes_are_canonical_json(store):
    store.append(record(), 0, [NewEvent("X", {"b": 1, "a": [True, None]}, {"z": "é"})], "open")
    e = store.read("g1")[0]
    assert e.data == '{"a":[true,null],"b":1}' == canonical({"b": 1, "a": [True, None]})
    assert e.metadata == '{"z":"é"}'
    assert e.body() == {"type": "X", "a": [True, None], "b": 1}


def test_reading_after_a_version_with_a_limit(store):
    store.append(record(), 0, events(6), "open")
    assert [e.version for e in store.read("g1", after=2, limit=3)] == [3, 4, 5]
    assert store.read("nope") == []
    assert store.head("nope") is None


def test_a_stale_expected_version_conflicts_and_appends_nothing(store):
    store.append(record(command="c1"), 0, events(2), "open")
    with pytest.raises(ConcurrencyConflict) as info:
        store.append(record(command="c2"), 1, events(1), "open")
    assert (info.value.expected, info.value.actual) == (1, 2)
    assert len(store.read("g1")) == 2
    assert store.outcome("g1", "c2") is None


def test_a_repeated_command_id_returns_the_stored_outcome_and_appends_nothing(store):
    first = store.append(record(command="c1"), 0, events(2), "open")
    again = store.append(record(command="c1"), 2, events(5), "open")
    assert again.duplicate and again.events == first.events and again.version == 2
    assert len(store.read("g1")) == 2
    entry = store.outcome("g1", "c1")
    assert (entry.outcome, entry.first_version, entry.last_version) == ("accepted", 1, 2)


def test_rejections_are_journalled_with_the_rule_and_the_version_judged(store):
    store.append(record(command="c1"), 0, events(1), "open")
    rejection = {"code": "beach_full", "rule": "R6", "message": "no slot"}
    entry = store.reject(record(command="c2"), 1, rejection)
    assert (entry.outcome, entry.judged_version, entry.rejection) == ("rejected", 1, rejection)
    assert store.reject(record(command="c2"), 7, {"code": "other"}) == entry
    dup = store.append(record(command="c2"), 1, events(1), "open")
    assert dup.duplicate and dup.events == () and dup.entry.outcome == "rejected"
    journal = store.journal("g1")
    assert [(j.command_id, j.outcome) for j in journal] == [("c1", "accepted"), ("c2", "rejected")]
    assert journal[0].actor == {"account": "a1", "seat": 1}
    assert journal[0].payload == {"type": "Expand", "island": "tonga"}
    assert journal[0].seq < journal[1].seq


@pytest.mark.parametrize("existing", [0, 3])
def test_eight_racing_writers_at_one_version_one_wins_no_gap_no_duplicate(store, existing):
    if existing:
        store.append(record(command="seed"), 0, events(existing), "open")
    barrier = threading.Barrier(8)
    results: list[str] = []

    def write(i):
        barrier.wait()
        try:
            store.append(record(command=f"w{i}"), existing, events(2, 100 * i), "open")
            results.append("won")
        except ConcurrencyConflict:
            results.append("conflict")

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["conflict"] * 7 + ["won"]
    stored = store.read("g1")
    assert [e.version for e in stored] == list(range(1, existing + 3))
    assert check_chain(stored).ok


def test_racing_retries_of_one_command_append_it_once(store):
    barrier = threading.Barrier(6)
    outcomes = []

    def write():
        barrier.wait()
        try:
            outcomes.append(store.append(record(command="same"), 0, events(2), "open").duplicate)
        except ConcurrencyConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=write) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count(False) == 1
    assert len(store.read("g1")) == 2


def test_games_are_listed_by_status_newest_first(store):
    store.append(record(game="a"), 0, events(1), "open")
    store.append(
        CommandRecord("b", "c", {}, "2026-11-22T11:00:00+00:00", {}, 0), 0, events(1), "running"
    )
    assert [g.game_id for g in store.games()] == ["b", "a"]
    assert [g.game_id for g in store.games(status="open")] == ["a"]


def test_secrets_and_snapshots(store):
    store.put_secret("g1", b"\x00\x01secret")
    assert store.get_secret("g1") == b"\x00\x01secret"
    assert store.get_secret("g2") is None
    store.put_snapshot(Snapshot("g1", 10, "f1", "{}"))
    store.put_snapshot(Snapshot("g1", 20, "f1", '{"x":1}'))
    store.put_snapshot(Snapshot("g1", 20, "f1", "ignored"))
    assert store.get_snapshot("g1", "f1").version == 20
    assert store.get_snapshot("g1", "f1", at_most=15).version == 10
    assert store.get_snapshot("g1", "f2") is None
    assert store.get_snapshot("g1", "f1").state == '{"x":1}'


def _tamper(store, sql):
    """Rewrite stored events behind the store's back, bypassing its guards."""
    if isinstance(store, MemoryEventStore):  # the same rewrite, on the lists it keeps
        version = int(re.search(r"version = (\d+)", sql)[1])
        stream = store._events["g1"]
        old = stream[version - 1]
        if "SET data" in sql:
            stream[version - 1] = replace(old, data='{"n":99}')
        else:
            stream[version - 1] = replace(old, hash="f" + old.hash[1:])
    elif isinstance(store, SQLiteEventStore):
        conn = sqlite3.connect(store.path)
        conn.execute("DROP TRIGGER events_no_update")
        conn.execute(sql)
        conn.commit()
        conn.close()
    else:
        assert isinstance(store, PostgresEventStore)
        with psycopg.connect(store.url, autocommit=True) as conn:
            conn.execute("SET session_replication_role = replica")  # superuser: triggers off
            conn.execute(sql)


def test_rewriting_an_event_breaks_the_hash_chain(store):
    store.append(record(), 0, events(4), "open")
    assert check_chain(store.read("g1")).ok
    _tamper(store, "UPDATE events SET data = '{\"n\":99}' WHERE game_id = 'g1' AND version = 2")
    report = check_chain(store.read("g1"))
    assert not report.ok and any("event 2" in p for p in report.problems)


def test_rewriting_an_event_with_a_fresh_hash_breaks_the_next_link(store):
    store.append(record(), 0, events(3), "open")
    _tamper(
        store,
        "UPDATE events SET hash = 'f' || substr(hash, 2) WHERE game_id = 'g1' AND version = 2",
    )
    report = check_chain(store.read("g1"))
    assert not report.ok


def test_events_cannot_be_updated_or_deleted(store):
    store.append(record(), 0, events(2), "open")
    if isinstance(store, MemoryEventStore):  # what it hands out cannot be changed
        with pytest.raises(FrozenInstanceError):
            store.read("g1")[0].data = "{}"  # type: ignore[misc]
    elif isinstance(store, SQLiteEventStore):
        conn = sqlite3.connect(store.path)
        for sql in ("UPDATE events SET type = 'X'", "DELETE FROM events"):
            with pytest.raises(sqlite3.DatabaseError, match="immutable"):
                conn.execute(sql)
        conn.close()
    else:
        with psycopg.connect(store.url, autocommit=True) as conn:
            for sql in ("UPDATE events SET type = 'X'", "DELETE FROM events", "TRUNCATE events"):
                with pytest.raises(psycopg.errors.RaiseException, match="immutable"):
                    conn.execute(sql)
    assert len(store.read("g1")) == 2


def test_an_append_whose_prev_hash_is_not_the_heads_conflicts_and_appends_nothing(store):
    """The caller may say which head it judged on: the chain must still end there."""
    first = store.append(record(), 0, events(2), "open")
    with pytest.raises(ConcurrencyConflict):
        store.append(record(command="c2"), 2, events(1), "open", prev_hash="f" * 64)
    assert len(store.read("g1")) == 2 and store.outcome("g1", "c2") is None
    store.append(record(command="c3"), 2, events(1), "open", prev_hash=first.hash)
    assert len(store.read("g1")) == 3


def test_an_append_to_a_game_that_is_not_there_conflicts(store):
    with pytest.raises(ConcurrencyConflict):
        store.append(record(game="nowhere"), 3, events(1), "open")
    assert store.head("nowhere") is None or store.head("nowhere").version == 0
    assert store.read("nowhere") == []


def test_an_append_holds_at_least_one_event(store):
    with pytest.raises(ValueError):
        store.append(record(), 0, [], "open")
    assert store.head("g1") is None or store.head("g1").version == 0


def test_a_value_the_database_cannot_hold_is_invalid_data_and_changes_nothing(store):
    """Each adapter's one choke point turns its library's refusal into ``InvalidData``
    (on PostgreSQL, inside the server-side append)."""
    with pytest.raises(InvalidData):
        store.append(record(command="c\x00"), 0, events(1), "open")
    assert store.read("g1") == [] and store.journal("g1") == []


# --- dispute streams (domain/disputes.py; docs/disputes.md) ---------------------------

AT = "2026-11-24T10:00:00+00:00"


def dispute_events(n, start=0):
    return [NewEvent("DisputeNoteAdded", {"n": start + i}, {"actor": "a1"}) for i in range(n)]


def test_a_dispute_is_its_own_chained_stream_and_never_moves_its_game(store):
    store.append(record(), 0, events(2), "playing")
    opened = store.append_dispute(
        "d1", "g1", 0, dispute_events(1), status="open", at=AT, opened_by="a1", reason="other"
    )
    more = store.append_dispute("d1", "g1", 1, dispute_events(2, 1), status="ruled", at=AT)
    stored = store.dispute_events("d1")
    assert stored == [*opened, *more] and [e.version for e in stored] == [1, 2, 3]
    assert check_chain(stored).ok and stored[0].prev_hash == GENESIS
    assert store.head("g1").version == 2  # the game did not move
    row = store.dispute("d1")
    assert (row.game_id, row.version, row.hash, row.status) == ("g1", 3, stored[-1].hash, "ruled")
    assert (row.opened_by, row.reason, row.created_at) == ("a1", "other", AT)


def test_a_dispute_append_at_a_stale_version_conflicts_and_stores_nothing(store):
    store.append_dispute("d1", "g1", 0, dispute_events(1), status="open", at=AT)
    with pytest.raises(ConcurrencyConflict):
        store.append_dispute("d1", "g1", 0, dispute_events(1), status="open", at=AT)
    with pytest.raises(ConcurrencyConflict):
        store.append_dispute("d1", "g1", 5, dispute_events(1), status="open", at=AT)
    with pytest.raises(ConcurrencyConflict):
        store.append_dispute("unknown", "g1", 1, dispute_events(1), status="open", at=AT)
    assert len(store.dispute_events("d1")) == 1 and store.dispute("unknown") is None
    assert store.dispute_events("unknown") == []


def test_racing_dispute_appends_one_wins(store):
    store.append_dispute("d1", "g1", 0, dispute_events(1), status="open", at=AT)
    results = []

    def note(i):
        try:
            store.append_dispute("d1", "g1", 1, dispute_events(1, i), status="open", at=AT)
            results.append("ok")
        except ConcurrencyConflict:
            results.append("conflict")

    threads = [threading.Thread(target=note, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["conflict"] * 5 + ["ok"]
    assert check_chain(store.dispute_events("d1")).ok


def test_disputes_are_listed_oldest_first_by_game_and_status(store):
    for i, (game, status) in enumerate([("g1", "open"), ("g2", "open"), ("g1", "ruled")]):
        at = f"2026-11-24T10:00:0{i}+00:00"
        store.append_dispute(f"d{i}", game, 0, dispute_events(1), status=status, at=at)
    assert [r.dispute_id for r in store.disputes()] == ["d0", "d1", "d2"]
    assert [r.dispute_id for r in store.disputes(game_id="g1")] == ["d0", "d2"]
    assert [r.dispute_id for r in store.disputes(status="open")] == ["d0", "d1"]
    assert [r.dispute_id for r in store.disputes(limit=1, offset=1)] == ["d1"]


def test_dispute_events_cannot_be_updated_or_deleted(store):
    store.append_dispute("d1", "g1", 0, dispute_events(1), status="open", at=AT)
    if isinstance(store, MemoryEventStore):  # what it hands out cannot be changed
        with pytest.raises(FrozenInstanceError):
            store.dispute_events("d1")[0].data = "{}"  # type: ignore[misc]
    elif isinstance(store, SQLiteEventStore):
        conn = sqlite3.connect(store.path)
        for sql in ("UPDATE dispute_events SET type = 'X'", "DELETE FROM dispute_events"):
            with pytest.raises(sqlite3.DatabaseError, match="immutable"):
                conn.execute(sql)
        conn.close()
    else:
        with psycopg.connect(store.url, autocommit=True) as conn:
            for sql in (
                "UPDATE dispute_events SET type = 'X'",
                "DELETE FROM dispute_events",
                "TRUNCATE dispute_events",
            ):
                with pytest.raises(psycopg.errors.RaiseException, match="immutable"):
                    conn.execute(sql)
    assert len(store.dispute_events("d1")) == 1


def test_a_ruling_and_its_game_events_are_appended_together_or_not_at_all(store):
    from service.store.base import DisputeAppend

    store.append(record(), 0, events(2), "playing")
    store.append_dispute("d1", "g1", 0, dispute_events(1), status="open", at=AT)
    ruling = DisputeAppend("d1", 1, dispute_events(1, 9), "ruled", AT)
    appended = store.append(record(command="c2"), 2, events(1, 2), "playing", dispute=ruling)
    assert appended.version == 3 and [e.version for e in store.dispute_events("d1")] == [1, 2]
    assert store.dispute("d1").status == "ruled"
    # a second ruling on the dispute (it moved on): nothing of either is written
    late = DisputeAppend("d1", 1, dispute_events(1, 10), "ruled", AT)
    with pytest.raises(ConcurrencyConflict) as conflict:
        store.append(record(command="c3"), 3, events(1, 3), "playing", dispute=late)
    assert conflict.value.game_id == "d1"
    assert store.head("g1").version == 3 and len(store.dispute_events("d1")) == 2
    assert store.outcome("g1", "c3") is None


def test_a_migration_makes_only_what_is_missing(pg_schema):
    """Re-running the schema's DDL on tables that exist would lock them under traffic:
    the upgrade makes what is missing (here a trigger and an index) and nothing else."""
    _, url = pg_schema
    store = PostgresEventStore(url, max_size=1)
    store.upgrade()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TRIGGER dispute_events_no_truncate ON dispute_events")
        conn.execute("DROP INDEX disputes_by_status")
        conn.execute("DELETE FROM schema_version WHERE version >= 4")
    assert store.upgrade() == SCHEMA_VERSION
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT to_regclass('disputes_by_status') IS NOT NULL").fetchone()[0]
        with pytest.raises(psycopg.errors.RaiseException, match="immutable"):
            conn.execute("TRUNCATE dispute_events")
    store.close()


def test_dispute_counts_by_game_and_status(store):
    for i, (game, status) in enumerate(
        [("g1", "open"), ("g1", "ruled"), ("g1", "ruled"), ("g2", "withdrawn")]
    ):
        store.append_dispute(f"d{i}", game, 0, dispute_events(1), status=status, at=AT)
    assert store.dispute_counts(["g1", "g2", "g3"]) == {
        "g1": {"open": 1, "ruled": 2},
        "g2": {"withdrawn": 1},
    }
    assert store.dispute_counts([]) == {}


def test_versions_names_the_head_and_status_of_the_games_asked_for(store):
    store.append(record(game="g1", command="c1"), 0, events(3), "open")
    store.append(record(game="g2", command="c1"), 0, events(1), "ended")
    assert store.versions(["g1", "g2", "nope"]) == {"g1": (3, "open"), "g2": (1, "ended")}
    assert store.versions([]) == {}


def test_postgresql_notifies_the_change_feed_once_per_game_and_transaction(pg_schema):
    """The trigger behind service.live.feed: every commit of events says which game moved,
    to every connection listening, whoever wrote it."""
    import psycopg

    _, url = pg_schema
    s = PostgresEventStore(url, max_size=2)
    s.upgrade()
    with psycopg.connect(url, autocommit=True) as listener:
        listener.execute("LISTEN tongiaki_events")
        s.append(record(game="g1", command="c1"), 0, events(3), "open")
        s.append(record(game="g2", command="c1"), 0, events(2), "open")
        heard = [n.payload for n in listener.notifies(timeout=2.0, stop_after=3)]
    s.close()
    assert heard == ["g1", "g2"]


def test_sqlite_writers_of_one_process_queue_for_each_other_not_for_sqlites_sleeps(tmp_path):
    """SQLite makes a writer that finds the file locked poll, sleeping up to 100 ms at a
    time: under 8 players the embedded default's commands had a tail of ~750 ms. Writers
    of one process queue on a lock instead: the next starts as soon as one commits, and
    one that waits longer than the store's ``wait`` is told the store is busy."""
    import threading
    import time

    from service.store.base import StoreUnavailable

    s = SQLiteEventStore(tmp_path / "w.db", wait=0.3)
    s.upgrade()
    holding, committed, started = threading.Event(), [], []

    def first() -> None:
        with s.transaction():
            holding.set()
            time.sleep(0.25)  # long enough for SQLite's own waits to reach 100 ms steps
            committed.append(time.monotonic())

    def second() -> None:
        holding.wait()
        with s.transaction():
            started.append(time.monotonic())

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert started[0] - committed[0] < 0.05
    holding.clear()

    def slow_writer() -> None:
        with s.transaction():
            holding.set()
            time.sleep(0.6)

    slow = threading.Thread(target=slow_writer)
    slow.start()
    holding.wait()
    with pytest.raises(StoreUnavailable, match="busy writing"), s.transaction():
        pass
    slow.join()


def test_players_are_found_by_any_part_of_their_name_in_any_case(store):
    """The lobby's search by player (issue 39): the same on every store, any script."""
    from datetime import UTC, datetime

    from service.play.accounts import create_account

    now = datetime(2026, 11, 27, tzinfo=UTC)
    made = {
        name: create_account(store, name, now)[0].account_id
        for name in ("Ann", "Joanna", "Émile", "50%_off", "Bob")
    }
    auditor = create_account(store, "Annette", now, kind="auditor")[0].account_id
    assert set(store.accounts_named("ANN", 10)) == {made["Ann"], made["Joanna"]}
    assert store.accounts_named("émile", 10) == [made["Émile"]]
    assert store.accounts_named("%_", 10) == [made["50%_off"]]  # no wildcards
    assert store.accounts_named("zz", 10) == []
    assert auditor not in store.accounts_named("ann", 10)  # players only
    assert len(store.accounts_named("", 2)) == 2


def test_players_are_found_by_their_whole_name_in_any_case_the_exact_ones_first(store):
    """Invitees and league players by name (docs/invitations.md I2, docs/leagues.md L2):
    the same on every store, any script, however many share the start of the name."""
    from datetime import UTC, datetime

    from service.play.accounts import create_account, players_named

    now = datetime(2026, 12, 6, tzinfo=UTC)
    for i in range(60):  # more than are looked at, all holding the name, none named it
        create_account(store, f"Ann {i:02d}", now)
    upper = create_account(store, "ANN", now)[0].account_id
    exact = create_account(store, "Ann", now)[0].account_id
    emile = create_account(store, "Émile", now)[0].account_id
    create_account(store, "Ann", now, kind="auditor")
    found = store.players_with_name("Ann", 10)
    assert found == [exact, upper]  # the exact name first, players only
    assert players_named(store, "Ann") == [exact]  # an exact name is what it names
    assert sorted(players_named(store, "ann")) == sorted([exact, upper])  # else any case
    assert players_named(store, "ÉMILE") == [emile]
    assert players_named(store, "An") == [] and players_named(store, "%") == []
    assert players_named(store, emile) == [emile]  # an account id
    jose = create_account(store, "Jos\u00e9", now)[0].account_id  # é as one character
    assert players_named(store, "Jose\u0301") == [jose]  # typed as e + a combining accent
    assert players_named(store, "JOSE\u0301") == [jose]


def test_a_name_changes_only_from_the_name_expected_and_a_deleted_account_keeps_no_token(store):
    """docs/profiles.md P3 (compare and set) and P7 (an anonymous name, no token, no kind
    to act as): the same on every store; other accounts unchanged."""
    from datetime import UTC, datetime

    from service.play.accounts import create_account, token_hash
    from service.store.base import DELETED

    now = datetime(2026, 11, 28, tzinfo=UTC)
    ann, token = create_account(store, "Ann", now)
    bob, _ = create_account(store, "Bob", now)
    assert store.rename_account(ann.account_id, "Ann", "Ann Two") is True
    assert store.rename_account(ann.account_id, "Ann", "Ann Three") is False  # stale
    assert store.account_names([ann.account_id]) == {ann.account_id: "Ann Two"}
    store.forget_account(ann.account_id, "deleted player abcd")
    gone = store.account(ann.account_id)
    assert gone is not None and gone.name == "deleted player abcd" and gone.kind == DELETED
    assert store.account_by_token_hash(token_hash(token)) is None
    assert store.rename_account(ann.account_id, "deleted player abcd", "Back") is False
    assert ann.account_id not in store.accounts_named("deleted", 10)
    assert store.account(bob.account_id) == bob
