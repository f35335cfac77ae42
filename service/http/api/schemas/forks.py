"""Schemas of analysis forks (service/http/api/forks.py; docs/forks.md F1–F7)."""

from __future__ import annotations

from marshmallow import fields, validate

from service.http.api.schemas.base import MAX_INT, Strict


class ForkOpen(Strict):
    version = fields.Integer(
        required=True,
        strict=True,
        validate=validate.Range(1, MAX_INT),
        metadata={"description": "the original's version to play on from (F1)"},
    )
    deck = fields.String(
        load_default="shuffle",
        validate=validate.OneOf(["shuffle", "true"]),
        metadata={
            "description": "F4: shuffle (the tiles left, dealt afresh) or true (the real"
            " order left: a finished game's only)"
        },
    )


class ForkUndo(Strict):
    steps = fields.Integer(load_default=1, strict=True, validate=validate.Range(1, 2000))


class ForkBranch(Strict):
    at = fields.Integer(
        load_default=None,
        allow_none=True,
        strict=True,
        validate=validate.Range(0, 2000),
        metadata={"description": "keep this fork's first `at` moves (default: all)"},
    )


class Anchor(Strict):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    hash = fields.String(required=True, metadata={"description": "the original's event hash there"})


class ForkMove(Strict):
    n = fields.Integer(required=True, metadata={"description": "1, 2, …"})
    command = fields.Dict(required=True)
    words = fields.String(
        required=True, metadata={"description": "as TGN says it (docs/notation.md)"}
    )
    events = fields.List(fields.Dict(), required=True)


class LegalMove(Strict):
    command = fields.Dict(required=True, metadata={"description": "POST it unchanged"})
    words = fields.String(required=True)


class ForkView(Strict):
    fork_id = fields.String(required=True)
    owner = fields.String(required=True, metadata={"description": "the account that plays it (F2)"})
    owner_name = fields.String(allow_none=True, required=True)
    anchor = fields.Nested(Anchor, required=True)
    parent = fields.String(
        allow_none=True, required=True, metadata={"description": "the fork it branched from"}
    )
    deck = fields.String(required=True, metadata={"description": "shuffle or true (F4)"})
    version = fields.Integer(
        required=True, metadata={"description": "moves made: pass it as expected_version"}
    )
    status = fields.String(required=True)
    decision = fields.String(allow_none=True, required=True)
    colour = fields.String(allow_none=True, required=True)
    position = fields.Dict(required=True, metadata={"description": "domain.position.dump"})
    players = fields.List(fields.Dict(), required=True)
    legal = fields.List(fields.Nested(LegalMove), required=True)
    moves = fields.List(fields.Nested(ForkMove), required=True)
    result = fields.String(
        allow_none=True, required=True, metadata={"description": "points in rank order, once over"}
    )
    created_at = fields.String(required=True)
    touched_at = fields.String(required=True)


class Appraised(Strict):
    command = fields.Dict(required=True)
    words = fields.String(required=True)
    visits = fields.Integer(
        required=True, metadata={"description": "the search's iterations through it"}
    )
    value = fields.Float(required=True, metadata={"description": "the mover's mean reward, 0 to 1"})


class ForkAnalysis(Strict):
    fork_id = fields.String(required=True)
    version = fields.Integer(required=True)
    colour = fields.String(allow_none=True, required=True)
    playouts = fields.Integer(required=True)
    choice = fields.Nested(
        Appraised, allow_none=True, required=True, metadata={"description": "the bot's move"}
    )
    appraisals = fields.List(
        fields.Nested(Appraised), required=True, metadata={"description": "best first"}
    )


class ForkSummary(Strict):
    fork_id = fields.String(required=True)
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    moves = fields.Integer(required=True)
    touched_at = fields.String(required=True)


class ForkList(Strict):
    forks = fields.List(fields.Nested(ForkSummary), required=True)
