"""Schemas of a game's chat (service/http/api/chat.py, docs/chat.md M1–M9)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.http.api.schemas.base import HAS_MORE, Strict

CHANNEL = validate.OneOf(["table", "spectators"])
# M3: at most 500 characters, none a reader would not see (the service trims, and
# refuses a text of spaces only: 422 chat_text, rule M3)
TEXT = validate.Length(1, 500)
REASON = validate.Length(0, 500)


class ChatPost(Strict):
    openapi_patterns = {"text": "shown"}  # service.chat.service.clean_text checks it (M3)
    channel = fields.String(
        required=True,
        validate=CHANNEL,
        metadata={"description": "table (the game's players) or spectators (M1)"},
    )
    text = fields.String(
        required=True,
        validate=TEXT,
        metadata={"description": "1 to 500 characters once trimmed, one line (M3)"},
    )


class ChatReason(Strict):
    openapi_patterns = {"reason": "shown"}
    reason = fields.String(
        load_default="",
        validate=REASON,
        metadata={"description": "why, at most 500 characters (M6; 1 to 500 to hide, M7)"},
    )


class ChatHide(Strict):
    openapi_patterns = {"reason": "shown"}
    reason = fields.String(
        required=True, validate=TEXT, metadata={"description": "1 to 500 characters (M7)"}
    )


class ChatMuteCreate(Strict):
    account_id = fields.String(
        required=True,
        validate=validate.Regexp(r"^[A-Za-z0-9_-]{1,64}\Z"),
        metadata={"description": "the account whose messages you no longer see (M5)"},
    )


class ChatStopCreate(Strict):
    openapi_patterns = {"reason": "shown"}
    account_id = fields.String(required=True, validate=validate.Regexp(r"^[A-Za-z0-9_-]{1,64}\Z"))
    reason = fields.String(
        required=True, validate=TEXT, metadata={"description": "1 to 500 characters (M8)"}
    )


class ChatHidden(Schema):
    reason = fields.String(required=True)
    at = fields.String(required=True)
    by = fields.String(metadata={"description": "the auditor who hid it (auditors only)"})


class ChatMessage(Schema):
    seq = fields.Integer(required=True, metadata={"description": "its place in the chat"})
    channel = fields.String(required=True)
    author = fields.String(required=True)
    author_name = fields.String(required=True)
    at = fields.String(required=True)
    text = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "null once hidden (M7), except for auditors"},
    )
    hidden = fields.Nested(ChatHidden, required=True, allow_none=True)
    reported = fields.Boolean(required=True, metadata={"description": "you reported it"})


class ChatPage(Schema):
    game_id = fields.String(required=True)
    channels = fields.List(fields.String(), required=True, metadata={"description": "M2"})
    posts_in = fields.String(required=True, metadata={"description": "M1"})
    auditor = fields.Boolean(required=True)
    messages = fields.List(fields.Nested(ChatMessage), required=True)
    hidden = fields.List(
        fields.Nested(ChatMessage),
        required=True,
        metadata={"description": "messages up to after= hidden since (M7)"},
    )
    muted = fields.List(fields.String(), required=True, metadata={"description": "yours (M5)"})
    next_after = fields.Integer(required=True, metadata={"description": "after= for the next"})
    has_more = fields.Boolean(required=True, metadata=HAS_MORE)


class ChatMutes(Schema):
    muted = fields.List(fields.String(), required=True)


class ChatReported(Schema):
    game_id = fields.String(required=True)
    seq = fields.Integer(required=True)
    reason = fields.String(required=True)
    at = fields.String(required=True)
    report = fields.Integer(required=True, metadata={"description": "its seq in the chat"})


class ChatReportMessage(ChatMessage):
    game_id = fields.String(required=True)


class ChatReportRow(Schema):
    reporter = fields.String(required=True)
    reporter_name = fields.String(required=True)
    reason = fields.String(required=True)
    at = fields.String(required=True)
    message = fields.Nested(ChatReportMessage, required=True)


class ChatReports(Schema):
    reports = fields.List(fields.Nested(ChatReportRow), required=True)
    has_more = fields.Boolean(required=True, metadata=HAS_MORE)


class ChatStop(Schema):
    account_id = fields.String(required=True)
    stopped_by = fields.String(required=True)
    reason = fields.String(required=True)
    at = fields.String(required=True)


class ChatStops(Schema):
    stops = fields.List(fields.Nested(ChatStop), required=True)
    has_more = fields.Boolean(required=True, metadata=HAS_MORE)


class ChatVerified(Schema):
    stream = fields.String(required=True)
    ok = fields.Boolean(required=True)
    events = fields.Integer(required=True)
    problems = fields.List(fields.String(), required=True)
