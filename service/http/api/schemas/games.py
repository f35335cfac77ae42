"""Schemas of ``/games`` (service/http/api/games.py): opening, joining, commands, a game's
state, events, journal and verification."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domain.commands import SEAT_BOTS, TIME_CONTROLS
from domain.state import COLOURS
from service.http.api.schemas.base import (
    CLOCK,
    HAS_MORE,
    MAX_INT,
    PRINTABLE,
    Strict,
    more_now_field,
    next_after_field,
    shown,
    strict_boolean,
)
from service.http.api.schemas.vacation import VacationNotice

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
    rated = strict_boolean(
        load_default=False,
        metadata={"description": "a rated game moves its players' ratings (docs/ratings.md G1)"},
    )
    vacation = strict_boolean(
        load_default=False,
        metadata={
            "description": "docs/vacation.md V2: the players' vacation stops this game's"
            " clocks (a timed game only)"
        },
    )
    tile_order = fields.List(
        fields.String(),
        load_default=None,
        metadata={"description": "testing mode only: tiles drawn first, in order"},
    )


class SeatColours(Strict):
    """A seat's colour, or two in the two-colour variant: a person's seat or a bot's."""

    # exactly one of the two (one_of_colour_or_colours)
    openapi_extra = {"oneOf": [{"required": ["colour"]}, {"required": ["colours"]}]}

    colour = fields.String(validate=validate.OneOf(COLOURS))
    colours = fields.List(
        fields.String(validate=validate.OneOf(COLOURS)), validate=validate.Length(1, 2)
    )

    @validates_schema
    def one_of_colour_or_colours(self, data: dict[str, object], **_: object) -> None:
        if ("colour" in data) == ("colours" in data):
            raise ValidationError("give either colour or colours (two-colour variant)")


def chosen_colours(data: dict[str, Any]) -> list[str]:
    """The colours a loaded ``SeatColours`` body names."""
    return list(data.get("colours") or [data["colour"]])


class SeatCreate(SeatColours):
    openapi_patterns = {"entropy": "shown"}

    entropy = fields.String(load_default="", validate=[validate.Length(0, 256), PRINTABLE, shown])
    invitation = fields.String(
        validate=validate.Regexp(r"^[A-Za-z0-9_-]{1,64}\Z", error="an invitation link's token"),
        metadata={"description": "a private table's link token (docs/invitations.md, I3)"},
    )


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
    promise = fields.String(
        metadata={
            "description": "the transparency log's signed promise of this head (a signed note:"
            " tongiaki-promise/v1, origin, stream, version, head, time); its entry is in the"
            " log within a second (GET /games/{game_id}/proof?version=…)"
        }
    )


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
    next_after = next_after_field()
    has_more = more_now_field()


class GameSummary(Strict):
    game_id = fields.String(required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)


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
        metadata={
            "description": "absent or resigned: the bot plays the seat (C5, C6); bot: the"
            " seat is a bot's (B1, B2)"
        },
    )
    level = fields.String(
        validate=validate.OneOf(SEAT_BOTS),
        metadata={"description": "a bot's seat: the bot's level (docs/bots.md, B1)"},
    )
    timeouts = fields.Integer(
        metadata={"description": "the seat's consecutive timeouts (C4)"},
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
    rated = fields.Boolean(metadata={"description": "a rated game (docs/ratings.md G1)"})
    clock = fields.Dict(allow_none=True, metadata={"description": CLOCK})
    offers = fields.Nested(
        lambda: Offers(),
        required=True,
        metadata={"description": "the open offers at the table (docs/table.md)"},
    )
    vacation = fields.List(
        fields.Nested(VacationNotice),
        metadata={"description": "docs/vacation.md V8: who is on vacation, until when"},
    )


class Offer(Strict):
    seat = fields.Integer(required=True, metadata={"description": "who made it"})
    player_id = fields.String(required=True)
    to_version = fields.Integer(metadata={"description": "a takeback: back to this version"})
    accepted = fields.List(fields.String(), required=True, metadata={"description": "players"})
    waiting_for = fields.List(
        fields.String(), required=True, metadata={"description": "players yet to answer"}
    )


class Offers(Strict):
    takeback = fields.Nested(
        Offer, allow_none=True, required=True, metadata={"description": "T1–T5"}
    )
    end = fields.Nested(Offer, allow_none=True, required=True, metadata={"description": "T6"})


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
    next_after = next_after_field()
    has_more = more_now_field()


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
    fields_ = fields.List(
        fields.Nested(FieldDifference), required=True, attribute="fields", data_key="fields"
    )
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
    log = fields.Dict(
        allow_none=True,
        metadata={
            "description": "the game against the transparency log: entries (the game's and"
            " its disputes'), last_logged_version, unlogged_versions (commits not integrated"
            " yet, or older than the log)"
        },
    )
    log_problems = fields.List(
        fields.String(),
        metadata={
            "description": "entries whose head the stored events no longer have (a history"
            " rewritten after it was logged), or that are not in the signed tree"
        },
    )
