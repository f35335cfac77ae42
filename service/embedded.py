"""The embedded default's HTTP server: waiting connections hold no thread.

werkzeug's threaded server gives every connection a thread from the moment it is
accepted. A client that sends a header line every few seconds then holds its
thread for good, and when thousands of them hang up at once, thousands of threads
wake together and queue for the interpreter lock: a probe with 2,000 such clients
left ``/healthz`` unanswered for 20 s after they left (issue 26).

Here a connection is held by the ``Gate`` (one thread, one ``epoll``) until its
request head has arrived whole, and only then handed to a request thread from a
bounded pool (werkzeug closes a connection after its answer). So:

- a request head must arrive within ``HEAD_TIMEOUT`` seconds of its first byte
  (else 408, and the connection closes); a connection that sends nothing is
  closed after ``IDLE_TIMEOUT``; a head larger than ``MAX_HEAD`` bytes is 431;
- at most ``max_connections`` connections are open at once (live streams handed
  to the writer no longer count): past it, a connection is answered 503 at once
  and closed;
- at most ``max_threads`` requests are served at once; more wait for a thread.

The request's body is still read under ``service.serving.BodyDeadline``.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import queue
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from werkzeug.serving import BaseWSGIServer

log = logging.getLogger("tongiaki.serving")

HEAD_TIMEOUT = 10.0  # seconds from a request's first byte to the end of its head
IDLE_TIMEOUT = 30.0  # seconds a connection may wait silent for its next request
MAX_HEAD = 128 * 1024  # bytes of a request head at most (gunicorn: 100 lines of 8,190)
MAX_REQUEST_LINE = 4094  # beyond it with no line end: the handler answers 414
MAX_CONNECTIONS = 4096  # open at once unless TONGIAKI_MAX_CONNECTIONS says
MAX_THREADS = 256  # requests served at once
THREAD_LINGER = 2.0  # seconds an idle request thread waits for work before it ends
TICK = 0.25  # seconds between the gate's looks at its deadlines


class Prefixed(io.RawIOBase):
    """A socket's reading side with bytes already read from it put back in front."""

    def __init__(self, prefix: bytes, raw: Any) -> None:
        self._prefix = memoryview(prefix)
        self._raw = raw

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        if len(self._prefix):
            n = min(len(buffer), len(self._prefix))
            buffer[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        return self._raw.readinto(buffer)  # type: ignore[no-any-return]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._raw.close()
        super().close()


def head_complete(data: bytes | bytearray) -> bool:
    """Whether ``data`` holds a whole request head (a blank line ends it; bare LF too)."""
    return b"\r\n\r\n" in data or b"\n\n" in data


def refuse(sock: socket.socket, status: int, reason: str, detail: str) -> None:
    """Answer a problem document without blocking (as much as the socket takes), close."""
    from service.logs import REQUEST_ID
    from service.serving import PROBLEM, problem_bytes, security_headers

    body = problem_bytes(status, reason, detail)
    rid = os.urandom(16).hex()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: {PROBLEM}\r\n"
        f"Content-Length: {len(body)}\r\nX-Request-ID: {rid}\r\n"
        + ("Retry-After: 5\r\n" if status == 503 else "")
        + "".join(f"{k}: {v}\r\n" for k, v in security_headers().items())
        + "\r\n"
    )
    token = REQUEST_ID.set(rid)
    try:
        try:
            client = str(sock.getpeername()[0])
        except (OSError, IndexError, TypeError):
            client = ""
        logging.getLogger("tongiaki.access").info(
            "refused by the HTTP server: %s %s (%s)",
            status,
            reason,
            detail,
            extra={"status": status, "request_id": rid, "bytes": len(body), "client": client},
        )
    finally:
        REQUEST_ID.reset(token)
    with contextlib.suppress(OSError):
        sock.setblocking(False)
        sock.send(head.encode("latin-1") + body)
        sock.shutdown(socket.SHUT_WR)
    with contextlib.suppress(OSError):
        sock.close()


@dataclass
class Waiting:
    """A connection the gate holds until its request head is whole."""

    sock: socket.socket
    address: Any
    data: bytearray
    since: float  # when it came: for the idle timeout
    first: float | None = None  # when the head's first byte came: for the head timeout


