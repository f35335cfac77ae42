"""Request bodies within a deadline: WSGI middleware that reads a request's body whole
within ``BODY_DEADLINE`` seconds (else 408, and the connection closes), and one
thread per process (the ``Watchdog``) that ends a read whose deadline passed."""

from __future__ import annotations

import contextlib
import heapq
import io
import logging
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

from service.servers.refusals import PROBLEM, problem_bytes, security_headers

BODY_DEADLINE = 5.0  # seconds a request body may take to arrive, in all
DRAIN_TIMEOUT = 0.5  # seconds the embedded server waits for more of a body it refused
DRAIN_LIMIT = 1 << 20  # bytes of a refused request read and dropped at most


class Watchdog:
    """One thread per process that enforces request-body deadlines: when one passes,
    the reading side of that request's socket is shut, so the read waiting on it
    returns at once (short), however the client trickles its bytes.

    A request registers its deadline before reading and cancels it after: a heap
    push under a lock, nothing else (no wake-up: the thread looks every ``TICK``
    seconds, so a deadline holds to within a tick)."""

    TICK = 0.25

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, list[Any]]] = []
        self._lock = threading.Lock()
        self._count = 0
        self._thread: threading.Thread | None = None

    def watch(self, deadline: float, sock: socket.socket) -> list[Any]:
        """Shut ``sock``'s reading side at ``deadline`` unless cancelled; the ticket."""
        ticket: list[Any] = [sock, False]  # [socket, or None once cancelled; fired]
        with self._lock:
            self._count += 1
            heapq.heappush(self._heap, (deadline, self._count, ticket))
            start = self._thread is None
            if start:
                self._thread = threading.Thread(
                    target=self._run, name="body-deadlines", daemon=True
                )
        if start:  # outside the lock: under gevent, starting a thread switches greenlets
            self._thread.start()  # type: ignore[union-attr]
        return ticket

    def after_patch(self) -> None:
        """gevent patched ``threading`` after this was made (gunicorn's master imports it):
        a lock of the real kind would block the whole worker while a greenlet holds it."""
        self._lock = threading.Lock()

    @staticmethod
    def cancel(ticket: list[Any]) -> bool:
        """Stop watching; whether the deadline had already fired."""
        ticket[0] = None
        return bool(ticket[1])

    def _run(self) -> None:
        while True:
            time.sleep(self.TICK)
            now = time.monotonic()
            due = []
            with self._lock:
                while self._heap and self._heap[0][0] <= now:
                    ticket = heapq.heappop(self._heap)[2]
                    if ticket[0] is not None:
                        ticket[1] = True
                        due.append(ticket[0])
            for sock in due:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RD)


WATCHDOG = Watchdog()


