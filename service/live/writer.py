"""The stream writer: one per process, it writes every parked live stream.

A live stream (``GET /games/{id}/stream``) holds a request worker only while it
catches up. The request writes the response's head and the events the viewer
lacks, then hands its connection over (*parks* it) and ends: the server's worker
(a gevent greenlet, or a thread of the embedded server) is free again, and the
stream costs the process a small record and a socket, not a greenlet's stack or a
thread. From then on the writer owns the connection:

- when a watched game's hub (``service.live.feed``) has new frames, the writer writes
  them to every parked stream of that game with non-blocking writes, the same
  bytes to every viewer at the same version (joined once), yielding to other
  requests every ``BATCH`` writes;
- a viewer whose socket takes less keeps the rest (``tail``), written first next
  time; one that stops reading is closed once its tail passes ``TAIL_LIMIT``, it
  has refused more for ``STALL`` seconds, or it falls behind the hub's buffer
  (its browser reconnects with ``Last-Event-ID`` and catches up in a request);
- every ``TICK`` it looks for viewers that hung up (one ``epoll``: a peer's close
  or reset, or anything a viewer sends on a stream, which it never should),
  streams whose ``?timeout=`` passed, and idle ones owed a heartbeat;
- a game that is over gets ``event: end`` after its last event, then the close;
- ``close_all`` (SIGTERM) closes every stream at once.

The response has no chunked framing: its head says ``Connection: close`` and the
body ends when the connection does, so the writer sends frames as they are.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import select
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("tongiaki.streams")

END_FRAME = b"event: end\ndata: {}\n\n"
RETRY = b"retry: 2000\n\n"  # how long a browser waits before it reconnects
HEARTBEAT = 15.0  # seconds of silence before a heartbeat (TONGIAKI_STREAM_HEARTBEAT)


def heartbeat_frame(every: float) -> bytes:
    """The heartbeat a stream gets when it opens and after ``every`` seconds of silence:
    an event (not a comment, which a page cannot see), without an id, saying how often
    it comes — a page that hears nothing for longer knows the stream is dead, even when
    its connection is not closed (a laptop waking, a changed network)."""
    return b'event: heartbeat\ndata: {"every": %s}\n\n' % (b"%g" % every)


def chat_frame(seq: int) -> bytes:
    """A ping: the game's chat moved to ``seq`` (docs/chat.md). Without an id, and
    without a word of the chat: each page reads what it may read of it itself."""
    return b'event: chat\ndata: {"seq": %d}\n\n' % seq


TICK = 1.0  # seconds between looks at hang-ups, timeouts and heartbeats
BATCH = 256  # writes between two chances for other requests (and threads) to run
TAIL_LIMIT = 64 * 1024  # bytes a viewer's socket may leave unwritten before it is closed
# the kernel's buffer for a stream's socket (it doubles it): left to itself it grows to
# megabytes on a fast link, so a viewer that stops reading would never refuse a write,
# and pinned that much kernel memory for as long as it stayed
SEND_BUFFER = 32 * 1024
STALL = 60.0  # seconds a viewer's socket may refuse more before it is closed
CATCH_UP_TIMEOUT = 30.0  # seconds a catching-up viewer may take to read, in a request

WHY_LEFT = "the viewer left"
WHY_END = "the game's end"
WHY_TIMEOUT = "its timeout"
WHY_STOPPING = "the server stopping"
WHY_BEHIND = "it fell behind"
WHY_SLOW = "it read too slowly"
WHY_UNREAD = "the events could not be read"  # (its browser reconnects and resumes)
WHY_REVOKED = "its credential was revoked"


def _real(module: str, name: str) -> Any:
    """The standard library's own ``module.name``: gevent's patching removes ``epoll``."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched(module):
        return monkey.get_original(module, name)
    return getattr(sys.modules[module], name)


