"""``/ratings`` and ``/accounts/{account_id}/ratings``: the rating leaderboard and an
account's rating history (docs/ratings.md G7-G9)."""

from __future__ import annotations

import re

from flask import Blueprint
from flask.typing import ResponseReturnValue

from projections.skill import PROVISIONAL_GAMES
from service.errors import NotFound
from service.http.api import game_service, int_arg, paged, viewer
from service.http.api.openapi import MAX_OFFSET, OFFSET, Operation, documented, query
from service.http.api.replies import reply
from service.http.api.schemas.ratings import RatingBoard, RatingHistory
from service.http.api.views import limit_query, readmodels
from service.store.base import DELETED

bp = Blueprint("ratings", __name__)

ACCOUNT = re.compile(r"[A-Za-z0-9_-]{1,64}")
MIN_GAMES = 5  # G7: the leaderboard's default minimum of rated games
MAX_MIN_GAMES = 1000


@bp.get("/ratings")
@documented(
    Operation(
        "/ratings",
        "get",
        "Accounts by rating, best first: at least min_games rated games, a provisional mark"
        " below provisional_games (docs/ratings.md G7, G8)",
        RatingBoard,
        params=[
            query(
                "min_games",
                "integer",
                f"rated games an account needs to be listed (1 to {MAX_MIN_GAMES};"
                f" default {MIN_GAMES})",
                minimum=1,
                maximum=MAX_MIN_GAMES,
            ),
            limit_query(500),
            OFFSET,
        ],
        errors=(422,),
    )
)
def leaderboard() -> ResponseReturnValue:
    min_games = int_arg("min_games", MIN_GAMES, 1, MAX_MIN_GAMES) or MIN_GAMES
    limit = int_arg("limit", 100, 1, 500) or 100
    offset = int_arg("offset", 0, 0, MAX_OFFSET) or 0
    players, more = paged(readmodels().ratings(min_games, limit + 1, offset), limit)
    names = game_service().store.account_names(p["account_id"] for p in players)
    shown = [
        {**p, "position": offset + i, "name": names.get(p["account_id"])}
        for i, p in enumerate(players, start=1)
    ]
    return reply(
        {
            "min_games": min_games,
            "provisional_games": PROVISIONAL_GAMES,
            "players": shown,
            "has_more": more,
        }
    )


@bp.get("/accounts/<account_id>/ratings")
@documented(
    Operation(
        "/accounts/{account_id}/ratings",
        "get",
        "An account's rating now and its rated games, the latest first, each with the rating"
        " before and after (docs/ratings.md G9)",
        RatingHistory,
        params=[limit_query(200), OFFSET],
        errors=(404, 422),
    )
)
def history(account_id: str) -> ResponseReturnValue:
    limit = int_arg("limit", 50, 1, 200) or 50
    offset = int_arg("offset", 0, 0, MAX_OFFSET) or 0
    if not ACCOUNT.fullmatch(account_id):
        raise NotFound("unknown_account", "no account has that id")
    found = game_service().store.account(account_id)
    if found is None or found.kind not in ("player", DELETED):  # as its profile (P1)
        raise NotFound("unknown_account", "no player has that id")
    now = readmodels().rating(account_id)
    names = {account_id: found.name}
    games, more = paged(readmodels().rating_history(account_id, limit + 1, offset), limit)
    who = viewer()
    if who is None or (who.account_id != account_id and who.kind != "auditor"):
        games = [{**g, "game_id": None} if g["private"] else g for g in games]  # I1
    rating = None
    if now is not None:
        rating = {k: v for k, v in now.items() if k != "account_id"}
    return reply(
        {
            "account_id": account_id,
            "name": names.get(account_id),
            "rating": rating,
            "provisional_games": PROVISIONAL_GAMES,
            "games": games,
            "has_more": more,
        }
    )
