"""HTTP API under ``/api/v1``: shared helpers and the one error handler."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any, TypeVar

import orjson
from flask import Flask, Response, current_app, g, json, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge
from werkzeug.routing import BaseConverter

from service.errors import (
    BadRequest,
    Forbidden,
    MalformedRequest,
    PayloadTooLarge,
    ServiceError,
    TooManyRequests,
    Unauthorized,
    Unavailable,
    UnsupportedMediaType,
)
from service.http import problem_words as localized
from service.http.cookies import check_csrf, session_cookie
from service.http.language import reader_language
from service.http.limits import RateLimits
from service.http.problems import code_for, type_uri
from service.http.statuses import status_of, title_of
from service.identity.service import Identity
from service.identity.sessions import Caller
from service.play.games import GameService
from service.store.base import Account, InvalidData, StoreUnavailable

log = logging.getLogger("tongiaki.api")
T = TypeVar("T")
PROBLEM = "application/problem+json"
RETRY_AFTER = 5  # seconds a client should wait after a 503


def game_service() -> GameService:
    """The app's game service (composition root: ``service.app.create_app``)."""
    service: GameService = current_app.extensions["tongiaki.games"]
    return service


def identity() -> Identity:
    """The app's identity service (composition root: ``service.app.web_app``)."""
    found: Identity = current_app.extensions["tongiaki.identity"]
    return found


def caller() -> Caller:
    """Who calls, by a bearer token or the page's session cookie (401 otherwise; 429
    past the limit of failed attempts from one address; 403 for a page's write without
    its CSRF token). Checked once per request."""
    found: Caller | None = g.get("caller")
    if found is not None:
        return found
    cookie = session_cookie()
    try:
        found = identity().sessions.authenticate(
            request.headers.get("Authorization"), cookie, client_address()
        )
    except Unauthorized as exc:
        if exc.code == "session_ended":
            g.session_ended = True  # the answer tells the browser to forget it
        limit("unauthorised", client_address())
        raise
    if found.via == "cookie" and cookie is not None:
        check_csrf(cookie)
    g.caller = found
    return found


def viewer() -> Account | None:
    """The caller when it sent a credential, None for anyone else (a page anyone may see,
    with more for its owner); an ended sign-in sees what anyone sees."""
    if not (request.headers.get("Authorization") or session_cookie()):
        return None
    try:
        return caller().account
    except ServiceError:
        return None


def account() -> Account:
    """The caller's account (``caller``)."""
    return caller().account


def client_address() -> str:
    """The client's address (behind a proxy, run it with ProxyFix: see README)."""
    return request.remote_addr or "unknown"


def limit(kind: str, key: str) -> None:
    """Count a request against the rate limits of ``kind`` (429 past them)."""
    limits: RateLimits = current_app.extensions["tongiaki.limits"]
    limits.hit(kind, key)


@cache
def _schema(cls: type[Schema]) -> Schema:
    """One instance per schema class: ``load`` keeps no state, and building one is slow."""
    return cls()


def player_or_auditor(game_id: str, what: str) -> Account:
    """The caller, who must sit at this game or be an auditor (403 otherwise)."""
    who = account()
    _, state = game_service().load(game_id)
    if who.kind != "auditor" and all(p.player_id != who.account_id for p in state.players):
        raise Forbidden("not_allowed", f"the {what} is for this game's players and auditors")
    return who


MAX_BODY = 16 * 1024  # bytes: the largest command is a few hundred
MAX_DEPTH = 8  # nesting of a request body (a landing is three levels deep)
MAX_INT = 2**31 - 1  # versions, sequence numbers and limits are 32-bit in the store
GAME_ID = r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}"  # anything else is not a game: 404


class GameIdConverter(BaseConverter):
    """``<game:game_id>``: a game id's shape, so a NUL or a megabyte never reaches a query."""

    regex = GAME_ID


class VersionConverter(BaseConverter):
    """``<version:v>``: a version as plain ASCII digits without a leading zero (not
    ``05``, not a full-width or another script's digits), as an int."""

    regex = r"(?:0|[1-9][0-9]{0,99})"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(int(value))


