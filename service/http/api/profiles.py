"""Players' profiles (docs/profiles.md): ``/accounts/{id}/profile`` (anyone; the
disputes to the player and auditors), ``PUT /me/name`` (P3–P5) and
``POST /me/deletion`` (P6–P9)."""

from __future__ import annotations

import re

from flask import Blueprint, current_app, request
from flask.typing import ResponseReturnValue

from service.errors import BadRequest, NotFound
from service.http.api import account, body, game_service, int_arg, limit, viewer
from service.http.api.openapi import Operation, documented, query
from service.http.api.replies import reply
from service.http.api.schemas.profiles import (
    DeletionIn,
    DeletionView,
    NameIn,
    NameView,
    Profile,
)
from service.http.api.views import limit_query, readmodels
from service.http.cookies import clear
from service.profiles.service import Profiles
from service.profiles.view import profile

bp = Blueprint("profiles", __name__)
ACCOUNT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # the OpenAPI document's account_id
GROUPS = ("running", "finished", "open")
MOST_OFFSET = 100_000


def profiles() -> Profiles:
    """The app's profiles (composition root: ``service.app.web_app``)."""
    found: Profiles = current_app.extensions["tongiaki.profiles"]
    return found


@bp.get("/accounts/<account_id>/profile")
@documented(
    Operation(
        "/accounts/{account_id}/profile",
        "get",
        "A player's profile (P1, P2): name, games under one heading with results, clocks"
        " used; the disputes they opened to themselves and auditors only",
        Profile,
        params=[
            query("games", "string", "which games (P1)", enum=list(GROUPS)),
            limit_query(100),
            query("offset", "integer", "skip this many", minimum=0, maximum=MOST_OFFSET),
        ],
        errors=(404, 422),
    )
)
def get_profile(account_id: str) -> ResponseReturnValue:
    if ACCOUNT_ID.fullmatch(account_id) is None:
        raise NotFound("unknown_player", "no player has this id", rule="P1")
    group = request.args.get("games", "running")
    if group not in GROUPS:
        raise BadRequest("bad_games", "games is running, finished or open", rule="P1")
    size = int_arg("limit", 20, 1, 100) or 20
    offset = int_arg("offset", 0, 0, MOST_OFFSET) or 0
    store = game_service().store
    return reply(profile(store, readmodels(), account_id, viewer(), (group, size, offset)))


@bp.put("/me/name")
@documented(
    Operation(
        "/me/name",
        "put",
        "Change my display name (P3–P5): events keep the name they were sent under",
        NameView,
        request=NameIn,
        auth=True,
        errors=(401, 403, 409, 413, 415, 422, 429),
        limited=True,
    )
)
def put_name() -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    data = body(NameIn)
    renamed = profiles().names.rename(who, data["name"], data.get("was"))
    return reply({"account_id": renamed.account_id, "name": renamed.name})


@bp.post("/me/deletion")
@documented(
    Operation(
        "/me/deletion",
        "post",
        "Delete my account for good (P6–P9): games stay, the name becomes anonymous, seats"
        " in games under way are resigned, every credential and private data removed",
        DeletionView,
        request=DeletionIn,
        auth=True,
        errors=(401, 403, 409, 413, 415, 422, 429),
        limited=True,
    )
)
def delete_me() -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    data = body(DeletionIn)
    done = profiles().deletion.delete(who, data["confirm"])
    response = reply({"account_id": done.account_id, "name": done.name, "resigned": done.resigned})
    clear(response)  # this browser's session ended with the account
    return response
