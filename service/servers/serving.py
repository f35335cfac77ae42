"""Running the app: one threaded process (the embedded default) or gunicorn workers.

Both HTTP servers answer some requests before the app sees them: a request line
or headers too long, a malformed request. Their own answers are HTML; here they
become ``application/problem+json`` like every other error of the service.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import heapq
import io
import logging
import os
import shutil
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from http import HTTPStatus
from typing import Any

from werkzeug.serving import WSGIRequestHandler

from service.runtime.settings import Settings
from service.servers.refusals import PROBLEM, problem_bytes, security_headers

GRACEFUL_TIMEOUT = 5  # seconds a gunicorn worker gets to finish its requests on SIGTERM

log = logging.getLogger("tongiaki.serving")
MAX_REQUEST_LINE = 4094  # gunicorn's limit_request_line
MAX_HEADER_LINE = 8190  # gunicorn's limit_request_field_size
IDLE_TIMEOUT = 30  # seconds the embedded server waits on a silent connection
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
        stream = environ["wsgi.input"]
        wanted = MAX_BODY + 1 if chunked else int(length)
        ticket = WATCHDOG.watch(time.monotonic() + BODY_DEADLINE, sock)
        data = b""
        try:
            data = stream.read(wanted)
        except Exception as exc:  # a malformed chunk (or the deadline cut it short)
            environ["tongiaki.body_error"] = str(exc) or type(exc).__name__
        if WATCHDOG.cancel(ticket) or (
            not chunked and len(data) < wanted and not environ.get("tongiaki.body_error")
        ):
            # the deadline passed, or the client hung up half-way: it gets 408 either way
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
            return self._then_hurry([body], sock, stalled=True, environ=environ)
        if chunked and len(data) > MAX_BODY:  # the rest is never read: 413
            environ["wsgi.input"] = io.BytesIO(data)
            environ["CONTENT_LENGTH"] = str(len(data))
            environ.pop("HTTP_TRANSFER_ENCODING", None)
            environ["wsgi.input_terminated"] = False
            return self._then_hurry(
                self.app(environ, start_response), sock, stalled=False, environ=environ
            )
        environ["wsgi.input"] = io.BytesIO(data)
        environ["CONTENT_LENGTH"] = str(len(data))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ["wsgi.input_terminated"] = False
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


def _request_id(environ: dict[str, Any]) -> str:
    """The client's ``X-Request-ID`` when it is a sane one, else a new one."""
    import uuid

    from service.runtime.logs import SANE_ID

    given = str(environ.get("HTTP_X_REQUEST_ID", ""))
    return given if SANE_ID.fullmatch(given) else uuid.uuid4().hex


