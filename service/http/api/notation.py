"""``/games/{game_id}/notation``: a game as TGN text (docs/notation.md), as public as
its events: the decisions and the tiles they drew, and the seed once revealed."""

from __future__ import annotations

from flask import Blueprint, Response, request
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
        headers=("ETag",),
        more={304: "If-None-Match names the game's head: it has not moved"},
    )
)
def notation(game_id: str) -> ResponseReturnValue:
    store = game_service().store
    head = store.head(game_id)
    tag = f'"{head.version}-{head.hash[:32]}"' if head is not None else None
    if tag is not None and request.headers.get("If-None-Match") == tag:
        return Response(status=304, headers={"ETag": tag})  # the game has not moved since
    answer = Response(notation_of(store, game_id), mimetype="text/plain")
    answer.headers["Content-Disposition"] = f'inline; filename="{game_id}.tgn"'
    if tag is not None:
        answer.headers["ETag"] = tag  # the head it was written from: a move changes it
    return answer
