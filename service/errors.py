"""The service's error vocabulary; one Flask handler maps it to problem+json."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base: an HTTP status, a stable code and a human-readable detail."""

    status = 500
    title = "Internal error"

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


class MalformedRequest(ServiceError):
    """The body is not JSON, or not a JSON object."""

    status = 400
    title = "Bad request"


class BadRequest(ServiceError):
    """The request cannot be read: malformed JSON, unknown fields, wrong types."""

    status = 422
    title = "Unprocessable request"


class PayloadTooLarge(ServiceError):
    """The request body is larger than the service accepts (checked before reading it)."""

    status = 413
    title = "Payload too large"


class UnsupportedMediaType(ServiceError):
    """A body that is not sent as JSON."""

    status = 415
    title = "Unsupported media type"


class TooManyRequests(ServiceError):
    """A client sent more than its share (rate limits)."""

    status = 429
    title = "Too many requests"


class Unauthorized(ServiceError):
    """No bearer token, or one that names no account."""

    status = 401
    title = "Unauthorized"


class Forbidden(ServiceError):
    """Authenticated, but not allowed: not your seat, not your turn, not an auditor."""

    status = 403
    title = "Forbidden"


class NotFound(ServiceError):
    """No such game (or account)."""

    status = 404
    title = "Not found"


class Conflict(ServiceError):
    """A rule violation (with ``rule``) or a stale expected version."""

    status = 409
    title = "Conflict"


class Unavailable(ServiceError):
    """503: a read model is halted for this game, or did not reach the version asked."""

    status = 503
    title = "Service unavailable"
