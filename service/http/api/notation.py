"""``/games/{game_id}/notation``: a game as TGN text (docs/notation.md), as public as
its events: the decisions and the tiles they drew, and the seed once revealed."""

from __future__ import annotations

from flask import Blueprint, Response
from flask.typing import ResponseReturnValue

from service.audit.notation import notation_of
from service.http.api import game_service
from service.http.api.openapi import Operation, documented

bp = Blueprint("notation", __name__)


@bp.get("/games/<game:game_id>/notation")
@documented(
    Operation(
        "/games/{game_id}/notation",
        "get",
        "The game in TGN, one line a decision with the tiles it drew (docs/notation.md);"
        " 409 not_in_notation for a game whose history TGN cannot hold",
        None,
        content="text/plain",
        errors=(404, 409),
    )
)
def notation(game_id: str) -> ResponseReturnValue:
    text = notation_of(game_service().store, game_id)
    answer = Response(text, mimetype="text/plain")
    answer.headers["Content-Disposition"] = f'inline; filename="{game_id}.tgn"'
    return answer
