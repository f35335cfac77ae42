"""Rematches (docs/invitations.md, RM1–RM9): ``/games/{game_id}/rematch`` (the links and
the proposal), and proposing, accepting or declining the same table again."""

from __future__ import annotations

from flask import Blueprint, current_app
from flask.typing import ResponseReturnValue

from service.http.api import account, body, limit
from service.http.api.openapi import Operation, documented
from service.http.api.replies import reply
from service.http.api.schemas.base import NoFields
from service.http.api.schemas.tables import RematchAnswer, RematchView
from service.rematch.service import Rematches

bp = Blueprint("rematch", __name__)
PATH = "/games/{game_id}/rematch"
WRITE_ERRORS = (401, 403, 404, 409, 422, 429)


def rematches() -> Rematches:
    """The app's rematches (composition root: ``service.bootstrap``)."""
    found: Rematches = current_app.extensions["tongiaki.services"].rematches
    return found


@bp.get("/games/<game:game_id>/rematch")
@documented(
    Operation(
        PATH,
        "get",
        "A game's rematch: the game it is a rematch of, and its own proposal (RM7)",
        RematchView,
        errors=(404,),
    )
)
def show(game_id: str) -> ResponseReturnValue:
    return reply(rematches().view(game_id))


@bp.post("/games/<game:game_id>/rematch")
@documented(
    Operation(
        PATH,
        "post",
        "Propose the same table again: same players, options and colours, seats rotated"
        " (RM1–RM4); you accept it yourself",
        RematchView,
        201,
        RematchAnswer,
        auth=True,
        errors=WRITE_ERRORS,
        limited=True,
    )
)
def propose(game_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    entropy = body(RematchAnswer)["entropy"]
    return reply(rematches().propose(game_id, who.account_id, entropy))


@bp.post("/games/<game:game_id>/rematch/accept")
@documented(
    Operation(
        f"{PATH}/accept",
        "post",
        "Accept the proposed rematch; the last acceptance opens the new game (RM5, RM6)",
        RematchView,
        request=RematchAnswer,
        auth=True,
        errors=WRITE_ERRORS,
        limited=True,
    )
)
def accept(game_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    entropy = body(RematchAnswer)["entropy"]
    return reply(rematches().accept(game_id, who.account_id, entropy))


@bp.post("/games/<game:game_id>/rematch/decline")
@documented(
    Operation(
        f"{PATH}/decline",
        "post",
        "Decline the proposed rematch (RM5)",
        RematchView,
        request=NoFields,
        auth=True,
        errors=WRITE_ERRORS,
        limited=True,
    )
)
def decline(game_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    body(NoFields)
    return reply(rematches().decline(game_id, who.account_id))
