"""Marshmallow schemas: request validation at the edge and the OpenAPI document."""

from __future__ import annotations

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from domain.commands import TIME_CONTROLS
from domain.state import COLOURS
from projections.models import NOTICE_KINDS
from service.notifications.digests import MODES as YOUR_MOVE_MODES
from service.notifications.webhooks import URL_PATTERN as WEBHOOK_PATTERN
from service.play.text import EMAIL_PATTERN, text_problem


class Strict(Schema):
    """Unknown fields are an error, never silently ignored."""

    class Meta:
        unknown = RAISE


# printable text: no control characters (C0, DEL, C1), which no name or entropy needs
PRINTABLE = validate.Regexp(
    r"^[^\x00-\x1f\x7f-\x9f]*\Z", error="control characters are not allowed"
)
MAX_INT = 2**31 - 1


def shown(value: str) -> None:
    """Text other players see must show what it says (``service.play.text``)."""
    problem = text_problem(value)
    if problem:
        raise ValidationError(f"the text {problem}")


class AccountCreate(Strict):
    openapi_patterns = {"name": "shown"}  # service.play.accounts checks it (422 bad_name)

    name = fields.String(
        required=True,
        validate=[validate.Length(1, 64), PRINTABLE],
        metadata={
            "description": "1 to 64 characters others can read: no control, format or"
            " bidirectional characters, and at least one visible one (422 bad_name)"
        },
    )


class AccountCreated(Strict):
    account_id = fields.String(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "shown once; send as Bearer"})


class Me(Strict):
    account_id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, metadata={"description": "player or auditor"})


class StrictBoolean(fields.Boolean):
    """JSON true or false only (marshmallow would also read "yes", "on", 1 …)."""

    def _deserialize(self, value: object, attr: str | None, data: object, **kwargs: object) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


def strict_boolean(**kwargs: object) -> fields.Boolean:
    return StrictBoolean(**kwargs)  # type: ignore[arg-type]


class NoFields(Strict):
    """A body with nothing in it (``{}``), or no body at all."""


SECONDS = validate.Range(0, 30 * 86_400)


class GameCreate(Strict):
    max_players = fields.Integer(load_default=6, validate=validate.Range(2, 6), strict=True)
    two_colours_each = strict_boolean(load_default=False)
    free_orientation_after_first = strict_boolean(load_default=False)
    first_seat = fields.Integer(load_default=1, validate=validate.Range(1, 6), strict=True)
    time_control = fields.String(
        load_default="none",
        validate=validate.OneOf(TIME_CONTROLS),
        metadata={"description": "docs/clocks.md C1: none, move (per decision) or fischer"},
    )
    move_seconds = fields.Integer(
        load_default=0,
        validate=SECONDS,
        strict=True,
        metadata={"description": "move: each decision's time, 5 s to 30 days (C1)"},
    )
    base_seconds = fields.Integer(
        load_default=0,
        validate=SECONDS,
        strict=True,
        metadata={"description": "fischer: each seat's time at the start, 10 s to 30 days"},
    )
    increment_seconds = fields.Integer(
        load_default=0,
        validate=validate.Range(0, 86_400),
        strict=True,
        metadata={"description": "fischer: added per decision, 0 to 1 day"},
    )
    absent_after = fields.Integer(
        load_default=3,
        validate=validate.Range(1, 10),
        strict=True,
        metadata={"description": "consecutive timeouts before the bot takes the seat (C4)"},
    )
    tile_order = fields.List(
        fields.String(),
        load_default=None,
        metadata={"description": "testing mode only: tiles drawn first, in order"},
    )


class SeatCreate(Strict):
    # exactly one of the two (one_of_colour_or_colours)
    openapi_extra = {"oneOf": [{"required": ["colour"]}, {"required": ["colours"]}]}
    openapi_patterns = {"entropy": "shown"}

    colour = fields.String(validate=validate.OneOf(COLOURS))
    colours = fields.List(
        fields.String(validate=validate.OneOf(COLOURS)), validate=validate.Length(1, 2)
    )
    entropy = fields.String(load_default="", validate=[validate.Length(0, 256), PRINTABLE, shown])

    @validates_schema
    def one_of_colour_or_colours(self, data: dict[str, object], **_: object) -> None:
        if ("colour" in data) == ("colours" in data):
            raise ValidationError("give either colour or colours (two-colour variant)")


class CommandEnvelope(Schema):
    """A command as in ``domain.serialization``, plus an optional expected version."""

    class Meta:
        unknown = "include"

    type = fields.String(required=True, metadata={"description": "command type, e.g. Expand"})
    expected_version = fields.Integer(
        validate=validate.Range(0, MAX_INT), load_default=None, strict=True
    )


