"""A live stream's response on a real server: its head and catch-up written by the
request, then its connection handed to the feed's writer (``service.live.writer``)."""

from __future__ import annotations

from typing import Any

from flask import Response

HANDOFF = "tongiaki.handoff"  # the environ key of a stream's ``Handoff`` (service.servers.serving)
# headers that framed a body the server writes; this one is written as it comes, to the end
FRAMING = frozenset({"content-length", "transfer-encoding", "connection"})


class ParkingResponse(Response):
    """A live stream that hands its connection over once it has caught up.

    Flask's after-request hooks see it like any response (the request id, the access
    line, the metrics); called by the server, it writes its own head (``Connection:
    close``: the body ends when the connection does) and the events the viewer lacks
    straight to the socket, and returns the ``Handoff`` that parks the connection."""

    def __init__(
        self,
        writer: Any,
        sub: Any,
        after: int,
        first: Any,
        timeout: float,
        request_id: str,
        opened: float,
    ) -> None:
        super().__init__()
        self.handoff_args = (writer, sub, after, first, timeout, request_id, opened)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        writer, sub, after, first, timeout, request_id, opened = self.handoff_args
        sock = environ.get("gunicorn.socket") or environ.get("werkzeug.socket")
        lines = [f"HTTP/1.1 {self.status}"]
        lines += [
            f"{k}: {v}"
            for k, v in self.get_wsgi_headers(environ).items()
            if k.lower() not in FRAMING
        ]
        head = ("\r\n".join([*lines, "Connection: close"]) + "\r\n\r\n").encode("latin-1")
        handoff = writer.catch_up(sock, head, sub, after, timeout, request_id, opened, first)
        environ[HANDOFF] = handoff
        return handoff
