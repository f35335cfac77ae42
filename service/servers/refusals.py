"""The answers the HTTP servers write themselves, before the app sees a request (a head
too long, a body too slow, too many connections): RFC 9457 problem documents with the
code the app would give, and the security headers every answer carries. Used by the
embedded server (``service.servers.embedded``) and by gunicorn's hooks
(``service.servers.serving``)."""

from __future__ import annotations

import json
from http import HTTPStatus

from service.http.problems import code_for, type_uri

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
