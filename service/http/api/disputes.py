"""``/disputes``: open, follow, assign, rule, withdraw; evidence; pause and resume a game.

The procedure (who may do what, when) is ``domain.disputes`` (docs/disputes.md);
refusals cite its D rules. A dispute is visible to its game's players and to
auditors; to anyone else it does not exist (404).
"""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, current_app, request
from flask.typing import ResponseReturnValue
from werkzeug.routing import BaseConverter

from domain import disputes as d
from service.audit.disputes import DisputeService, decode_ruling
from service.errors import BadRequest
from service.http.api import account, body, int_arg, limit
from service.http.api.openapi import MAX_OFFSET, OFFSET, Operation, documented, query
from service.http.api.replies import reply
from service.http.api.schemas.base import NoFields
from service.http.api.schemas.disputes import (
    AssignCreate,
    DisputeCreate,
    DisputeQueue,
    DisputeView,
    Evidence,
    GameDisputes,
    NoteCreate,
    PauseCreate,
    Paused,
    RulingCreate,
)

bp = Blueprint("disputes", __name__)

# any id-like text reaches the service (which answers unknown_dispute); others are 404
DISPUTE_ID = r"[A-Za-z0-9_-]{1,64}"


class DisputeIdConverter(BaseConverter):
    """``<dispute:dispute_id>``: a dispute id's shape (others are 404 before any query)."""

    regex = DISPUTE_ID


def disputes() -> DisputeService:
    """The app's dispute service (composition root: ``service.app.create_app``)."""
    service: DisputeService = current_app.extensions["tongiaki.disputes"]
    return service


