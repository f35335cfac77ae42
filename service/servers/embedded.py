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

The request's body is still read under ``service.servers.serving.BodyDeadline``.
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
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any

from werkzeug.serving import BaseWSGIServer

from service.servers.framing import (
    Head,
    Refused,
    chunked_end,
    head_end,
    parse_head,
    request_line_version,
    without_expect,
)

log = logging.getLogger("tongiaki.serving")

HEAD_TIMEOUT = 10.0  # seconds from a request's first byte to the end of its head
BODY_TIMEOUT = 5.0  # seconds from the end of its head to the end of its body
IDLE_TIMEOUT = 30.0  # seconds a connection may wait silent for its next request
MAX_HEAD = 64 * 1024  # bytes of a request head at most (a browser's are a few KiB)
MAX_BODY = 16 * 1024  # bytes of a request body (service.http.api.MAX_BODY; checked equal by a test)
MAX_REQUEST_LINE = 4094  # beyond it with no line end: the handler answers 414
MAX_CONNECTIONS = 4096  # open at once unless TONGIAKI_MAX_CONNECTIONS says
PER_CLIENT = 256  # of them from one client address unless TONGIAKI_CONNECTIONS_PER_CLIENT says
MAX_THREADS = 256  # requests served at once
THREAD_LINGER = 2.0  # seconds an idle request thread waits for work before it ends
TICK = 0.25  # seconds between the gate's looks at its deadlines
DRAIN_TIME = 1.0  # seconds a refused connection's further bytes are read and dropped
DRAIN_LIMIT = 1 << 20  # bytes of them at most


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


def refuse(
    sock: socket.socket,
    status: int,
    reason: str,
    detail: str,
    log: Callable[[int, str, str], None] | None = None,
    head: Head | None = None,
    close: bool = True,
) -> None:
    """Answer a problem document without blocking (as much as the socket takes), close.
    The access line is written here (with the request's id, method and path when its
    head came), or given to ``log`` (which may gather them)."""
    from service.runtime.logs import REQUEST_ID, SANE_ID
    from service.servers.refusals import PROBLEM, problem_bytes, security_headers

    body = problem_bytes(status, reason, detail)
    given = head.request_id if head is not None else ""
    rid = given if SANE_ID.fullmatch(given) else os.urandom(16).hex()
    head_text = (
        f"HTTP/1.1 {status} {reason}\r\nDate: {formatdate(usegmt=True)}\r\n"
        f"Connection: close\r\nContent-Type: {PROBLEM}\r\n"
        f"Content-Length: {len(body)}\r\nX-Request-ID: {rid}\r\n"
        + ("Retry-After: 5\r\n" if status == 503 else "")
        + "".join(f"{k}: {v}\r\n" for k, v in security_headers().items())
        + "\r\n"
    )
    try:
        client = str(sock.getpeername()[0])
    except (OSError, IndexError, TypeError):
        client = ""
    token = REQUEST_ID.set(rid)
    try:
        if log is not None:
            log(status, detail, client)
        else:
            where = {"method": head.method, "path": head.target[:200]} if head else {}
            logging.getLogger("tongiaki.access").info(
                "refused by the HTTP server: %s %s (%s)",
                status,
                reason,
                detail,
                extra={
                    "status": status,
                    "request_id": rid,
                    "bytes": len(body),
                    "client": client,
                    **where,
                },
            )
    finally:
        REQUEST_ID.reset(token)
    with contextlib.suppress(OSError):
        sock.setblocking(False)
        sock.send(head_text.encode("latin-1") + body)
        sock.shutdown(socket.SHUT_WR)
    if close:
        with contextlib.suppress(OSError):
            sock.close()


def _client(address: Any) -> str:
    """A connection's client address (the key of the per-client bound)."""
    return str(address[0]) if isinstance(address, tuple) and address else str(address)


class Refusals:
    """Connections refused for a limit, logged at most once a second with how many: a
    flood of connections is not a flood of log lines."""

    EVERY = 1.0

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.last = 0.0
        self.what: tuple[int, str, str] = (0, "", "")

    def note(self, status: int, detail: str, client: str) -> None:
        with self.lock:
            self.count += 1
            self.what = (status, detail, client)
        self.flush(time.monotonic())

    def flush(self, now: float) -> None:
        """Write the line of the refusals not yet told, if a second has passed (the gate
        calls this four times a second, so the end of a flood is told too)."""
        with self.lock:
            if not self.count or now - self.last < self.EVERY:
                return
            count, self.count, self.last = self.count, 0, now
            status, detail, client = self.what
        logging.getLogger("tongiaki.access").warning(
            "refused by the HTTP server: %d connection(s) since the last line, the last %s (%s)",
            count,
            status,
            detail,
            extra={"status": status, "refused": count, "client": client},
        )


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


