"""``/games/{id}/chat`` and ``/chat``: a game's chat — read, post, mute, report — and
the auditors' side — hide, stop, the reports' queue (docs/chat.md, M1–M9).

The chat is a stream of its own (``service.chat``): nothing here touches the game's
events. Refusals cite the M rules."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, current_app, request
from flask.typing import ResponseReturnValue

from service.chat.service import CHANNELS, ChatService
from service.errors import BadRequest, NotFound
from service.http.api import MAX_INT, account, body, int_arg, limit
from service.http.api.openapi import MAX_OFFSET, OFFSET, Operation, documented, query
from service.http.api.replies import reply
from service.http.api.schemas.chat import (
    ChatHide,
    ChatMessage,
    ChatMuteCreate,
    ChatMutes,
    ChatPage,
    ChatPost,
    ChatReason,
    ChatReported,
    ChatReports,
    ChatStop,
    ChatStopCreate,
    ChatStops,
    ChatVerified,
)

bp = Blueprint("chat", __name__)

SEQ = re.compile(r"[1-9][0-9]{0,9}")
ACCOUNT = re.compile(r"[A-Za-z0-9_-]{1,64}")
CHANNEL = query("channel", "string", "one channel only (M2)", enum=list(CHANNELS))
AFTER = query(
    "after", "integer", "messages after this seq (a page's next_after)", minimum=0, maximum=MAX_INT
)
LIMIT = query("limit", "integer", "at most this many (1 to 200)", minimum=1, maximum=200)


def chat() -> ChatService:
    """The app's chat service (composition root: ``service.app.web_app``)."""
    found: ChatService = current_app.extensions["tongiaki.chat"]
    return found


def seq_of(raw: str) -> int:
    """A message's seq from the path (404 for anything else)."""
    if not SEQ.fullmatch(raw) or int(raw) > MAX_INT:
        raise NotFound("unknown_message", "this game's chat has no such message")
    return int(raw)


def _no_content() -> Response:
    response = Response(status=204)
    del response.headers["Content-Type"]
    return response


@bp.get("/games/<game:game_id>/chat")
@documented(
    Operation(
        "/games/{game_id}/chat",
        "get",
        "The game's chat after a cursor, oldest first, as you may read it (M2, M5, M7)",
        ChatPage,
        auth=True,
        errors=(401, 403, 404),
        params=[CHANNEL, AFTER, LIMIT],
    )
)
def read(game_id: str) -> ResponseReturnValue:
    who = account()
    channel = request.args.get("channel")
    if channel is not None and channel not in CHANNELS:
        raise BadRequest("bad_query", "channel is table or spectators")
    after = int_arg("after", 0, 0, MAX_INT)
    size = int_arg("limit", 100, 1, 200)
    assert after is not None and size is not None
    return reply(chat().page(who, game_id, channel, after, size))


