"""The stream writer (service.live.writer) on real loopback sockets, with the change feed over
a store in memory: a stream's request writes its head and catch-up and parks the
connection; the writer then delivers, ends, times out, keeps alive, notices a viewer
that left, closes one that stopped reading without holding up the others, and closes
everything when the process stops. The served tests (tests/system/test_streams_served.py)
run the same through both HTTP servers."""

from __future__ import annotations

import logging
import socket
import threading
import time

import pytest

from service.live import writer as w
from service.live.feed import BUFFER, Feed
from service.store.memory import MemoryEventStore
from tests.contracts.test_event_store import events, record


@pytest.fixture
def store():
    s = MemoryEventStore()
    s.append(record(command="c1"), 0, events(3), "playing")
    return s


@pytest.fixture
def feed(store):
    f = Feed(store, max_streams=100, per_client=50, poll_every=0.05)
    yield f
    f.close()


class Ended(logging.Handler):
    """Why each stream ended, by request id, from the ``tongiaki.streams`` lines."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.why: dict[str, list[str]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        self.why.setdefault(record.request_id, []).append(record.ended_by)  # type: ignore[attr-defined]


@pytest.fixture
def ended():
    handler = Ended()
    logger = logging.getLogger("tongiaki.streams")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


def connection() -> tuple[socket.socket, socket.socket]:
    """A TCP connection on loopback: (the server's end, the viewer's end)."""
    with socket.create_server(("127.0.0.1", 0)) as listening:
        viewer = socket.create_connection(listening.getsockname())
        served, _ = listening.accept()
    return served, viewer


def open_stream(feed: Feed, after: int = 0, timeout: float = 60.0, client: str = "viewer"):
    """A stream as its request runs it: subscribe, catch up, hand the connection over."""
    served, viewer = connection()
    sub = feed.subscribe("g1", client)

    def request() -> None:  # a server's worker, while the viewer reads
        head = b"HTTP/1.1 200 OK\r\n\r\n"
        feed.writer.catch_up(served, head, sub, after, timeout, "rid", time.monotonic()).park()

    threading.Thread(target=request, daemon=True).start()
    return viewer


def received(viewer: socket.socket, until: bytes, seconds: float = 5.0) -> bytes:
    """What the viewer reads until ``until`` has come (or the connection closed)."""
    viewer.settimeout(0.1)
    data = b""
    deadline = time.monotonic() + seconds
    while until not in data:
        assert time.monotonic() < deadline, f"{until!r} did not come: {data[-300:]!r}"
        try:
            chunk = viewer.recv(65536)
        except TimeoutError:
            continue
        if not chunk:
            break
        data += chunk
    return data


def closed(viewer: socket.socket, seconds: float = 5.0) -> bytes:
    """Everything the viewer reads until the server closes the connection."""
    viewer.settimeout(seconds)
    data = b""
    try:
        while chunk := viewer.recv(65536):
            data += chunk
    except ConnectionResetError:  # closed with what the viewer sent unread: a reset
        pass
    return data


def ids(data: bytes) -> list[int]:
    return [int(line[4:]) for line in data.split(b"\n") if line.startswith(b"id: ")]


def until(check, seconds: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not within the bound"
        time.sleep(0.01)


def test_a_parked_stream_gets_its_catch_up_then_every_new_event_from_the_writer(store, feed):
    viewer = open_stream(feed, after=1)
    first = received(viewer, b"id: 3\n")
    assert first.startswith(b"HTTP/1.1 200 OK\r\n\r\nretry: 2000\n\n") and ids(first) == [2, 3]
    until(lambda: feed.writer.open_streams() == 1)  # parked once its catch-up is out
    assert feed.open == 1
    store.append(record(command="c2"), 3, events(2, 3), "playing")
    feed.changed("g1")
    assert ids(received(viewer, b"id: 5\n")) == [4, 5]


def test_many_viewers_of_a_game_get_the_same_bytes(store, feed):
    viewers = [open_stream(feed, client=f"c{i}") for i in range(40)]
    for v in viewers:
        received(v, b"id: 3\n")
    store.append(record(command="c2"), 3, events(3, 3), "playing")
    feed.changed("g1")
    got = {received(v, b"id: 6\n") for v in viewers}
    assert len(got) == 1 and ids(got.pop()) == [4, 5, 6]


def test_a_game_that_ends_sends_end_after_its_last_event_and_closes(store, feed):
    viewer = open_stream(feed)
    received(viewer, b"id: 3\n")
    store.append(record(command="c2"), 3, events(1, 3), "ended")
    feed.changed("g1")
    rest = closed(viewer)
    assert ids(rest) == [4] and rest.endswith(b"event: end\ndata: {}\n\n")
    until(lambda: feed.open == 0 and feed.hubs == {})
    # a viewer of the game now is sent everything and the end in its request: never parked
    late = open_stream(feed, client="late")
    everything = closed(late)
    assert ids(everything) == [1, 2, 3, 4] and everything.endswith(b"event: end\ndata: {}\n\n")
    assert feed.writer.open_streams() == 0


def test_a_viewer_that_leaves_frees_its_place_within_a_tick(feed):
    viewer = open_stream(feed)
    received(viewer, b"id: 3\n")
    assert feed.clients == {"viewer": 1}
    viewer.close()
    until(lambda: feed.open == 0, seconds=w.TICK + 2)
    assert feed.clients == {} and feed.writer.open_streams() == 0


def test_a_viewer_that_sends_anything_is_closed(feed):
    viewer = open_stream(feed)
    received(viewer, b"id: 3\n")
    viewer.sendall(b"GET / HTTP/1.1\r\n\r\n")  # never on a stream
    assert closed(viewer, seconds=w.TICK + 2).count(b"id: ") == 0
    until(lambda: feed.open == 0)


def test_a_stream_ends_at_its_timeout_and_idle_ones_get_heartbeats(store, monkeypatch):
    """A quiet stream gets a heartbeat event at once and after each ``heartbeat`` seconds
    of silence, saying how often it comes (a page hearing nothing for longer knows the
    stream is dead: issue 39)."""
    monkeypatch.setattr(w, "TICK", 0.1)
    feed = Feed(store, max_streams=100, per_client=50, poll_every=0.05, heartbeat=0.3)
    try:
        viewer = open_stream(feed, timeout=1.5)
        began = time.monotonic()
        data = closed(viewer, seconds=5)
        assert 1.3 <= time.monotonic() - began < 3
        beat = b'event: heartbeat\ndata: {"every": 0.3}\n\n'
        assert data.count(beat) >= 3 and ids(data) == [1, 2, 3]
        assert data.index(beat) < data.index(b"id: 1")  # the first comes with the head
        until(lambda: feed.open == 0)
    finally:
        feed.close()


@pytest.mark.parametrize("limit", ["tail", "stall", "behind"])
def test_a_viewer_that_stops_reading_is_closed_and_holds_up_nobody(
    store, feed, monkeypatch, limit, ended
):
    batch = 4
    if limit == "tail":  # a write its socket did not take is larger than the limit
        monkeypatch.setattr(w, "TAIL_LIMIT", 4096)
        batch = 40
    elif limit == "behind":  # the game moves on past the hub's buffer meanwhile
        batch = 40
    else:  # its socket takes nothing for longer than STALL
        monkeypatch.setattr(w, "STALL", 0.3)
        monkeypatch.setattr(w, "TICK", 0.05)
    # the viewer reads nothing, with a small receive buffer (found by a probe: the
    # kernel's send buffer grew to megabytes and the writer never saw a refusal)
    stuck_served, stuck = connection()
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    sub = feed.subscribe("g1", "stuck")
    feed.writer.catch_up(stuck_served, b"H\r\n\r\n", sub, 3, 60, "stuck", time.monotonic()).park()
    reader = open_stream(feed, client="reader")
    received(reader, b"id: 3\n")
    version = 3
    for n in range(300):  # the stuck viewer reads nothing; its socket fills, then its tail
        store.append(record(command=f"m{n}"), version, events(batch, version), "playing")
        version += batch
        feed.changed("g1")
        assert ids(received(reader, f"id: {version}\n".encode()))[-1] == version
        if "stuck" not in feed.clients:
            break
        time.sleep(0.01)
    assert feed.clients == {"reader": 1} and n < 299, n
    why = {"tail": w.WHY_SLOW, "stall": w.WHY_SLOW, "behind": w.WHY_BEHIND}[limit]
    assert ended.why["stuck"] == [why]
    assert len(stuck.recv(1 << 20)) > 0  # it had been sent what its socket took


def test_a_parked_viewer_that_falls_behind_the_buffer_is_closed_to_resume(store, feed):
    served, viewer = connection()
    sub = feed.subscribe("g1", "v")
    feed.writer.catch_up(served, b"H\r\n\r\n", sub, 0, 60, "r", time.monotonic()).park()
    received(viewer, b"id: 3\n")
    with feed.writer.lock:  # the writer does not see it for a while: BUFFER events pass
        hub = feed.hubs["g1"]
        parked = hub.parked.pop(next(iter(hub.parked)))
    store.append(record(command="c2"), 3, events(BUFFER + 10, 3), "playing")
    feed.changed("g1")
    until(lambda: feed.hubs["g1"].view.head == BUFFER + 13)
    with feed.writer.lock:
        hub.parked[parked.fd] = parked
    feed.writer.changed(hub)
    data = closed(viewer)
    assert ids(data) == []  # closed: the browser reconnects with Last-Event-ID 3
    until(lambda: feed.open == 0)
    resumed = open_stream(feed, after=3)  # read from the store in the request, then parked
    assert ids(received(resumed, f"id: {BUFFER + 13}\n".encode()))[0] == 4


def test_a_viewer_far_behind_catches_up_from_the_store_in_its_request():
    s = MemoryEventStore()
    s.append(record(command="c1"), 0, events(BUFFER + 300), "playing")
    feed = Feed(s, max_streams=10, per_client=10, poll_every=0.05)
    try:
        viewer = open_stream(feed)
        data = received(viewer, f"id: {BUFFER + 300}\n".encode())
        assert ids(data) == list(range(1, BUFFER + 301))
        until(lambda: feed.writer.open_streams() == 1)
    finally:
        feed.close()


def test_closing_the_feed_closes_every_parked_stream_at_once(feed):
    viewers = [open_stream(feed, client=f"c{i}") for i in range(20)]
    for v in viewers:
        received(v, b"id: 3\n")
    began = time.monotonic()
    feed.close()
    for v in viewers:
        assert closed(v) == b""
    assert time.monotonic() - began < 2
    until(lambda: feed.open == 0 and feed.writer.open_streams() == 0)
