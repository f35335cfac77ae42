"""An account's own ways in (docs/accounts.md): its sessions and tokens (listed,
revoked, a new token for a program), its e-mail address for sign-in links, and its
passkeys."""

from __future__ import annotations

import json
import re

from flask import Blueprint, Response
from flask.typing import ResponseReturnValue

from service.errors import NotFound
from service.http.api import body, caller, client_address, identity, limit
from service.http.api.openapi import Operation, documented
from service.http.api.replies import reply
from service.http.api.schemas.identity import (
    Asked,
    Credentials,
    EmailAsked,
    Passkey,
    PasskeyAnswer,
    PasskeyOptions,
    TokenAsked,
    TokenMade,
)
from service.http.cookies import base_url, bind_cookie, binding, site
from service.http.language import reader_language
from service.identity.credentials import Credential
from service.identity.links import normal_address
from service.identity.security_log import address_tag
from service.identity.sessions import Caller

bp = Blueprint("credentials", __name__)
ID = re.compile(r"[0-9a-f]{12,16}")


def _shown(found: Credential, who: Caller) -> dict[str, object]:
    return {
        "credential_id": found.credential_id,
        "kind": found.kind,
        "label": found.label,
        "method": found.method,
        "created_at": found.created_at,
        "last_used_at": found.last_used_at,
        "current": found.credential_id == who.credential.credential_id,
    }


def _no_content() -> Response:
    response = Response(status=204)
    del response.headers["Content-Type"]
    return response


@bp.get("/me/credentials")
@documented(
    Operation(
        "/me/credentials",
        "get",
        "My sessions and tokens (device, made, last used), passkeys, e-mail, and whether"
        " I could sign in again without this browser",
        Credentials,
        auth=True,
        errors=(401,),
    )
)
def listed() -> ResponseReturnValue:
    who = caller()
    ids = identity()
    now = ids.sessions.clock()
    found = ids.sessions.credentials.of_account(who.account.account_id, now)
    summary = ids.summary(who.account)
    return reply(
        {
            "credentials": [_shown(c, who) for c in found],
            "passkeys": ids.passkeys.listed(who.account.account_id),
            "email": summary["email"],
            "recoverable": summary["recoverable"],
        }
    )


@bp.delete("/me/credentials/<credential_id>")
@documented(
    Operation(
        "/me/credentials/{credential_id}",
        "delete",
        "Revoke one of my sessions or tokens: it names nobody from now on, its live streams end",
        None,
        204,
        auth=True,
        errors=(401, 403, 404),
    )
)
def revoke(credential_id: str) -> ResponseReturnValue:
    who = caller()
    if not ID.fullmatch(credential_id):
        raise NotFound("no_credential", "this account has no live session or token of that id")
    identity().sessions.revoke(who, credential_id, client_address())
    return _no_content()


@bp.post("/me/tokens")
@documented(
    Operation(
        "/me/tokens",
        "post",
        "A new bearer token for a program (shown once)",
        TokenMade,
        201,
        TokenAsked,
        auth=True,
        errors=(401, 403, 413, 415, 422, 429),
        limited=True,
    )
)
def new_token() -> ResponseReturnValue:
    who = caller()
    limit("commands", who.account.account_id)
    found, token = identity().sessions.new_token(
        who.account, body(TokenAsked)["name"], client_address()
    )
    return reply({**_shown(found, who), "token": token})


@bp.post("/me/email")
@documented(
    Operation(
        "/me/email",
        "post",
        "Sign in by e-mail from now on: a link to confirm the address is mailed to it",
        Asked,
        202,
        EmailAsked,
        auth=True,
        errors=(401, 403, 413, 415, 422, 429, 503),
        limited=True,
    )
)
def add_email() -> ResponseReturnValue:
    who = caller()
    limit("sign_in", client_address())
    identity().mailer.check()
    address = normal_address(body(EmailAsked)["email"])
    limit("sign_in_address", f"{address_tag(address)}:{client_address()}")
    identity().links.ask_add(
        who.account, address, binding(), base_url(), client_address(), reader_language()
    )
    return reply(
        {"detail": "a link to confirm the address is on its way to it (15 minutes, this browser)"}
    )


@bp.delete("/me/email")
@documented(
    Operation(
        "/me/email",
        "delete",
        "Sign in by e-mail no more",
        None,
        204,
        auth=True,
        errors=(401, 403, 404),
    )
)
def remove_email() -> ResponseReturnValue:
    who = caller()
    if not identity().links.remove_address(who.account):
        raise NotFound("no_email", "this account signs in with no e-mail address")
    return _no_content()


@bp.post("/me/passkeys/options")
@documented(
    Operation(
        "/me/passkeys/options",
        "post",
        "Start adding a passkey: the options for navigator.credentials.create",
        PasskeyOptions,
        auth=True,
        errors=(401, 403, 429),
        limited=True,
    )
)
def passkey_options() -> ResponseReturnValue:
    who = caller()
    limit("commands", who.account.account_id)
    options = identity().passkeys.register_options(who.account, site(), binding())
    return reply({"options": json.loads(options)})


@bp.post("/me/passkeys")
@documented(
    Operation(
        "/me/passkeys",
        "post",
        "Add a passkey: the authenticator's answer to the options' challenge",
        Passkey,
        201,
        PasskeyAnswer,
        auth=True,
        errors=(400, 401, 403, 409, 410, 413, 415, 422, 429),
        limited=True,
    )
)
def add_passkey() -> ResponseReturnValue:
    who = caller()
    limit("commands", who.account.account_id)
    data = body(PasskeyAnswer)
    added = identity().passkeys.register(
        who.account, data["credential"], data["name"], site(), bind_cookie() or ""
    )
    return reply(added)


@bp.delete("/me/passkeys/<passkey_id>")
@documented(
    Operation(
        "/me/passkeys/{passkey_id}",
        "delete",
        "Remove a passkey: it signs nobody in from now on",
        None,
        204,
        auth=True,
        errors=(401, 403, 404),
    )
)
def remove_passkey(passkey_id: str) -> ResponseReturnValue:
    who = caller()
    if not re.fullmatch(r"[0-9a-f]{12}", passkey_id):
        raise NotFound("no_passkey", "this account has no passkey of that id")
    identity().passkeys.remove(who.account, passkey_id)
    return _no_content()
