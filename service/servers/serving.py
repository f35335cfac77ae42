"""Running the app: one threaded process (the embedded default) or gunicorn workers,
each with the request-body deadline (``service.servers.deadlines``) in front of the app.

Both HTTP servers answer some requests before the app sees them: a request line
or headers too long, a malformed request. Their own answers are HTML; here they
become ``application/problem+json`` like every other error of the service
(gunicorn's ``write_error``; the embedded server's ``service.servers.handler``).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import logging
import os
import shutil
import signal
import socket
import tempfile
import time
from typing import Any

from service.runtime.settings import Settings
from service.servers.deadlines import DRAIN_LIMIT, DRAIN_TIMEOUT, BodyDeadline
from service.servers.embedded import EmbeddedServer
from service.servers.handler import ProblemRequestHandler
from service.servers.refusals import PROBLEM, problem_bytes, security_headers

GRACEFUL_TIMEOUT = 5  # seconds a gunicorn worker gets to finish its requests on SIGTERM

log = logging.getLogger("tongiaki.serving")


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
