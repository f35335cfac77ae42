"""Signing in (docs/accounts.md): a page's session from a token, an e-mail link or a
passkey; signing out. Every answer that signs in sets a fresh session cookie (never one
the browser brought: no session fixation) and gives the page its CSRF token."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, current_app, request
from flask.typing import ResponseReturnValue

from service.errors import Forbidden, Unauthorized
from service.http.api import body, caller, client_address, identity, limit
from service.http.api.openapi import Operation, documented
from service.http.api.replies import reply
from service.http.api.schemas.identity import (
    Asked,
    EmailAsked,
    LinkUsed,
    PasskeyAnswer,
    PasskeyOptions,
    SignedIn,
    SignInWays,
)
from service.http.cookies import (
    base_url,
    bind_cookie,
    binding,
    clear,
    session_cookie,
    set_session,
    site,
)
from service.http.language import reader_language, remember
from service.identity import security_log
from service.identity.links import ADD_EMAIL, normal_address
from service.identity.sessions import csrf_token
from service.store.base import Account

bp = Blueprint("signin", __name__)
ASKED = (
    "if an account signs in with this address, a link to sign in is on its way to it;"
    " it works once, for 15 minutes, in this browser"
)


def device() -> str:
    """A session's label: the browser as it names itself (at most 200 characters)."""
    agent = " ".join(request.headers.get("User-Agent", "").split())
    return "".join(c for c in agent if c.isprintable())[:200] or "a browser"


def signed_in(account: Account, method: str, **extra: Any) -> Response:
    """The answer of a sign-in: a new session, its cookie and its CSRF token."""
    secret = identity().sessions.open_session(
        account, method, device(), client_address(), replacing=session_cookie()
    )
    response = reply(
        {
            "account_id": account.account_id,
            "name": account.name,
            "kind": account.kind,
            "csrf_token": csrf_token(secret),
            **extra,
        }
    )
    set_session(response, secret)
    chosen = current_app.extensions["tongiaki.languages"].of(account.account_id)
    if chosen is not None:  # the account's language reaches the browser (docs/i18n.md)
        remember(response, chosen)
    return response


@bp.get("/sign-in")
@documented(
    Operation(
        "/sign-in",
        "get",
        "The ways this server signs people in (e-mail links need a mail server)",
        SignInWays,
    )
)
def ways() -> ResponseReturnValue:
    return reply({"email": identity().mailer.available, "passkey": True, "token": True})


@bp.post("/sessions")
@documented(
    Operation(
        "/sessions",
        "post",
        "Sign this browser in with a bearer token: a session cookie instead of the token",
        SignedIn,
        201,
        auth=True,
        errors=(401, 403, 429),
    )
)
def open_session() -> ResponseReturnValue:
    if not request.headers.get("Authorization"):
        raise Unauthorized("no_token", "send the token as Authorization: Bearer <token>")
    who = caller()
    return signed_in(who.account, "token")


@bp.delete("/sessions/current")
@documented(
    Operation(
        "/sessions/current",
        "delete",
        "Sign this browser out: its session is revoked and its live streams end",
        None,
        204,
        auth=True,
        errors=(401, 403),
    )
)
def close_session() -> ResponseReturnValue:
    who = caller()
    if who.via != "cookie":
        raise Forbidden(
            "not_a_session", "a bearer token is revoked with DELETE /me/credentials/{id}"
        )
    identity().sessions.revoke(who, who.credential.credential_id, client_address())
    response = Response(status=204)
    del response.headers["Content-Type"]
    clear(response)
    return response


@bp.post("/sign-in/email")
@documented(
    Operation(
        "/sign-in/email",
        "post",
        "Mail a one-time sign-in link (the same answer whether or not an account has the address)",
        Asked,
        202,
        EmailAsked,
        errors=(400, 403, 413, 415, 422, 429, 503),
        limited=True,
    )
)
def ask_link() -> ResponseReturnValue:
    limit("sign_in", client_address())
    identity().mailer.check()
    address = normal_address(body(EmailAsked)["email"])
    limit("sign_in_address", f"{security_log.address_tag(address)}:{client_address()}")
    bind = binding()
    identity().links.ask_sign_in(address, bind, base_url(), client_address(), reader_language())
    return reply({"detail": ASKED})


@bp.post("/sign-in/link")
@documented(
    Operation(
        "/sign-in/link",
        "post",
        "Use a mailed link, once, in the browser that asked: signed in (or the address added)",
        SignedIn,
        request=LinkUsed,
        errors=(400, 403, 404, 410, 413, 415, 422, 429),
        limited=True,
    )
)
def use_link() -> ResponseReturnValue:
    limit("sign_in", client_address())
    token = body(LinkUsed)["token"]
    ids = identity()
    purpose, address, account_id = ids.links.use(token, bind_cookie(), client_address())
    account = ids.store.account(account_id)
    if account is None:
        raise Forbidden("account_disabled", "this link's account is gone")
    if purpose == ADD_EMAIL:
        ids.sessions.refuse_disabled(account.account_id)
        ids.links.add_address(account, address)
        return signed_in(account, "email", purpose=ADD_EMAIL, email=address)
    return signed_in(account, "email", purpose=purpose, email=address)


@bp.post("/sign-in/passkey/options")
@documented(
    Operation(
        "/sign-in/passkey/options",
        "post",
        "Start signing in with a passkey: the options for navigator.credentials.get",
        PasskeyOptions,
        errors=(429,),
        limited=True,
    )
)
def passkey_options() -> ResponseReturnValue:
    limit("sign_in", client_address())
    options = identity().passkeys.sign_in_options(site(), binding())
    return reply({"options": json.loads(options)})


@bp.post("/sign-in/passkey")
@documented(
    Operation(
        "/sign-in/passkey",
        "post",
        "Sign in with a passkey's answer to the options' challenge (once, in this browser)",
        SignedIn,
        request=PasskeyAnswer,
        errors=(400, 401, 403, 410, 413, 415, 422, 429),
        limited=True,
    )
)
def passkey_sign_in() -> ResponseReturnValue:
    limit("sign_in", client_address())
    data = body(PasskeyAnswer)
    ids = identity()
    bind = bind_cookie() or ""
    account_id = ids.passkeys.sign_in(data["credential"], site(), bind, client_address())
    account = ids.store.account(account_id)
    if account is None:
        raise Unauthorized("unknown_passkey", "this passkey's account is gone")
    return signed_in(account, "passkey")
