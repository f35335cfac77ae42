"""The answers the HTTP servers write themselves, before the app sees a request (a head
too long, a body too slow, too many connections): RFC 9457 problem documents with the
code the app would give, the security headers every answer carries, written on a
socket with their access line (a flood of refused connections logged once a second).
Used by the embedded server (``service.servers.embedded``, ``service.servers.gate``),
its request handler and by gunicorn's hooks (``service.servers.serving``)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from email.utils import formatdate
from http import HTTPStatus

from service.http.problems import code_for, type_uri
from service.servers.framing import Head

PROBLEM = "application/problem+json"


def security_headers() -> dict[str, str]:
    """The headers of an answer the HTTP server writes itself (``service.http.headers``)."""
    from service.http.headers import COMMON, NOTHING_POLICY

    return {"Content-Security-Policy": NOTHING_POLICY, **COMMON}


# the code the app answers for the same refusal, whichever server refuses first
CODES = {413: "body_too_large", 408: "request_timeout"}


def problem_bytes(status: int, reason: str, detail: str) -> bytes:
    """An RFC 9457 problem document for an error the HTTP server itself answers."""
    # the code follows the status, whichever server words the reason ("URI Too Long")
    try:
        code = CODES.get(status) or code_for(HTTPStatus(status).phrase)
    except ValueError:
        code = code_for(reason)
    document = {
        "type": type_uri(code),
        "title": reason,
        "status": status,
        "detail": detail,
        "code": code,
    }
    return json.dumps(document).encode()


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
    from service.runtime.logs import REQUEST_ID, SANE_ID  # flask: not at import

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