class ProblemRequestHandler(WSGIRequestHandler):
    """The development server's request handler, with its own errors as problem+json.

    Its limits are gunicorn's: a request line of at most 4094 bytes (414), header
    lines of at most 8190 (431); a connection that sends nothing for ``timeout``
    seconds is closed (a stalled client does not keep its thread)."""

    timeout = IDLE_TIMEOUT
    prefix = b""  # the request head the gate read (service.servers.embedded)

    def setup(self) -> None:
        super().setup()
        # the request is read from what the gate read, then from the socket
        from service.servers.embedded import Prefixed

        self.rfile.close()
        self._raw = Prefixed(self.prefix, self.connection.makefile("rb", 0))
        self.rfile = io.BufferedReader(self._raw, 65536)

    def handle(self) -> None:
        """One request: werkzeug closes every connection after its answer (it sends
        ``Connection: close``), so none goes back to the gate."""
        self.close_connection = True
        try:
            self.handle_one_request()
        except (ConnectionError, TimeoutError) as exc:
            self.connection_dropped(exc)

    def parse_request(self) -> bool:
        if len(self.raw_requestline) > MAX_REQUEST_LINE + 2:  # with its CRLF
            self.requestline = self.raw_requestline[:80].decode("latin1", "replace")
            self.request_version = "HTTP/1.1"
            self.command = "GET"
            self.send_error(414, f"a request line has at most {MAX_REQUEST_LINE} bytes")
            return False
        if not super().parse_request():
            return False
        if self.request_version == "HTTP/0.9":  # a bare request line: no headers to answer in
            self.send_error(400, "HTTP/0.9 is not spoken: send HTTP/1.0 or HTTP/1.1")
            return False
        for name, value in self.headers.items():
            if len(name) + 2 + len(value) > MAX_HEADER_LINE:
                self.send_error(431, f"a header line has at most {MAX_HEADER_LINE} bytes")
                return False
        return True

    def run_wsgi(self) -> None:
        super().run_wsgi()
        from service.live.streams import HANDOFF

        handoff = getattr(self, "environ", {}).get(HANDOFF)
        if handoff is not None:  # a live stream that caught up: the writer takes it over
            self.close_connection = True
            handoff.park()  # the socket object is detached: closing it leaves the connection

    def connection_dropped(self, error: BaseException, environ: Any = None) -> None:
        self.close_connection = True  # a stream handed over, or a viewer gone: no next request

    def handle_expect_100(self) -> bool:
        """Refuse a body over the limit before the client sends it; otherwise let werkzeug
        say "100 Continue" (http.server would say it a second time)."""
        from service.http.api import MAX_BODY

        length = self.headers.get("Content-Length", "")
        if length.isdigit() and int(length) > MAX_BODY:
            self.send_error(413, f"a request body has at most {MAX_BODY} bytes")
            return False
        return True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        if code == 505:  # an HTTP version we do not speak is the client's mistake: 400
            code, message = 400, message or "HTTP version not supported"
        try:
            reason = HTTPStatus(code).phrase
        except ValueError:
            reason = "Error"
        import uuid

        from service.runtime.logs import REQUEST_ID

        body = problem_bytes(code, reason, message or explain or reason)
        if self.request_version == "HTTP/0.9":  # an unreadable request line: answer in 1.0
            self.request_version = "HTTP/1.0"
        rid = uuid.uuid4().hex
        token = REQUEST_ID.set(rid)
        try:
            # the app never saw this request: its access line is written here, as under
            # gunicorn (a client's mistake, not the server's error)
            logging.getLogger("tongiaki.access").info(
                "refused by the HTTP server: %s %s (%s)",
                code,
                reason,
                message,
                extra={
                    "status": code,
                    "request_id": rid,
                    "bytes": len(body),
                    "client": self.client_address[0] if self.client_address else "",
                },
            )
            self.send_response_only(code, reason)
            self.send_header("Connection", "close")
            self.send_header("Content-Type", PROBLEM)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Request-ID", rid)
            for name, value in security_headers().items():
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
        finally:
            REQUEST_ID.reset(token)


GC_THRESHOLDS = (5000, 20, 100)  # gc.set_threshold of a serving process (settle_heap)


def settle_heap() -> None:
    """Leave what start-up made (modules, the app, tables) out of garbage collection,
    and collect less often.

    A full collection walks every object the process tracks; with the ~80,000 of a
    started app among them, each one stopped a gevent worker's every request for
    60-140 ms (measured under 8 bots), which was most of the commands' p99. Frozen,
    they are never walked again (``gc.freeze``): 17-63 ms. A request makes many
    short-lived containers (JSON, rows, events): with the young generation collected
    every 5,000 allocations rather than 700, and the older ones a tenth as often, the
    pauses come far less often (bots' p99 100-134 against 136-166 ms in alternate
    runs); what is garbage is collected all the same, a little later."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


STOP_WAIT = 2.0  # seconds the embedded server gives its writer to close every stream
LISTEN_BACKLOG = 2048  # connections waiting to be accepted (gunicorn's default)


def stop_on_sigterm() -> None:
    """The embedded server on SIGTERM: close every live stream (each logged as ended by
    the server stopping; viewers reconnect elsewhere and resume), then stop."""

    def stop(signum: int, frame: Any) -> None:
        from service.live.feed import FEEDS, close_all

        log.info("SIGTERM: closing every live stream, then stopping")
        close_all()
        deadline = time.monotonic() + STOP_WAIT
        while any(f.writer.open_streams() for f in FEEDS) and time.monotonic() < deadline:
            time.sleep(0.02)
        raise KeyboardInterrupt  # werkzeug's server stops on it, closing its socket

    signal.signal(signal.SIGTERM, stop)


def run_embedded(settings: Settings, host: str, port: int) -> None:
    """One threaded process (a thread per connection), as ``tongiaki serve`` runs by default."""
    from service.app import create_app
    from service.runtime.logs import configure

    configure(settings.log_format or "text")
    more_files()
    app = create_app(settings)
    app.wsgi_app = BodyDeadline(app.wsgi_app)  # type: ignore[method-assign]
    stop_on_sigterm()
    from service.servers.embedded import EmbeddedServer

    # a crowd of viewers connecting at once waited for SYN retries behind werkzeug's 128
    EmbeddedServer.request_queue_size = LISTEN_BACKLOG
    server = EmbeddedServer(
        host,
        port,
        app,
        ProblemRequestHandler,
        max_connections=settings.max_connections,
        # behind a proxy every connection comes from its address: no bound per address
        per_client=0 if settings.proxies else settings.connections_per_client,
    )
    settle_heap()
    server.serve_forever()


def _write_problem(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error``, answering problem+json instead of HTML."""
    import uuid

    from gunicorn import util

    from service.runtime.logs import REQUEST_ID

    body = problem_bytes(status_int, reason, mesg or reason)
    rid = REQUEST_ID.get() or uuid.uuid4().hex  # the worker's handle_error set one
    try:
        peer = sock.getpeername()
        client = str(peer[0]) if isinstance(peer, tuple) else str(peer)
    except OSError:
        client = ""
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: {PROBLEM}\r\nContent-Length: {len(body)}\r\nX-Request-ID: {rid}\r\n"
        + "".join(f"{k}: {v}\r\n" for k, v in security_headers().items())
        + "\r\n"
    )
    # the app never saw this request: its access line is written here
    logging.getLogger("tongiaki.access").info(
        "refused by the HTTP server: %s %s",
        status_int,
        reason,
        extra={"status": status_int, "request_id": rid, "bytes": len(body), "client": client},
    )
    util.write_nonblock(sock, head.encode("latin1") + body)
    # gunicorn closes the socket next: with the rest of the refused request still unread,
    # the kernel would answer with a reset that can destroy the answer before the client
    # reads it. Say we are done, and read (and drop) what is left, briefly.
    with contextlib.suppress(OSError, ValueError):
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(DRAIN_TIMEOUT)
        drained = 0
        while drained < DRAIN_LIMIT and (chunk := sock.recv(65536)):
            drained += len(chunk)


