"""``/accounts``: sign up and get a bearer token."""

from __future__ import annotations

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from service.accounts import create_account
from service.api import account, body, client_address, game_service, limit
from service.api.openapi import Operation, documented
from service.api.schemas import AccountCreate, AccountCreated, Me

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
