"""Read-model endpoints: scoreboard, leaderboard, lobby, my games, timeline, audit.

Each answer carries ``version``, the last event version its read model applied.
``?min_version=N`` waits (up to ``WAIT_SECONDS``) until the read model has
applied version N — read-your-writes after a command — or answers 503.
"""

from __future__ import annotations

import json
import time
from typing import Any

from flask import Blueprint, current_app, jsonify
from flask.typing import ResponseReturnValue

from service.api import (
    MAX_INT,
    STATUSES,
    account,
    game_service,
    int_arg,
    player_or_auditor,
    status_arg,
)
from service.api.openapi import Operation, documented, query
from service.api.schemas import Audit, Leaderboard, Lobby, ProjectionStatus, Scoreboard, Timeline
from service.errors import BadRequest, NotFound, Unavailable
from workers.readmodels import Checkpoint, ReadModels

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


STEP_COLUMNS = "version, turn, step, colour, actor, type, rule, automatic, description"


def readmodels() -> ReadModels:
    rm: ReadModels = current_app.extensions["tongiaki.readmodels"]
    return rm


def _step(row: Any) -> dict[str, Any]:
    return {
        "version": row[0],
        "turn": row[1],
        "step": row[2],
        "colour": row[3],
        "actor": row[4],
        "type": row[5],
        "rule": row[6],
        "automatic": bool(row[7]),
        "description": row[8],
    }


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
    rows = readmodels().query(
        "SELECT version, data FROM rm_scoreboard WHERE game_id = %s", (game_id,)
    )
    if not rows:
        raise Unavailable(
            "projection_lagging", "the scoreboard is not built yet; retry shortly", retry_after=1
        )
    return jsonify(game_id=game_id, version=rows[0][0], **json.loads(rows[0][1]))


@bp.get("/leaderboard")
@documented(
    Operation(
        "/leaderboard",
        "get",
        "Accounts by wins, then points: games played, wins (shared wins count), average rank",
        Leaderboard,
        params=[limit_query(500)],
        errors=(422,),
    )
)
def leaderboard() -> ResponseReturnValue:
    limit = int_arg("limit", 100, 1, 500)
    rows = readmodels().query(
        "SELECT r.account_id, a.name, COUNT(*), SUM(r.won), SUM(r.points), AVG(r.rank * 1.0)"
        " FROM rm_results r LEFT JOIN accounts a ON a.account_id = r.account_id"
        " GROUP BY r.account_id, a.name"
        " ORDER BY SUM(r.won) DESC, SUM(r.points) DESC, r.account_id LIMIT %s",
        (limit,),
    )
    return jsonify(
        players=[
            {
                "account_id": r[0],
                "name": r[1],
                "games": int(r[2]),
                "wins": int(r[3]),
                "points": int(r[4]),
                "average_rank": round(float(r[5]), 3),
            }
            for r in rows
        ]
    )


def _lobby(rows: list[Any], me: str | None = None) -> list[dict[str, Any]]:
    games = []
    for version, data in rows:
        entry = {"version": version, **json.loads(data)}
        if me is not None:
            entry["my_move"] = entry["active_player"] == me
        games.append(entry)
    return games


@bp.get("/lobby")
@documented(
    Operation(
        "/lobby",
        "get",
        "Open, running and finished games with seats, whose turn and last activity",
        Lobby,
        params=[
            query("status", "string", "open, setup, playing or ended", enum=list(STATUSES)),
            limit_query(500),
        ],
        errors=(422,),
    )
)
def lobby() -> ResponseReturnValue:
    status = status_arg()
    limit = int_arg("limit", 100, 1, 500)
    where, params = ("WHERE status = %s", [status]) if status else ("", [])
    rows = readmodels().query(
        f"SELECT version, data FROM rm_lobby {where} ORDER BY last_activity DESC, game_id LIMIT %s",
        (*params, limit),
    )
    return jsonify(games=_lobby(rows))


@bp.get("/me/games")
@documented(
    Operation(
        "/me/games",
        "get",
        "My games, the ones waiting for my move first, then by last activity",
        Lobby,
        auth=True,
        errors=(401,),
    )
)
def my_games() -> ResponseReturnValue:
    me = account().account_id
    rows = readmodels().query(
        "SELECT l.version, l.data FROM rm_lobby l JOIN rm_lobby_seats s ON s.game_id = l.game_id"
        " WHERE s.account_id = %s"
        " ORDER BY CASE WHEN l.active_player = %s THEN 0 ELSE 1 END,"
        " l.last_activity DESC, l.game_id",
        (me, me),
    )
    return jsonify(games=_lobby(rows, me))


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
    steps = [
        _step(r)
        for r in rm.query(
            f"SELECT {STEP_COLUMNS} FROM rm_steps WHERE game_id = %s AND version > %s"
            " ORDER BY version LIMIT %s",
            (game_id, after, limit),
        )
    ]
    turns = rm.query(
        "SELECT turn, MIN(version) FROM rm_steps WHERE game_id = %s GROUP BY turn ORDER BY turn",
        (game_id,),
    )
    return jsonify(
        game_id=game_id,
        version=point.version,
        steps=steps,
        turns=[{"turn": t, "first_version": v} for t, v in turns],
        next_after=steps[-1]["version"] if steps else after,
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
    rm = readmodels()
    rows = rm.query(
        "SELECT seq, turn, command_id, actor, received_at, payload, judged_version, outcome,"
        " first_version, last_version, rejection FROM rm_audit WHERE game_id = %s AND seq > %s"
        " ORDER BY seq LIMIT %s",
        (game_id, after, limit),
    )
    firsts = [r[8] for r in rows if r[8] is not None]
    lasts = [r[9] for r in rows if r[9] is not None]
    steps = (
        {
            r[0]: _step(r)
            for r in rm.query(
                f"SELECT {STEP_COLUMNS} FROM rm_steps WHERE game_id = %s"
                " AND version BETWEEN %s AND %s",
                (game_id, min(firsts), max(lasts)),
            )
        }
        if firsts and lasts
        else {}
    )
    turns: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        first, last = r[8], r[9]
        versions = range(first, last + 1) if first is not None and last is not None else ()
        turns.setdefault(r[1], []).append(
            {
                "seq": r[0],
                "turn": r[1],
                "command_id": r[2],
                "actor": json.loads(r[3]),
                "received_at": r[4],
                "payload": json.loads(r[5]),
                "judged_version": r[6],
                "outcome": r[7],
                "first_version": first,
                "last_version": last,
                "rejection": json.loads(r[10]) if r[10] is not None else None,
                "events": [steps[v] for v in versions if v in steps],
            }
        )
    return jsonify(
        game_id=game_id,
        version=point.version,
        turns=[{"turn": t, "commands": c} for t, c in sorted(turns.items())],
        next_after=rows[-1][0] if rows else after,
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
    return jsonify(
        projections=[
            {
                "projection": lag.projection,
                "games": lag.games,
                "behind": lag.behind,
                "events_behind": lag.events_behind,
                "halted": [{"game_id": g, "error": e} for g, e in lag.halted],
            }
            for lag in readmodels().status()
        ]
    )
