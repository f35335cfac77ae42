"""Schemas of ``/ratings`` and ``/accounts/{account_id}/ratings``
(service/http/api/ratings.py; docs/ratings.md)."""

from __future__ import annotations

from marshmallow import fields

from service.http.api.schemas.base import HAS_MORE, Strict

PROVISIONAL = "fewer rated games than provisional_games: the rating may still move a lot (G8)"


class Skill(Strict):
    rating = fields.Float(required=True, metadata={"description": "mu - 3 sigma (G2)"})
    mu = fields.Float(required=True, metadata={"description": "the model's mean skill"})
    sigma = fields.Float(required=True, metadata={"description": "the model's uncertainty"})


class RatingNow(Skill):
    games = fields.Integer(required=True, metadata={"description": "rated games played"})
    provisional = fields.Boolean(required=True, metadata={"description": PROVISIONAL})


class RatingRow(RatingNow):
    position = fields.Integer(required=True, metadata={"description": "1 for the best"})
    account_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True)


class RatingBoard(Strict):
    min_games = fields.Integer(required=True, metadata={"description": "as asked (G7)"})
    provisional_games = fields.Integer(
        required=True, metadata={"description": "rated games before a rating is settled (G8)"}
    )
    players = fields.List(fields.Nested(RatingRow), required=True)
    has_more = fields.Boolean(required=True, metadata=HAS_MORE)


class RatedGame(Strict):
    game_id = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "null: a private table, to others than the player (I1)"},
    )
    private = fields.Boolean(
        required=True, metadata={"description": "a private table (docs/invitations.md, I1)"}
    )
    ended_at = fields.String(
        required=True, metadata={"description": "when the game's end was recorded (G5)"}
    )
    players = fields.Integer(required=True)
    rank = fields.Integer(required=True, metadata={"description": "as the record stands (D4)"})
    before = fields.Nested(Skill, required=True)
    after = fields.Nested(Skill, required=True)
    games = fields.Integer(
        required=True, metadata={"description": "rated games played, this one included"}
    )
    provisional = fields.Boolean(required=True, metadata={"description": PROVISIONAL})


class RatingHistory(Strict):
    account_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True)
    rating = fields.Nested(
        RatingNow, allow_none=True, required=True, metadata={"description": "null: unrated"}
    )
    provisional_games = fields.Integer(required=True)
    games = fields.List(
        fields.Nested(RatedGame),
        required=True,
        metadata={"description": "rated games, the latest first (G9)"},
    )
    has_more = fields.Boolean(required=True, metadata=HAS_MORE)
