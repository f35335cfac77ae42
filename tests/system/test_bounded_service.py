"""Bounds that only a real server process shows: a chunked body has no length to check."""

from __future__ import annotations

import http.client
import json
import socket

from tests.servers import Http, embedded, production


def test_a_chunked_body_past_the_limit_is_413_and_nothing_is_journalled(tmp_path):
    with embedded(tmp_path) as server:
        api = server.http()
        made = api.call("POST", "/accounts", {"name": "ann"}).json
        token = made["token"]
        gid = api.call("POST", "/games", {"max_players": 2}, token).json["game_id"]
        api.call("POST", f"/games/{gid}/seats", {"colour": "blue"}, token)
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        chunks = (b'{"type": "Expand", "island": "' if i == 0 else b"x" * 4096 for i in range(256))
        conn.request(
            "POST",
            f"/api/v1/games/{gid}/commands",
            body=chunks,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            encode_chunked=True,
        )
        response = conn.getresponse()
        problem = json.loads(response.read())
        conn.close()
        journal = Http(server.port).call("GET", f"/games/{gid}/journal", token=token).json
    assert response.status == 413 and problem["code"] == "body_too_large", problem
    assert response.getheader("Content-Type") == "application/problem+json"
    assert [c["payload"]["type"] for c in journal["commands"]] == ["CreateGame", "JoinGame"]


def transport_errors(port: int) -> list[tuple[int, str, dict]]:
    """A request line, a header and a request the HTTP server itself refuses."""
    seen = []
    for line, headers in (
        (f"GET /api/v1/games?limit={'9' * 70_000} HTTP/1.1", {}),
        ("GET /api/v1/me/games HTTP/1.1", {"Authorization": "Bearer " + "x" * 70_000}),
        ("GET /api/v1/games HTTP/1.1 and more", {}),
    ):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            head = line + "\r\nHost: x\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
            s.sendall((head + "\r\n").encode())
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        status_line, _, rest = data.partition(b"\r\n")
        header_block, _, body = rest.partition(b"\r\n\r\n")
        content_type = next(
            (
                h.split(b":", 1)[1].strip().decode()
                for h in header_block.split(b"\r\n")
                if h.lower().startswith(b"content-type:")
            ),
            "",
        )
        seen.append((int(status_line.split()[1]), content_type, json.loads(body)))
    return seen


def check_transport_errors(seen, port):
    """Problems the servers answer themselves, each with a type page that exists (both
    servers name a status by the same code, however they word its reason)."""
    for status, content_type, problem in seen:
        assert 400 <= status < 500 or status == 505, status
        assert content_type == "application/problem+json"
        assert problem["status"] == status and problem["code"] and problem["detail"]
        assert problem["type"] == f"/problems/{problem['code']}"
        page = Http(port, "").call("GET", problem["type"])
        assert page.status == 200, problem


def test_the_embedded_server_refuses_huge_request_lines_and_headers_as_problems(tmp_path):
    with embedded(tmp_path) as server:
        check_transport_errors(transport_errors(server.port), server.port)


def test_gunicorn_refuses_huge_request_lines_and_headers_as_problems(
    tmp_path, pg_schema, redis_url
):
    _, url = pg_schema
    with production(tmp_path, url, redis_url, queue=f"tr-{pg_schema[0]}", web=1) as servers:
        check_transport_errors(transport_errors(servers[0].port), servers[0].port)


def raw_exchange(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data


def test_a_malformed_chunked_body_is_400_on_both_servers(tmp_path, pg_schema, redis_url):
    request = (
        b"POST /api/v1/accounts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Type: application/json\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"
    )
    _, url = pg_schema
    with embedded(tmp_path / "e") as server:
        answers = [raw_exchange(server.port, request)]
    with production(tmp_path / "p", url, redis_url, queue=f"ch-{pg_schema[0]}", web=1) as servers:
        answers.append(raw_exchange(servers[0].port, request))
    for answer in answers:
        status = int(answer.split(b" ", 2)[1])
        assert status == 400 and b"application/problem+json" in answer, answer[:300]


def test_the_embedded_server_refuses_a_body_over_the_limit_before_100_continue(tmp_path):
    request = (
        b"POST /api/v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 20000000\r\nExpect: 100-continue\r\n\r\n"
    )
    with embedded(tmp_path) as server:
        answer = raw_exchange(server.port, request)
        version = raw_exchange(server.port, b"GET /api/v1/games HTTP/2.0\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 413") or answer.startswith(b"HTTP/1.0 413"), answer[:200]
    assert b"100 Continue" not in answer and b"application/problem+json" in answer
    assert version.split(b" ", 2)[1] == b"400" and b"application/problem+json" in version


def chunked_accounts_request(body: bytes) -> bytes:
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(part), part)
        for part in (body[i : i + 4096] for i in range(0, len(body), 4096))
    )
    return (
        b"POST /api/v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunks + b"0\r\n\r\n"
    )


def check_a_chunked_body_over_the_limit(port: int) -> None:
    """Valid JSON then spaces past 16 KiB: 413, not whatever the rest would parse as
    (found by a probe: 400 malformed_json, or 422 about a field)."""
    reply = raw_exchange(port, chunked_accounts_request(b'{"name": "chunky"}' + b" " * 17_000))
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.split()[1] == b"413", head
    assert json.loads(body)["code"] == "body_too_large"


def test_a_chunked_body_over_the_limit_is_413_on_the_embedded_server(tmp_path):
    with embedded(tmp_path) as server:
        check_a_chunked_body_over_the_limit(server.port)


def test_a_chunked_body_over_the_limit_is_413_on_gunicorn(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    with production(tmp_path, url, redis_url, queue=f"ch-{pg_schema[0]}", web=1) as servers:
        check_a_chunked_body_over_the_limit(servers[0].port)
