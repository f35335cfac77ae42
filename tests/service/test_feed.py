"""The change feed (service.live.feed) with a store in memory: what a viewer is handed,
when it waits, the bounds, and closing."""

from __future__ import annotations

import threading
import time

import pytest

from service.errors import TooManyRequests, Unavailable
from service.live.feed import BUFFER, PAGE, Feed, View
from service.store.base import StoreUnavailable
from service.store.memory import MemoryEventStore
from tests.contracts.test_event_store import events, record
from tests.service.api import Player


def frames(*versions):
    return tuple((v, f"f{v}".encode()) for v in versions)


def test_a_view_hands_out_the_frames_after_a_version_or_none_when_it_cannot():
    view = View(4, 7, False, frames(5, 6, 7))
    assert view.after(4) == frames(5, 6, 7)
    assert view.after(6) == frames(7)
    assert view.after(7) == () and view.after(9) == ()
    assert view.after(3) is None  # version 4 is not held: read the store
    empty = View(7, 7, False)
    assert empty.after(7) == () and empty.after(2) is None
    assert View(0, 0, False).after(0) == ()


def test_a_view_keeps_the_last_frames_only():
    view = View(0, 0, False).then(frames(*range(1, BUFFER + 11)), ended=True)
    assert view.start == 10 and view.head == BUFFER + 10 and view.ended
    assert view.after(10)[0][0] == 11 and view.after(9) is None


@pytest.fixture
def store():
    s = MemoryEventStore()
    s.append(record(command="c1"), 0, events(3), "playing")
    return s


def feed_of(store, **kw):
    options = {"max_streams": 10, "per_client": 3, "poll_every": 0.05, **kw}
    return Feed(store, **options)


def test_a_viewer_gets_the_backlog_then_waits_and_wakes_on_a_change(store):
    feed = feed_of(store)
    sub = feed.subscribe("g1", "client")
    got, over = sub.next(0, 1)
    assert [v for v, _ in got] == [1, 2, 3] and not over
    assert b"id: 1\nevent: BoatsAdded\ndata: " in got[0][1]
    started = time.monotonic()
    assert sub.next(3, 0.2) == ((), False)  # nothing new: it waited its timeout
    assert time.monotonic() - started >= 0.15

    def later():
        time.sleep(0.1)
        store.append(record(command="c2"), 3, events(2, 3), "playing")
        feed.changed("g1")

    threading.Thread(target=later).start()
    got, _ = sub.next(3, 5)
    assert [v for v, _ in got] == [4, 5]
    sub.close()
    assert feed.hubs == {} and feed.open == 0


def test_the_safety_poll_finds_what_nobody_rang_for(store):
    feed = feed_of(store)
    sub = feed.subscribe("g1", "client")
    store.append(record(command="c2"), 3, events(1, 3), "playing")  # no changed()
    got, _ = sub.next(3, 5)
    assert [v for v, _ in got] == [4]
    sub.close()


def test_a_game_that_ends_ends_its_streams_after_the_last_event(store):
    feed = feed_of(store)
    sub = feed.subscribe("g1", "client")
    store.append(record(command="c2"), 3, events(1, 3), "ended")
    feed.changed("g1")
    got, over = sub.next(3, 5)
    assert [v for v, _ in got] == [4] and over
    late = feed.subscribe("g1", "other")
    got, over = late.next(0, 1)
    assert [v for v, _ in got] == [1, 2, 3, 4] and over


def test_a_client_and_a_process_hold_at_most_their_share(store):
    feed = feed_of(store, max_streams=4, per_client=3)
    mine = [feed.subscribe("g1", "me") for _ in range(3)]
    with pytest.raises(TooManyRequests) as refused:
        feed.subscribe("g1", "me")
    assert refused.value.code == "too_many_streams"
    feed.subscribe("g1", "you")
    with pytest.raises(Unavailable) as full:
        feed.subscribe("g1", "them")
    assert full.value.code == "too_many_streams"
    mine[0].close()
    feed.subscribe("g1", "me")  # one left: one more may come
    assert feed.clients == {"me": 3, "you": 1}


def test_closing_ends_every_stream_at_once_and_refuses_new_ones(store):
    feed = feed_of(store)
    sub = feed.subscribe("g1", "client")
    sub.next(0, 1)
    threading.Timer(0.1, feed.close).start()
    started = time.monotonic()
    assert sub.next(3, 10) == ((), True)
    assert time.monotonic() - started < 2
    with pytest.raises(Unavailable) as refused:
        feed.subscribe("g1", "client")
    assert refused.value.code == "shutting_down"


def test_a_viewer_behind_the_buffer_reads_the_store_a_page_at_a_time():
    s = MemoryEventStore()
    s.append(record(command="c1"), 0, events(BUFFER + 50), "playing")
    feed = feed_of(s)
    sub = feed.subscribe("g1", "client")
    assert feed.hubs["g1"].view.start == 50
    got, _ = sub.next(0, 1)  # version 1 is older than the buffer: a page from the store
    assert got[0][0] == 1 and len(got) == PAGE
    got, _ = sub.next(PAGE, 1)  # from there on, the buffer holds the rest
    assert got[0][0] == PAGE + 1 and got[-1][0] == BUFFER + 50


def test_a_hub_that_cannot_be_read_is_dropped_and_its_viewer_refused(store):
    class Down:
        def head(self, game_id):
            raise StoreUnavailable("database away")

    feed = feed_of(Down())
    with pytest.raises(StoreUnavailable):
        feed.subscribe("g1", "client")
    assert feed.hubs == {} and feed.open == 0 and feed.clients == {}