def stream_ended(
    game_id: str, why: str, sent: int, last: int, opened: float, request_id: str
) -> None:
    """The ``tongiaki.streams`` line of a stream that ended: why, how long, how much."""
    lasted = time.monotonic() - opened
    log.info(
        "stream of %s ended (%s) after %d events in %.1f s",
        game_id,
        why,
        sent,
        lasted,
        extra={
            "game_id": game_id,
            "events_sent": sent,
            "last_version": last,
            "duration_ms": round(lasted * 1000, 1),
            "ended_by": why,
            "request_id": request_id,
        },
    )


class Parked:
    """One parked stream: its socket, what it has been sent, its timers."""

    __slots__ = (
        "after",
        "beat",
        "chat",
        "deadline",
        "ending",
        "fd",
        "opened",
        "request_id",
        "sent",
        "stalled",
        "sub",
        "tail",
    )

    def __init__(
        self, sub: Any, fd: int, after: int, deadline: float, opened: float, request_id: str
    ) -> None:
        self.sub = sub  # service.live.feed.Subscription: its hub, its client's share
        self.fd = fd
        self.after = after  # the last version written whole
        # the chat's last seq it was told of: none yet (the hub's may have moved while it
        # caught up, unheard; a page that read the chat past it ignores the ping)
        self.chat = 0
        self.tail = b""  # the part of a write the socket did not take
        self.deadline = deadline  # monotonic: the stream's ?timeout=
        self.beat = time.monotonic()  # the last write
        self.stalled = 0.0  # since when the tail waits (0: none)
        self.ending = False  # ``event: end`` is in the tail: close once it is out
        self.sent = 0
        self.opened = opened
        self.request_id = request_id


class Handoff:
    """What a stream's WSGI call returns once it has written its head and catch-up: the
    server writes nothing more and lets go of the connection, which ``park`` hands to
    the writer (``service.servers.gevent_worker``, ``service.servers.serving``). Iterated,
    it says the connection is no longer the server's (the embedded server then closes its
    side)."""

    def __init__(self, sock: Any, park: Callable[[int], None] | None) -> None:
        self.sock = sock
        self._park = park

    def park(self) -> None:
        """Give the connection to the writer (once; nothing if the stream already ended)."""
        park, self._park = self._park, None
        if park is not None:
            park(self.sock.detach())

    def __iter__(self) -> Any:
        raise ConnectionAbortedError("the connection was handed to the stream writer")


