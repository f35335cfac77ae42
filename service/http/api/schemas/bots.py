"""Schema of ``POST /games/{game_id}/bots`` (service/http/api/bots.py): a bot's seat."""

from __future__ import annotations

from marshmallow import ValidationError, fields, validate, validates_schema

from domain.commands import SEAT_BOTS
from domain.state import COLOURS
from service.http.api.schemas.base import Strict


class BotSeatCreate(Strict):
    # exactly one of the two (one_of_colour_or_colours)
    openapi_extra = {"oneOf": [{"required": ["colour"]}, {"required": ["colours"]}]}

    bot = fields.String(
        required=True,
        validate=validate.OneOf(SEAT_BOTS),
        metadata={
            "description": "the bot's level, weakest first: greedy (one ply), then the"
            " search's mcts-easy, mcts and mcts-strong (docs/bots.md, B1)"
        },
    )
    colour = fields.String(validate=validate.OneOf(COLOURS))
    colours = fields.List(
        fields.String(validate=validate.OneOf(COLOURS)), validate=validate.Length(1, 2)
    )

    @validates_schema
    def one_of_colour_or_colours(self, data: dict[str, object], **_: object) -> None:
        if ("colour" in data) == ("colours" in data):
            raise ValidationError("give either colour or colours (two-colour variant)")
