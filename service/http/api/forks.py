"""``/games/{id}/forks`` and ``/forks/{id}``: analysis forks (docs/forks.md F1–F7):
open one from a game's version, look at it, play it, undo, branch, ask the bot."""

from __future__ import annotations

from flask import Blueprint, Response, current_app
from flask.typing import ResponseReturnValue
from werkzeug.routing import BaseConverter

from domain.legal import legal_commands
from domain.mcts import Appraisal, evaluations
from domain.notation.game import result_of
from domain.notation.phrases import say
from domain.serialization import encode
from domain.state import GameState, Phase
from service.forks.service import Fork, Forks
from service.http.api import account, body, game_service, int_arg, limit
from service.http.api.answers import encode_command
from service.http.api.offers import public_position
from service.http.api.openapi import Operation, documented, query
from service.http.api.replies import reply
from service.http.api.schemas.forks import (
    ForkAnalysis,
    ForkBranch,
    ForkList,
    ForkOpen,
    ForkUndo,
    ForkView,
)
from service.http.api.schemas.games import CommandEnvelope

bp = Blueprint("forks", __name__)
FORK_ID = r"f[0-9a-f]{20}"


class ForkIdConverter(BaseConverter):
    """``<fork:fork_id>``: a fork id's shape, ``f`` and 20 hexadecimal digits (F6); others
    are 404 before any query."""

    regex = FORK_ID


def forks() -> Forks:
    """The app's forks (composition root: ``service.app.web_app``)."""
    found: Forks = current_app.extensions["tongiaki.forks"]
    return found


def _words(state: GameState, command: object) -> str:
    try:
        return say(state, command)  # type: ignore[arg-type]
    except (TypeError, KeyError, StopIteration):
        return type(command).__name__


def fork_view(fork: Fork) -> dict[str, object]:
    """A fork as the API shows it: anchor, position, legal moves, every move made."""
    row, state = fork.row, fork.state
    names = game_service().store.account_names(
        [row.account_id, *(p.player_id for p in state.players)]
    )
    colour = state.active_colour
    legal = legal_commands(state) if state.phase is not Phase.ENDED else []
    return {
        "fork_id": row.fork_id,
        "owner": row.account_id,
        "owner_name": names.get(row.account_id),
        "anchor": {"game_id": row.game_id, "version": row.version, "hash": row.anchor_hash},
        "parent": row.parent or None,
        "deck": "true" if row.revealed else "shuffle",
        "version": row.moves_made,
        "status": state.phase.value,
        "decision": state.pending.kind if state.pending else None,
        "colour": colour,
        "position": public_position(state),
        "players": [
            {
                "player_id": p.player_id,
                "name": names.get(p.player_id),
                "seat": p.seat,
                "colours": list(p.colours),
            }
            for p in state.players
        ],
        "legal": [{"command": encode_command(c), "words": _words(state, c)} for c in legal],
        "moves": [
            {
                "n": n,
                "command": encode(c),
                "words": _words(before, c),
                "events": [encode(e) for e in events],
            }
            for n, (c, before, events) in enumerate(fork.moves, start=1)
        ],
        "result": result_of(state) if state.phase is Phase.ENDED else None,
        "created_at": row.created_at,
        "touched_at": row.touched_at,
    }


FORK_ERRORS = (401, 403, 404, 409, 422)


