"""Vacation (docs/vacation.md): ``/me/vacation``, an account's days left and its spells
"away until …" (V1, V4); refusals cite V1 or V5."""

from __future__ import annotations

from flask import Blueprint, current_app
from flask.typing import ResponseReturnValue

from service.http.api import account, body, limit
from service.http.api.openapi import Operation, documented
from service.http.api.replies import reply
from service.http.api.schemas.vacation import VacationIn, VacationView
from service.vacation.service import Vacations

bp = Blueprint("vacation", __name__)
PATH = "/me/vacation"


def vacations() -> Vacations:
    """The app's vacation (composition root: ``service.app.web_app``)."""
    found: Vacations = current_app.extensions["tongiaki.vacations"]
    return found


@bp.get(PATH)
@documented(
    Operation(PATH, "get", "My vacation: days left this year, spells announced (V1, V4)",
              VacationView, auth=True, errors=(401,))
)  # fmt: skip
def standing() -> ResponseReturnValue:
    return reply(vacations().standing(account().account_id).as_dict())


@bp.post(PATH)
@documented(
    Operation(
        PATH,
        "post",
        "Announce a vacation: away until … (V4); my decisions' clocks stand still then",
        VacationView,
        201,
        request=VacationIn,
        auth=True,
        errors=(401, 409, 413, 415, 422, 429),
        limited=True,
    )
)
def announce() -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    data = body(VacationIn)
    return reply(vacations().announce(who, data["from_"], data["until"]).as_dict(), 201)
