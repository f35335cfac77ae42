"""Schemas of ``/games/{game_id}/score`` (service/http/api/scores.py): a game's score
explained, island by island and player by player (R5, R16, R22, R23)."""

from __future__ import annotations

from marshmallow import fields

from service.http.api.schemas.base import Strict


class ColourBoats(Strict):
    colour = fields.String(required=True)
    boats = fields.Integer(required=True, metadata={"description": "boats on the beaches"})


class Scorer(Strict):
    player_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True)
    level = fields.String(metadata={"description": "a bot's seat: its level (docs/bots.md, B1)"})
    colours = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the player's colours on the island (a boat or the king)"},
    )
    points = fields.Integer(
        required=True,
        metadata={"description": "the island's value once per colour present (R22, R5)"},
    )


class IslandLine(Strict):
    tile = fields.String(required=True)
    value = fields.Integer(required=True, metadata={"description": "Tonga is worth 0 (R22)"})
    boats = fields.List(fields.Nested(ColourBoats), required=True)
    king = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "the colour whose king sits on this royal island (R16)"},
    )
    scorers = fields.List(fields.Nested(Scorer), required=True)


class PlayerLine(Strict):
    player_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True)
    level = fields.String(metadata={"description": "a bot's seat: its level (docs/bots.md, B1)"})
    colours = fields.List(fields.String(), required=True)
    points = fields.Integer(required=True)
    islands = fields.Integer(
        required=True, metadata={"description": "islands the player is on, each once (R23)"}
    )
    boats = fields.Integer(
        required=True, metadata={"description": "boats on the board, kings included (R23)"}
    )
    rank = fields.Integer(required=True)
    resigned = fields.Boolean(required=True, metadata={"description": "resigned (C6)"})
    ahead_of_next = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "what placed this player before the next one: points, islands"
            " (R23: on more islands), boats (R23: fewer boats), shared (still tied), resigned"
            " (C6: the next one resigned); null for the last"
        },
    )


class ScoreSheet(Strict):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "the game's version"})
    final = fields.Boolean(
        required=True,
        metadata={"description": "the recorded final result; false: the score if it ended now"},
    )
    rules = fields.String(
        required=True, metadata={"description": "rules-2 or rules-1 (how two colours score, R5)"}
    )
    two_colours_each = fields.Boolean(required=True)
    islands = fields.List(fields.Nested(IslandLine), required=True)
    players = fields.List(fields.Nested(PlayerLine), required=True)
    tie_break = fields.String(
        required=True,
        metadata={"description": "winner against runner-up: none, islands, boats or shared"},
    )
    amended = fields.Dict(
        allow_none=True,
        required=True,
        metadata={
            "description": "a ruling's amendment of the result (D4), which this sheet"
            " does not change"
        },
    )
