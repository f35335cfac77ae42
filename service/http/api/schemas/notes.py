"""Schemas of private notes (service/http/api/notes.py; docs/notes.md N1–N6)."""

from __future__ import annotations

from marshmallow import fields, validate

from service.http.api.schemas.base import HAS_MORE, Strict

NOTE_TEXT = (
    "N3: 1 to 4,000 characters, not only spaces and line breaks; no control character but"
    " line breaks"
)


class NoteIn(Strict):
    text = fields.String(
        required=True,
        validate=[
            validate.Length(1, 4000),
            validate.Regexp(
                # spaces and line breaks, then a character that is neither (so no
                # backtracking), then printable text and line breaks
                r"^[\n ]*[^\x00-\x20\x7f-\x9f]"
                r"[^\x00-\x09\x0b-\x1f\x7f-\x9f]*\Z",
                error="some text, and no control characters but line breaks",
            ),
        ],
        metadata={"description": NOTE_TEXT},
    )


class NoteView(Strict):
    game_id = fields.String(required=True)
    version = fields.Integer(
        allow_none=True,
        required=True,
        metadata={"description": "the version (move) the note is on; null: the game itself"},
    )
    text = fields.String(required=True)
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)


class NoteList(Strict):
    game_id = fields.String(required=True)
    notes = fields.List(
        fields.Nested(NoteView),
        required=True,
        metadata={"description": "mine only (N1): the game's note first, then by version"},
    )


class AccountExport(Strict):
    account_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True)
    exported_at = fields.String(required=True)
    notes = fields.List(
        fields.Nested(NoteView),
        required=True,
        metadata={"description": "my private notes on every game, by game then version (N6)"},
    )
    has_more = fields.Boolean(required=True, metadata=HAS_MORE)
    next_after = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "pass as ?after= for the next page (null: no more)"},
    )