class Receipt(Strict):
    version = fields.Integer(required=True)
    hash = fields.String(required=True)


class StoredEventSchema(Strict):
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    data = fields.Dict(required=True)
    metadata = fields.Dict(required=True)
    prev_hash = fields.String(required=True)
    hash = fields.String(required=True)


class CommandAccepted(Strict):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(StoredEventSchema), required=True)
    receipt = fields.Nested(Receipt, required=True)
    replayed = fields.Boolean(required=True, metadata={"description": "a repeated command id"})
    legal = fields.Nested(
        "LegalCommands",
        metadata={"description": "with ?include=legal: the next decision's legal commands"},
    )


class StreamEvent(Schema):
    """One server-sent event: ``id`` the version, ``event`` its type, ``data`` the stored
    event as JSON text (as in EventPage). Besides: ``heartbeat`` (no id; ``data``
    ``{"every": seconds}``) when the stream opens and after that many seconds of
    silence (a client hearing nothing for longer takes the stream for dead), and
    ``end`` when the game is over and every event was sent."""

    class Meta:
        unknown = "include"

    id = fields.String(metadata={"description": "the event's version (for Last-Event-ID)"})
    event = fields.String(metadata={"description": "the event's type, e.g. TileDrawn"})
    data = fields.String(metadata={"description": "the stored event as JSON"})


class EventPage(Strict):
    game_id = fields.String(required=True)
    head = fields.Integer(required=True)
    events = fields.List(fields.Nested(StoredEventSchema), required=True)
    next_after = fields.Integer(
        required=True, metadata={"description": "after= for the next page (or to resume later)"}
    )
    has_more = fields.Boolean(
        required=True,
        metadata={"description": "whether more follow now: if so, ask again with after=next_after"},
    )


class GameSummary(Strict):
    game_id = fields.String(required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)


HAS_MORE = {"description": "whether more follow: ask again with offset + limit"}


class GameList(Strict):
    games = fields.List(fields.Nested(GameSummary), required=True)
    has_more = fields.Boolean(required=True, metadata=HAS_MORE)


class PlayerName(Strict):
    player_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True)
    seat = fields.Integer(required=True)
    colours = fields.List(fields.String(), required=True)
    bot = fields.String(
        allow_none=True,
        metadata={"description": "absent or resigned: the bot plays the seat (C5, C6)"},
    )
    timeouts = fields.Integer(
        metadata={"description": "the seat's consecutive timeouts (C4)"},
    )


CLOCK = (
    "docs/clocks.md C2: control, seat (whose decision runs), since, deadline, left_ms"
    " (fischer), paused_at, used_ms (the last decision's), and, as of `now`, time_left_ms"
    " per seat; null for a game without a clock or not under way"
)


class GameView(Strict):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    position = fields.Dict(required=True, metadata={"description": "domain.position.dump"})
    players = fields.List(
        fields.Nested(PlayerName),
        required=True,
        metadata={"description": "the seats with their players' names"},
    )
    time_control = fields.Dict(metadata={"description": "docs/clocks.md C1"})
    clock = fields.Dict(allow_none=True, metadata={"description": CLOCK})


class LegalCommands(Strict):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    decision = fields.String(allow_none=True, required=True)
    colour = fields.String(allow_none=True, required=True)
    player_id = fields.String(allow_none=True, required=True)
    commands = fields.List(fields.Dict(), required=True)


class JournalItem(Strict):
    command_id = fields.String(required=True)
    seq = fields.Integer(required=True)
    actor = fields.Dict(required=True)
    received_at = fields.String(required=True)
    payload = fields.Dict(required=True)
    judged_version = fields.Integer(required=True)
    outcome = fields.String(required=True)
    first_version = fields.Integer(allow_none=True)
    last_version = fields.Integer(allow_none=True)
    rejection = fields.Dict(allow_none=True)


class Journal(Strict):
    game_id = fields.String(required=True)
    commands = fields.List(fields.Nested(JournalItem), required=True)
    next_after = fields.Integer(
        required=True, metadata={"description": "after= for the next page (or to resume later)"}
    )
    has_more = fields.Boolean(
        required=True,
        metadata={"description": "whether more follow now: if so, ask again with after=next_after"},
    )


class FieldDifference(Strict):
    field = fields.String(required=True, metadata={"description": "e.g. scores[0].points"})
    recorded = fields.Raw(required=True, allow_none=True)
    rerun = fields.Raw(required=True, allow_none=True)


