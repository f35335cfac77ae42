"""Which HTTP status and title each kind of the service's errors is answered with
(``service.errors``): the one place the application's vocabulary meets HTTP's."""

from __future__ import annotations

from service.errors import ServiceError

STATUSES: dict[str, tuple[int, str]] = {
    "malformed": (400, "Bad request"),
    "invalid": (422, "Unprocessable request"),
    "too_large": (413, "Payload too large"),
    "unsupported_media_type": (415, "Unsupported media type"),
    "too_many_requests": (429, "Too many requests"),
    "unauthorized": (401, "Unauthorized"),
    "forbidden": (403, "Forbidden"),
    "not_found": (404, "Not found"),
    "conflict": (409, "Conflict"),
    "gone": (410, "Gone"),
    "unavailable": (503, "Service unavailable"),
    "internal": (500, "Internal error"),
}


def status_of(error: ServiceError | type[ServiceError]) -> int:
    """The status an error of this kind is answered with."""
    return STATUSES[error.kind][0]


def title_of(error: ServiceError | type[ServiceError]) -> str:
    """The problem document's title for an error of this kind."""
    return STATUSES[error.kind][1]
