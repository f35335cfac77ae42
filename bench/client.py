"""HTTP to a running service, shared by the benchmarks and the tests.

``Http`` sends requests to one server over a kept-alive connection and reads each
answer whole into a ``Reply``; ``tests/servers.py`` hands it out to the tests, and
``bench/soak/`` keeps one per web process for each of its clients, counting every
answer. ``exchange`` is one request on a connection the caller holds (a chunked
body, say); ``answers`` tells whether a starting server answers yet.
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

API = "/api/v1"
PROBLEM = "application/problem+json"
# what sending on a kept-alive connection the server has closed meanwhile raises
RESETS = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)


def free_port() -> int:
    """A local port nothing listens on, for a server to start on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Reply:
    """One HTTP answer: status, headers (lower-case names), body bytes and JSON."""

    status: int
    headers: dict[str, str]
    raw: bytes
    json: Any = None

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip()

    @property
    def code(self) -> str | None:
        """A problem's ``code`` (None when the body is not a JSON object)."""
        return self.json.get("code") if isinstance(self.json, dict) else None


def exchange(
    conn: http.client.HTTPConnection,
    method: str,
    url: str,
    data: bytes | Iterable[bytes] | None,
    headers: Mapping[str, str],
    *,
    chunked: bool = False,
) -> Reply:
    """Send one request on ``conn`` and read its whole answer; a JSON or problem+json
    body is decoded into ``json`` (None if it does not parse)."""
    conn.request(method, url, body=data, headers=headers, encode_chunked=chunked)
    response = conn.getresponse()
    content = response.read()
    reply = Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, content)
    if reply.content_type in ("application/json", PROBLEM) and content:
        try:
            reply.json = json.loads(content)
        except ValueError:
            reply.json = None
    return reply


class Http:
    """Requests to the server on ``port``, over one kept-alive connection: opened again
    when the server closed it (its keep-alive ran out, or it said ``Connection: close``)
    and after a failed exchange."""

    def __init__(self, port: int, prefix: str = API, timeout: float = 30) -> None:
        self.port = port
        self.prefix = prefix
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        raw: bytes | None = None,
    ) -> Reply:
        """Send one request to ``prefix + path``; ``body`` as JSON, or ``raw`` bytes as
        they are; ``token`` as a bearer token, ``headers`` last (they win)."""
        data = raw
        if data is None and body is not None:
            data = json.dumps(body).encode()
        sent = {"Content-Type": "application/json"} if data is not None else {}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        sent.update(headers or {})
        reused = self._conn is not None
        try:
            return self._exchange(method, self.prefix + path, data, sent)
        except RESETS:
            # a kept-alive connection the server closed meanwhile (gunicorn's keep-alive
            # is 2 s): it read nothing, so sending again is safe
            if not reused:
                raise
            return self._exchange(method, self.prefix + path, data, sent)

    def _exchange(
        self, method: str, url: str, data: bytes | None, headers: Mapping[str, str]
    ) -> Reply:
        if self._conn is None:
            self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            reply = exchange(self._conn, method, url, data, headers)
        except BaseException:
            self.close()
            raise
        if reply.headers.get("connection", "").lower() == "close":
            self.close()
        return reply


def answers(port: int) -> bool:
    """Whether the service on ``port`` answers ``GET /games?limit=1`` with 200 yet (a
    gunicorn master listens before its worker has booted)."""
    http = Http(port, timeout=2)
    try:
        return http.call("GET", "/games?limit=1").status == 200
    except OSError:
        return False
    finally:
        http.close()
