"""What the API's schemas share: strict loading, printable text, a page's has_more, the
problem document."""

from __future__ import annotations

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from service.play.text import text_problem


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


HAS_MORE = {"description": "whether more follow: ask again with offset + limit"}


def next_after_field() -> fields.Integer:
    """A page's ``next_after``: where the next page starts (cursor pages)."""
    return fields.Integer(
        required=True, metadata={"description": "after= for the next page (or to resume later)"}
    )


def more_now_field() -> fields.Boolean:
    """A cursor page's ``has_more``: whether more follow now."""
    return fields.Boolean(
        required=True,
        metadata={"description": "whether more follow now: if so, ask again with after=next_after"},
    )


CLOCK = (
    "docs/clocks.md C2: control, seat (whose decision runs), since, deadline, left_ms"
    " (fischer), paused_at, used_ms (the last decision's), and, as of `now`, time_left_ms"
    " per seat; null for a game without a clock or not under way"
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
