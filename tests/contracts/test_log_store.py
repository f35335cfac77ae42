"""The transparency log's storage on every adapter (issue 28): each commit of a stream
waits in its own transaction, the integrator gives it exactly one index, in each
stream's version order, and the stored tiles and signed checkpoint are RFC 9162's tree
of the entries."""

from __future__ import annotations

import threading

import psycopg
import pytest

from service.store.base import GENESIS, CommandRecord, JournalEntry, NewEvent, chain_events
from service.store.log_port import LogHead
from service.store.log_sql import SqlLogBatch
from service.store.postgres import PostgresEventStore
from service.store.sqlite import SQLiteEventStore
from service.transparency import merkle
from service.transparency.checkpoint import Checkpoint
from service.transparency.entries import HeadEntry
from service.transparency.integrator import Integrator
from service.transparency.notes import Signer, open_note
from service.transparency.tiled_tree import TiledTree

SIGNER = Signer.generate("test.example/log")
COMMITMENT = "ab" * 32


def record(game, command):
    return CommandRecord(
        game, command, {"account": "a1"}, "2026-11-27T10:00:00+00:00", {"type": "X"}, None
    )


def created():
    return NewEvent("GameCreated", {"game_id": "g", "deck_commitment": COMMITMENT}, {})


def play(store, game, commits):
    """``commits`` appends to ``game`` (the first one creates it); the heads, in order."""
    heads = []
    version = store.head(game).version if store.head(game) else 0
    for i in range(commits):
        first = [created()] if version == 0 else []
        appended = store.append(
            record(game, f"{game}-c{version}"), version, [*first, NewEvent("X", {"i": i}, {})], "p"
        )
        version = appended.version
        heads.append((version, appended.hash))
    return heads


def logged(store):
    """Every entry of the log, parsed, in index order."""
    size = store.log.log_head().size
    return [HeadEntry.parse(e) for e in store.log.log_entries(0, size)]


def test_each_commit_waits_then_gets_one_index_in_version_order(store):
    heads = {g: play(store, g, 3) for g in ("g1", "g2")}
    assert store.log.log_pending() == 6
    assert store.log.log_head() == LogHead()
    done = Integrator(store.log, SIGNER).step()
    assert (done.added, done.refused, done.size) == (6, 0, 6)
    assert store.log.log_pending() == 0
    entries = logged(store)
    for game, game_heads in heads.items():
        mine = [(e.version, e.head) for e in entries if e.stream == f"game/{game}"]
        assert mine == game_heads  # every commit, once, in version order
    assert {e.commitment for e in entries} == {COMMITMENT}
    found = store.log.log_find("game/g2", heads["g2"][1][0])
    assert found is not None and HeadEntry.parse(found.data).head == heads["g2"][1][1]
    assert Integrator(store.log, SIGNER).step().added == 0  # nothing twice


def test_the_stored_tree_and_checkpoint_are_rfc_9162s_of_the_entries(store):
    integrator = Integrator(store.log, SIGNER, batch=7)
    for n in range(5):  # several integrations, across a tile's edge
        play(store, f"game{n}", 60)
        integrator.drain()
    head = store.log.log_head()
    data = store.log.log_entries(0, head.size)
    assert head.size == len(data) == 300
    leaves = [merkle.leaf_hash(d) for d in data]
    point = Checkpoint.parse(open_note(head.note, (SIGNER.verifier,)).text)
    assert (point.origin, point.size, point.root) == (SIGNER.name, 300, merkle.root(leaves))
    tree = TiledTree(store.log.log_tile, head.size)
    assert store.log.log_tile(0, 0) == b"".join(leaves[:256])
    many = store.log.log_tiles([(0, 0), (0, 1), (1, 0), (3, 7)])  # in one read
    assert many == {k: store.log.log_tile(*k) for k in ((0, 0), (0, 1), (1, 0))}
    merkle.verify_inclusion(299, 300, leaves[299], tree.inclusion(299), point.root)


def test_a_dispute_is_logged_like_a_game_with_a_dash(store):
    play(store, "g1", 1)
    stored = store.append_dispute(
        "d1", "g1", 0, [NewEvent("DisputeOpened", {}, {})], status="open", at="t"
    )
    store.append_dispute("d1", "g1", 1, [NewEvent("NoteAdded", {}, {})], status="open", at="t")
    Integrator(store.log, SIGNER).drain()
    mine = [e for e in logged(store) if e.stream == "dispute/d1"]
    assert [(e.version, e.commitment) for e in mine] == [(1, "-"), (2, "-")]
    assert mine[0].head == stored[-1].hash


