"""Schemas of vacation (service/http/api/vacation.py; docs/vacation.md V1–V8)."""

from __future__ import annotations

from marshmallow import fields

from service.http.api.schemas.base import Strict

WHEN = "ISO 8601 with its offset (e.g. 2026-12-20T00:00:00+00:00)"


class VacationIn(Strict):
    from_ = fields.AwareDateTime(
        data_key="from",
        format="iso",
        load_default=None,
        metadata={"description": f"when the spell starts (default: now; V5: not before): {WHEN}"},
    )
    until = fields.AwareDateTime(
        format="iso",
        required=True,
        metadata={"description": f"when it ends (V5: after it starts, within a year): {WHEN}"},
    )


class Spell(Strict):
    from_ = fields.String(data_key="from", attribute="from", required=True)
    until = fields.String(required=True)


class VacationYear(Strict):
    year = fields.Integer(required=True)
    spent_ms = fields.Integer(required=True, metadata={"description": "spent or announced (V6)"})
    left_ms = fields.Integer(required=True, metadata={"description": "never below zero (V1)"})
    days_left = fields.Float(required=True, metadata={"description": "left_ms in days, to 0.1"})


class VacationView(Strict):
    days_a_year = fields.Integer(
        required=True, metadata={"description": "V1: TONGIAKI_VACATION_DAYS"}
    )
    year = fields.Integer(required=True, metadata={"description": "the calendar year (UTC)"})
    spent_ms = fields.Integer(required=True, metadata={"description": "spent this year (V6)"})
    left_ms = fields.Integer(required=True, metadata={"description": "left this year, never < 0"})
    days_left = fields.Float(required=True, metadata={"description": "left_ms in days, to 0.1"})
    announced = fields.List(
        fields.Nested(Spell),
        required=True,
        metadata={"description": "announced spells not over yet (V4)"},
    )
    away_until = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "the end of the announced spell under way, if any"},
    )
    years = fields.List(
        fields.Nested(VacationYear),
        required=True,
        metadata={
            "description": "this year and each later one a spell announced reaches (V1: a"
            " spell over New Year is charged to each year for its part)"
        },
    )


class VacationNotice(Strict):
    seat = fields.Integer(required=True)
    player_id = fields.String(required=True)
    kind = fields.String(
        required=True, metadata={"description": "announced (V4) or automatic (V3)"}
    )
    until = fields.String(required=True)
    left_ms = fields.Integer(required=True)
    days_left = fields.Float(required=True)