class Gate:
    """One thread and one ``epoll`` for every connection waiting for its request head."""

    def __init__(
        self,
        dispatch: Callable[[socket.socket, Any, bytes], None],
        release: Callable[[], None],
        head_timeout: float = HEAD_TIMEOUT,
        idle_timeout: float = IDLE_TIMEOUT,
    ) -> None:
        self.dispatch = dispatch  # a whole head: hand the connection to a request thread
        self.release = release  # a connection closed here
        self.head_timeout = head_timeout
        self.idle_timeout = idle_timeout
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
        """Hand ``w`` on if its head is whole (or too long a line for the handler to judge);
        refuse it if its head is too large. Whether it left the gate."""
        data = w.data
        line_end = data.find(b"\n")
        if line_end > MAX_REQUEST_LINE + 1 or (line_end < 0 and len(data) > MAX_REQUEST_LINE + 2):
            self._forget(w)
            refuse(
                w.sock,
                414,
                "URI Too Long",
                f"a request line has at most {MAX_REQUEST_LINE} bytes",
            )
            self.release()
            return True
        if head_complete(data):
            self._forget(w)
            w.sock.setblocking(True)
            self.dispatch(w.sock, w.address, bytes(data))
            return True
        if len(data) > MAX_HEAD:
            self._forget(w)
            refuse(
                w.sock,
                431,
                "Request Header Fields Too Large",
                f"a request head has at most {MAX_HEAD} bytes",
            )
            self.release()
            return True
        return False

    def _forget(self, w: Waiting) -> None:
        if self.waiting.pop(w.sock.fileno(), None) is not None:
            with contextlib.suppress(KeyError, ValueError, OSError):
                self.selector.unregister(w.sock)

    def _close(self, w: Waiting) -> None:
        self._forget(w)
        with contextlib.suppress(OSError):
            w.sock.close()
        self.release()

    def _read(self, w: Waiting) -> None:
        try:
            chunk = w.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(w)
            return
        if not chunk:  # the client hung up before its request was whole: nothing to do
            self._close(w)
            return
        if w.first is None:
            w.first = time.monotonic()
        w.data += chunk
        self._whole(w)

    def _expire(self, now: float) -> None:
        for w in list(self.waiting.values()):
            if w.first is not None and now - w.first > self.head_timeout:
                self._forget(w)
                refuse(
                    w.sock,
                    408,
                    "Request Timeout",
                    f"a request's head arrives within {self.head_timeout:g} s",
                )
                self.release()
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


class Pool:
    """At most ``size`` request threads, made as needed; one idle for ``linger`` seconds
    ends (daemons: a stopping server does not wait for them)."""

    def __init__(self, size: int, linger: float = THREAD_LINGER) -> None:
        self.size = size
        self.linger = linger
        self.jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.threads = 0
        self.idle = 0

    def submit(self, job: Callable[[], None]) -> None:
        with self.lock:
            if self.idle:  # a thread waits: it takes this job
                self.idle -= 1
                start = False
            else:
                start = self.threads < self.size
                if start:
                    self.threads += 1
        self.jobs.put(job)  # with every thread busy, it waits for the first one free
        if start:
            threading.Thread(target=self._work, name="http-request", daemon=True).start()

    def _work(self) -> None:
        while True:
            try:
                job = self.jobs.get(timeout=self.linger)
            except queue.Empty:
                with self.lock:
                    if self.idle:  # no job was promised to an idle thread: this one ends
                        self.idle -= 1
                        self.threads -= 1
                        return
                continue  # a job was promised to an idle thread: it is on its way
            try:
                job()
            except Exception:  # pragma: no cover - a handler's own errors are its own
                log.exception("a request thread's job failed")
            with self.lock:
                self.idle += 1


class EmbeddedServer(BaseWSGIServer):
    """werkzeug's server with a gate in front and a pool of request threads behind."""

    multithread = True

    def __init__(
        self,
        host: str,
        port: int,
        app: Any,
        handler: Any,
        max_connections: int = MAX_CONNECTIONS,
        max_threads: int = MAX_THREADS,
        head_timeout: float = HEAD_TIMEOUT,
        idle_timeout: float = IDLE_TIMEOUT,
    ) -> None:
        super().__init__(host, port, app, handler=handler)
        self.max_connections = max_connections
        self.open = 0  # connections of ours: at the gate or in a request
        self._count = threading.Lock()
        self.pool = Pool(max_threads)
        self.gate = Gate(self._dispatch, self._release, head_timeout, idle_timeout)

    # --- accepting ---------------------------------------------------------------

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._count:
            full = self.open >= self.max_connections
            if not full:
                self.open += 1
        if full:
            refuse(
                request,
                503,
                "Service Unavailable",
                f"the server holds {self.max_connections} connections already; try again",
            )
            return
        self.gate.admit(request, client_address)

    def _release(self) -> None:
        with self._count:
            self.open -= 1

    # --- serving -----------------------------------------------------------------

    def _dispatch(self, sock: socket.socket, address: Any, head: bytes) -> None:
        self.pool.submit(lambda: self._serve(sock, address, head))

    def _serve(self, sock: socket.socket, address: Any, head: bytes) -> None:
        handler_class: Any = self.RequestHandlerClass
        handler = handler_class.__new__(handler_class)
        handler.prefix = head
        try:
            handler_class.__init__(handler, sock, address, self)  # setup, handle, finish
        except Exception:
            self.handle_error(sock, address)
        finally:
            if sock.fileno() >= 0:  # not handed to the stream writer (detached)
                self.shutdown_request(sock)
            self._release()

    def server_close(self) -> None:
        self.gate.stop()
        super().server_close()
