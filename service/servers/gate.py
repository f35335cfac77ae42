"""The embedded server's gate: one thread and one ``epoll`` hold every connection until
its request has arrived whole, so a connection that waits holds no request thread.

werkzeug's threaded server gives every connection a thread from the moment it is
accepted. A client that sends a header line every few seconds then holds its
thread for good, and when thousands of them hang up at once, thousands of threads
wake together and queue for the interpreter lock: a probe with 2,000 such clients
left ``/healthz`` unanswered for 20 s after they left (issue 26).

- a request head must arrive within ``HEAD_TIMEOUT`` seconds of its first byte
  (else 408, and the connection closes), its body within ``BODY_TIMEOUT`` after it;
  a connection that sends nothing is closed after ``IDLE_TIMEOUT``; a head larger
  than ``MAX_HEAD`` bytes is 431, a request line past ``MAX_REQUEST_LINE`` 414;
- how a request is whole (its head, then its body) is ``service.servers.framing``'s;
- a refused connection is answered at once, and what it still sends is read and
  dropped a while (``DRAIN_TIME``, ``DRAIN_LIMIT``).
"""

from __future__ import annotations

import contextlib
import queue
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.servers.framing import (
    Head,
    Refused,
    chunked_end,
    head_end,
    parse_head,
    request_line_version,
    without_expect,
)
from service.servers.refusals import refuse

HEAD_TIMEOUT = 10.0  # seconds from a request's first byte to the end of its head
BODY_TIMEOUT = 5.0  # seconds from the end of its head to the end of its body
IDLE_TIMEOUT = 30.0  # seconds a connection may wait silent for its next request
MAX_HEAD = 64 * 1024  # bytes of a request head at most (a browser's are a few KiB)
MAX_BODY = 16 * 1024  # bytes of a request body (service.http.api.MAX_BODY; checked equal by a test)
MAX_REQUEST_LINE = 4094  # beyond it with no line end: the handler answers 414
TICK = 0.25  # seconds between the gate's looks at its deadlines
DRAIN_TIME = 1.0  # seconds a refused connection's further bytes are read and dropped
DRAIN_LIMIT = 1 << 20  # bytes of them at most


@dataclass
class Waiting:
    """A connection the gate holds until its request head is whole."""

    sock: socket.socket
    address: Any
    data: bytearray
    since: float  # when it came: for the idle timeout
    first: float | None = None  # when the head's first byte came: for the head timeout
    head: Head | None = None  # once the head is whole: its framing
    headed: float = 0.0  # when the head was whole: for the body's deadline
    draining: float = 0.0  # when it was refused: what it still sends is dropped a while
    drained: int = 0


