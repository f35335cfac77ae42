"""Leagues (docs/leagues.md, L1–L10): ``/leagues`` (list, create), ``/leagues/{id}``
(players, schedule, standings), joining by link and starting."""

from __future__ import annotations

import re

from flask import Blueprint, current_app, request
from flask.typing import ResponseReturnValue

from domain import commands as cmd
from service.errors import NotFound
from service.http.api import account, body, int_arg, limit, paged
from service.http.api.openapi import MAX_OFFSET, OFFSET, Operation, documented, query
from service.http.api.replies import reply
from service.http.api.schemas.base import NoFields
from service.http.api.schemas.leagues import LeagueCreate, LeagueJoin, LeagueList, LeagueView
from service.http.cookies import session_cookie
from service.http.limits import RateLimits
from service.leagues.service import Leagues
from service.store.base import Account

bp = Blueprint("leagues", __name__)
LEAGUE_ID = re.compile(r"[0-9a-f]{12}")
PATH = "/leagues/{league_id}"
WRITE_ERRORS = (401, 403, 404, 409, 422, 429)


def leagues() -> Leagues:
    """The app's leagues (composition root: ``service.bootstrap``)."""
    found: Leagues = current_app.extensions["tongiaki.services"].leagues
    return found


def league_id_of(raw: str) -> str:
    """A league id from the path (anything else is no league: 404)."""
    if not LEAGUE_ID.fullmatch(raw):
        raise NotFound("unknown_league", f"no league {raw[:40]!r}", rule="L1")
    return raw


def maybe_account() -> Account | None:
    """The caller when it says who it is (a league's page is public)."""
    if request.headers.get("Authorization") or session_cookie():
        return account()
    return None


@bp.get("/leagues")
@documented(
    Operation(
        "/leagues",
        "get",
        "Leagues, newest first (L10)",
        LeagueList,
        params=[query("limit", "integer", "at most this many", minimum=1, maximum=100), OFFSET],
        errors=(422,),
    )
)
def listed() -> ResponseReturnValue:
    most = int_arg("limit", 50, 1, 100) or 50
    offset = int_arg("offset", 0, 0, MAX_OFFSET) or 0
    found, more = paged(leagues().listed(most + 1, offset), most)
    return reply({"leagues": list(found), "has_more": more})


@bp.post("/leagues")
@documented(
    Operation(
        "/leagues",
        "post",
        "Create a round-robin league: its name, table size, games' options and players"
        " (L1–L3); you play in it",
        LeagueView,
        201,
        LeagueCreate,
        auth=True,
        errors=(401, 403, 404, 409, 422, 429),
        limited=True,
    )
)
def create() -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    data = body(LeagueCreate)
    options = cmd.GameOptions(**data["options"])
    limits: RateLimits = current_app.extensions["tongiaki.limits"]
    limits.check("leagues", who.account_id)  # counted once created: a refusal costs none
    made = leagues().create(
        who, data["name"], data["table_size"], options, data["players"], data["link"]
    )
    limits.count("leagues", who.account_id)
    return reply(leagues().view(made.league_id, who), 201)


@bp.get("/leagues/<league_id>")
@documented(
    Operation(
        PATH,
        "get",
        "A league: players, schedule by round (each table's game and status), standings"
        " (L7–L10); its creator also sees the join link",
        LeagueView,
        errors=(401, 404),
    )
)
def show(league_id: str) -> ResponseReturnValue:
    return reply(leagues().view(league_id_of(league_id), maybe_account()))


@bp.post("/leagues/<league_id>/join")
@documented(
    Operation(
        f"{PATH}/join",
        "post",
        "Join a league with its link's token, until it starts (L3)",
        LeagueView,
        request=LeagueJoin,
        auth=True,
        errors=WRITE_ERRORS,
        limited=True,
    )
)
def join(league_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    found = league_id_of(league_id)
    leagues().join(who, found, body(LeagueJoin)["token"])
    return reply(leagues().view(found, who))


@bp.post("/leagues/<league_id>/start")
@documented(
    Operation(
        f"{PATH}/start",
        "post",
        "Start a league (its creator): schedule it and open its first round (L4–L7)",
        LeagueView,
        request=NoFields,
        auth=True,
        errors=WRITE_ERRORS,
        limited=True,
    )
)
def start(league_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    found = league_id_of(league_id)
    body(NoFields)
    leagues().start(who, found)
    return reply(leagues().view(found, who))
