"""``/games/{game_id}/score``: a game's score explained (the end screen's breakdown)."""

from __future__ import annotations

from flask import Blueprint
from flask.typing import ResponseReturnValue

from service.http.api import game_service
from service.http.api.openapi import Operation, documented
from service.http.api.replies import reply
from service.http.api.schemas.scores import ScoreSheet
from service.play.score_sheet import score_sheet

bp = Blueprint("scores", __name__)


@bp.get("/games/<game:game_id>/score")
@documented(
    Operation(
        "/games/{game_id}/score",
        "get",
        "The score explained: per island its value, who scores it and why (colours present,"
        " kings, two colours adding up), per player the total, rank and tie-break (R22, R23)",
        ScoreSheet,
        errors=(404,),
    )
)
def score(game_id: str) -> ResponseReturnValue:
    version, state = game_service().load(game_id)
    sheet = score_sheet(state)
    ids = [p["player_id"] for p in sheet["players"]]
    names = game_service().store.account_names(ids)
    levels = {p.player_id: p.bot for p in state.players if p.bot}  # bots' seats (B1)
    for line in [*sheet["players"], *(s for i in sheet["islands"] for s in i["scorers"])]:
        line["name"] = names.get(line["player_id"])
        if line["player_id"] in levels:
            line["level"] = levels[line["player_id"]]
    return reply({"game_id": game_id, "version": version, **sheet})
