"""``/accounts``: sign up and get a bearer token."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue

from service.accounts import create_account
from service.api import account, body, client_address, game_service, int_arg, limit
from service.api.openapi import Operation, documented, query
from service.api.schemas import (
    AccountCreate,
    AccountCreated,
    Me,
    Notifications,
    NotifySettingsIn,
    NotifySettingsView,
)
from service.api.views import limit_query, readmodels
from service.errors import BadRequest, Forbidden
from service.notify import Notifier

bp = Blueprint("accounts", __name__)


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
    return jsonify(account_id=account.account_id, name=account.name, token=token), 201


@bp.get("/me")
@documented(
    Operation(
        "/me",
        "get",
        "The account a token names (sign in on another device with the token)",
        Me,
        auth=True,
    )
)
def me() -> ResponseReturnValue:
    who = account()
    return jsonify(account_id=who.account_id, name=who.name, kind=who.kind)


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
    if found is None:
        return jsonify(
            webhook_url=None,
            webhook_secret=None,
            email=None,
            kinds=[],
            email_available=notifier().mail,
        )
    return jsonify(found.view(notifier().mail))


@bp.put("/me/notifications/settings")
@documented(
    Operation(
        "/me/notifications/settings",
        "put",
        "Choose a webhook and/or e-mail and the kinds wanted",
        NotifySettingsView,
        request=NotifySettingsIn,
        auth=True,
        errors=(401, 403, 413, 422),
    )
)
def put_settings() -> ResponseReturnValue:
    me = player()
    data = body(NotifySettingsIn)
    saved = notifier().put(
        me, data["webhook_url"], data["email"], data["kinds"], data["rotate_secret"]
    )
    return jsonify(saved.view(notifier().mail))


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
            query("before", "string", "only those made before this time (next_before)"),
        ],
        errors=(401, 403, 422),
    )
)
def notifications() -> ResponseReturnValue:
    me = player()
    limit = int_arg("limit", 50, 1, 200) or 50
    before = request.args.get("before")
    if before is not None and (len(before) > 64 or not before.isprintable()):
        raise BadRequest("bad_before", "before is a time as given in next_before")
    rows = readmodels().notifications(me, limit, before)
    sent = notifier().deliveries([r[0] for r in rows])
    found = [
        {
            "id": n,
            "game_id": game_id,
            "version": version,
            "kind": kind,
            "created_at": created,
            "text": text,
            "deliveries": sent.get(n, []),
        }
        for n, game_id, version, kind, created, text in rows
    ]
    return jsonify(
        notifications=found,
        next_before=found[-1]["created_at"] if len(found) == limit else None,
    )
