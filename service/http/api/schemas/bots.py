"""Schema of ``POST /games/{game_id}/bots`` (service/http/api/bots.py): a bot's seat."""

from __future__ import annotations

from marshmallow import fields, validate

from domain.commands import SEAT_BOTS
from service.http.api.schemas.games import SeatColours


class BotSeatCreate(SeatColours):
    bot = fields.String(
        required=True,
        validate=validate.OneOf(SEAT_BOTS),
        metadata={
            "description": "the bot's level, weakest first: greedy (one ply), then the"
            " search's mcts-easy, mcts and mcts-strong (docs/bots.md, B1)"
        },
    )