def parse_json(raw: bytes) -> Any:
    """A request body as JSON: 400 unless it is JSON or when an object names a key twice,
    422 beyond ``MAX_DEPTH`` or with a non-integer number (no field takes one; orjson
    reads huge integers as floats)."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise MalformedRequest(
            "malformed_json", f"the body is not valid JSON: {_why(exc)}"
        ) from exc
    colons = 0  # in the parsed value: one per object member, and those inside strings
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:  # iterative: the nesting is checked here, not by recursion
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                raise BadRequest("too_deep", f"the body nests deeper than {MAX_DEPTH} levels")
            items: Iterable[Any]
            if isinstance(value, dict):
                colons += sum(1 + k.count(":") for k in value)
                items = value.values()
            else:
                items = value
            stack.extend((item, depth + 1) for item in items)
        elif isinstance(value, str):
            colons += value.count(":")
        elif isinstance(value, float) or (
            isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT
        ):
            raise BadRequest("not_an_integer", "numbers in a request are integers of 32 bits")
    if raw.count(b":") + raw.lower().count(b"\\u003a") > colons:
        # orjson keeps the last of two equal keys: a body that says two things is refused.
        # Every colon of the parsed value comes from a colon or a \u003a of the body, so
        # the body has more only when a member was dropped (or a \\u003a was no escape,
        # which the slower check below tells apart).
        _no_duplicate_keys(raw)
    return data


def _why(exc: ValueError) -> str:
    """The JSON parser's complaint in the service's words, with where it is."""
    message = str(getattr(exc, "msg", exc))
    where = f"line {getattr(exc, 'lineno', 1)}, column {getattr(exc, 'colno', 1)}"
    if "UTF-8" in message and "BOM" not in message:
        return f"it is not UTF-8 text ({where})"
    if "BOM" in message or "byte order mark" in message:
        return "it starts with a byte order mark (send UTF-8 without one)"
    return f"{message} ({where})"


def _no_duplicate_keys(raw: bytes) -> None:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in items]
        if len(set(keys)) < len(keys):
            twice = next(k for k in keys if keys.count(k) > 1)
            raise MalformedRequest("duplicate_key", f"the key {twice!r} appears twice in an object")
        return dict(items)

    json.loads(raw, object_pairs_hook=pairs)


def body(schema: type[Schema]) -> dict[str, Any]:
    """The JSON body, validated by ``schema`` (422 with the field errors otherwise)."""
    # a body the server could not read in time: service.servers.deadlines.BodyDeadline
    unreadable = request.environ.get("tongiaki.body_error")
    if unreadable:
        raise MalformedRequest("unreadable_body", f"the body cannot be read: {unreadable}")
    try:
        raw = request.get_data(cache=True)
    except HTTPException:
        raise  # 413 while reading a chunked body: answered as such
    except Exception as exc:  # a chunked body the HTTP server cannot decode, a reset
        raise MalformedRequest("unreadable_body", f"the body cannot be read: {exc}") from exc
    if len(raw) > MAX_BODY:  # a chunked body has no Content-Length to check beforehand
        raise PayloadTooLarge("body_too_large", f"a request body has at most {MAX_BODY} bytes")
    if raw.strip():
        json_media_type()
    data = parse_json(raw) if raw.strip() else {}
    if not isinstance(data, dict):
        raise MalformedRequest("malformed_body", "the body must be a JSON object")
    try:
        loaded: dict[str, Any] = _schema(schema).load(data)
    except ValidationError as exc:
        raise BadRequest("invalid_fields", "some fields are invalid", errors=exc.messages) from exc
    return loaded


JSON_TYPE = re.compile(r"application/([a-z0-9][a-z0-9.!#$&^_-]*\+)?json")


def json_media_type() -> None:
    """A body is sent as ``application/json`` (or a ``+json`` type), in UTF-8 when a
    charset is named: 415 otherwise (the document names no other; a form or text body
    was read as JSON all the same before)."""
    kind = request.mimetype
    charset = request.mimetype_params.get("charset", "utf-8").lower()
    coding = request.headers.get("Content-Encoding", "identity").strip().lower()
    if JSON_TYPE.fullmatch(kind) and charset in ("utf-8", "utf8") and coding == "identity":
        return
    if coding != "identity":
        raise UnsupportedMediaType(
            "unsupported_media_type", "send the body uncompressed (no Content-Encoding)"
        )
    sent = request.headers.get("Content-Type", "")
    raise UnsupportedMediaType(
        "unsupported_media_type",
        "send the body as JSON: Content-Type: application/json (UTF-8)"
        + (f", not {sent[:80]}" if sent else " (none was given)"),
    )


def int_arg(name: str, default: int | None = None, low: int = 0, high: int = MAX_INT) -> int | None:
    """An integer query argument in ``[low, high]`` (422 if it is not one)."""
    raw = request.args.get(name)
    if raw is None:
        return default
    return bounded_int(raw, name, low, high)


def bounded_int(raw: str, name: str, low: int = 0, high: int = MAX_INT) -> int:
    """``raw`` as an integer in ``[low, high]``, else 422 ``bad_query``."""
    text = raw
    # plain decimal digits: no sign, spaces, leading zeros or empty value
    if not (text.isascii() and text.isdigit() and len(text) <= 12) or (
        len(text) > 1 and text[0] == "0"
    ):
        raise BadRequest("bad_query", f"{name} must be an integer from {low} to {high}")
    value = int(text)
    if not low <= value <= high:
        raise BadRequest("bad_query", f"{name} must be an integer from {low} to {high}")
    return value


def paged(rows: Sequence[T], limit: int) -> tuple[Sequence[T], bool]:
    """A page of at most ``limit`` rows from ``limit + 1`` read, and whether more follow."""
    return rows[:limit], len(rows) > limit


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> Response:
    """An RFC 9457 problem response, its title and detail in the reader's language
    (``service.http.problem_words``; the code and every other member as they are)."""
    lang = reader_language()
    payload = {
        "type": type_uri(code),
        "title": localized.title(lang, title),
        "status": status,
        "detail": localized.detail(lang, code, detail),
        "code": code,
    }
    payload.update({k: v for k, v in extra.items() if v is not None})
    return Response(json.dumps(payload), status=status, mimetype=PROBLEM)


def register_errors(app: Flask) -> None:
    """Map every error to problem+json in one place; views never catch."""
    app.after_request(_no_sniffing)
    app.before_request(_one_value_each)
    app.before_request(_bounded_body)
    app.register_error_handler(ServiceError, _service_error)
    app.register_error_handler(StoreUnavailable, _store_unavailable)
    app.register_error_handler(InvalidData, _invalid_data)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)


def _no_sniffing(response: Response) -> Response:
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    return response


def _one_value_each() -> None:
    """A query argument given twice says two things: refused, whichever it is."""
    for name in request.args:
        if len(request.args.getlist(name)) > 1:
            raise BadRequest("bad_query", f"{name} is given more than once; give it once")


def _bounded_body() -> None:
    if (request.content_length or 0) > MAX_BODY:
        raise PayloadTooLarge("body_too_large", f"a request body has at most {MAX_BODY} bytes")


def _service_error(exc: ServiceError) -> Response:
    response = problem(status_of(exc), exc.code, title_of(exc), exc.detail, **exc.extra)
    if exc.extra.get("replayed"):
        response.headers["Idempotent-Replayed"] = "true"
    if isinstance(exc, TooManyRequests | Unavailable) or "retry_after" in exc.extra:
        response.headers["Retry-After"] = str(exc.extra.get("retry_after", RETRY_AFTER))
    if isinstance(exc, Unauthorized):
        error = ', error="invalid_token"' if exc.code == "bad_token" else ""
        response.headers["WWW-Authenticate"] = f'Bearer realm="tongiaki"{error}'
    return response


def _store_unavailable(exc: StoreUnavailable) -> Response:
    log.warning("database unavailable: %s", exc)
    response = problem(
        503,
        "database_unavailable",
        "Service unavailable",
        "the database cannot be reached right now; retry shortly",
    )
    response.headers["Retry-After"] = str(RETRY_AFTER)
    return response


def _invalid_data(exc: InvalidData) -> Response:
    return problem(422, "unacceptable_value", "Unprocessable request", str(exc))


def _http_error(exc: HTTPException) -> Response:
    if isinstance(exc, RequestEntityTooLarge):  # a chunked body past MAX_CONTENT_LENGTH
        return _service_error(
            PayloadTooLarge("body_too_large", f"a request body has at most {MAX_BODY} bytes")
        )
    code = code_for(exc.name or "error")
    response = problem(exc.code or 500, code, exc.name or "Error", exc.description or "")
    for name, value in exc.get_headers():  # Allow on 405, for instance
        if name.lower() != "content-type":
            response.headers[name] = value
    return response


def _unexpected(exc: Exception) -> Response:
    log.exception("unexpected error")
    return problem(500, "internal_error", "Internal error", "something went wrong on our side")


STATUSES = ("open", "setup", "playing", "ended")


def status_arg() -> str | None:
    """The optional ``?status=`` of a game listing (422 unless a known status)."""
    status = request.args.get("status")
    if status is not None and status not in STATUSES:
        raise BadRequest("bad_query", f"status is one of {', '.join(STATUSES)}")
    return status