class _Idle:
    """A request thread waiting for work: handed a job directly, or ending."""

    __slots__ = ("job", "ready")

    def __init__(self) -> None:
        self.job: Callable[[], None] | None = None
        self.ready = threading.Event()


class Pool:
    """At most ``size`` request threads, made as needed; one idle for ``linger`` seconds
    ends (daemons: a stopping server does not wait for them).

    A job goes straight to a thread waiting for one (under the lock, so a thread that
    is about to end never takes it silently), else to a new thread, else it waits in
    the backlog for the first thread free. (The first version counted idle threads,
    and the count ran ahead of them: after a burst of more than ``size`` requests,
    the lingering threads ended while the count said some were waiting, and the next
    request waited for ever. A helper's probe found it.)"""

    def __init__(self, size: int, linger: float = THREAD_LINGER) -> None:
        self.size = size
        self.linger = linger
        self.lock = threading.Lock()
        self.idle: list[_Idle] = []
        self.backlog: deque[Callable[[], None]] = deque()
        self.threads = 0

    def submit(self, job: Callable[[], None]) -> None:
        with self.lock:
            if self.idle:
                waiting = self.idle.pop()
                waiting.job = job
                waiting.ready.set()
                return
            if self.threads >= self.size:
                self.backlog.append(job)
                return
            self.threads += 1
        threading.Thread(target=self._work, args=(job,), name="http-request", daemon=True).start()

    def _work(self, job: Callable[[], None]) -> None:
        me = _Idle()
        while True:
            try:
                job()
            except Exception:  # pragma: no cover - a handler's own errors are its own
                log.exception("a request thread's job failed")
            with self.lock:
                if self.backlog:
                    job = self.backlog.popleft()
                    continue
                me.job = None
                me.ready.clear()
                self.idle.append(me)
            if not me.ready.wait(self.linger):
                with self.lock:
                    if me in self.idle:  # no job came: this thread ends
                        self.idle.remove(me)
                        self.threads -= 1
                        return
                me.ready.wait()  # a job came just as the wait ended: it is set
            assert me.job is not None
            job = me.job


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
        per_client: int = PER_CLIENT,
        max_threads: int = MAX_THREADS,
        head_timeout: float = HEAD_TIMEOUT,
        idle_timeout: float = IDLE_TIMEOUT,
    ) -> None:
        super().__init__(host, port, app, handler=handler)
        self.max_connections = max_connections
        self.per_client = per_client  # 0: no bound per client address
        self.open = 0  # connections of ours: at the gate or in a request
        self.by_client: dict[str, int] = {}
        self._count = threading.Lock()
        self.refused = Refusals()
        self.pool = Pool(max_threads)
        self.gate = Gate(
            self._dispatch,
            self._release,
            head_timeout,
            idle_timeout,
            tick=self.refused.flush,
        )

    # --- accepting ---------------------------------------------------------------

    def process_request(self, request: Any, client_address: Any) -> None:
        client = _client(client_address)
        with self._count:
            full = self.open >= self.max_connections
            crowded = bool(self.per_client) and self.by_client.get(client, 0) >= self.per_client
            if not full and not crowded:
                self.open += 1
                self.by_client[client] = self.by_client.get(client, 0) + 1
        if full or crowded:
            held = (
                f"the server holds {self.max_connections} connections already"
                if full
                else f"this address holds {self.per_client} connections already"
            )
            refuse(request, 503, "Service Unavailable", f"{held}; try again", log=self.refused.note)
            return
        self.gate.admit(request, client_address)

    def _release(self, client_address: Any) -> None:
        client = _client(client_address)
        with self._count:
            self.open -= 1
            left = self.by_client.get(client, 1) - 1
            if left > 0:
                self.by_client[client] = left
            else:
                self.by_client.pop(client, None)

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
            self._release(address)

    def server_close(self) -> None:
        self.gate.stop()
        super().server_close()
