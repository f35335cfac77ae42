"""How the embedded server's gate tells a request is whole (service.servers.framing)."""

from __future__ import annotations

import pytest

from service.http.api import MAX_BODY
from service.servers import gate as embedded
from service.servers.framing import Refused, chunked_end, head_end, parse_head, without_expect


def head(*fields: str, line: str = "POST /api/v1/accounts HTTP/1.1") -> bytes:
    return ("\r\n".join([line, "Host: x", *fields]) + "\r\n\r\n").encode()


def test_the_gate_and_the_app_agree_on_the_body_limit():
    assert embedded.MAX_BODY == MAX_BODY


def test_a_body_is_framed_by_the_fields_named_so_not_by_text_anywhere():
    """A helper's probe: `X-Note: 100-continue`, `X-Y: transfer-encoding` or
    `X-Original-Content-Length` made the gate leave the body to a request thread."""
    data = head(
        "Content-Length: 20",
        "X-Note: 100-continue",
        "X-Y: transfer-encoding",
        "X-Original-Content-Length: 1",
    )
    found = parse_head(data, MAX_BODY)
    assert found.length == 20 and not found.chunked and not found.expects_continue
    assert found.end == head_end(data) == len(data)


def test_chunked_expect_and_no_body():
    assert parse_head(head("Transfer-Encoding: chunked"), MAX_BODY).chunked
    expecting = parse_head(head("Content-Length: 5", "Expect: 100-continue"), MAX_BODY)
    assert expecting.expects_continue and expecting.length == 5
    assert b"expect" not in without_expect(head("Expect: 100-continue")).lower()
    assert parse_head(head(line="GET / HTTP/1.1"), MAX_BODY).length == 0
    assert parse_head(head("X-Request-ID: mine-123"), MAX_BODY).request_id == "mine-123"


@pytest.mark.parametrize(
    "fields, status",
    [
        (("Content-Length: 5", "Content-Length: 6"), 400),  # read two ways: smuggling
        (("Content-Length: 5", "Transfer-Encoding: chunked"), 400),
        (("Transfer-Encoding: gzip, chunked",), 400),
        (("Content-Length: -1",), 400),
        (("Content-Length: 5x",), 400),
        ((f"Content-Length: {MAX_BODY + 1}",), 413),
    ],
)
def test_a_request_read_two_ways_or_too_large_is_refused_at_once(fields, status):
    with pytest.raises(Refused) as refused:
        parse_head(head(*fields), MAX_BODY)
    assert refused.value.status == status


def test_http_0_9_is_refused():
    with pytest.raises(Refused) as refused:
        parse_head(b"GET /healthz\r\n\r\n", MAX_BODY)
    assert refused.value.status == 400


def test_a_chunked_body_ends_after_its_last_chunk_and_trailer():
    body = b"4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\nX-Trailer: y\r\n\r\n"
    assert chunked_end(b"H" + body, 1, MAX_BODY) == 1 + len(body)
    for cut in range(len(body)):  # any part of it: not yet
        assert chunked_end(body[:cut], 0, MAX_BODY) == -1
    with pytest.raises(Refused):
        chunked_end(b"zz\r\n", 0, MAX_BODY)
    with pytest.raises(Refused) as refused:
        chunked_end(b"%x\r\n" % (MAX_BODY + 1), 0, MAX_BODY)
    assert refused.value.status == 413
    with pytest.raises(Refused):
        chunked_end(b"2\r\nabXY", 0, MAX_BODY)  # no line end after the chunk