def test_a_stream_past_the_games_head_is_refused(client):
    gid = Player(client, "ann").post("/games", {"max_players": 2}).json["game_id"]
    reply = client.get(f"/api/v1/games/{gid}/stream?after=99")
    assert reply.status_code == 422 and reply.json["code"] == "bad_last_event_id"
    assert "past the game's last version (1)" in reply.json["detail"]


def test_a_version_another_process_sent_is_not_refused_before_this_one_heard_of_it(client, app):
    """A viewer got version N from one process and reconnects to another whose hub has
    not heard of N yet: the store's head decides, not the hub (the soak found a 422)."""
    gid = Player(client, "ann").post("/games", {"max_players": 2}).json["game_id"]
    feed = app.extensions["tongiaki.feed"]
    watching = feed.subscribe(gid, "another viewer")  # the hub stays while watched
    try:
        hub = feed.hubs[gid]
        head = hub.view.head
        hub.view = View(head - 1, head - 1, False, ())  # not heard of the last commit yet
        reply = client.head(f"/api/v1/games/{gid}/stream", headers={"Last-Event-ID": str(head)})
        assert reply.status_code == 200
        reply = client.get(f"/api/v1/games/{gid}/stream?after={head + 1}")
        assert reply.status_code == 422 and reply.json["code"] == "bad_last_event_id"
    finally:
        watching.close()


def test_a_process_never_promises_more_streams_than_its_open_file_limit(tmp_path):
    import resource

    from service.app import create_app
    from service.runtime.settings import Settings

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (300, hard))
    try:
        app = create_app(Settings(data_dir=tmp_path, rate_limits={}), sweep=False)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert app.extensions["tongiaki.feed"].max_streams == 300 - 128


def test_a_game_ending_between_the_feeds_two_reads_loses_no_event(store):
    """The feed reads a game's new events, then its head to know whether it ended: a
    commit in between (the last move, which ends the game) must not make the events
    it did not read look like the end."""

    class Racing:
        def __init__(self, inner):
            self.inner = inner
            self.armed = False

        def read(self, game_id, after, limit):
            rows = self.inner.read(game_id, after, limit)
            if self.armed:  # the game's last move lands right after this read
                self.armed = False
                self.inner.append(record(command="last"), 4, events(2, 4), "ended")
            return rows

        def __getattr__(self, name):
            return getattr(self.inner, name)

    racing = Racing(store)
    feed = feed_of(racing)
    sub = feed.subscribe("g1", "client")
    store.append(record(command="c2"), 3, events(1, 3), "playing")
    racing.armed = True
    feed.changed("g1")
    seen, over = [], False
    deadline = time.monotonic() + 5
    while not over and time.monotonic() < deadline:
        got, over = sub.next(seen[-1] if seen else 3, 1)
        seen += [v for v, _ in got]
    assert seen == [4, 5, 6] and over


def test_the_head_of_a_stream_answers_at_once_and_holds_no_stream(client, app):
    gid = Player(client, "ann").post("/games", {"max_players": 2}).json["game_id"]
    reply = client.head(f"/api/v1/games/{gid}/stream")
    assert reply.status_code == 200 and reply.mimetype == "text/event-stream"
    assert reply.data == b"" and app.extensions["tongiaki.feed"].open == 0


def test_a_crowd_catching_up_from_far_back_reads_each_page_of_the_store_once():
    """Found by a probe: 1,200 viewers resuming from the start of an 839-event game
    each read the store, drained the database pool, and streams closed before their
    head. Older pages are read once per process and kept (events never change)."""
    s = MemoryEventStore()
    s.append(record(command="c1"), 0, events(BUFFER + 450), "playing")
    reads = []

    class Counting:
        def read(self, game_id, after, limit):
            reads.append((after, limit))
            return s.read(game_id, after, limit)

        def __getattr__(self, name):
            return getattr(s, name)

    feed = feed_of(Counting(), max_streams=100, per_client=100)
    subs = [feed.subscribe("g1", f"c{i}") for i in range(30)]
    reads.clear()  # (the hub's own load)
    for sub in subs:
        got, after = [], 0
        while True:
            frames, _, level = sub.pending(after)
            got += [v for v, _ in frames]
            after = got[-1]
            if level:
                break
        assert got == list(range(1, BUFFER + 451))
    # versions 1-200, 201-400 and 401-600 (the hub holds 451 on), once each for the 30
    older = [r for r in reads if r[0] < BUFFER + 450]  # (not the feed's look past the head)
    assert older == [(0, PAGE), (PAGE, PAGE), (2 * PAGE, PAGE)]


def test_a_process_reads_the_store_for_a_few_catching_up_viewers_at_a_time(monkeypatch):
    from service.live import feed as f

    monkeypatch.setattr(f, "READERS", 1)
    monkeypatch.setattr(f, "READ_WAIT", 0.2)
    s = MemoryEventStore()
    s.append(record(command="c1"), 0, events(BUFFER + 450), "playing")
    reading, release = threading.Event(), threading.Event()

    class Slow:
        def read(self, game_id, after, limit):
            if after < BUFFER - 100:  # an older page: the first reader holds its turn
                reading.set()
                release.wait(5)
            return s.read(game_id, after, limit)

        def __getattr__(self, name):
            return getattr(s, name)

    feed = feed_of(Slow(), max_streams=100, per_client=100)
    first, second = feed.subscribe("g1", "a"), feed.subscribe("g1", "b")
    threading.Thread(target=first.pending, args=(0,), daemon=True).start()
    assert reading.wait(5)
    with pytest.raises(Unavailable) as busy:
        second.pending(250)  # another page, while the only reader's turn is taken
    assert busy.value.code == "streams_catching_up" and busy.value.extra["retry_after"] == 2
    release.set()
