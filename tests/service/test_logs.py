"""Request ids and access lines (service.runtime.logs)."""

from __future__ import annotations

import json
import logging

from service.runtime.logs import JsonFormatter, RequestIdFilter


def test_a_request_gets_an_id_answered_in_x_request_id_and_an_access_line(client, caplog):
    caplog.set_level(logging.INFO, logger="tongiaki.access")
    reply = client.get("/api/v1/lobby", headers={"X-Request-ID": "probe-1"})
    assert reply.headers["X-Request-ID"] == "probe-1"
    line = next(r for r in caplog.records if r.name == "tongiaki.access")
    assert (line.request_id, line.method, line.path, line.status) == (
        "probe-1", "GET", "/api/v1/lobby", 200,
    )  # fmt: skip
    assert line.duration_ms >= 0


def test_an_insane_request_id_is_replaced_and_errors_get_one_too(client, caplog):
    caplog.set_level(logging.INFO, logger="tongiaki.access")
    reply = client.get("/api/v1/games/nope", headers={"X-Request-ID": "x" * 65 + "\u00e9"})
    rid = reply.headers["X-Request-ID"]
    assert len(rid) == 32 and rid != "x" * 65
    assert reply.status_code == 404 and reply.content_type == "application/problem+json"
    line = next(r for r in caplog.records if r.name == "tongiaki.access")
    assert line.request_id == rid and line.status == 404


def test_a_body_refused_before_it_is_read_keeps_the_clients_request_id(client, caplog):
    """The 413 comes from a check before the view: the id and the timing come first."""
    caplog.set_level(logging.INFO, logger="tongiaki.access")
    reply = client.post(
        "/api/v1/accounts", data=b"x" * 20000, headers={"X-Request-ID": "probe-413"}
    )
    assert reply.status_code == 413 and reply.headers["X-Request-ID"] == "probe-413"
    line = next(r for r in caplog.records if r.name == "tongiaki.access")
    assert line.request_id == "probe-413" and line.status == 413
    assert line.duration_ms is not None and line.duration_ms >= 0
    assert reply.headers["X-Content-Type-Options"] == "nosniff"


def test_json_lines_carry_the_request_id_extras_and_exceptions():
    record = logging.LogRecord("tongiaki.x", logging.ERROR, __file__, 1, "boom %s", ("a",), None)
    record.request_id = "r1"
    record.status = 500
    try:
        raise ValueError("inner")
    except ValueError:
        import sys

        record.exc_info = sys.exc_info()
    RequestIdFilter().filter(record)
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "boom a" and line["request_id"] == "r1"
    assert line["level"] == "error" and line["status"] == 500
    assert "ValueError: inner" in line["exception"]


def test_text_lines_cannot_be_forged_with_control_characters():
    from service.runtime.logs import TextFormatter

    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "GET %s", ("/a\nFORGED\x1b[31m\x00",), None
    )
    line = TextFormatter().format(record)
    assert "\n" not in line and "\x1b" not in line and "\x00" not in line
    assert "/a\\x0aFORGED\\x1b[31m\\x00" in line


def test_behind_trusted_proxies_the_client_is_the_forwarded_address(tmp_path, caplog):
    from service.app import create_app
    from service.runtime.settings import Settings

    caplog.set_level(logging.INFO, logger="tongiaki.access")
    app = create_app(Settings(data_dir=tmp_path, rate_limits={}, proxies=1), sweep=False)
    app.test_client().get("/api/v1/lobby", headers={"X-Forwarded-For": "203.0.113.9"})
    line = next(r for r in caplog.records if r.name == "tongiaki.access")
    assert line.client == "203.0.113.9"
