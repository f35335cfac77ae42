"""Read-model endpoints: scoreboard, leaderboard, lobby, my games, timeline, audit.

Each answer carries ``version``, the last event version its read model applied.
``?min_version=N`` waits (up to ``WAIT_SECONDS``) until the read model has
applied version N — read-your-writes after a command — or answers 503.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from typing import Any

from flask import Blueprint, current_app, request
from flask.typing import ResponseReturnValue

from projections.store import CLOCKS, VARIANTS, Checkpoint, ReadModels
from service.errors import BadRequest, NotFound, Unavailable
from service.http.api import (
    GAME_ID,
    MAX_INT,
    STATUSES,
    account,
    game_service,
    int_arg,
    paged,
    player_or_auditor,
    status_arg,
)
from service.http.api.openapi import MAX_OFFSET, OFFSET, Operation, documented, query
from service.http.api.replies import reply
from service.http.api.schemas.views import (
    Audit,
    Leaderboard,
    Lobby,
    ProjectionStatus,
    Scoreboard,
    Timeline,
)
from service.http.language import reader_language
from service.i18n.phrases import described
from service.timing.clocks import clock_view

# the lobby's cursor: the last activity of the page's last game ("+" written "~", so the
# cursor needs no escaping in a URL), "_", its game id. Every value of the pattern is a
# cursor: the page is the games listed after that point, whichever it is
CURSOR_PATTERN = r"([0-9A-Za-z:.~-]{0,40})_(" + GAME_ID + ")"
CURSOR = re.compile(CURSOR_PATTERN)
GAME = re.compile(GAME_ID)

bp = Blueprint("views", __name__)

WAIT_SECONDS = 5.0
MIN_VERSION = query(
    "min_version",
    "integer",
    "wait (up to 5 s) until the read model applied this version",
    minimum=0,
    maximum=MAX_INT,
)


def limit_query(high: int) -> dict[str, object]:
    return query("limit", "integer", f"at most this many (1 to {high})", minimum=1, maximum=high)


def readmodels() -> ReadModels:
    rm: ReadModels = current_app.extensions["tongiaki.readmodels"]
    return rm


def ready(name: str, game_id: str) -> Checkpoint:
    """The read model's checkpoint for the game, once it reached ``?min_version``.

    404 for an unknown game, 503 if the projection is halted for it (with the
    recorded error) or has not reached the version within ``WAIT_SECONDS``.
    """
    head = game_service().store.head(game_id)
    if head is None or head.version == 0:
        raise NotFound("unknown_game", f"there is no game {game_id!r}")
    # a game's read model exists once its first event is in: wait for that at least
    wanted = int_arg("min_version", 0, 0) or 1
    if wanted > head.version:
        raise BadRequest("bad_version", f"the game is at version {head.version}")
    deadline = time.monotonic() + WAIT_SECONDS
    pause = 0.005
    while True:
        point = readmodels().checkpoint(name, game_id)
        if point is not None and point.error is not None:
            raise Unavailable(
                "projection_halted",
                f"the {name} of this game is halted after repeated failures: {point.error}",
                projection=name,
            )
        version = point.version if point is not None else 0
        if version >= wanted:
            return point or Checkpoint(name, game_id, 0, 0, 0, None, None)
        if time.monotonic() >= deadline:
            raise Unavailable(
                "projection_lagging",
                f"the {name} has applied version {version}, not yet {wanted}; retry shortly",
                projection=name,
                retry_after=1,
            )
        time.sleep(pause)
        pause = min(pause * 1.5, 0.02)


@bp.get("/games/<game:game_id>/scoreboard")
@documented(
    Operation(
        "/games/{game_id}/scoreboard",
        "get",
        "Live scoreboard: per seat and colour points, islands, boats, kings; final ranking",
        Scoreboard,
        params=[MIN_VERSION],
        errors=(404, 422, 503),
    )
)
def scoreboard(game_id: str) -> ResponseReturnValue:
    ready("scoreboard", game_id)
    board = readmodels().scoreboard(game_id)
    if board is None:
        raise Unavailable(
            "projection_lagging", "the scoreboard is not built yet; retry shortly", retry_after=1
        )
    named(board["seats"])
    return reply({"game_id": game_id, **board})


@bp.get("/leaderboard")
@documented(
    Operation(
        "/leaderboard",
        "get",
        "Accounts by wins, then points: games played, wins (shared wins count), average rank",
        Leaderboard,
        params=[limit_query(500), OFFSET],
        errors=(422,),
    )
)
def leaderboard() -> ResponseReturnValue:
    limit = int_arg("limit", 100, 1, 500) or 100
    offset = int_arg("offset", 0, 0, MAX_OFFSET) or 0
    players, more = paged(readmodels().leaderboard(limit + 1, offset), limit)
    names = game_service().store.account_names(p["account_id"] for p in players)
    return reply(
        {"players": [{**p, "name": names.get(p["account_id"])} for p in players], "has_more": more}
    )


def named(seats: Iterable[dict[str, Any]]) -> None:
    """Give each seat (``player_id``) its player's ``name``, with one query."""
    seats = list(seats)
    names = game_service().store.account_names(s["player_id"] for s in seats)
    for seat in seats:
        seat["name"] = names.get(seat["player_id"])


