"""Logs of real processes: JSON lines with request ids under gunicorn and from the
worker, text lines with request ids on the embedded server."""

from __future__ import annotations

import json
import socket
import time

from tests.servers import embedded, production


def test_gunicorn_and_the_worker_log_json_lines_with_request_ids(tmp_path, pg_schema, redis_url):
    _, url = pg_schema
    with production(tmp_path, url, redis_url, queue=f"logs-{pg_schema[0]}", web=1) as servers:
        http = servers[0].http()
        lobby = http.call("GET", "/lobby?limit=5", headers={"X-Request-ID": "probe-7"})
        assert lobby.status == 200
        made = http.call("POST", "/accounts", {"name": "ann"}, headers={"X-Request-ID": "probe-8"})
        assert made.headers["x-request-id"] == "probe-8"
        refused = http.call("POST", "/games/g_nope/commands", {"type": "x"})
        rid = refused.headers["x-request-id"]
        # a request gunicorn refuses itself: its error line and access line share an id
        with socket.create_connection(("127.0.0.1", servers[0].port), timeout=10) as s:
            s.sendall(b"GET /api/v1/lobby?" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            head = s.recv(65536).decode("latin1")
        assert head.startswith("HTTP/1.1 414")
        too_long = next(
            line.split(": ", 1)[1]
            for line in head.split("\r\n")
            if line.lower().startswith("x-request-id:")
        )
        time.sleep(0.5)
        web = [json.loads(line) for line in servers[0].output().splitlines() if line.strip()]
        # every line is JSON, the CLI's own banner and gunicorn's included
        assert all({"time", "level", "logger", "message", "request_id"} <= set(x) for x in web)
        access = {x["request_id"]: x for x in web if x["logger"] == "tongiaki.access"}
        assert access["probe-7"]["path"] == "/api/v1/lobby" and access["probe-7"]["status"] == 200
        assert access["probe-7"]["query"] == "limit=5"
        assert access["probe-8"]["method"] == "POST" and access["probe-8"]["status"] == 201
        assert access[rid]["status"] == refused.status
        assert any(x["logger"] == "gunicorn.error" for x in web)
        about = [x for x in web if x["request_id"] == too_long]
        assert {x["logger"] for x in about} == {"gunicorn.error", "tongiaki.access"}, about
        line = next(x for x in about if x["logger"] == "tongiaki.access")
        assert line["status"] == 414 and line["client"] == "127.0.0.1"
        deadline = time.monotonic() + 20
        while "Listening on" not in servers[1].output():
            assert time.monotonic() < deadline, servers[1].output()
            time.sleep(0.1)
        worker = [json.loads(line) for line in servers[1].output().splitlines() if line]
        assert all("request_id" in x for x in worker)
        assert any(x["logger"] == "rq.worker" for x in worker)


def test_the_embedded_server_logs_text_lines_with_request_ids(tmp_path):
    with embedded(tmp_path) as server:
        http = server.http()
        assert http.call("GET", "/lobby", headers={"X-Request-ID": "probe-9"}).status == 200
        time.sleep(0.3)
        lines = [x for x in server.output().splitlines() if "[probe-9]" in x]
        assert lines and "tongiaki.access" in lines[0] and "GET /api/v1/lobby 200" in lines[0]