class Writer:
    """Writes the frames of every parked stream of one process (``service.live.feed``)."""

    def __init__(self, feed: Any) -> None:
        self.feed = feed
        self.heartbeat = float(getattr(feed, "heartbeat", HEARTBEAT))
        self.beat_frame = heartbeat_frame(self.heartbeat)
        self.lock = threading.Lock()
        self.streams: dict[int, Parked] = {}
        self._dirty: dict[int, Any] = {}  # hubs with new frames or new streams, by id
        self._wake = threading.Event()
        self._pid = 0
        self._epoll: Any = None

    # --- from requests and the feed ----------------------------------------------

    def catch_up(
        self,
        sock: Any,
        head: bytes,
        sub: Any,
        after: int,
        timeout: float,
        request_id: str,
        opened: float,
        first: tuple[Any, bool, bool] | None = None,
    ) -> Handoff:
        """In the stream's request: write the head and what the viewer lacks (from the
        hub's buffer, or the store while it is behind it; ``first``: what the request
        already took, before the head, so that a store away was still a 503), then hand
        the connection to the writer. A game that is over, or a server stopping, ends
        the stream here."""
        game_id = sub.hub.game_id
        sent, why = 0, WHY_LEFT
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
            sock.settimeout(CATCH_UP_TIMEOUT)
            out = head + RETRY + self.beat_frame
            while True:
                frames, over, level = first if first is not None else sub.pending(after)
                first = None
                if frames:
                    out += b"".join(f for _, f in frames)
                    after = frames[-1][0]
                    sent += len(frames)
                if over:
                    stopped = self.feed.closing or sub.revoked  # no end frame: not the game's
                    sock.sendall(out if stopped else out + END_FRAME)
                    why = WHY_REVOKED if sub.revoked else WHY_STOPPING if stopped else WHY_END
                    break
                sock.sendall(out)
                out = b""
                if level:
                    deadline = opened + timeout
                    park = functools.partial(
                        self.park,
                        sub,
                        after=after,
                        deadline=deadline,
                        opened=opened,
                        request_id=request_id,
                        sent=sent,
                    )
                    return Handoff(sock, park)
        except Exception as exc:  # the viewer left, or the store is away: the stream ends
            if not isinstance(exc, OSError):
                why = WHY_UNREAD
                log.warning("stream of %s: %s", game_id, exc)
        sub.close()
        stream_ended(game_id, why, sent, after, opened, request_id)
        return Handoff(sock, None)

    def park(
        self,
        sub: Any,
        fd: int,
        *,
        after: int,
        deadline: float,
        opened: float,
        request_id: str,
        sent: int,
    ) -> None:
        """Take over a stream's connection (its socket's file descriptor)."""
        self._start()
        os.set_blocking(fd, False)
        stream = Parked(sub, fd, after, deadline, opened, request_id)
        stream.sent = sent
        with self.lock:
            self.streams[fd] = stream
            sub.hub.parked[fd] = stream
            self._dirty[id(sub.hub)] = sub.hub  # anything that came since its catch-up
        with contextlib.suppress(OSError):  # (already gone: the write finds out)
            self._epoll.register(fd, select.EPOLLIN | select.EPOLLRDHUP)
        if self.feed.closing:  # the writer has closed the others already, or is doing so
            self._close(stream, WHY_STOPPING)
            return
        if sub.revoked:  # revoked while it caught up (service.live.revocations)
            self._close(stream, WHY_REVOKED)
            return
        self._wake.set()

    def end(self, sub: Any) -> None:
        """Close the parked stream of this subscription now (its credential was revoked)."""
        with self.lock:
            found = [s for s in sub.hub.parked.values() if s.sub is sub]
        for stream in found:
            self._close(stream, WHY_REVOKED)

    def changed(self, hub: Any) -> None:
        """A hub has new frames (or ended): write them to its parked streams."""
        if hub.parked:
            with self.lock:
                self._dirty[id(hub)] = hub
            self._wake.set()

    def wake(self) -> None:
        """Look at everything now (the feed is closing)."""
        self._wake.set()

    # --- the writer's own thread (a greenlet under gevent) ------------------------

    def _start(self) -> None:
        """Start the writer in this process, once (again after a fork)."""
        if self._pid == os.getpid():
            return
        with self.lock:
            if self._pid == os.getpid():
                return
            self._epoll = _real("select", "epoll")()
            self.streams.clear()
            self._pid = os.getpid()
            threading.Thread(target=self._run, name="stream-writer", daemon=True).start()

    def _run(self) -> None:
        next_tick = time.monotonic() + TICK
        while True:
            self._wake.wait(max(0.0, min(TICK, next_tick - time.monotonic())))
            self._wake.clear()
            try:
                if self.feed.closing:
                    for stream in list(self.streams.values()):
                        self._close(stream, WHY_STOPPING)
                    return
                with self.lock:
                    dirty, self._dirty = self._dirty, {}
                for hub in dirty.values():
                    self._write_hub(hub)
                now = time.monotonic()
                if now >= next_tick:
                    next_tick = now + TICK
                    self._tick(now)
            except Exception:  # never lose the writer: the next round tries again
                log.exception("the stream writer failed")
                time.sleep(TICK)

    def _write_hub(self, hub: Any) -> None:
        """Write a hub's new frames to each of its parked streams."""
        view = hub.view
        now = time.monotonic()
        joined: dict[int, tuple[bytes, int, int, bool] | None] = {}  # by version sent
        with self.lock:
            streams = list(hub.parked.values())
        chat = getattr(hub, "chat", 0)
        for n, stream in enumerate(streams, 1):
            self._push(stream, view, joined, now)
            if stream.chat < chat and stream.fd >= 0 and not stream.tail and not stream.ending:
                stream.chat = chat
                self._send(stream, chat_frame(chat), now)
            if n % BATCH == 0:
                time.sleep(0)  # other requests (greenlets, threads) get their turn

    def _push(self, stream: Parked, view: Any, joined: dict[Any, Any], now: float) -> None:
        if stream.fd < 0:
            return
        if stream.tail and not self._flush(stream, now):  # its socket still takes nothing
            if stream.fd >= 0 and view.after(stream.after) is None:
                self._close(stream, WHY_BEHIND)  # and never will catch up from here
            return
        if stream.after >= view.head and not view.ended:
            return
        if stream.after not in joined:
            frames = view.after(stream.after)
            if frames is None:
                joined[stream.after] = None
            else:
                last = frames[-1][0] if frames else stream.after
                data = b"".join(f for _, f in frames)
                over = view.ended and view.head <= last
                joined[stream.after] = (data + END_FRAME if over else data, last, len(frames), over)
        found = joined[stream.after]
        if found is None:  # the hub's buffer no longer reaches back to it
            self._close(stream, WHY_BEHIND)
            return
        data, last, count, over = found
        stream.after = last
        stream.sent += count
        stream.ending = over
        if data and not self._send(stream, data, now):
            return
        if over and not stream.tail:
            self._close(stream, WHY_END)

    def _send(self, stream: Parked, data: bytes, now: float) -> bool:
        """Write ``data``, keeping what the socket does not take; False once closed."""
        try:
            written = os.write(stream.fd, data)
        except (BlockingIOError, InterruptedError):
            written = 0
        except OSError:
            self._close(stream, WHY_LEFT)
            return False
        stream.beat = now
        if written < len(data):
            stream.tail = data[written:]
            if len(stream.tail) > TAIL_LIMIT:
                self._close(stream, WHY_SLOW)
                return False
            if not stream.stalled:
                stream.stalled = now
        return True

    def _flush(self, stream: Parked, now: float) -> bool:
        """Write a stream's tail; whether it is out whole."""
        tail, stream.tail = stream.tail, b""
        if not self._send(stream, tail, now):
            return False
        if stream.tail:
            return False
        stream.stalled = 0.0
        if stream.ending:
            self._close(stream, WHY_END)
            return False
        return True

    def _tick(self, now: float) -> None:
        """Hang-ups, stalled tails, timeouts and heartbeats."""
        for fd, _ in self._epoll.poll(0):
            found = self.streams.get(fd)
            if found is not None:
                self._close(found, WHY_LEFT)
        for n, stream in enumerate(list(self.streams.values()), 1):
            if stream.fd < 0:
                continue
            if stream.tail:
                blocked = not self._flush(stream, now) and stream.fd >= 0 and stream.tail
                if blocked and now - stream.stalled >= STALL:
                    self._close(stream, WHY_SLOW)
            elif now >= stream.deadline:
                self._close(stream, WHY_TIMEOUT)
            elif now - stream.beat >= self.heartbeat:
                self._send(stream, self.beat_frame, now)
            if n % BATCH == 0:
                time.sleep(0)

    def _close(self, stream: Parked, why: str) -> None:
        """Close a parked stream's connection and let its viewer go."""
        with self.lock:  # once, whichever thread gets here first (the writer, a park)
            fd = stream.fd
            if fd < 0:
                return
            stream.fd = -1
            self.streams.pop(fd, None)
            stream.sub.hub.parked.pop(fd, None)
        with contextlib.suppress(OSError, ValueError):
            self._epoll.unregister(fd)
        with contextlib.suppress(OSError):
            os.close(fd)  # after it left the tables: the number may be reused at once
        stream.tail = b""
        stream.sub.close()
        stream_ended(
            stream.sub.hub.game_id, why, stream.sent, stream.after, stream.opened, stream.request_id
        )

    def open_streams(self) -> int:
        """How many streams are parked now."""
        return len(self.streams)