def disputed(games: Sequence[dict[str, Any]]) -> None:
    """Give each game the number of its open disputes and of its rulings
    (docs/disputes.md), with one query for the page's games."""
    if not games:
        return
    counts = game_service().store.dispute_counts(g["game_id"] for g in games)
    for game in games:
        mine = counts.get(game["game_id"], {})
        game["open_disputes"] = mine.get("open", 0)
        game["rulings"] = mine.get("ruled", 0)


def timed(games: Sequence[dict[str, Any]]) -> None:
    """Each running clock as of now: time left per seat (docs/clocks.md)."""
    now = game_service().clock()
    for game in games:
        clock = game.get("clock")
        if isinstance(clock, dict):
            game["clock"] = clock_view(clock, now)


LOBBY_SEARCH = 200  # accounts a search by player name matches at most


@bp.get("/lobby")
@documented(
    Operation(
        "/lobby",
        "get",
        "Open, running and finished games with seats, whose turn and last activity; filtered"
        " by status, seats, variant, clock, a free seat or a player's name; a page at a time",
        Lobby,
        params=[
            query("status", "string", "open, setup, playing or ended", enum=list(STATUSES)),
            limit_query(500),
            OFFSET,
            query(
                "before",
                "string",
                "the next page: the next_before of the page before (an offset counts from there)",
                pattern=f"^{CURSOR_PATTERN}$",
            ),
            query("players", "integer", "games of this many seats", minimum=2, maximum=6),
            query(
                "variant",
                "string",
                "standard (one colour each, fixed orientation), two_colours (two colours"
                " each) or free_orientation",
                enum=list(VARIANTS),
            ),
            query("clock", "string", "the time control: none, move or fischer", enum=list(CLOCKS)),
            query(
                "free_seat",
                "string",
                "true: open games with a seat still free",
                enum=["true", "false"],
            ),
            query(
                "player",
                "string",
                "games where a player whose name holds this (any case) is seated",
                minLength=1,
                maxLength=64,
                pattern=r"^[^\x00-\x1f\x7f]*$",
            ),
        ],
        errors=(422,),
    )
)
def lobby() -> ResponseReturnValue:
    status = status_arg()
    limit = int_arg("limit", 100, 1, 500) or 100
    offset = int_arg("offset", 0, 0, MAX_OFFSET) or 0
    before = lobby_cursor(request.args.get("before"))
    variant = choice_arg("variant", VARIANTS)
    clock = choice_arg("clock", CLOCKS)
    free = choice_arg("free_seat", ("true", "false")) == "true"
    players = int_arg("players", None, 2, 6)
    text = request.args.get("player")
    among = None
    if text is not None:
        if not 1 <= len(text) <= 64 or any(ord(c) < 32 or ord(c) == 127 for c in text):
            raise BadRequest("bad_query", "player is 1 to 64 characters of a name")
        among = game_service().store.accounts_named(text, LOBBY_SEARCH)
    rows = readmodels().lobby(
        status,
        limit + 1,
        offset,
        before=before,
        players=players,
        variant=variant,
        clock=clock,
        free_seat=free,
        among=among,
    )
    games, more = paged(rows, limit)
    named(seat for g in games for seat in g["seats"])
    disputed(games)
    timed(games)
    last = games[-1] if more and games else None
    next_before = encode_cursor(last["last_activity"], last["game_id"]) if last else None
    return reply({"games": games, "has_more": more, "next_before": next_before})


def encode_cursor(last_activity: str, game_id: str) -> str:
    """The lobby's cursor: where the page ended (``CURSOR_PATTERN``)."""
    return f"{last_activity.replace('+', '~')}_{game_id}"


