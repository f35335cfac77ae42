"""``/games/{id}/bots``: a bot's seat at an open table (docs/bots.md, B1–B4)."""

from __future__ import annotations

from flask import Blueprint
from flask.typing import ResponseReturnValue

from service.http.api import account, body, game_service, limit
from service.http.api.answers import (
    ANSWERED,
    IDEMPOTENCY_KEY,
    INCLUDE,
    accepted,
    idempotency_key,
    include_legal,
)
from service.http.api.openapi import Operation, documented
from service.http.api.schemas.bots import BotSeatCreate
from service.http.api.schemas.games import CommandAccepted, chosen_colours
from service.play import bot_seats

bp = Blueprint("bots", __name__)


@bp.post("/games/<game:game_id>/bots")
@documented(
    Operation(
        "/games/{game_id}/bots",
        "post",
        "Seat a bot at the next seat of an open, unrated table, with a colour (two in the"
        " two-colour variant); a seated player sends it (B1). The bot plays every decision"
        " of its seat at once (B2)",
        CommandAccepted,
        201,
        BotSeatCreate,
        auth=True,
        errors=(401, 403, 404, 409, 422),
        params=[IDEMPOTENCY_KEY, INCLUDE],
        headers=ANSWERED,
    )
)
def seat_bot(game_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    data = body(BotSeatCreate)
    with_legal = include_legal()
    key = idempotency_key()
    colours = chosen_colours(data)
    result = bot_seats.seat_bot(game_service(), game_id, who, data["bot"], colours, key)
    return accepted(result, 201, with_legal=with_legal)