class RuleChange(Strict):
    """A command recorded under earlier rules whose re-run differs where a documented
    rule change says it should (docs/rules.md, "Rule changes and recorded games")."""

    command_id = fields.String(required=True)
    command = fields.String(required=True, metadata={"description": "the command's type"})
    actor = fields.Raw(required=True)
    versions = fields.List(fields.Integer(), required=True)
    recorded_rules = fields.String(required=True)
    event_version = fields.Integer(
        required=True, metadata={"description": "the first event that differs"}
    )
    recorded_type = fields.String(required=True, allow_none=True)
    rerun_type = fields.String(required=True, allow_none=True)
    fields_ = fields.List(fields.Nested(FieldDifference), required=True, data_key="fields")
    difference = fields.String(required=True)
    explained_by = fields.String(
        required=True, metadata={"description": "e.g. R21, changed in rules-2"}
    )


class VerificationSchema(Strict):
    game_id = fields.String(required=True)
    ok = fields.Boolean(required=True)
    events = fields.Integer(required=True)
    chain_ok = fields.Boolean(required=True)
    chain_problems = fields.List(fields.String(), required=True)
    deck_revealed = fields.Boolean(required=True)
    deck_ok = fields.Boolean(allow_none=True, required=True)
    deck_problems = fields.List(fields.String(), required=True)
    draws_checked = fields.Integer(required=True)
    commands_rerun = fields.Integer(required=True)
    rerun_problems = fields.List(fields.String(), required=True)
    rules_version = fields.String(
        required=True, metadata={"description": "the rules the commands were re-run under"}
    )
    recorded_rules = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the rules versions the events were decided under"},
    )
    rule_changes = fields.List(fields.Nested(RuleChange), required=True)
    disputes = fields.List(
        fields.Dict(),
        metadata={
            "description": "each dispute on the game: dispute_id, status, events, chain_ok,"
            " anchor_ok (the game's event at the disputed version still has the hash the"
            " dispute recorded), ruling, carried_out (a rewind or amendment is in the record)"
        },
    )


class Problem(Schema):
    """RFC 9457 problem details; extension members beyond those listed may appear."""

    class Meta:
        unknown = "include"

    type = fields.String(
        required=True,
        metadata={
            "description": "/problems/<code>: this service's page on the code (what it means,"
            " the rules it can cite)"
        },
    )
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "stable, for programs"})
    rule = fields.String(
        metadata={"description": "the rule id a command broke (/docs/rules#<rule>)"}
    )
    errors = fields.Dict(metadata={"description": "invalid_fields: the message of each field"})
    version = fields.Integer(metadata={"description": "stale_version: the game's version now"})
    replayed = fields.Boolean(
        metadata={"description": "the stored outcome of an Idempotency-Key, answered again"}
    )
    projection = fields.String(metadata={"description": "the read model that is behind"})
    retry_after = fields.Integer(metadata={"description": "seconds to wait (as Retry-After)"})
    limit = fields.String(metadata={"description": "rate_limited: which limit"})


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
    next_after = fields.Integer(
        required=True, metadata={"description": "after= for the next page (or to resume later)"}
    )
    has_more = fields.Boolean(
        required=True,
        metadata={"description": "whether more follow now: if so, ask again with after=next_after"},
    )


class AuditCommand(JournalItem):
    turn = fields.Integer(required=True)
    events = fields.List(fields.Nested(TimelineStep), required=True)


class AuditTurn(Strict):
    turn = fields.Integer(required=True)
    commands = fields.List(fields.Nested(AuditCommand), required=True)


class Audit(ReadModel):
    game_id = fields.String(required=True)
    turns = fields.List(fields.Nested(AuditTurn), required=True)
    next_after = fields.Integer(
        required=True, metadata={"description": "after= for the next page (or to resume later)"}
    )
    has_more = fields.Boolean(
        required=True,
        metadata={"description": "whether more follow now: if so, ask again with after=next_after"},
    )


class ProjectionLag(Strict):
    projection = fields.String(required=True)
    games = fields.Integer(required=True)
    behind = fields.Integer(required=True)
    events_behind = fields.Integer(required=True)
    halted = fields.List(fields.Dict(), required=True)


class ProjectionStatus(Strict):
    projections = fields.List(fields.Nested(ProjectionLag), required=True)


class TileData(Strict):
    tiles = fields.Dict(required=True, metadata={"description": "by tile id"})
    colours = fields.Dict(required=True, metadata={"description": "colour → letter"})


# --- disputes (docs/disputes.md) ------------------------------------------------------

