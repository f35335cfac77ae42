"""How the embedded server's gate tells a request is whole: its head, then its body.

The gate (``service.servers.embedded``) gives a connection a thread only once its request
has arrived whole, so that a client that trickles its head or its body holds no
thread. This module reads what it needs of the head for that — the request line
and the fields that frame the body (``Content-Length``, ``Transfer-Encoding``,
``Expect``), as their names say, not as text anywhere in the head — and walks a
chunked body to its end. Everything else about the request is the request
handler's to read.

- no body (no length, or 0): whole at the end of the head;
- ``Content-Length: n`` (once, digits): whole ``n`` bytes after the head;
- ``Transfer-Encoding: chunked``: whole after the last chunk and its trailer;
- past the body limit (``service.http.api.MAX_BODY``): 413 at once;
- two lengths, a length beside a transfer coding, a coding other than chunked, a
  malformed length or chunk: 400 at once (what gunicorn refuses too: a request
  read two ways is how requests are smuggled past a proxy);
- HTTP/0.9 (a request line with no version): 400 at once;
- ``Expect: 100-continue``: the gate says "100 Continue" itself and reads the
  body; the field is taken out, so the handler does not say it again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HEX = re.compile(rb"[0-9A-Fa-f]{1,8}")  # a chunk's size (8 digits: past the limit anyway)


@dataclass
class Head:
    """What the gate knows of a request once its head is whole."""

    end: int  # bytes of the head, its blank line included
    method: str = ""
    target: str = ""
    request_id: str = ""  # the client's X-Request-ID, as sent
    length: int | None = None  # bytes of body after the head (None: chunked)
    chunked: bool = False
    expects_continue: bool = False
    fields: list[tuple[bytes, bytes]] = field(default_factory=list)


class Refused(Exception):
    """The request is answered at once: ``status``, ``reason``, ``detail``."""

    def __init__(self, status: int, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.reason = reason
        self.detail = detail


def head_end(data: bytes | bytearray) -> int:
    """Where a whole request head ends in ``data`` (a blank line ends it; bare LF too),
    or -1 while it is not whole."""
    ends = [i + n for i, n in ((data.find(b"\r\n\r\n"), 4), (data.find(b"\n\n"), 2)) if i >= 0]
    return min(ends) if ends else -1


def request_line_version(line: bytes) -> bool:
    """Whether a whole request line names an HTTP version (HTTP/0.9's does not)."""
    return len(line.split()) >= 3


def parse_head(data: bytes, max_body: int) -> Head:
    """The framing of a whole head (``data`` ends with its blank line); ``Refused`` for a
    request answered at once."""
    lines = data.split(b"\n")
    request_line = lines[0].rstrip(b"\r")
    words = request_line.split()
    if len(words) < 3:
        raise Refused(400, "Bad Request", "HTTP/0.9 is not spoken: send HTTP/1.0 or HTTP/1.1")
    head = Head(end=len(data), method=words[0].decode("latin-1"), target=words[1].decode("latin-1"))
    lengths: list[bytes] = []
    codings: list[bytes] = []
    for raw in lines[1:]:
        line = raw.rstrip(b"\r")
        if not line or line[:1] in b" \t":
            continue  # the blank line, or a folded continuation (the handler judges it)
        name, colon, value = line.partition(b":")
        if not colon:
            continue
        key = name.strip().lower()
        value = value.strip()
        head.fields.append((key, value))
        if key == b"content-length":
            lengths.append(value)
        elif key == b"transfer-encoding":
            codings += [c.strip().lower() for c in value.split(b",") if c.strip()]
        elif key == b"expect" and value.lower() == b"100-continue":
            head.expects_continue = True
        elif key == b"x-request-id":
            head.request_id = value.decode("latin-1")
    if lengths and codings:
        raise Refused(400, "Bad Request", "a request has a Content-Length or a Transfer-Encoding")
    if codings:
        if codings != [b"chunked"]:
            raise Refused(400, "Bad Request", "the only transfer coding taken is chunked")
        head.chunked = True
        return head
    if len(set(lengths)) > 1 or any(not v.isdigit() or len(v) > 12 for v in lengths):
        raise Refused(400, "Bad Request", "a request has one Content-Length, a number")
    length = int(lengths[0]) if lengths else 0
    if length > max_body:
        raise Refused(413, "Payload Too Large", f"a request body has at most {max_body} bytes")
    head.length = length
    return head


def without_expect(data: bytes) -> bytes:
    """The head without its ``Expect`` field (the gate has said "100 Continue")."""
    kept = [line for line in data.split(b"\n") if not line.lower().startswith(b"expect:")]
    return b"\n".join(kept)


def chunked_end(data: bytes | bytearray, start: int, max_body: int) -> int:
    """Where a chunked body that begins at ``start`` ends (its last chunk and trailer
    included), or -1 while it has not all come; ``Refused`` for a malformed one or one
    past the body limit."""
    at = start
    total = 0
    while True:
        line_end = data.find(b"\n", at)
        if line_end < 0:
            if len(data) - at > 1024:
                raise Refused(400, "Bad Request", "a chunk's size line is too long")
            return -1
        size_text = bytes(data[at:line_end]).rstrip(b"\r").split(b";", 1)[0].strip()
        if (
            not size_text
            or len(size_text) > 8
            or not all(c in b"0123456789abcdefABCDEF" for c in size_text)
        ):
            raise Refused(400, "Bad Request", "a chunk's size is hexadecimal digits")
        size = int(size_text, 16)
        at = line_end + 1
        if size == 0:  # the trailer: lines up to a blank one
            while True:
                line_end = data.find(b"\n", at)
                if line_end < 0:
                    return -1
                line = bytes(data[at:line_end]).rstrip(b"\r")
                at = line_end + 1
                if not line:
                    return at
        total += size
        if total > max_body:
            raise Refused(413, "Payload Too Large", f"a request body has at most {max_body} bytes")
        if len(data) < at + size + 1:
            return -1
        at += size
        if data[at : at + 2] == b"\r\n":
            at += 2
        elif data[at : at + 1] == b"\n":
            at += 1
        elif len(data) - at < 2:
            return -1
        else:
            raise Refused(400, "Bad Request", "a chunk ends with a line end")
