"""Running the app: one threaded process (the embedded default) or gunicorn workers.

Both HTTP servers answer some requests before the app sees them: a request line
or headers too long, a malformed request. Their own answers are HTML; here they
become ``application/problem+json`` like every other error of the service.
"""

from __future__ import annotations

import json
import logging
from http import HTTPStatus
from typing import Any

from werkzeug.serving import WSGIRequestHandler

from service.settings import Settings

PROBLEM = "application/problem+json"
GRACEFUL_TIMEOUT = 10  # seconds a gunicorn worker gets to finish its requests on SIGTERM

log = logging.getLogger("tongiaki.serving")


def problem_bytes(status: int, reason: str, detail: str) -> bytes:
    """An RFC 9457 problem document for an error the HTTP server itself answers."""
    code = reason.lower().replace(" ", "_").replace("-", "_")
    document = {
        "type": f"https://tongiaki.example/problems/{code}",
        "title": reason,
        "status": status,
        "detail": detail,
        "code": code,
    }
    return json.dumps(document).encode()


class ProblemRequestHandler(WSGIRequestHandler):
    """The development server's request handler, with its own errors as problem+json."""

    def handle_expect_100(self) -> bool:
        """Refuse a body over the limit before the client sends it; otherwise let werkzeug
        say "100 Continue" (http.server would say it a second time)."""
        from service.api import MAX_BODY

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
        body = problem_bytes(code, reason, message or explain or reason)
        if self.request_version == "HTTP/0.9":  # an unreadable request line: answer in 1.0
            self.request_version = "HTTP/1.0"
        self.log_error("code %d, message %s", code, message)
        self.send_response(code, reason)
        self.send_header("Connection", "close")
        self.send_header("Content-Type", PROBLEM)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def run_embedded(settings: Settings, host: str, port: int) -> None:
    """One threaded process (a thread per connection), as ``tongiaki serve`` runs by default."""
    from service.app import create_app

    create_app(settings).run(
        host=host, port=port, threaded=True, request_handler=ProblemRequestHandler
    )


def _write_problem(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error``, answering problem+json instead of HTML."""
    from gunicorn import util

    body = problem_bytes(status_int, reason, mesg or reason)
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: {PROBLEM}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin1") + body)


def run_gunicorn(settings: Settings, host: str, port: int, workers: int, threads: int) -> None:
    """``workers`` gunicorn processes (gthread, ``threads`` each) on one port."""
    from gunicorn import util
    from gunicorn.app.base import BaseApplication

    from service.app import create_app

    util.write_error = _write_problem  # type: ignore[assignment]  # workers fork after this

    class Gunicorn(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            self.cfg.set("threads", threads)
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("timeout", 120)
            self.cfg.set("graceful_timeout", GRACEFUL_TIMEOUT)
            # one control socket per host by default: several services would share it
            self.cfg.set("control_socket_disable", True)

        def load(self):  # type: ignore[no-untyped-def]
            return create_app(settings)

    Gunicorn().run()
