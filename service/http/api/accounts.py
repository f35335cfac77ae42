"""``/accounts``: sign up and get a bearer token."""

from __future__ import annotations

import re

from flask import Blueprint, current_app, request
from flask.typing import ResponseReturnValue

from service.errors import BadRequest, Forbidden
from service.http.api import (
    account,
    body,
    caller,
    client_address,
    game_service,
    identity,
    int_arg,
    limit,
    paged,
)
from service.http.api.openapi import Operation, documented, query
from service.http.api.replies import reply
from service.http.api.schemas.accounts import (
    AccountCreate,
    AccountCreated,
    Me,
    Notifications,
    NotifySettingsIn,
    NotifySettingsView,
)
from service.http.api.views import limit_query, readmodels
from service.http.cookies import session_cookie
from service.http.language import reader_language
from service.i18n.phrases import described
from service.identity.sessions import csrf_token
from service.notifications.notify import Notifier
from service.play.accounts import create_account

bp = Blueprint("accounts", __name__)
CURSOR = re.compile(r"(\d{1,15})-([0-9a-f]{24})")  # /me/notifications?before=


@bp.post("/accounts")
@documented(
    Operation(
        "/accounts",
        "post",
        "Create an account; returns its token once",
        AccountCreated,
        201,
        AccountCreate,
        errors=(400, 413, 422),
        limited=True,
    )
)
def create() -> ResponseReturnValue:
    limit("accounts", client_address())
    data = body(AccountCreate)
    service = game_service()
    account, token = create_account(service.store, data["name"], service.clock())
    return reply({"account_id": account.account_id, "name": account.name, "token": token})


@bp.get("/me")
@documented(
    Operation(
        "/me",
        "get",
        "The account signed in (by its token or this browser's session), with the page's"
        " CSRF token and whether it could sign in again elsewhere",
        Me,
        auth=True,
        errors=(401,),
    )
)
def me() -> ResponseReturnValue:
    who = caller()
    cookie = session_cookie() if who.via == "cookie" else None
    return reply(
        {
            "account_id": who.account.account_id,
            "name": who.account.name,
            "kind": who.account.kind,
            "csrf_token": csrf_token(cookie) if cookie else None,
            "recoverable": identity().summary(who.account)["recoverable"],
        }
    )


def notifier() -> Notifier:
    """The app's notifier (composition root: ``service.app.create_app``)."""
    found: Notifier = current_app.extensions["tongiaki.notify"]
    return found


def player() -> str:
    who = account()
    if who.kind != "player":
        raise Forbidden("not_a_player", "notifications are for players' accounts")
    return who.account_id


@bp.get("/me/notifications/settings")
@documented(
    Operation(
        "/me/notifications/settings",
        "get",
        "What I am told, and how: webhook, e-mail, kinds (docs/clocks.md, Reminders)",
        NotifySettingsView,
        auth=True,
        errors=(401, 403),
    )
)
def get_settings() -> ResponseReturnValue:
    found = notifier().get(player())
    quiet = notifier().settings.remind_quiet
    if found is None:
        return reply(
            {
                "webhook_url": None,
                "webhook_secret": None,
                "email": None,
                "kinds": [],
                "your_move": "batched",
                "quiet_minutes": None,
                "default_quiet_minutes": quiet,
                "email_available": notifier().mail,
            }
        )
    return reply(found.view(notifier().mail, quiet))


@bp.put("/me/notifications/settings")
@documented(
    Operation(
        "/me/notifications/settings",
        "put",
        "Choose a webhook and/or e-mail, the kinds wanted, and how your_move reminders go",
        NotifySettingsView,
        request=NotifySettingsIn,
        auth=True,
        errors=(401, 403, 413, 422),
        limited=True,
    )
)
def put_settings() -> ResponseReturnValue:
    me = player()
    limit("commands", me)  # each save may resolve a webhook's host name
    data = body(NotifySettingsIn)
    rotate = data.pop("rotate_secret")
    saved = notifier().put(me, data, rotate)
    return reply(saved.view(notifier().mail, notifier().settings.remind_quiet))


@bp.get("/me/notifications")
@documented(
    Operation(
        "/me/notifications",
        "get",
        "My notifications, newest first, each with its deliveries and their log",
        Notifications,
        auth=True,
        params=[
            limit_query(200),
            query(
                "before",
                "string",
                "only those older than this cursor (the next_before of the page before)",
                pattern=r"^\d{1,15}-[0-9a-f]{24}$",
            ),
        ],
        errors=(401, 403, 422),
    )
)
def notifications() -> ResponseReturnValue:
    me = player()
    limit = int_arg("limit", 50, 1, 200) or 50
    cursor = request.args.get("before")
    before = None
    if cursor is not None:
        match = CURSOR.fullmatch(cursor)
        if match is None:
            raise BadRequest("bad_before", "before is a cursor as given in next_before")
        before = (int(match[1]), match[2])
    rows, more = paged(readmodels().notifications(me, limit + 1, before), limit)
    sent = notifier().deliveries([r[0] for r in rows])
    lang = reader_language()
    found = [
        {
            "id": n.id,
            "game_id": n.game_id,
            "version": n.version,
            "kind": n.kind,
            "created_at": n.created_at,
            "text": described({"description": n.text, "words": n.words}, lang)["description"],
            "deliveries": sent.get(n.id, []),
        }
        for n in rows
    ]
    last = rows[-1] if more and rows else None
    next_before = f"{last[6]}-{last[0]}" if last is not None else None
    return reply({"notifications": found, "has_more": more, "next_before": next_before})