# free text (a reason, a note, a ruling's reasoning): lines allowed, other control
# characters not
WRITTEN = validate.Regexp(
    r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*\Z", error="control characters other than newlines"
)
DISPUTE_TEXT = 2000
RULE_IDS = validate.Regexp(
    r"^(R([1-9]|1[0-9]|2[0-5])|D[1-8]|C[1-7])\Z", error="R1–R25, D1–D8 or C1–C7"
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
    status = fields.String(required=True)
    reason = fields.String(required=True)
    opened_by = fields.String(required=True)
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
    events = fields.List(fields.Dict(), required=True)
    receipt = fields.Dict(required=True)
    rerun = fields.Dict(required=True)
    versions = fields.Dict(required=True)
    draws = fields.Dict(required=True)


class NotifySettingsIn(Strict):
    """A change: fields left out keep their value; null clears an address."""

    webhook_url = fields.String(
        allow_none=True,
        validate=validate.Length(1, 2000),
        metadata={
            # documented, and checked by service.notifications.notify.check_webhook in its words
            "pattern": WEBHOOK_PATTERN,
            "description": "http(s) URL that receives signed JSON POSTs; null: none. Its host"
            " must resolve, to public addresses only unless the server allows private ones"
            " (else 422 bad_webhook)",
        },
    )
    email = fields.String(
        allow_none=True,
        metadata={
            # checked by service.notifications.notify.check_email, length included (422 bad_email)
            "maxLength": 254,
            # documented, and checked by service.notifications.notify.check_email (422 bad_email)
            "pattern": EMAIL_PATTERN,
            "description": "where mails go (when the server has SMTP_URL); null: none. An"
            " address of printable ASCII, name@domain: no spaces, quotes or control"
            " characters (a domain in another script in its xn-- form)",
        },
    )
    kinds = fields.List(
        fields.String(validate=validate.OneOf(NOTICE_KINDS)),
        validate=validate.Length(0, len(NOTICE_KINDS)),
        metadata={"description": "the kinds wanted (all, at an account's first save)"},
    )
    your_move = fields.String(
        validate=validate.OneOf(YOUR_MOVE_MODES),
        metadata={
            "description": "how your_move reminders are delivered (docs/clocks.md, Reminders):"
            " batched (the default: the first at once, then at most one message per quiet"
            " period listing every game where it is still your move), every (each one),"
            " never"
        },
    )
    quiet_minutes = fields.Integer(
        allow_none=True,
        validate=validate.Range(1, 1440),
        metadata={"description": "the quiet period of batched reminders; null: the server's"},
    )
    rotate_secret = strict_boolean(
        load_default=False, metadata={"description": "make a new webhook signing secret"}
    )


class NotifySettingsView(Strict):
    webhook_url = fields.String(allow_none=True, required=True)
    webhook_secret = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "signs each webhook: X-Tongiaki-Signature = sha256=HMAC-SHA256"
            "(secret, X-Tongiaki-Timestamp + '.' + body), hex"
        },
    )
    email = fields.String(allow_none=True, required=True)
    kinds = fields.List(fields.String(), required=True)
    your_move = fields.String(required=True, metadata={"description": ", ".join(YOUR_MOVE_MODES)})
    quiet_minutes = fields.Integer(allow_none=True, required=True)
    default_quiet_minutes = fields.Integer(
        required=True, metadata={"description": "the server's quiet period (TONGIAKI_REMIND_QUIET)"}
    )
    email_available = fields.Boolean(
        required=True, metadata={"description": "whether this server sends mail (SMTP_URL)"}
    )


class Notification(Strict):
    id = fields.String(required=True)
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    kind = fields.String(required=True, metadata={"description": ", ".join(NOTICE_KINDS)})
    created_at = fields.String(required=True)
    text = fields.String(required=True)
    deliveries = fields.List(
        fields.Dict(),
        required=True,
        metadata={
            "description": "per channel: status (pending, delivered, failed; batched: told"
            " in a digest, skipped: no longer your move when the digest was due), attempts,"
            " last_error (batched, skipped: why), delivered_at, next_attempt_at (pending: the"
            " next try, or while one is under way the end of its 30 s claim), games (a"
            " digest: every game it tells of), log (every attempt)"
        },
    )


class Notifications(Strict):
    notifications = fields.List(fields.Nested(Notification), required=True)
    has_more = fields.Boolean(
        required=True,
        metadata={"description": "whether older ones follow: ask again with before=next_before"},
    )
    next_before = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "pass as ?before= for the older ones (null: no more)"},
    )
