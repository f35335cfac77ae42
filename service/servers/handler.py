"""The embedded server's request handler: the request read from what the gate read,
then from the socket; gunicorn's limits on lines; its own errors as problem+json with
their access line; a live stream that caught up handed to the writer."""

from __future__ import annotations

import contextlib
import io
import logging
from http import HTTPStatus
from typing import Any

from werkzeug.serving import WSGIRequestHandler

from service.servers.refusals import PROBLEM, problem_bytes, security_headers

MAX_REQUEST_LINE = 4094  # gunicorn's limit_request_line
MAX_HEADER_LINE = 8190  # gunicorn's limit_request_field_size
IDLE_TIMEOUT = 30  # seconds the embedded server waits on a silent connection


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
