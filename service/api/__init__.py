"""HTTP API under ``/api/v1``: shared helpers and the one error handler."""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

from flask import Flask, Response, current_app, json, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import HTTPException

from service.errors import BadRequest, Forbidden, MalformedRequest, ServiceError
from service.games import GameService
from service.store.base import Account, InvalidData, StoredEvent, StoreUnavailable

log = logging.getLogger("tongiaki.api")
PROBLEM = "application/problem+json"
RETRY_AFTER = 5  # seconds a client should wait after a 503


def game_service() -> GameService:
    """The app's game service (composition root: ``service.app.create_app``)."""
    service: GameService = current_app.extensions["tongiaki.games"]
    return service


def account() -> Account:
    """The caller's account, from the bearer token (401 otherwise)."""
    return game_service().authenticate(request.headers.get("Authorization"))


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


def body(schema: type[Schema]) -> dict[str, Any]:
    """The JSON body, validated by ``schema`` (422 with the field errors otherwise)."""
    data = request.get_json(silent=True)
    if data is None and request.get_data():
        raise MalformedRequest("malformed_json", "the body is not valid JSON")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise MalformedRequest("malformed_body", "the body must be a JSON object")
    try:
        loaded: dict[str, Any] = _schema(schema).load(data)
    except ValidationError as exc:
        raise BadRequest("invalid_fields", "some fields are invalid", errors=exc.messages) from exc
    return loaded


def int_arg(
    name: str, default: int | None = None, low: int = 0, high: int | None = None
) -> int | None:
    """A non-negative integer query argument (422 if it is not one)."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise BadRequest("bad_query", f"{name} must be an integer") from exc
    if value < low or (high is not None and value > high):
        raise BadRequest("bad_query", f"{name} must be between {low} and {high or '∞'}")
    return value


def event_json(e: StoredEvent) -> dict[str, Any]:
    """A stored event for clients: version, type, body, metadata and chain links."""
    body_dict = e.body()
    body_dict.pop("type")
    return {
        "version": e.version,
        "type": e.type,
        "data": body_dict,
        "metadata": e.meta(),
        "prev_hash": e.prev_hash,
        "hash": e.hash,
    }


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> Response:
    """An RFC 9457 problem response."""
    payload = {
        "type": f"https://tongiaki.example/problems/{code}",
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
    }
    payload.update({k: v for k, v in extra.items() if v is not None})
    return Response(json.dumps(payload), status=status, mimetype=PROBLEM)


def register_errors(app: Flask) -> None:
    """Map every error to problem+json in one place; views never catch."""

    @app.errorhandler(ServiceError)
    def service_error(exc: ServiceError) -> Response:
        response = problem(exc.status, exc.code, exc.title, exc.detail, **exc.extra)
        if exc.extra.get("replayed"):
            response.headers["Idempotent-Replayed"] = "true"
        return response

    @app.errorhandler(StoreUnavailable)
    def store_unavailable(exc: StoreUnavailable) -> Response:
        log.warning("database unavailable: %s", exc)
        response = problem(
            503,
            "database_unavailable",
            "Service unavailable",
            "the database cannot be reached right now; retry shortly",
        )
        response.headers["Retry-After"] = str(RETRY_AFTER)
        return response

    @app.errorhandler(InvalidData)
    def invalid_data(exc: InvalidData) -> Response:
        return problem(422, "unacceptable_value", "Unprocessable request", str(exc))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        code = (exc.name or "error").lower().replace(" ", "_")
        return problem(exc.code or 500, code, exc.name or "Error", exc.description or "")

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> Response:
        log.exception("unexpected error")
        return problem(500, "internal_error", "Internal error", "something went wrong on our side")


STATUSES = ("open", "setup", "playing", "ended")


def status_arg() -> str | None:
    """The optional ``?status=`` of a game listing (422 unless a known status)."""
    status = request.args.get("status")
    if status is not None and status not in STATUSES:
        raise BadRequest("bad_query", f"status is one of {', '.join(STATUSES)}")
    return status
