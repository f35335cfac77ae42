"""Schemas of the read models (service/http/api/views.py): scoreboard, leaderboard, lobby,
timeline, audit, projection status."""

from __future__ import annotations

from marshmallow import fields

from service.http.api.schemas.base import CLOCK, HAS_MORE, Strict, more_now_field, next_after_field
from service.http.api.schemas.games import JournalItem


class ReadModel(Strict):
    version = fields.Integer(
        required=True, metadata={"description": "the last event version this read model applied"}
    )


class Scoreboard(ReadModel):
    game_id = fields.String(required=True)
    status = fields.String(required=True)
    turn = fields.Integer(required=True)
    seats = fields.List(fields.Dict(), required=True)
    final = fields.Dict(allow_none=True, required=True)


class LeaderboardRow(Strict):
    account_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True)
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True, metadata={"description": "shared wins count as wins"})
    points = fields.Integer(required=True)
    average_rank = fields.Float(required=True)


class Leaderboard(Strict):
    players = fields.List(fields.Nested(LeaderboardRow), required=True)
    has_more = fields.Boolean(required=True, metadata=HAS_MORE)


class LobbyGame(Strict):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    max_players = fields.Integer(required=True)
    two_colours_each = fields.Boolean(required=True)
    free_orientation_after_first = fields.Boolean(required=True)
    seats = fields.List(fields.Dict(), required=True)
    turn = fields.Integer(required=True)
    active_colour = fields.String(allow_none=True, required=True)
    active_player = fields.String(allow_none=True, required=True)
    decision = fields.String(allow_none=True, required=True)
    last_activity = fields.String(required=True)
    winners = fields.List(
        fields.String(),
        metadata={
            "description": "a finished game's winners (player ids; several for a shared win);"
            " rows built before this field existed lack it until `projections rebuild lobby`"
        },
    )
    annulled = fields.Boolean(
        metadata={"description": "a ruling annulled the game (D4): it counts for nobody"}
    )
    paused = fields.Boolean(
        metadata={"description": "an auditor paused the game for a dispute (D7)"}
    )
    open_disputes = fields.Integer(
        metadata={"description": "disputes on the game not yet ruled or withdrawn"}
    )
    rulings = fields.Integer(metadata={"description": "disputes on the game an auditor ruled"})
    my_move = fields.Boolean(metadata={"description": "my games only: waiting for my move"})
    time_control = fields.Dict(metadata={"description": "docs/clocks.md C1"})
    rated = fields.Boolean(
        metadata={
            "description": "a rated game (docs/ratings.md G1); rows built before this field"
            " existed lack it until `projections rebuild lobby`"
        }
    )
    clock = fields.Dict(allow_none=True, metadata={"description": CLOCK})


class Lobby(Strict):
    games = fields.List(fields.Nested(LobbyGame), required=True)
    has_more = fields.Boolean(required=True, metadata=HAS_MORE)
    next_before = fields.String(
        allow_none=True,
        metadata={"description": "pass as ?before= for the next page (GET /lobby; null: no more)"},
    )


class TimelineStep(Strict):
    version = fields.Integer(required=True)
    turn = fields.Integer(required=True)
    step = fields.Integer(required=True)
    colour = fields.String(allow_none=True, required=True)
    actor = fields.String(allow_none=True, required=True)
    type = fields.String(required=True)
    rule = fields.String(allow_none=True, required=True)
    automatic = fields.Boolean(required=True)
    description = fields.String(required=True)
    superseded = fields.Boolean(
        metadata={"description": "a rewind (D6) went back over this step: kept, no longer played"}
    )


class Rewind(Strict):
    version = fields.Integer(required=True, metadata={"description": "the GameRewound event"})
    to_version = fields.Integer(required=True, metadata={"description": "where play went on"})


class TurnStart(Strict):
    turn = fields.Integer(required=True)
    first_version = fields.Integer(required=True)


class Timeline(ReadModel):
    game_id = fields.String(required=True)
    steps = fields.List(fields.Nested(TimelineStep), required=True)
    turns = fields.List(fields.Nested(TurnStart), required=True)
    rewinds = fields.List(
        fields.Nested(Rewind),
        metadata={
            "description": "rulings that rewound the game (D6): the versions between are superseded"
        },
    )
    next_after = next_after_field()
    has_more = more_now_field()


class AuditCommand(JournalItem):
    turn = fields.Integer(required=True)
    events = fields.List(fields.Nested(TimelineStep), required=True)


class AuditTurn(Strict):
    turn = fields.Integer(required=True)
    commands = fields.List(fields.Nested(AuditCommand), required=True)


class Audit(ReadModel):
    game_id = fields.String(required=True)
    turns = fields.List(fields.Nested(AuditTurn), required=True)
    next_after = next_after_field()
    has_more = more_now_field()


class ProjectionLag(Strict):
    projection = fields.String(required=True)
    games = fields.Integer(required=True)
    behind = fields.Integer(required=True)
    events_behind = fields.Integer(required=True)
    halted = fields.List(fields.Dict(), required=True)


class ProjectionStatus(Strict):
    projections = fields.List(fields.Nested(ProjectionLag), required=True)
