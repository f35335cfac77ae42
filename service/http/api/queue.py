"""The "my move" queue (docs/profiles.md, Q1–Q3): ``GET /me/queue``."""

from __future__ import annotations

from flask import Blueprint
from flask.typing import ResponseReturnValue

from service.http.api import account, game_service, int_arg
from service.http.api.openapi import Operation, documented
from service.http.api.replies import reply
from service.http.api.schemas.profiles import Queue
from service.http.api.views import limit_query, readmodels
from service.profiles.queue import MOST_SHOWN, my_queue

bp = Blueprint("queue", __name__)


@bp.get("/me/queue")
@documented(
    Operation(
        "/me/queue",
        "get",
        "The games waiting for my decision, the one waiting longest first, with the time"
        " left in timed games (Q1–Q3)",
        Queue,
        auth=True,
        params=[limit_query(MOST_SHOWN)],
        errors=(401, 422),
    )
)
def get_queue() -> ResponseReturnValue:
    who = account()
    size = int_arg("limit", 20, 1, MOST_SHOWN) or 20
    return reply(my_queue(readmodels(), who.account_id, game_service().clock(), size))
