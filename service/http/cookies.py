"""The pages' cookies: the session (``HttpOnly``, ``SameSite=Lax``, ``Secure`` and
``__Host-`` prefixed outside localhost) and the binding of a browser that asked for a
sign-in link or a passkey prompt (the same attributes, minutes long); the CSRF check of
a write sent with the session; where passkeys are used (the origin and RP id)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Response, current_app, g, request

from service.errors import Forbidden
from service.identity import security_log
from service.identity.credentials import new_secret
from service.identity.passkeys import Site
from service.identity.sessions import SESSION_DAYS, csrf_matches

SESSION = "tongiaki_session"
BIND = "tongiaki_bind"
BIND_SECONDS = 20 * 60  # a little longer than a link lives
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
LOCAL = frozenset({"localhost", "127.0.0.1", "::1"})
CSRF_HEADER = "X-CSRF-Token"


def secure() -> bool:
    """Whether cookies are ``Secure``: always but on plain HTTP to this very machine
    (``TONGIAKI_PUBLIC_URL``'s scheme and host when it is set: a proxy's Host is not)."""
    public: str = current_app.extensions["tongiaki.settings"].public_url
    if public:
        parts = urlsplit(public)
        return parts.scheme == "https" or (parts.hostname or "") not in LOCAL
    try:
        host = urlsplit(f"//{request.host}").hostname or ""
    except ValueError:  # a Host header that names no host
        host = ""
    return request.scheme == "https" or host not in LOCAL


def _name(base: str) -> str:
    return f"__Host-{base}" if secure() else base


def session_cookie() -> str | None:
    """The session cookie's secret as this browser sent it (where cookies are Secure,
    only the ``__Host-`` name: a plain one may have been planted by a sibling domain or
    over plain HTTP)."""
    return request.cookies.get(_name(SESSION))


def bind_cookie() -> str | None:
    """The binding cookie's secret as this browser sent it (the same rule)."""
    return request.cookies.get(_name(BIND))


def binding() -> str:
    """This browser's binding secret: the one it sent, or a new one set on the answer."""
    found = bind_cookie()
    if found and 20 <= len(found) <= 100:
        return found
    made: str = g.get("new_bind") or new_secret()
    g.new_bind = made
    return made


def _set(response: Response, base: str, value: str, max_age: int) -> None:
    response.set_cookie(
        _name(base),
        value,
        max_age=max_age,
        path="/",
        secure=secure(),
        httponly=True,
        samesite="Lax",
    )


def set_session(response: Response, secret: str) -> None:
    """The new session's cookie; the binding, used, is let go."""
    _set(response, SESSION, secret, SESSION_DAYS * 86_400)
    clear(response, BIND)


def clear(response: Response, base: str = SESSION) -> None:
    """Tell the browser to forget a cookie (under the names it sent it by)."""
    for name in (base, f"__Host-{base}"):
        if name in request.cookies:
            response.delete_cookie(
                name, path="/", secure=name.startswith("__Host-"), httponly=True, samesite="Lax"
            )


def set_new_binding(response: Response) -> Response:
    """(after each request) A binding made during the request goes out with its answer;
    a session cookie that names nobody any more is cleared."""
    made = g.get("new_bind")
    if made:
        _set(response, BIND, made, BIND_SECONDS)
    if g.get("session_ended"):
        clear(response)
    return response


def check_csrf(session_secret: str) -> None:
    """A write sent with the session carries its CSRF token (403 ``csrf_failed``)."""
    if request.method in SAFE:
        return
    if not csrf_matches(session_secret, request.headers.get(CSRF_HEADER)):
        security_log.failed(
            "csrf",
            "a write without its session's CSRF token",
            client=request.remote_addr or "unknown",
            path=request.path[:200],
        )
        raise Forbidden(
            "csrf_failed",
            f"a page's write carries the session's {CSRF_HEADER} header (GET /api/v1/me gives it)",
        )


def site() -> Site:
    """Where passkeys are used: ``TONGIAKI_PUBLIC_URL``'s origin, else this request's."""
    public: Any = current_app.extensions["tongiaki.settings"].public_url
    base = public or request.host_url
    parts = urlsplit(base)
    origin = f"{parts.scheme}://{parts.netloc}"
    return Site(origin, parts.hostname or "localhost")


def base_url() -> str:
    """Where the links in mails point: ``TONGIAKI_PUBLIC_URL``, else this request's host."""
    public: str = current_app.extensions["tongiaki.settings"].public_url
    return (public or request.host_url).rstrip("/")
