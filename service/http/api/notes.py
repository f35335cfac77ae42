"""Private notes (docs/notes.md): ``/games/{game_id}/notes`` (mine on a game, on the
game itself or on one of its versions) and ``/me/export`` (all of mine)."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, current_app, request
from flask.typing import ResponseReturnValue

from service.errors import BadRequest, NotFound
from service.http.api import GAME_ID, MAX_INT, account, body, int_arg, limit
from service.http.api.openapi import Operation, documented, query
from service.http.api.replies import reply
from service.http.api.schemas.notes import AccountExport, NoteIn, NoteList, NoteView
from service.notes.service import GAME, Notes
from service.notes.table import Note
from service.timing.clocks import stamp

bp = Blueprint("notes", __name__)
AFTER = re.compile(f"({GAME_ID})~(0|[1-9][0-9]{{0,9}})")  # /me/export?after=
VERSION = {
    "in": "path",
    "name": "version",
    "required": True,
    "schema": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
    "description": "the version of the game (a move) the note is on (N2)",
}
ERRORS = (401, 403, 404)
WRITE_ERRORS = (401, 403, 404, 413, 415, 422, 429)


def notes() -> Notes:
    """The app's notes (composition root: ``service.app.web_app``)."""
    found: Notes = current_app.extensions["tongiaki.notes"]
    return found


def shown(note: Note) -> dict[str, Any]:
    """A note as the API shows it (the game's own: version null)."""
    return {
        "game_id": note.game_id,
        "version": None if note.version == GAME else note.version,
        "text": note.text,
        "created_at": note.created_at,
        "updated_at": note.updated_at,
    }


def _no_content() -> Response:
    return Response(status=204)


@bp.get("/games/<game:game_id>/notes")
@documented(
    Operation(
        "/games/{game_id}/notes",
        "get",
        "My private notes on a game, on it and on its moves (N1: seated players only)",
        NoteList,
        auth=True,
        errors=ERRORS,
    )
)
def listed(game_id: str) -> ResponseReturnValue:
    found = notes().on_game(account(), game_id)
    return reply({"game_id": game_id, "notes": [shown(n) for n in found]})


def _move(version: int) -> int:
    """A move's version: 1 or more (0 is no move: the game's own note is ``/notes/game``)."""
    if not 1 <= version <= MAX_INT:  # any digits reach here: a number past it is no move
        raise NotFound(
            "unknown_version",
            f"the game has no version {version}: a move's note is on one of its versions",
            rule="N2",
        )
    return version


def _read(game_id: str, version: int) -> ResponseReturnValue:
    return reply(shown(notes().read(account(), game_id, version)))


def _write(game_id: str, version: int) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    text = body(NoteIn)["text"]
    return reply(shown(notes().write(who, game_id, version, text)))


def _delete(game_id: str, version: int) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    notes().delete(who, game_id, version)
    return _no_content()


GAME_PATH = "/games/{game_id}/notes/game"
MOVE_PATH = "/games/{game_id}/notes/{version}"


@bp.get("/games/<game:game_id>/notes/game")
@documented(Operation(GAME_PATH, "get", "My note on the game", NoteView, auth=True, errors=ERRORS))
def game_note(game_id: str) -> ResponseReturnValue:
    return _read(game_id, GAME)


@bp.put("/games/<game:game_id>/notes/game")
@documented(
    Operation(
        GAME_PATH,
        "put",
        "Write my note on the game (N1–N5: last writer wins)",
        NoteView,
        request=NoteIn,
        auth=True,
        errors=WRITE_ERRORS,
        limited=True,
    )
)
def put_game_note(game_id: str) -> ResponseReturnValue:
    return _write(game_id, GAME)


@bp.delete("/games/<game:game_id>/notes/game")
@documented(
    Operation(
        GAME_PATH,
        "delete",
        "Delete my note on the game",
        None,
        204,
        auth=True,
        errors=ERRORS,
        limited=True,
    )
)
def delete_game_note(game_id: str) -> ResponseReturnValue:
    return _delete(game_id, GAME)


@bp.get("/games/<game:game_id>/notes/<version:version>")
@documented(
    Operation(
        MOVE_PATH,
        "get",
        "My note on a move (a version of the game)",
        NoteView,
        auth=True,
        params=[VERSION],
        errors=ERRORS,
    )
)
def move_note(game_id: str, version: int) -> ResponseReturnValue:
    return _read(game_id, _move(version))


@bp.put("/games/<game:game_id>/notes/<version:version>")
@documented(
    Operation(
        MOVE_PATH,
        "put",
        "Write my note on a move (N1–N5: last writer wins)",
        NoteView,
        request=NoteIn,
        auth=True,
        params=[VERSION],
        errors=WRITE_ERRORS,
        limited=True,
    )
)
def put_move_note(game_id: str, version: int) -> ResponseReturnValue:
    return _write(game_id, _move(version))


@bp.delete("/games/<game:game_id>/notes/<version:version>")
@documented(
    Operation(
        MOVE_PATH,
        "delete",
        "Delete my note on a move",
        None,
        204,
        auth=True,
        params=[VERSION],
        errors=ERRORS,
        limited=True,
    )
)
def delete_move_note(game_id: str, version: int) -> ResponseReturnValue:
    return _delete(game_id, _move(version))


@bp.get("/me/export")
@documented(
    Operation(
        "/me/export",
        "get",
        "My own export: my private notes on every game, page by page (N6)",
        AccountExport,
        auth=True,
        params=[
            query("limit", "integer", "at most this many notes (1 to 500)", minimum=1, maximum=500),
            query(
                "after",
                "string",
                "the next_after of the page before",
                pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}~(0|[1-9][0-9]{0,9})$",
            ),
        ],
        errors=(401, 403, 422),
    )
)
def export() -> ResponseReturnValue:
    who = account()
    most = int_arg("limit", 100, 1, 500) or 100
    after = None
    raw = request.args.get("after")
    if raw is not None:
        match = AFTER.fullmatch(raw)
        if match is None:
            raise BadRequest("bad_query", "after is a cursor as given in next_after")
        after = (match[1], int(match[2]))
    found, more = notes().export(who, after, most)
    last = found[-1] if more and found else None
    return reply(
        {
            "account_id": who.account_id,
            "name": who.name,
            "exported_at": stamp(notes().games.clock()),
            "notes": [shown(n) for n in found],
            "has_more": more,
            "next_after": f"{last.game_id}~{last.version}" if last is not None else None,
        }
    )
