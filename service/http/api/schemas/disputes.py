"""Schemas of disputes (service/http/api/disputes.py, docs/disputes.md): opening, notes,
rulings, pauses, views."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.http.api.schemas.base import HAS_MORE, MAX_INT, PRINTABLE, Strict, StrictBoolean

# --- disputes (docs/disputes.md) ------------------------------------------------------

# free text (a reason, a note, a ruling's reasoning): lines allowed, other control
# characters not
WRITTEN = validate.Regexp(
    r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*\Z", error="control characters other than newlines"
)
DISPUTE_TEXT = 2000
RULE_IDS = validate.Regexp(
    r"^(R([1-9]|1[0-9]|2[0-5])|D[1-8]|C[1-7]|T[1-8])\Z", error="R1–R25, D1–D8, C1–C7 or T1–T8"
)


class DisputeCreate(Strict):
    reason = fields.String(
        required=True,
        validate=validate.OneOf(
            ["rule_applied_wrongly", "unfair_draw", "misclick", "connection_or_timing", "other"]
        ),
    )
    text = fields.String(
        load_default="",
        validate=[validate.Length(0, DISPUTE_TEXT), WRITTEN],
        metadata={"description": "what happened, in the player's words (required for other)"},
    )
    version = fields.Integer(
        required=True,
        strict=True,
        validate=validate.Range(1, MAX_INT),
        metadata={"description": "the game version disputed (an event's version)"},
    )
    command_id = fields.String(
        load_default=None,
        allow_none=True,
        validate=[validate.Length(1, 64), PRINTABLE],
        metadata={"description": "the disputed command's id, from the journal"},
    )


class NoteCreate(Strict):
    text = fields.String(required=True, validate=[validate.Length(1, DISPUTE_TEXT), WRITTEN])


class AssignCreate(Strict):
    auditor = fields.String(
        load_default=None,
        allow_none=True,
        validate=[validate.Length(1, 64), PRINTABLE],
        metadata={"description": "an auditor's account id (default: the caller)"},
    )


class RulingCreate(Strict):
    decision = fields.String(
        required=True, validate=validate.OneOf(["stands", "rewind", "result_amended"])
    )
    reasoning = fields.String(required=True, validate=[validate.Length(1, DISPUTE_TEXT), WRITTEN])
    rules = fields.List(
        fields.String(validate=RULE_IDS),
        required=True,
        validate=validate.Length(1, 10),
        metadata={"description": "the rule ids relied on (rules.md R…, disputes.md D…)"},
    )
    to_version = fields.Integer(
        load_default=None, allow_none=True, strict=True, validate=validate.Range(1, MAX_INT)
    )
    annulled = StrictBoolean(load_default=False)
    ranking = fields.List(
        fields.String(validate=validate.Length(1, 64)),
        load_default=None,
        allow_none=True,
        validate=validate.Length(1, 12),
        metadata={"description": "player ids, first first (result_amended)"},
    )


class PauseCreate(Strict):
    dispute_id = fields.String(required=True, validate=[validate.Length(1, 64), PRINTABLE])


class Paused(Strict):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    paused = fields.String(allow_none=True, required=True)


class DisputeView(Schema):
    """A dispute: its fold and its events (hash-chained)."""

    class Meta:
        unknown = "include"

    dispute_id = fields.String(required=True)
    game_id = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "open, ruled or withdrawn"})
    reason = fields.String(required=True)
    text = fields.String(required=True)
    opened_by = fields.Dict(required=True)
    version = fields.Integer(required=True)
    game_hash = fields.String(required=True)
    command_id = fields.String(allow_none=True, required=True)
    assigned_to = fields.String(allow_none=True, required=True)
    notes = fields.Integer(required=True)
    ruling = fields.Dict(allow_none=True, required=True)
    opened_at = fields.String(required=True)
    updated_at = fields.String(required=True)
    stream_version = fields.Integer(required=True)
    stream_hash = fields.String(required=True)
    events = fields.List(fields.Dict(), required=True)


class DisputeLine(Strict):
    dispute_id = fields.String(required=True)
    game_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "the version disputed"})
    status = fields.String(required=True)
    reason = fields.String(required=True)
    opened_by = fields.String(required=True)
    opener_name = fields.String(allow_none=True, required=True)
    opened_at = fields.String(required=True)
    updated_at = fields.String(required=True)


class DisputeQueue(Strict):
    disputes = fields.List(fields.Nested(DisputeLine), required=True)
    has_more = fields.Boolean(required=True, metadata=HAS_MORE)


class GameDisputes(Strict):
    game_id = fields.String(required=True)
    disputes = fields.List(fields.Nested(DisputeView), required=True)


class Evidence(Schema):
    """Everything recorded about the disputed turn (docs/disputes.md, Evidence)."""

    class Meta:
        unknown = "include"

    dispute = fields.Nested(DisputeView, required=True)
    game = fields.Dict(required=True)
    anchor = fields.Dict(required=True)
    commands = fields.Dict(required=True)
    position_before = fields.Dict(required=True)
    position_after = fields.Dict(required=True)
    legal_before = fields.List(fields.Dict(), required=True)
    legal_before_words = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the same commands in words, in the same order"},
    )
    events = fields.List(fields.Dict(), required=True)
    receipt = fields.Dict(required=True)
    rerun = fields.Dict(required=True)
    versions = fields.Dict(required=True)
    draws = fields.Dict(required=True)
    log = fields.Dict(
        required=True,
        metadata={
            "description": "the transparency log's proof of the disputed command's commit:"
            " version, logged, index, tree_size, entry and a C2SP tlog-proof bundle"
        },
    )