def test_an_imported_game_is_logged_commit_by_commit(store):
    chain = chain_events(
        "imp", 0, GENESIS, [created(), *(NewEvent("X", {"v": v}, {}) for v in range(4))]
    )
    journal = [
        JournalEntry("imp", "c1", {}, "t", {}, 0, "accepted", 1, 2, None, seq=1),
        JournalEntry("imp", "c2", {}, "t", {}, 2, "accepted", 3, 4, None, seq=2),
    ]
    store.import_stream(chain, "playing", "t", journal)
    Integrator(store.log, SIGNER).drain()
    assert [e.version for e in logged(store)] == [2, 4, 5]  # each command's end, the head


def test_two_integrators_at_once_index_every_commit_exactly_once(store):
    writers = [threading.Thread(target=play, args=(store, f"w{i}", 40)) for i in range(4)]
    integrators = [Integrator(store.log, SIGNER, batch=13) for _ in range(2)]
    stop = threading.Event()

    def integrate(integrator):
        while not stop.is_set():
            integrator.drain()

    running = [threading.Thread(target=integrate, args=(i,)) for i in integrators]
    for t in writers + running:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in running:
        t.join()
    integrators[0].drain()
    entries = logged(store)
    assert len(entries) == 160 == len({(e.stream, e.version) for e in entries})
    for i in range(4):
        assert [e.version for e in entries if e.stream == f"game/w{i}"] == list(range(2, 42))


@pytest.fixture(params=["sqlite", "postgres"])
def sql_store(request, tmp_path):
    """An upgraded, empty SQL event store (the in-memory log checks before it changes)."""
    if request.param == "sqlite":
        s = SQLiteEventStore(tmp_path / "events.db")
    else:
        s = PostgresEventStore(request.getfixturevalue("pg_schema")[1], max_size=2)
    s.upgrade()
    yield s
    s.close()


def test_an_integration_that_fails_changes_nothing(sql_store, monkeypatch):
    store = sql_store
    play(store, "g1", 3)
    original = SqlLogBatch.record

    def record_then_fail(self, *args):
        original(self, *args)
        raise RuntimeError("the database went away")

    monkeypatch.setattr(SqlLogBatch, "record", record_then_fail)
    with pytest.raises(RuntimeError):
        Integrator(store.log, SIGNER).step()
    assert store.log.log_pending() == 3 and store.log.log_head().size == 0
    assert store.log.log_entries(0, 10) == [] and store.log.log_tile(0, 0) == b""
    monkeypatch.setattr(SqlLogBatch, "record", original)
    assert Integrator(store.log, SIGNER).step().added == 3


def test_a_commit_the_log_has_already_is_left_out_not_logged_twice(store):
    play(store, "g1", 2)
    Integrator(store.log, SIGNER).drain()
    if isinstance(store, SQLiteEventStore | PostgresEventStore):
        with store.db.transaction() as tx:  # a second pending row for a logged commit
            tx.execute(
                "INSERT INTO log_pending (stream, version, head) VALUES ('game/g1', 2, %s)",
                (store.head("g1").hash,),
            )
    else:
        with store.log.lock:
            store.log.add("game/g1", 2, store.head("g1").hash)
    done = Integrator(store.log, SIGNER).step()
    assert (done.added, done.refused, store.log.log_pending()) == (0, 1, 0)
    assert len(logged(store)) == 2


def _drop_the_log(store):
    with store.db.transaction() as tx:
        for table in ("log_pending", "log_entries", "log_tiles", "log_head"):
            tx.execute(f"DROP TABLE {table}")
        tx.execute("DELETE FROM schema_version WHERE version >= 6")


def test_an_upgrade_to_the_logs_schema_logs_every_streams_head(tmp_path):
    store = SQLiteEventStore(tmp_path / "old.db")
    store.upgrade()
    heads = play(store, "g1", 3)
    store.append_dispute("d1", "g1", 0, [NewEvent("DisputeOpened", {}, {})], status="o", at="t")
    _drop_the_log(store)  # as a database of schema 5 was
    assert store.upgrade() == 6
    Integrator(store.log, SIGNER).drain()
    assert [(e.stream, e.version) for e in logged(store)] == [("game/g1", 4), ("dispute/d1", 1)]
    assert logged(store)[0].head == heads[-1][1]
    store.close()


def test_an_upgrade_on_postgresql_logs_every_head_and_appends_pending(pg_schema):
    _, url = pg_schema
    store = PostgresEventStore(url, max_size=2)
    store.upgrade()
    play(store, "g1", 2)
    _drop_the_log(store)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "DROP FUNCTION tongiaki_append(text, integer, text, integer, text, text,"
            " text, text, text, text, json, text)"
        )
    assert store.upgrade() == 6
    play(store, "g1", 1)  # tongiaki_append, made anew, writes its pending row
    Integrator(store.log, SIGNER).drain()
    assert [e.version for e in logged(store)] == [3, 4]
    store.close()
