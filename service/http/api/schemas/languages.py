"""The schemas of ``/me/language`` (docs/i18n.md)."""

from __future__ import annotations

from marshmallow import fields, validate

from service.http.api.schemas.base import Strict
from service.i18n.locales import SUPPORTED


class LanguageIn(Strict):
    language = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(SUPPORTED),
        metadata={"description": "en, fr or it; null forgets the choice (mails in English)"},
    )


class LanguageView(Strict):
    language = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "the account's chosen language, or null"},
    )
    languages = fields.List(
        fields.String(), required=True, metadata={"description": "the languages spoken"}
    )