def lobby_cursor(cursor: str | None) -> tuple[str, str] | None:
    """(last activity, game id) of a cursor given as next_before (422 otherwise)."""
    if cursor is None:
        return None
    match = CURSOR.fullmatch(cursor)
    if match is None:
        raise BadRequest(
            "bad_before", "before is a cursor as given in next_before (activity_gameid)"
        )
    return match[1].replace("~", "+"), match[2]


def choice_arg(name: str, choices: Sequence[str]) -> str | None:
    """A query argument among ``choices`` (422 otherwise), or None when not given."""
    value = request.args.get(name)
    if value is not None and value not in choices:
        raise BadRequest("bad_query", f"{name} is one of {', '.join(choices)}")
    return value


@bp.get("/me/games")
@documented(
    Operation(
        "/me/games",
        "get",
        "My games, the ones waiting for my move first, then by last activity",
        Lobby,
        auth=True,
        params=[limit_query(500), OFFSET],
        errors=(401, 422),
    )
)
def my_games() -> ResponseReturnValue:
    me = account().account_id
    limit = int_arg("limit", 100, 1, 500) or 100
    offset = int_arg("offset", 0, 0, MAX_OFFSET) or 0
    games, more = paged(readmodels().my_games(me, limit + 1, offset), limit)
    disputed(games)
    named(seat for g in games for seat in g["seats"])
    timed(games)
    return reply({"games": games, "has_more": more})


@bp.get("/games/<game:game_id>/timeline")
@documented(
    Operation(
        "/games/{game_id}/timeline",
        "get",
        "Replay timeline: every event as a step with turn, step, seat and description",
        Timeline,
        params=[
            query("after", "integer", "version to start after", minimum=0, maximum=MAX_INT),
            limit_query(1000),
            MIN_VERSION,
        ],
        errors=(404, 422, 503),
    )
)
def timeline(game_id: str) -> ResponseReturnValue:
    point = ready("timeline", game_id)
    after = int_arg("after", 0, 0) or 0
    limit = int_arg("limit", 500, 1, 1000) or 500
    rm = readmodels()
    # bounded by the version answered: a catch-up meanwhile never tears the answer
    steps, more = paged(rm.steps(game_id, after, limit + 1, upto=point.version), limit)
    turns = rm.turns(game_id, upto=point.version)
    lang = reader_language()
    return reply(
        {
            "game_id": game_id,
            "version": point.version,
            "steps": [described(s, lang) for s in steps],
            "turns": turns,
            "rewinds": rm.rewinds(game_id, upto=point.version),
            "next_after": steps[-1]["version"] if steps else after,
            "has_more": more,
        }
    )


@bp.get("/games/<game:game_id>/audit")
@documented(
    Operation(
        "/games/{game_id}/audit",
        "get",
        "Audit timeline: per turn, every command received beside the events it caused"
        " (a page of commands at a time)",
        Audit,
        auth=True,
        params=[
            query(
                "after",
                "integer",
                "sequence number to start after (next_after)",
                minimum=0,
                maximum=MAX_INT,
            ),
            limit_query(1000),
            MIN_VERSION,
        ],
        errors=(401, 403, 404, 422, 503),
    )
)
def audit(game_id: str) -> ResponseReturnValue:
    player_or_auditor(game_id, "audit")
    point = ready("audit", game_id)
    after = int_arg("after", 0) or 0
    limit = int_arg("limit", 200, 1, 1000) or 200
    commands, more = paged(readmodels().audit(game_id, after, limit + 1), limit)
    turns: dict[int, list[dict[str, Any]]] = {}
    lang = reader_language()
    for command in commands:
        command["events"] = [described(s, lang) for s in command["events"]]
        turns.setdefault(command["turn"], []).append(command)
    return reply(
        {
            "game_id": game_id,
            "version": point.version,
            "turns": [{"turn": t, "commands": c} for t, c in sorted(turns.items())],
            "next_after": commands[-1]["seq"] if commands else after,
            "has_more": more,
        }
    )


@bp.get("/projections")
@documented(
    Operation(
        "/projections",
        "get",
        "Lag per read model: games behind, events behind, halted games with their error",
        ProjectionStatus,
    )
)
def projections() -> ResponseReturnValue:
    return reply(
        {
            "projections": [
                {
                    "projection": lag.projection,
                    "games": lag.games,
                    "behind": lag.behind,
                    "events_behind": lag.events_behind,
                    "halted": [{"game_id": g, "error": e} for g, e in lag.halted],
                }
                for lag in readmodels().status()
            ]
        }
    )