@bp.post("/games/<game:game_id>/chat")
@documented(
    Operation(
        "/games/{game_id}/chat",
        "post",
        "Post a message: players in table, others in spectators (M1, M3, M4, M8)",
        ChatMessage,
        201,
        ChatPost,
        auth=True,
        errors=(401, 403, 404),
        limited=True,
    )
)
def post(game_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    data = body(ChatPost)
    service = chat()
    message = service.post(who, game_id, data["channel"], data["text"])
    names = {who.account_id: who.name}
    return reply(service.view(message, who.kind == "auditor", names, set()))


@bp.post("/games/<game:game_id>/chat/mutes")
@documented(
    Operation(
        "/games/{game_id}/chat/mutes",
        "post",
        "Mute an account in this game's chat, for yourself only (M5)",
        ChatMutes,
        200,
        ChatMuteCreate,
        auth=True,
        errors=(401, 404),
    )
)
def mute(game_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    data = body(ChatMuteCreate)
    return reply({"muted": chat().mute(who, game_id, data["account_id"], True)})


@bp.delete("/games/<game:game_id>/chat/mutes/<account_id>")
@documented(
    Operation(
        "/games/{game_id}/chat/mutes/{account_id}",
        "delete",
        "Unmute an account in this game's chat (M5)",
        ChatMutes,
        auth=True,
        errors=(401, 404),
    )
)
def unmute(game_id: str, account_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    if not ACCOUNT.fullmatch(account_id):
        raise NotFound("unknown_account", "no account has that id")
    return reply({"muted": chat().mute(who, game_id, account_id, False)})


@bp.post("/games/<game:game_id>/chat/<seq>/report")
@documented(
    Operation(
        "/games/{game_id}/chat/{seq}/report",
        "post",
        "Report a message to the auditors, once (M6)",
        ChatReported,
        201,
        ChatReason,
        auth=True,
        errors=(401, 404, 409),
    )
)
def report(game_id: str, seq: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    number = seq_of(seq)
    data = body(ChatReason)
    return reply(chat().report(who, game_id, number, data["reason"]))


@bp.post("/games/<game:game_id>/chat/<seq>/hide")
@documented(
    Operation(
        "/games/{game_id}/chat/{seq}/hide",
        "post",
        "Hide a message, with the reason readers see instead (auditors, M7)",
        ChatMessage,
        200,
        ChatHide,
        auth=True,
        errors=(401, 403, 404, 409),
    )
)
def hide(game_id: str, seq: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    number = seq_of(seq)
    data = body(ChatHide)
    return reply(chat().hide(who, game_id, number, data["reason"]))


@bp.get("/games/<game:game_id>/chat/verify")
@documented(
    Operation(
        "/games/{game_id}/chat/verify",
        "get",
        "The chat's hash chain checked (auditors, M9)",
        ChatVerified,
        auth=True,
        errors=(401, 403, 404),
    )
)
def verify(game_id: str) -> ResponseReturnValue:
    return reply(chat().verify(account(), game_id))


PAGE: dict[str, Any] = {"auth": True, "errors": (401, 403), "params": [LIMIT, OFFSET]}


def _page() -> tuple[int, int]:
    size = int_arg("limit", 50, 1, 200)
    offset = int_arg("offset", 0, 0, MAX_OFFSET)
    assert size is not None and offset is not None
    return size, offset


@bp.get("/chat/reports")
@documented(
    Operation(
        "/chat/reports",
        "get",
        "Reported messages, newest first (auditors, M6)",
        ChatReports,
        **PAGE,
    )
)
def reports() -> ResponseReturnValue:
    who = account()
    size, offset = _page()
    rows = chat().reports(who, size + 1, offset)
    return reply({"reports": rows[:size], "has_more": len(rows) > size})


@bp.get("/chat/stops")
@documented(
    Operation(
        "/chat/stops", "get", "Accounts stopped from chatting (auditors, M8)", ChatStops, **PAGE
    )
)
def stops() -> ResponseReturnValue:
    who = account()
    size, offset = _page()
    rows = chat().stops(who, size + 1, offset)
    return reply({"stops": rows[:size], "has_more": len(rows) > size})


@bp.post("/chat/stops")
@documented(
    Operation(
        "/chat/stops",
        "post",
        "Stop an account from chatting in every game, with a reason (auditors, M8)",
        ChatStop,
        201,
        ChatStopCreate,
        auth=True,
        errors=(401, 403, 404),
    )
)
def stop() -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    data = body(ChatStopCreate)
    return reply(chat().stop(who, data["account_id"], data["reason"], True))


@bp.delete("/chat/stops/<account_id>")
@documented(
    Operation(
        "/chat/stops/{account_id}",
        "delete",
        "Let an account chat again (auditors, M8)",
        None,
        204,
        auth=True,
        errors=(401, 403, 404),
    )
)
def resume(account_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    if not ACCOUNT.fullmatch(account_id):
        raise NotFound("unknown_account", "no account has that id")
    chat().stop(who, account_id, "", False)
    return _no_content()