class Gate:
    """One thread and one ``epoll`` for every connection waiting for its request head."""

    def __init__(
        self,
        dispatch: Callable[[socket.socket, Any, bytes], None],
        release: Callable[[Any], None],
        head_timeout: float = HEAD_TIMEOUT,
        idle_timeout: float = IDLE_TIMEOUT,
        body_timeout: float = BODY_TIMEOUT,
        tick: Callable[[float], None] | None = None,
    ) -> None:
        self.dispatch = dispatch  # a whole request: hand the connection to a request thread
        self.release = release  # a connection (of this client address) closed here
        self.head_timeout = head_timeout
        self.idle_timeout = idle_timeout
        self.body_timeout = body_timeout
        self.tick = tick  # called at every look at the deadlines (the refusals' log)
        self.selector = selectors.DefaultSelector()
        self.waiting: dict[int, Waiting] = {}
        self.inbox: queue.SimpleQueue[Waiting] = queue.SimpleQueue()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self.selector.register(self._wake_r, selectors.EVENT_READ)
        self._stopped = False
        self.thread = threading.Thread(target=self._run, name="http-gate", daemon=True)
        self.thread.start()

    def admit(self, sock: socket.socket, address: Any) -> None:
        """Hold ``sock`` until its request head is whole (any thread may call this)."""
        self.inbox.put(Waiting(sock, address, bytearray(), time.monotonic()))
        with contextlib.suppress(OSError):
            self._wake_w.send(b"\0")

    def stop(self) -> None:
        self._stopped = True
        with contextlib.suppress(OSError):
            self._wake_w.send(b"\0")

    def __len__(self) -> int:
        return len(self.waiting)

    def _take_inbox(self) -> None:
        with contextlib.suppress(OSError):
            while self._wake_r.recv(4096):
                pass
        while True:
            try:
                w = self.inbox.get_nowait()
            except queue.Empty:
                return
            try:
                w.sock.setblocking(False)
                self.selector.register(w.sock, selectors.EVENT_READ, w)
            except (OSError, ValueError):
                self._close(w)
                continue
            self.waiting[w.sock.fileno()] = w

    def _whole(self, w: Waiting) -> bool:
        """Hand ``w`` on once its head and its body (``service.servers.framing``) are whole; refuse
        it at once when its request line or head is too long, or its framing says so
        (HTTP/0.9, a body past the limit, one read two ways). Whether it left the gate."""
        data = w.data
        head = w.head
        if head is not None:  # the head is here: waiting for the body
            try:
                if head.chunked:
                    if chunked_end(data, head.end, MAX_BODY) < 0:
                        return False
                elif len(data) < head.end + (head.length or 0):
                    return False
            except Refused as no:
                return self._refuse(w, no.status, no.reason, no.detail)
            return self._hand_on(w)
        line_end = data.find(b"\n")
        if line_end > MAX_REQUEST_LINE + 1 or (line_end < 0 and len(data) > MAX_REQUEST_LINE + 2):
            return self._refuse(
                w, 414, "URI Too Long", f"a request line has at most {MAX_REQUEST_LINE} bytes"
            )
        if line_end >= 0 and not request_line_version(bytes(data[:line_end])):
            return self._refuse(
                w, 400, "Bad Request", "HTTP/0.9 is not spoken: send HTTP/1.0 or HTTP/1.1"
            )
        end = head_end(data)
        if (end if end >= 0 else len(data)) > MAX_HEAD:
            return self._refuse(
                w,
                431,
                "Request Header Fields Too Large",
                f"a request head has at most {MAX_HEAD} bytes",
            )
        if end < 0:
            return False
        try:
            head = parse_head(bytes(data[:end]), MAX_BODY)
        except Refused as no:
            return self._refuse(w, no.status, no.reason, no.detail)
        if head.expects_continue:  # say it here, and read the body here
            with contextlib.suppress(OSError):
                w.sock.send(b"HTTP/1.1 100 Continue\r\n\r\n")
            kept = without_expect(bytes(data[:end]))
            w.data = data = bytearray(kept) + data[end:]
            head.end = len(kept)
        w.head = head
        w.headed = time.monotonic()
        return self._whole(w)

    def _hand_on(self, w: Waiting) -> bool:
        self._forget(w)
        w.sock.setblocking(True)
        self.dispatch(w.sock, w.address, bytes(w.data))
        return True

    def _refuse(self, w: Waiting, status: int, reason: str, detail: str) -> bool:
        """Answer ``w`` at once; then read and drop what it still sends, a little while
        (closed with unread bytes, the socket would be reset, and the reset can destroy
        the answer before the client reads it)."""
        self._forget(w)
        refuse(w.sock, status, reason, detail, head=w.head, close=False)
        w.draining = time.monotonic()
        try:
            self.selector.register(w.sock, selectors.EVENT_READ, w)
        except (OSError, ValueError):
            self._close(w)
            return True
        self.waiting[w.sock.fileno()] = w
        return True

    def _forget(self, w: Waiting) -> None:
        if self.waiting.pop(w.sock.fileno(), None) is not None:
            with contextlib.suppress(KeyError, ValueError, OSError):
                self.selector.unregister(w.sock)

    def _close(self, w: Waiting) -> None:
        self._forget(w)
        with contextlib.suppress(OSError):
            w.sock.close()
        self.release(w.address)

    def _read(self, w: Waiting) -> None:
        try:
            chunk = w.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(w)
            return
        if not chunk:  # the client hung up (before its request was whole: nothing to do)
            self._close(w)
            return
        if w.draining:  # answered already: dropped, up to DRAIN_LIMIT
            w.drained += len(chunk)
            if w.drained > DRAIN_LIMIT:
                self._close(w)
            return
        if w.first is None:
            w.first = time.monotonic()
        w.data += chunk
        self._whole(w)

    def _expire(self, now: float) -> None:
        for w in list(self.waiting.values()):
            if w.draining:
                if now - w.draining > DRAIN_TIME:
                    self._close(w)
            elif w.head is not None and now - w.headed > self.body_timeout:
                self._refuse(
                    w,
                    408,
                    "Request Timeout",
                    f"a request body arrives within {self.body_timeout:g} s",
                )
            elif w.head is None and w.first is not None and now - w.first > self.head_timeout:
                self._refuse(
                    w,
                    408,
                    "Request Timeout",
                    f"a request's head arrives within {self.head_timeout:g} s",
                )
            elif w.first is None and now - w.since > self.idle_timeout:
                self._close(w)

    def _run(self) -> None:
        last = time.monotonic()
        while not self._stopped:
            try:
                ready = self.selector.select(TICK)
            except OSError:  # pragma: no cover - a closed descriptor raced a select
                ready = []
            for key, _ in ready:
                if key.data is None:
                    self._take_inbox()
                else:
                    self._read(key.data)
            now = time.monotonic()
            if now - last >= TICK:
                last = now
                self._take_inbox()
                self._expire(now)
                if self.tick is not None:
                    self.tick(now)
