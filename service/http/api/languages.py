"""An account's language (docs/i18n.md): ``GET`` and ``PUT /me/language``. A choice is
what the account's mails and webhook texts are said in, and the ``lang`` cookie of the
browser that made it and of every browser that signs in to the account later."""

from __future__ import annotations

from flask import Blueprint, current_app
from flask.typing import ResponseReturnValue

from service.http.api import account, body, limit
from service.http.api.openapi import Operation, documented
from service.http.api.replies import reply
from service.http.api.schemas.languages import LanguageIn, LanguageView
from service.http.language import remember
from service.i18n.locales import SUPPORTED
from service.preferences.languages import Languages

bp = Blueprint("languages", __name__)


def languages() -> Languages:
    found: Languages = current_app.extensions["tongiaki.languages"]
    return found


def _view(language: str | None) -> dict[str, object]:
    return {"language": language, "languages": list(SUPPORTED)}


@bp.get("/me/language")
@documented(
    Operation(
        "/me/language",
        "get",
        "My language: what my mails and webhook texts are said in (docs/i18n.md)",
        LanguageView,
        auth=True,
        errors=(401, 403),
    )
)
def get_language() -> ResponseReturnValue:
    return reply(_view(languages().of(account().account_id)))


@bp.put("/me/language")
@documented(
    Operation(
        "/me/language",
        "put",
        "Choose my language (en, fr, it; null: none): my mails, webhook texts and the"
        " pages of every browser I sign in to; codes and rule ids never change with it",
        LanguageView,
        request=LanguageIn,
        auth=True,
        errors=(401, 403, 413, 415, 422, 429),
        limited=True,
    )
)
def put_language() -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    chosen = languages().choose(who.account_id, body(LanguageIn)["language"])
    response = reply(_view(chosen))
    if chosen is not None:
        remember(response, chosen)
    return response
