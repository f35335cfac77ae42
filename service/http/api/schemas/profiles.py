"""Schemas of profiles and the "my move" queue (service/http/api/profiles.py and
queue.py; docs/profiles.md P1–P9, Q1–Q3)."""

from __future__ import annotations

from marshmallow import fields, validate

from service.http.api.schemas.base import HAS_MORE, PRINTABLE, Strict

NAME = (
    "P4: 1 to 64 characters others can read: no control, format (zero-width) or"
    " bidirectional characters, at least one visible one, not starting 'deleted player'"
)


class Result(Strict):
    rank = fields.Integer(allow_none=True, required=True)
    points = fields.Integer(allow_none=True, required=True)
    won = fields.Boolean(required=True)
    resigned = fields.Boolean(required=True)
    annulled = fields.Boolean(required=True, metadata={"description": "annulled by a ruling"})


class ProfileGame(Strict):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, metadata={"description": "open, setup, playing, ended"})
    last_activity = fields.String(required=True)
    seat = fields.Integer(required=True)
    colours = fields.List(fields.String(), required=True)
    players = fields.Integer(required=True)
    time_control = fields.Raw(required=True, metadata={"description": "as the lobby shows it"})
    result = fields.Nested(Result, allow_none=True, required=True)
    time_used_ms = fields.Integer(required=True, metadata={"description": "P2"})


class GamesPage(Strict):
    status = fields.String(required=True, metadata={"description": "open, running or finished"})
    items = fields.List(fields.Nested(ProfileGame), required=True)
    has_more = fields.Boolean(required=True, metadata=HAS_MORE)
    offset = fields.Integer(required=True)


class Counts(Strict):
    open = fields.Integer(required=True)
    running = fields.Integer(required=True)
    finished = fields.Integer(required=True)
    won = fields.Integer(required=True)


class ClockUse(Strict):
    time_control = fields.Raw(required=True)
    games = fields.Integer(required=True)
    decisions = fields.Integer(required=True, metadata={"description": "timed decisions"})
    used_ms = fields.Integer(required=True)
    average_ms = fields.Integer(allow_none=True, required=True)


class OpenedDispute(Strict):
    dispute_id = fields.String(required=True)
    game_id = fields.String(required=True)
    status = fields.String(required=True)
    reason = fields.String(required=True)
    opened_at = fields.String(required=True)


class Profile(Strict):
    account_id = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "the current name (P3)"})
    deleted = fields.Boolean(required=True, metadata={"description": "P7"})
    since = fields.String(allow_none=True, required=True, metadata={"description": "joined"})
    counts = fields.Nested(Counts, required=True)
    games = fields.Nested(GamesPage, required=True)
    clocks = fields.List(fields.Nested(ClockUse), required=True)
    own = fields.Boolean(required=True, metadata={"description": "the caller's own profile"})
    disputes = fields.List(
        fields.Nested(OpenedDispute),
        metadata={"description": "only to the player and to auditors (P1): else left out"},
    )


class NameIn(Strict):
    openapi_patterns = {"name": "shown"}  # service.profiles.names checks it (422 bad_name)

    name = fields.String(
        required=True,
        validate=[validate.Length(1, 64), PRINTABLE],
        metadata={"description": NAME},
    )
    was = fields.String(
        validate=validate.Length(0, 64),
        metadata={"description": "the name the client saw (P3): another one now is 409"},
    )


class NameView(Strict):
    account_id = fields.String(required=True)
    name = fields.String(required=True)


class DeletionIn(Strict):
    confirm = fields.String(
        required=True,
        validate=validate.Length(0, 64),
        metadata={"description": "P6: the account's current name, typed again"},
    )


class DeletionView(Strict):
    account_id = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "the name now shown (P7)"})
    resigned = fields.List(
        fields.String(), required=True, metadata={"description": "games resigned (P6)"}
    )


class Waiting(Strict):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    waiting_since = fields.String(required=True, metadata={"description": "Q2"})
    waited_ms = fields.Integer(required=True)
    deadline = fields.String(allow_none=True, required=True)
    time_left_ms = fields.Integer(
        allow_none=True, required=True, metadata={"description": "timed games (Q3)"}
    )
    decision = fields.String(required=True)
    colour = fields.String(required=True)


class Queue(Strict):
    count = fields.Integer(required=True, metadata={"description": "games waiting (Q1)"})
    next = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "the page of the game waiting longest (Q2)"},
    )
    games = fields.List(fields.Nested(Waiting), required=True)
