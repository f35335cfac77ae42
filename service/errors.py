"""The service's error vocabulary: what went wrong, said without HTTP.

Each error has a ``kind`` (``forbidden``, ``conflict``, ``invalid``…), a stable ``code``,
a detail in words and, where a rule decided, its ``rule``. Only the HTTP layer says
which status a kind is answered with (``service.http.statuses``); the command journal
stores the kind of a refusal (rows written before this stored its status, and read the
same: ``kind_of``)."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base: a kind, a stable code and a human-readable detail (and extra fields)."""

    kind = "internal"

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


class MalformedRequest(ServiceError):
    """The body is not JSON, or not a JSON object."""

    kind = "malformed"


class BadRequest(ServiceError):
    """The request cannot be read: malformed JSON, unknown fields, wrong types."""

    kind = "invalid"


class PayloadTooLarge(ServiceError):
    """The request body is larger than the service accepts (checked before reading it)."""

    kind = "too_large"


class UnsupportedMediaType(ServiceError):
    """A body that is not sent as JSON."""

    kind = "unsupported_media_type"


class TooManyRequests(ServiceError):
    """A client sent more than its share (rate limits)."""

    kind = "too_many_requests"


class Unauthorized(ServiceError):
    """No bearer token, or one that names no account."""

    kind = "unauthorized"


class Forbidden(ServiceError):
    """Authenticated, but not allowed: not your seat, not your turn, not an auditor."""

    kind = "forbidden"


class NotFound(ServiceError):
    """No such game (or account)."""

    kind = "not_found"


class Conflict(ServiceError):
    """A rule violation (with ``rule``) or a stale expected version."""

    kind = "conflict"


class Unavailable(ServiceError):
    """A read model is halted for this game, or did not reach the version asked."""

    kind = "unavailable"


class Gone(ServiceError):
    """Something that was there and is no more: a used or ended sign-in link."""

    kind = "gone"


KINDS: dict[str, type[ServiceError]] = {
    cls.kind: cls
    for cls in (
        MalformedRequest,
        BadRequest,
        PayloadTooLarge,
        UnsupportedMediaType,
        TooManyRequests,
        Unauthorized,
        Forbidden,
        NotFound,
        Conflict,
        Gone,
        Unavailable,
    )
}
# the kinds of a refusal as journalled before kinds were (by the status it was answered)
_BY_STATUS = {403: "forbidden", 409: "conflict", 422: "invalid"}


def kind_of(rejection: dict[str, object]) -> str:
    """A journalled refusal's kind: as stored, or from the status an older row stored."""
    kind = rejection.get("kind")
    if isinstance(kind, str) and kind in KINDS:
        return kind
    status = rejection.get("status", 409)
    return _BY_STATUS.get(status if isinstance(status, int) else 409, "conflict")
