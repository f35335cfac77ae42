"""Private tables and invitations (docs/invitations.md, I1–I8): ``/tables`` (open one),
``/games/{game_id}/invitations`` (its invitations; decline mine) and ``/me/invitations``."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app
from flask.typing import ResponseReturnValue

from domain import commands as cmd
from service.http.api import account, body, game_service, limit
from service.http.api.answers import IDEMPOTENCY_KEY, idempotency_key
from service.http.api.openapi import Operation, documented
from service.http.api.replies import reply
from service.http.api.schemas.base import NoFields
from service.http.api.schemas.tables import (
    InvitationView,
    MyInvitations,
    TableCreate,
    TableOpened,
    TableView,
)
from service.http.limits import RateLimits
from service.invitations.service import Invitations, invitation_path
from service.invitations.table import Invitation, PrivateTable
from service.play.receipts import game_id_for
from service.store.base import Account

bp = Blueprint("invitations", __name__)


def invitations() -> Invitations:
    """The app's private tables (composition root: ``service.bootstrap``)."""
    found: Invitations = current_app.extensions["tongiaki.services"].invitations
    return found


def _shown(
    who: Account, table: PrivateTable, invited: list[Invitation], version: int | None = None
) -> dict[str, Any]:
    """A table with its invitations; the link for its opener only (I3, I7)."""
    names = game_service().store.account_names(i.account_id for i in invited)
    shown = {
        "game_id": table.game_id,
        "opener": table.opener,
        "link": invitation_path(table) if who.account_id == table.opener else None,
        "invitations": [{**vars(i), "name": names.get(i.account_id)} for i in invited],
    }
    return shown if version is None else {**shown, "version": version}


@bp.post("/tables")
@documented(
    Operation(
        "/tables",
        "post",
        "Open a private table for named players and/or with an invitation link (I1–I3)",
        TableOpened,
        201,
        TableCreate,
        auth=True,
        errors=(401, 403, 409, 422, 429),
        params=[IDEMPOTENCY_KEY],
        limited=True,
    )
)
def open_table() -> ResponseReturnValue:
    who = account()
    data = body(TableCreate)
    key = idempotency_key()
    invite, link, order = data.pop("invite"), data.pop("link"), data.pop("tile_order")
    limits: RateLimits = current_app.extensions["tongiaki.limits"]
    if key is None or not game_service().store.head(game_id_for(who, key)):
        limits.check("games", who.account_id)
    opened = invitations().open(
        who, cmd.GameOptions(**data), invite, link, tile_order=order, idempotency_key=key
    )
    if not opened.result.duplicate:
        limits.count("games", who.account_id)
    return reply(_shown(who, opened.table, opened.invitations, opened.result.version), 201)


@bp.get("/games/<game:game_id>/invitations")
@documented(
    Operation(
        "/games/{game_id}/invitations",
        "get",
        "A private table's invitations and their answers (its opener and players, I7)",
        TableView,
        auth=True,
        errors=(401, 403, 404),
    )
)
def of_table(game_id: str) -> ResponseReturnValue:
    who = account()
    table, invited = invitations().of_table(who, game_id)
    return reply(_shown(who, table, invited))


@bp.post("/games/<game:game_id>/invitations/decline")
@documented(
    Operation(
        "/games/{game_id}/invitations/decline",
        "post",
        "Decline my invitation to a private table (I5)",
        InvitationView,
        request=NoFields,
        auth=True,
        errors=(401, 404, 409, 422, 429),
        limited=True,
    )
)
def decline(game_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    body(NoFields)
    declined = invitations().decline(who, game_id)
    return reply({**vars(declined), "name": who.name})


@bp.get("/me/invitations")
@documented(
    Operation(
        "/me/invitations",
        "get",
        "My standing invitations to tables still open (I6)",
        MyInvitations,
        auth=True,
        errors=(401,),
    )
)
def mine() -> ResponseReturnValue:
    who = account()
    listed = invitations().mine(who)
    names = game_service().store.account_names(i["opener"] for i in listed if i["opener"])
    for item in listed:
        item["opener_name"] = names.get(item["opener"])
    return reply({"invitations": listed})
