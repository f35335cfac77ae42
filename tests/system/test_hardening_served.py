"""What outside probes found in the running service (issue 26), on real processes of
both settings: the embedded default, and two gunicorn web processes on PostgreSQL
and Redis with a worker.

- every answer carries the security headers (the API's reference page lacked them);
- a credential sent in the query string, a header or a refused request line never
  reaches a log line;
- control characters in an e-mail address are refused alike on both stores, with a
  problem naming the field, never the database.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.servers import Http, Server, embedded, production

SECRET = "s3cr3tT0kenValue9f8e7d6c5b4a"  # a credential the logs must never show


@contextmanager
def settings(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[list[Server]]:
    """The servers of one setting: [embedded] or [web, web, worker]."""
    if kind == "embedded":
        with embedded(tmp_path) as server:
            yield [server]
        return
    schema, url = request.getfixturevalue("pg_schema")
    redis_url = request.getfixturevalue("redis_url")
    with production(tmp_path, url, redis_url, f"hard-{schema}") as servers:
        yield servers


SETTINGS = ["embedded", "production"]


@pytest.mark.parametrize("kind", SETTINGS)
def test_every_answer_carries_the_security_headers(kind, tmp_path, request):
    with settings(kind, tmp_path, request) as servers:
        plain = Http(servers[0].port, prefix="")
        answers = {
            path: plain.call("GET", path)
            for path in (
                "/",
                "/api/v1/docs",
                "/api/v1/openapi.json",
                "/api/v1/lobby",
                "/api/v1/games/nosuchgame00",
                "/healthz",
                "/readyz",
                "/metrics",
                "/docs/clocks",
                "/static/style.css",
                "/static/api-docs.css",
            )
        }
        # an answer the HTTP server writes itself, before the app sees the request
        refused = raw_request(servers[0].port, b"GET /" + b"x" * 5000 + b" HTTP/1.1\r\n\r\n")
    for path, reply in answers.items():
        csp = reply.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp, (path, reply.status, reply.headers)
        assert reply.headers.get("x-content-type-options") == "nosniff", path
        assert reply.headers.get("referrer-policy") == "same-origin", path
    assert answers["/api/v1/docs"].status == 200
    assert "style-src 'self'" in answers["/api/v1/docs"].headers["content-security-policy"]
    assert b"<style" not in answers["/api/v1/docs"].raw  # no inline style the policy refuses
    assert (
        answers["/api/v1/lobby"].headers["content-security-policy"].startswith("default-src 'none'")
    )
    head = refused.split(b"\r\n\r\n")[0].lower()
    assert head.startswith(b"http/1.1 414") and b"frame-ancestors 'none'" in head, refused[:400]
    assert b"x-content-type-options: nosniff" in head


def raw_request(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        got = b""
        while chunk := s.recv(65536):
            got += chunk
        return got


@pytest.mark.parametrize("kind", SETTINGS)
def test_credentials_never_reach_a_log_line(kind, tmp_path, request):
    with settings(kind, tmp_path, request) as servers:
        http = Http(servers[0].port, prefix="")
        made = http.call("POST", "/api/v1/accounts", {"name": "ann"}).json
        token = made["token"]
        for path in (
            f"/api/v1/me?access_token={SECRET}",
            f"/api/v1/lobby?status=open&token={SECRET}",
            f"/api/v1/me?password={SECRET}&x=1",
            # names that say they hold a secret, however spelt (a helper's probe)
            f"/api/v1/me/games?sid={SECRET}&jwt={SECRET}&bearer={SECRET}&pass={SECRET}",
            f"/api/v1/me/games?private_token={SECRET}&client_secret={SECRET}&credential={SECRET}",
            f"/api/v1/me/games?access%5Ftoken={SECRET}&%61ccess_token={SECRET}",
            f"/api/v1/me/games?access_token%00={SECRET}&access_token[]={SECRET}",
            f"/api/v1/me?access_token={token}",
        ):
            assert http.call("GET", path).status in (200, 401, 422), path
        assert (
            http.call("GET", "/api/v1/me", headers={"Authorization": f"Bearer {SECRET}"}).status
            == 401
        )
        assert http.call("GET", "/api/v1/me", token=token).status == 200
        # refused by the HTTP server itself: a request line past its limit
        raw_request(
            servers[0].port,
            f"GET /api/v1/me?access_token={SECRET}&pad={'x' * 5000} HTTP/1.1\r\n\r\n".encode(),
        )
        raw_request(servers[0].port, f"GET /?access_token={SECRET} HTTP/9.9\r\n\r\n".encode())
        logs = "".join(s.output() for s in servers)
    if kind == "production":  # JSON lines carry the query (the text lines do not)
        assert "access_token=[redacted]" in logs, logs[-3000:]
    assert SECRET not in logs
    assert token not in logs


BAD_EMAILS = [
    "ann\x00@example.org",
    "ann@example.org\r\nBcc: all@example.org",
    "ann\n@example.org",
    "a\u202eb@example.org",  # a right-to-left override (Cf)
    "a\u200bb@example.org",  # a zero-width space (Cf)
    "a\x7fb@example.org",
    "a\x85b@example.org",  # a C1 control
]


@pytest.mark.parametrize("kind", SETTINGS)
def test_control_characters_in_an_email_address_are_refused_alike(kind, tmp_path, request):
    with settings(kind, tmp_path, request) as servers:
        http = Http(servers[0].port)
        token = http.call("POST", "/accounts", {"name": "ann"}).json["token"]
        answers = [
            http.call("PUT", "/me/notifications/settings", {"email": bad}, token)
            for bad in BAD_EMAILS
        ]
        kept = http.call("GET", "/me/notifications/settings", token=token).json
    for bad, reply in zip(BAD_EMAILS, answers, strict=True):
        assert reply.status == 422 and reply.content_type == "application/problem+json", bad
        text = str(reply.json).lower()
        assert "email" in text, (bad, reply.json)
        assert "postgres" not in text and "sqlite" not in text and "database" not in text
    assert kept["email"] is None