class BodyDeadline:
    """WSGI middleware: a request body arrives whole within ``BODY_DEADLINE`` seconds
    (else 408, and the connection closes), read here at most one byte past the
    limit, so a client that trickles or stalls its body holds a request thread no
    longer than that (``Watchdog`` ends the read at the deadline). The app then
    reads the body from memory. Behind a buffering proxy (nginx) slow clients
    never reach here.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        sock = environ.get("gunicorn.socket") or environ.get("werkzeug.socket")
        length = environ.get("CONTENT_LENGTH") or ""
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if sock is None or not (chunked or (length.isdigit() and int(length) > 0)):
            return self.app(environ, start_response)
        from service.http.api import MAX_BODY

        if length.isdigit() and int(length) > MAX_BODY:  # 413 before reading anything
            return self._then_hurry(
                self.app(environ, start_response), sock, stalled=False, environ=environ
            )
        wanted = MAX_BODY + 1 if chunked else int(length)
        data, late = _read_body(environ, sock, wanted)
        if late or (not chunked and len(data) < wanted and not environ.get("tongiaki.body_error")):
            # the deadline passed, or the client hung up half-way: it gets 408 either way
            answer = _too_slow(environ, start_response)
            return self._then_hurry(answer, sock, stalled=True, environ=environ)
        _in_memory(environ, data)
        if chunked and len(data) > MAX_BODY:  # the rest is never read: 413
            return self._then_hurry(
                self.app(environ, start_response), sock, stalled=False, environ=environ
            )
        return self.app(environ, start_response)

    @staticmethod
    def _then_hurry(
        answer: Iterable[bytes], sock: socket.socket, stalled: bool, environ: dict[str, Any]
    ) -> Iterator[bytes]:
        """The answer, then no long wait for the rest of a body that is never used.

        A stalled client sends nothing more: the socket's reading side is shut, or
        gunicorn would linger on it for seconds in its main loop, where it holds up
        every other connection of the process. A client still sending an oversized
        body may go on until it is done (then it reads the 413); the embedded server
        drains it, and stops once nothing has come for ``DRAIN_TIMEOUT`` (it would
        wait for the client to hang up otherwise). Gunicorn drains it itself, within
        its keep-alive time (a timeout on the socket made its wait for the next
        request end in an error logged with a traceback)."""
        embedded = "gunicorn.socket" not in environ
        try:
            yield from answer
        finally:
            close = getattr(answer, "close", None)
            if close is not None:
                close()
            with contextlib.suppress(OSError):
                if stalled:
                    sock.shutdown(socket.SHUT_RD)
                elif embedded:
                    sock.settimeout(DRAIN_TIMEOUT)


def _read_body(environ: dict[str, Any], sock: socket.socket, wanted: int) -> tuple[bytes, bool]:
    """Up to ``wanted`` bytes of the request's body, read under its deadline; and whether
    the deadline cut the read short. A malformed chunk (or the deadline) is noted in
    the environ for the app (``tongiaki.body_error``)."""
    stream = environ["wsgi.input"]
    ticket = WATCHDOG.watch(time.monotonic() + BODY_DEADLINE, sock)
    data = b""
    try:
        data = stream.read(wanted)
    except Exception as exc:  # a malformed chunk (or the deadline cut it short)
        environ["tongiaki.body_error"] = str(exc) or type(exc).__name__
    return data, WATCHDOG.cancel(ticket)


def _too_slow(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    """The 408 of a body that did not arrive in time, its access line written here."""
    body = problem_bytes(
        408, "Request Timeout", f"a request body arrives within {BODY_DEADLINE:g} s"
    )
    # what is left of the body is never read: the connection closes after the
    # answer, and says so (gunicorn ignores an app's Connection header, but its
    # start_response belongs to the response it writes, which can be told)
    force_close = getattr(getattr(start_response, "__self__", None), "force_close", None)
    if callable(force_close):
        force_close()
    # the app never saw the request: its id, access line and headers are given here
    rid = _request_id(environ)
    logging.getLogger("tongiaki.access").info(
        "refused by the HTTP server: 408 Request Timeout (a body too slow)",
        extra={
            "status": 408,
            "request_id": rid,
            "bytes": len(body),
            "client": environ.get("REMOTE_ADDR", ""),
            "method": environ.get("REQUEST_METHOD", ""),
            "path": environ.get("PATH_INFO", ""),
        },
    )
    start_response(
        "408 Request Timeout",
        [
            ("Content-Type", PROBLEM),
            ("Content-Length", str(len(body))),
            ("X-Request-ID", rid),
            *security_headers().items(),
        ],
    )
    return [body]


def _in_memory(environ: dict[str, Any], data: bytes) -> None:
    """The app reads the body from memory, as if it had been sent with its length."""
    environ["wsgi.input"] = io.BytesIO(data)
    environ["CONTENT_LENGTH"] = str(len(data))
    environ.pop("HTTP_TRANSFER_ENCODING", None)
    environ["wsgi.input_terminated"] = False


def _request_id(environ: dict[str, Any]) -> str:
    """The client's ``X-Request-ID`` when it is a sane one, else a new one."""
    import uuid

    from service.runtime.logs import SANE_ID

    given = str(environ.get("HTTP_X_REQUEST_ID", ""))
    return given if SANE_ID.fullmatch(given) else uuid.uuid4().hex