@bp.post("/games/<game:game_id>/disputes")
@documented(
    Operation(
        "/games/{game_id}/disputes",
        "post",
        "Open a dispute on a version (and optionally a command) of the game: its players,"
        " while it runs or within the window after it ended (D1)",
        DisputeView,
        201,
        DisputeCreate,
        auth=True,
        errors=(401, 403, 404, 409, 422),
    )
)
def open_dispute(game_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    data = body(DisputeCreate)
    command = d.OpenDispute(data["reason"], data["text"], data["version"], data["command_id"])
    service = disputes()
    return reply(service.view(service.open(who, game_id, command)))


@bp.get("/games/<game:game_id>/disputes")
@documented(
    Operation(
        "/games/{game_id}/disputes",
        "get",
        "The game's disputes, oldest first (its players and auditors)",
        GameDisputes,
        auth=True,
        errors=(401, 403, 404),
    )
)
def game_disputes(game_id: str) -> ResponseReturnValue:
    who = account()
    service = disputes()
    return reply(
        {"game_id": game_id, "disputes": [service.view(x) for x in service.of_game(who, game_id)]}
    )


STATUS = query("status", "string", "open, ruled or withdrawn", enum=["open", "ruled", "withdrawn"])
REASON = query("reason", "string", "one reason only", enum=list(d.REASONS))
GAME = query(
    "game_id", "string", "one game's disputes", pattern="^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
)
LIMIT = query("limit", "integer", "at most this many (1 to 200)", minimum=1, maximum=200)


@bp.get("/disputes")
@documented(
    Operation(
        "/disputes",
        "get",
        "The auditors' queue: disputes oldest first, by status and reason (auditors)",
        DisputeQueue,
        auth=True,
        errors=(401, 403),
        params=[STATUS, REASON, GAME, LIMIT, OFFSET],
    )
)
def queue() -> ResponseReturnValue:
    who = account()
    status = request.args.get("status")
    if status is not None and status not in ("open", "ruled", "withdrawn"):
        raise BadRequest("bad_query", "status is open, ruled or withdrawn")
    reason = request.args.get("reason")
    if reason is not None and reason not in d.REASONS:
        raise BadRequest("bad_query", f"reason is one of {', '.join(d.REASONS)}")
    game_id = request.args.get("game_id")
    if game_id is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", game_id):
        raise BadRequest("bad_query", "game_id is a game's id")
    size = int_arg("limit", 50, 1, 200)
    offset = int_arg("offset", 0, 0, MAX_OFFSET)
    assert size is not None and offset is not None
    service = disputes()
    rows, more = service.queue(who, status, reason, size, offset, game_id)
    return reply({"disputes": service.queue_view(rows), "has_more": more})


DISPUTE: dict[str, Any] = {"errors": (401, 404), "auth": True}


@bp.get("/disputes/<dispute:dispute_id>")
@documented(
    Operation(
        "/disputes/{dispute_id}", "get", "One dispute with its events", DisputeView, **DISPUTE
    )
)
def one(dispute_id: str) -> ResponseReturnValue:
    service = disputes()
    return reply(service.view(service.visible(account(), dispute_id)))


@bp.get("/disputes/<dispute:dispute_id>/evidence")
@documented(
    Operation(
        "/disputes/{dispute_id}/evidence",
        "get",
        "The disputed command with actor, time and payload, the positions before and after, the"
        " legal commands then, refusals around it, its events with their rules and hashes, the"
        " receipt, a re-run under today's engine and the draw check",
        Evidence,
        **DISPUTE,
    )
)
def evidence(dispute_id: str) -> ResponseReturnValue:
    return reply(disputes().evidence(account(), dispute_id))


def _act(dispute_id: str, command: d.DisputeCommand) -> ResponseReturnValue:
    service = disputes()
    return reply(service.view(service.act(account(), dispute_id, command)))


ACTION: dict[str, Any] = {
    "response": DisputeView,
    "auth": True,
    "errors": (401, 403, 404, 409, 422),
}


@bp.post("/disputes/<dispute:dispute_id>/notes")
@documented(
    Operation(
        "/disputes/{dispute_id}/notes",
        "post",
        "Add a note (the game's players, auditors; D2)",
        request=NoteCreate,
        **ACTION,
    )
)
def note(dispute_id: str) -> ResponseReturnValue:
    limit("commands", account().account_id)
    return _act(dispute_id, d.AddNote(body(NoteCreate)["text"]))


@bp.post("/disputes/<dispute:dispute_id>/assign")
@documented(
    Operation(
        "/disputes/{dispute_id}/assign",
        "post",
        "Assign the dispute to an auditor, the caller by default (auditors; D3)",
        request=AssignCreate,
        **ACTION,
    )
)
def assign(dispute_id: str) -> ResponseReturnValue:
    who = account()
    auditor = body(AssignCreate)["auditor"] or who.account_id
    return _act(dispute_id, d.Assign(auditor))


@bp.post("/disputes/<dispute:dispute_id>/ruling")
@documented(
    Operation(
        "/disputes/{dispute_id}/ruling",
        "post",
        "Rule with reasoning and the rule ids relied on (auditors; D4): stands; rewind to a"
        " receipt version, re-dealt (D6); or result_amended, annulled or a ranking. A paused"
        " game resumes.",
        request=RulingCreate,
        **ACTION,
    )
)
def ruling(dispute_id: str) -> ResponseReturnValue:
    account()
    return _act(dispute_id, decode_ruling(body(RulingCreate)))


@bp.post("/disputes/<dispute:dispute_id>/withdraw")
@documented(
    Operation(
        "/disputes/{dispute_id}/withdraw",
        "post",
        "Withdraw the dispute (the player who opened it; D5). A paused game resumes.",
        request=NoFields,
        **ACTION,
    )
)
def withdraw(dispute_id: str) -> ResponseReturnValue:
    account()
    body(NoFields)
    return _act(dispute_id, d.Withdraw())


def _pause(game_id: str, resume: bool) -> ResponseReturnValue:
    who = account()
    dispute_id = body(PauseCreate)["dispute_id"]
    service = disputes()
    version = service.pause(who, game_id, dispute_id, resume=resume)
    _, state = service.games.load(game_id)
    return reply({"game_id": game_id, "version": version, "paused": state.paused})


PAUSE: dict[str, Any] = {
    "response": Paused,
    "request": PauseCreate,
    "auth": True,
    "errors": (401, 403, 404, 409, 422),
}


@bp.post("/games/<game:game_id>/pause")
@documented(
    Operation(
        "/games/{game_id}/pause",
        "post",
        "Pause a game under way while one of its disputes is open: commands are refused with"
        " 409 game_paused until it resumes (auditors; D7)",
        **PAUSE,
    )
)
def pause(game_id: str) -> ResponseReturnValue:
    return _pause(game_id, False)


@bp.post("/games/<game:game_id>/resume")
@documented(
    Operation("/games/{game_id}/resume", "post", "Resume a paused game (auditors; D7)", **PAUSE)
)
def resume(game_id: str) -> ResponseReturnValue:
    return _pause(game_id, True)