def more_files() -> None:
    """Raise this process's open-file limit to its hard limit: every viewer is a socket."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


GEVENT_STREAMS = 10_000  # live streams per gevent worker unless TONGIAKI_MAX_STREAMS says
CONNECTIONS = 1000  # connections a gevent worker serves at once (gunicorn's default)


def run_gunicorn(settings: Settings, host: str, port: int, workers: int) -> None:
    """``workers`` gunicorn processes on one port, each a gevent worker: a request is a
    greenlet, so a live stream waiting for events holds no thread (``service.live.feed``)."""
    from gunicorn import util
    from gunicorn.app.base import BaseApplication

    from service.app import create_app
    from service.runtime.logs import gunicorn_logconfig

    more_files()
    util.write_error = _write_problem  # workers fork after this
    # the workers' metrics, added up at every scrape (service.http.metrics): one fresh
    # directory per server, set before the workers import prometheus_client
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        where = tempfile.mkdtemp(prefix="tongiaki-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = where
        atexit.register(shutil.rmtree, where, True)

    def worker_exit(server: Any, worker: Any) -> None:
        # close the database pool while the worker can still switch greenlets (left to the
        # garbage collector, it fails noisily at interpreter exit)
        app = getattr(getattr(worker, "wsgi", None), "app", None)
        games = getattr(app, "extensions", {}).get("tongiaki.games")
        if games is not None:
            with contextlib.suppress(Exception):
                games.store.close()

    def child_exit(server: Any, worker: Any) -> None:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)

    class Gunicorn(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            self.cfg.set("worker_class", "service.servers.gevent_worker.Worker")
            # requests in flight at once: a live stream holds one only while it catches
            # up (then the writer has its connection: service.live.writer)
            self.cfg.set("worker_connections", CONNECTIONS)
            self.cfg.set("timeout", 120)
            self.cfg.set("graceful_timeout", GRACEFUL_TIMEOUT)
            # one control socket per host by default: several services would share it
            self.cfg.set("control_socket_disable", True)
            self.cfg.set("child_exit", child_exit)
            self.cfg.set("worker_exit", worker_exit)
            self.cfg.set("logconfig_dict", gunicorn_logconfig(settings.log_format or "json"))

        def load(self):  # type: ignore[no-untyped-def]
            app = BodyDeadline(create_app(settings, streams=GEVENT_STREAMS))
            settle_heap()  # in each worker, once its app is made
            return app

    Gunicorn().run()
