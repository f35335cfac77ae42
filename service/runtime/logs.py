"""Logs: one JSON object per line (or plain text), each with the request id it
belongs to, and an access line per request.

``TONGIAKI_LOG_FORMAT`` chooses: ``json`` (the default under gunicorn and for
``tongiaki worker``: what a log shipper reads) or ``text`` (the default of the
embedded server: what a person reads in a terminal). Every request gets an id:
the client's ``X-Request-ID`` when it is a sane one (1–64 letters, digits,
``.``, ``_``, ``-``), else a new one; it is answered in ``X-Request-ID`` and is on
every line logged while the request is served, the access line included
(``tongiaki.access``: method, path, query, status, duration, client, bytes).
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
import time
import uuid
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote

from flask import Flask, g, request
from flask.wrappers import Response

REQUEST_ID = contextvars.ContextVar("request_id", default="")
QUERY_LOGGED = 1000  # characters of a query string an access line keeps
SANE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
FORMATS = ("json", "text")

access = logging.getLogger("tongiaki.access")

# what a LogRecord has of its own: anything else on it came as ``extra=``
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class RequestIdFilter(logging.Filter):
    """Puts the current request id on every record (empty outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", ""):
            record.request_id = REQUEST_ID.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, request id, extras."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "") or REQUEST_ID.get(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in line:
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        # each text redacted as it is, before JSON escapes it (an escape would end a value)
        return json.dumps(
            {k: redact(v) if isinstance(v, str) else v for k, v in line.items()}, default=str
        )


CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# credentials a line may carry, whoever wrote it (the access line's query, a refused
# request line, an error naming a URL): their values never reach a log. A parameter is
# taken for one when its name, %-decoded, says so anywhere in it (client_secret,
# private_token, access%5Ftoken, access_token[] …): better a value too many hidden. Its
# value runs to the next & or space, whatever it holds (quotes, backslashes, bytes)
PARAMETER = re.compile(r"(^|[?&;\s\"'(\[,{])([^=&;\s\"'(){},]{1,200})=([^&\s]*)")
SECRET_NAME = re.compile(
    r"token|secret|pass|pwd|\bpw\b|^pw|key|sig|session|sid|jwt|bearer|auth|credential|code"
    r"|private|cookie|otp|pin|assertion|saml|hmac|nonce|state",
    re.I,
)
BEARER = re.compile(r"(?i)\b(bearer|basic)(\s+|%20|\+)[^\s\"',;]+")
USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s/@:\"']*:)\S*@")
REDACTED = "[redacted]"


def _hidden(m: re.Match[str]) -> str:
    name = m[2]
    if SECRET_NAME.search(unquote(name)) and m[3]:
        return f"{m[1]}{name}={REDACTED}"
    return m[0]


def redact(text: str) -> str:
    """``text`` with every credential's value replaced by ``[redacted]``: query and form
    parameters whose name says it is one (``token``, ``secret``, ``password``, ``key``,
    ``session``, ``jwt``, ``otp``, ``credential``, ``code``… anywhere in the name,
    %-decoded), ``Bearer``/``Basic`` credentials, and the password of a URL
    (``postgresql://user:…@host``, up to its last ``@``)."""
    if "=" in text:
        text = PARAMETER.sub(_hidden, text)
    text = BEARER.sub(lambda m: m[1] + m[2] + REDACTED, text)
    if "@" in text:
        text = USERINFO.sub(lambda m: m[1] + REDACTED + "@", text)
    return text


class TextFormatter(logging.Formatter):
    """One line per record for a person: control characters in the message (a client's
    path, say) are written as ``\\xNN``, so nobody can forge a line or colour a terminal."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}", record.message)
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        if not getattr(record, "request_id", ""):
            record.request_id = REQUEST_ID.get() or "-"
        return redact(super().format(record))


def formatter(fmt: str) -> logging.Formatter:
    return JsonFormatter() if fmt == "json" else TextFormatter()


def configure(fmt: str, level: int = logging.INFO) -> None:
    """Send every log record of this process to stderr in ``fmt`` (json or text)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(fmt))
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.captureWarnings(True)  # warnings too are log lines (py.warnings), not raw text


def gunicorn_logconfig(fmt: str) -> dict[str, Any]:
    """gunicorn's own logs in the same format; its access log off (the app writes one
    line per request, with the request id)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "main": {"()": f"service.runtime.logs.{'Json' if fmt == 'json' else 'Text'}Formatter"}
        },
        "filters": {"request_id": {"()": "service.runtime.logs.RequestIdFilter"}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "main",
                "filters": ["request_id"],
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"handlers": ["console"], "level": "INFO"},
        "loggers": {
            "gunicorn.error": {"handlers": ["console"], "level": "INFO", "propagate": False},
            "gunicorn.access": {"handlers": [], "level": "CRITICAL", "propagate": False},
        },
    }


def install(app: Flask) -> None:
    """A request id for every request, and an access line when its answer is ready."""

    @app.before_request
    def begin() -> None:
        given = request.headers.get("X-Request-ID", "")
        rid = given if SANE_ID.fullmatch(given) else uuid.uuid4().hex
        g.request_token = REQUEST_ID.set(rid)
        g.request_id = rid
        g.request_started = time.perf_counter()

    @app.after_request
    def answer(response: Response) -> Response:
        rid = g.get("request_id")
        if rid is None:  # refused before the app saw it (routing): an id all the same
            rid = uuid.uuid4().hex
            g.request_id = rid
            REQUEST_ID.set(rid)
        response.headers["X-Request-ID"] = rid
        started = g.get("request_started")
        access.info(
            "%s %s %s",
            request.method,
            request.path,
            response.status_code,
            extra={
                "method": request.method,
                "path": request.path,
                # as sent (at most gunicorn's 4,094-byte line); credentials are redacted
                # from every line by the formatters (redact)
                "query": request.query_string.decode("latin-1")[:QUERY_LOGGED],
                "status": response.status_code,
                "duration_ms": round((time.perf_counter() - started) * 1000, 2)
                if started is not None
                else None,
                "client": request.remote_addr,
                "bytes": response.content_length,
                "request_id": rid,
            },
        )
        return response

    @app.teardown_request
    def end(_exc: BaseException | None) -> None:
        token = g.pop("request_token", None)
        if token is not None:
            try:
                REQUEST_ID.reset(token)
            except ValueError:  # set in another context (a streamed response)
                REQUEST_ID.set("")