@bp.post("/games/<game:game_id>/forks")
@documented(
    Operation(
        "/games/{game_id}/forks",
        "post",
        "Open an analysis fork at a version (F1, F4, F6)",
        ForkView,
        201,
        ForkOpen,
        auth=True,
        errors=FORK_ERRORS,
    )
)
def open_fork(game_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    data = body(ForkOpen)
    return reply(fork_view(forks().open(who, game_id, data["version"], data["deck"])), 201)


@bp.get("/forks/<fork:fork_id>")
@documented(
    Operation(
        "/forks/{fork_id}",
        "get",
        "A fork: its anchor, position, legal moves and moves (F2)",
        ForkView,
        errors=(404,),
    )
)
def show_fork(fork_id: str) -> ResponseReturnValue:
    return reply(fork_view(forks().get(fork_id)))


@bp.post("/forks/<fork:fork_id>/commands")
@documented(
    Operation(
        "/forks/{fork_id}/commands",
        "post",
        "Play the pending decision, whoever's seat (F2); expected_version: the fork's moves",
        ForkView,
        request=CommandEnvelope,
        auth=True,
        errors=FORK_ERRORS,
    )
)
def play_fork(fork_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    envelope = body(CommandEnvelope)
    seen = envelope.pop("expected_version", None)
    return reply(fork_view(forks().play(who, fork_id, envelope, seen)))


@bp.post("/forks/<fork:fork_id>/undo")
@documented(
    Operation(
        "/forks/{fork_id}/undo",
        "post",
        "Take back the last moves (F3)",
        ForkView,
        request=ForkUndo,
        auth=True,
        errors=FORK_ERRORS,
    )
)
def undo_fork(fork_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    return reply(fork_view(forks().undo(who, fork_id, body(ForkUndo)["steps"])))


@bp.post("/forks/<fork:fork_id>/branch")
@documented(
    Operation(
        "/forks/{fork_id}/branch",
        "post",
        "A new fork of mine from this one's first moves (F3)",
        ForkView,
        201,
        ForkBranch,
        auth=True,
        errors=FORK_ERRORS,
    )
)
def branch_fork(fork_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    return reply(fork_view(forks().branch(who, fork_id, body(ForkBranch)["at"])), 201)


@bp.delete("/forks/<fork:fork_id>")
@documented(
    Operation(
        "/forks/{fork_id}", "delete", "Delete my fork", None, 204, auth=True, errors=(401, 403, 404)
    )
)
def delete_fork(fork_id: str) -> ResponseReturnValue:
    forks().delete(account(), fork_id)
    return "", 204


@bp.get("/me/forks")
@documented(
    Operation(
        "/me/forks",
        "get",
        "My forks, the last touched first (F6)",
        ForkList,
        auth=True,
        errors=(401,),
    )
)
def my_forks() -> ResponseReturnValue:
    rows = forks().mine(account())
    listed = [
        {
            "fork_id": r.fork_id,
            "game_id": r.game_id,
            "version": r.version,
            "moves": r.moves_made,
            "touched_at": r.touched_at,
        }
        for r in rows
    ]
    return reply({"forks": listed})


PLAYOUTS = query(
    "playouts",
    "integer",
    "the search's iterations (1 to 2000, default 400)",
    minimum=1,
    maximum=2000,
)


@bp.get("/forks/<fork:fork_id>/analysis")
@documented(
    Operation(
        "/forks/{fork_id}/analysis",
        "get",
        "The bot's choice and its appraisal of every legal command (F7)",
        ForkAnalysis,
        params=[PLAYOUTS],
        errors=(404, 422, 429),
    )
)
def analyse_fork(fork_id: str) -> ResponseReturnValue:
    from service.http.api import client_address

    limit("commands", client_address())
    playouts = int_arg("playouts", 400, 1, 2000) or 400
    fork, appraisals = forks().appraise(fork_id, playouts)
    best = evaluations(appraisals)
    said = [_appraised(fork.state, a) for a in best]
    return reply(
        {
            "fork_id": fork.row.fork_id,
            "version": fork.row.moves_made,
            "colour": fork.state.active_colour,
            "playouts": sum(a.visits for a in appraisals),
            "choice": said[0] if said else None,
            "appraisals": said,
        }
    )


@bp.get("/forks/<fork:fork_id>/notation")
@documented(
    Operation(
        "/forks/{fork_id}/notation",
        "get",
        "The original game in TGN with the fork's moves as a variation (docs/notation.md);"
        " 409 not_in_notation when the game has no decision after the fork's anchor",
        None,
        content="text/plain",
        errors=(404, 409),
    )
)
def fork_notation(fork_id: str) -> ResponseReturnValue:
    text = forks().notation(fork_id)
    answer = Response(text, mimetype="text/plain")
    answer.headers["Content-Disposition"] = f'inline; filename="{fork_id}.tgn"'
    return answer


def _appraised(state: GameState, a: Appraisal) -> dict[str, object]:
    return {
        "command": encode_command(a.command),
        "words": _words(state, a.command),
        "visits": a.visits,
        "value": round(a.value, 4),
    }
