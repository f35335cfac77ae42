"""The chat's storage (docs/chat.md M9) on the three stores: SQLite, PostgreSQL and the
in-memory store (its tables in the in-memory SQLite database beside its events): a
hash-chained stream per chat, the rows pages read, a refused rule writing nothing,
writers at once kept one after the other."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from service.chat.schema import SITE
from service.chat.store import ChatStore
from service.errors import Conflict
from service.store.base import InvalidData, check_chain
from service.store.in_memory import InMemoryStore
from service.store.postgres import PostgresEventStore
from service.store.sqlite import SQLiteEventStore

AT = "2026-05-01T12:00:00+00:00"


def nothing(_tx: Any) -> None:
    """A rule that lets everything through."""


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def chats(request, tmp_path):
    if request.param == "memory":
        store: Any = InMemoryStore()
    elif request.param == "sqlite":
        store = SQLiteEventStore(tmp_path / "chat.db")
    else:
        _, url = request.getfixturevalue("pg_schema")
        store = PostgresEventStore(url, max_size=10)
    store.upgrade()
    chats = ChatStore(store)
    chats.upgrade()
    chats.upgrade()  # idempotent
    yield chats
    store.close()


def test_a_chat_is_a_hash_chained_stream_of_its_own(chats):
    one = chats.post("g1", "table", "ana", "hi", AT, 1, nothing)
    two = chats.post("g1", "spectators", "sam", "hey", AT, 2, nothing)
    other = chats.post("g2", "table", "bo", "elsewhere", AT, 3, nothing)
    assert (one.seq, two.seq, other.seq) == (1, 2, 1)
    chats.hide("g1", 1, "audrey", "rude", AT, nothing)
    chats.report("g1", 2, "ana", "", AT, nothing)
    events = chats.events("g1")
    assert [e.type for e in events] == [
        "ChatMessagePosted",
        "ChatMessagePosted",
        "ChatMessageHidden",
        "ChatMessageReported",
    ]
    assert check_chain(events).ok and chats.head("g1") == 4 and chats.head("g2") == 1
    assert events[0].body() == {
        "type": "ChatMessagePosted",
        "channel": "table",
        "author": "ana",
        "text": "hi",
    }
    assert chats.head("nothing said") == 0 and chats.events("nothing said") == []


def test_pages_read_messages_by_channel_after_a_cursor_without_the_muted(chats):
    for i, (channel, author) in enumerate(
        [("table", "ana"), ("spectators", "sam"), ("table", "bo"), ("table", "ana")]
    ):
        chats.post("g", channel, author, f"m{i}", AT, i, nothing)
    assert [m.text for m in chats.messages("g", ["table"], 0, 10, [])] == ["m0", "m2", "m3"]
    assert [m.text for m in chats.messages("g", ["table", "spectators"], 1, 2, [])] == [
        "m1",
        "m2",
    ]
    assert [m.text for m in chats.messages("g", ["table"], 0, 10, ["ana"])] == ["m2"]
    chats.hide("g", 1, "audrey", "why", AT, nothing)
    hidden = chats.hidden_since("g", ["table"], 4, 4, 10)
    assert [(m.seq, m.hidden_reason, m.hidden_by) for m in hidden] == [(1, "why", "audrey")]
    assert chats.hidden_since("g", ["table"], 5, 5, 10) == []


def test_a_rule_that_refuses_writes_nothing(chats):
    chats.post("g", "table", "ana", "hi", AT, 1, nothing)

    def refuse(_tx: Any) -> None:
        raise Conflict("chat_message_hidden", "no", rule="M7")

    with pytest.raises(Conflict):
        chats.post("g", "table", "ana", "again", AT, 2, refuse)
    with pytest.raises(Conflict):
        chats.report("g", 1, "bo", "", AT, refuse)
    assert chats.head("g") == 1 and len(chats.events("g")) == 1
    assert chats.messages("g", ["table"], 0, 10, []) != [] and chats.reports(10, 0) == []


def test_text_a_database_cannot_hold_is_refused_alike(chats):
    with pytest.raises(InvalidData):
        chats.post("g", "table", "ana", "nul \x00", AT, 1, nothing)
    assert chats.head("g") == 0


def test_mutes_are_set_once_cleared_once_and_recorded(chats):
    assert chats.mute("g", "ana", "bo", AT, True) is True
    assert chats.mute("g", "ana", "bo", AT, True) is False  # nothing appended
    assert chats.mutes("g", "ana") == ["bo"] and chats.mutes("g", "bo") == []
    assert chats.mute("g", "ana", "bo", AT, False) is True
    assert chats.mute("g", "ana", "bo", AT, False) is False
    assert [e.type for e in chats.events("g")] == ["ChatMuteSet", "ChatMuteCleared"]


def test_stops_are_the_sites_and_reports_queue_with_their_message(chats):
    assert chats.stop("sam", "audrey", "abuse", AT, True) is True
    assert chats.stop("sam", "audrey", "again", AT, True) is False
    assert chats.stopped(None, "sam").reason == "abuse"
    assert [s.account_id for s in chats.stops(10, 0)] == ["sam"]
    assert chats.stop("sam", "audrey", "", AT, False) is True
    assert chats.stopped(None, "sam") is None
    assert [e.type for e in chats.events(SITE)] == ["ChatStopSet", "ChatStopCleared"]
    chats.post("g", "table", "bo", "rude", AT, 1, nothing)
    chats.report("g", 1, "ana", "rude", "2026-05-01T12:00:01+00:00", nothing)
    chats.report("g", 1, "cy", "", "2026-05-01T12:00:02+00:00", nothing)
    queue = chats.reports(10, 0)
    assert [(r.reporter, m.text) for r, m in queue] == [("cy", "rude"), ("ana", "rude")]
    assert chats.reported(None, "g", 1, "ana") and not chats.reported(None, "g", 1, "bo")
    assert chats.reported_by("g", "ana", [1, 2]) == {1}


def test_writers_at_once_are_all_kept_one_after_the_other(chats):
    gate = threading.Barrier(6)
    errors: list[BaseException] = []

    def write(i: int) -> None:
        gate.wait()
        try:
            chats.post("g", "table", f"p{i}", f"m{i}", AT, i, nothing)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    events = chats.events("g")
    assert [e.version for e in events] == [1, 2, 3, 4, 5, 6] and check_chain(events).ok
    assert sorted(m.text for m in chats.messages("g", ["table"], 0, 10, [])) == [
        f"m{i}" for i in range(6)
    ]
