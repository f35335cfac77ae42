"""``/games``: create, list, join, start, play, read events, journal, verify."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, json, request
from flask.typing import ResponseReturnValue

from domain import commands as cmd
from domain.state import GameState
from projections.models import time_control
from service.audit.verify import verify_game
from service.errors import BadRequest, ServiceError
from service.http.api import (
    MAX_INT,
    STATUSES,
    account,
    body,
    bounded_int,
    game_service,
    int_arg,
    limit,
    paged,
    player_or_auditor,
    status_arg,
)
from service.http.api.answers import (
    ANSWERED,
    IDEMPOTENCY_KEY,
    INCLUDE,
    accepted,
    idempotency_key,
    include_legal,
    legal_body,
)
from service.http.api.invitations import invitations as tables
from service.http.api.offers import offers_view, public_position
from service.http.api.openapi import (
    MAX_OFFSET,
    OFFSET,
    VERSION,
    Operation,
    documented,
    header,
    query,
)
from service.http.api.replies import reply
from service.http.api.schemas.base import NoFields
from service.http.api.schemas.games import (
    CommandAccepted,
    CommandEnvelope,
    EventPage,
    GameCreate,
    GameList,
    GameView,
    Journal,
    LegalCommands,
    SeatCreate,
    VerificationSchema,
    chosen_colours,
)
from service.http.limits import RateLimits
from service.play.event_json import event_json
from service.play.receipts import CommandResult, game_id_for
from service.store.base import Account
from service.timing.clocks import UNDER_WAY, Clock, clock_view
from service.vacation.service import Vacations

bp = Blueprint("games", __name__)


AFTER = query("after", "integer", "version to start after", minimum=0, maximum=MAX_INT)
STATUS = query("status", "string", "open, setup, playing or ended", enum=list(STATUSES))


@bp.post("/games")
@documented(
    Operation(
        "/games",
        "post",
        "Create a game",
        CommandAccepted,
        201,
        GameCreate,
        auth=True,
        errors=(401, 403, 409, 422),
        params=[IDEMPOTENCY_KEY, INCLUDE],
        headers=ANSWERED,
    )
)
def create() -> ResponseReturnValue:
    who = account()
    data = body(GameCreate)
    with_legal = include_legal()
    key = idempotency_key()
    order = data.pop("tile_order")
    # the games limit counts games opened: a refused body (400, 409, 422) or a retry
    # answered with the game it opened counts nothing
    limits: RateLimits = current_app.extensions["tongiaki.limits"]
    if key is None or not game_service().store.head(game_id_for(who, key)):
        limits.check("games", who.account_id)
    result = game_service().create_game(who, cmd.GameOptions(**data), order, key)
    if not result.duplicate:
        limits.count("games", who.account_id)
    return accepted(result, 201, with_legal=with_legal)


@bp.get("/games")
@documented(
    Operation(
        "/games",
        "get",
        "List games, newest activity first",
        GameList,
        params=[
            STATUS,
            query("limit", "integer", "at most this many (1 to 500)", minimum=1, maximum=500),
            OFFSET,
        ],
        errors=(422,),
    )
)
def index() -> ResponseReturnValue:
    status = status_arg()
    limit = int_arg("limit", 100, 1, 500) or 100
    offset = int_arg("offset", 0, 0, MAX_OFFSET) or 0
    # private tables (I1) are left out by the query, so every page is full and the
    # offsets count listed games only
    rows, more = paged(game_service().store.games(status, limit + 1, offset, listed=True), limit)
    return reply({"has_more": more, "games": list(rows)})


def on_vacation(state: GameState, recorded: Clock | None) -> list[dict[str, Any]]:
    """Who at the game is on vacation now (docs/vacation.md V8)."""
    vacations: Vacations = current_app.extensions["tongiaki.vacations"]
    return vacations.notices([(p.seat, p.player_id) for p in state.players], recorded)


def _view(game_id: str, at: int | None) -> ResponseReturnValue:
    games = game_service()
    version, state = games.load(game_id, at)
    names = games.store.account_names(p.player_id for p in state.players)
    clock, recorded = None, None
    if at is None and state.phase in UNDER_WAY:  # docs/clocks.md: the clock now
        recorded = games.clock_at(game_id, version, state)
        clock = clock_view(recorded.to_data() if recorded else None, games.clock())
    away = on_vacation(state, recorded) if at is None and state.options.vacation else None
    response = reply(
        {
            **({"vacation": away} if away is not None else {}),
            "game_id": game_id,
            "version": version,
            "status": state.phase.value,
            "position": public_position(state),
            "players": [
                {
                    "player_id": p.player_id,
                    "name": names.get(p.player_id),
                    "seat": p.seat,
                    "colours": list(p.colours),
                    "bot": state.bot_reason(p.seat),
                    **({"level": p.bot} if p.bot else {}),  # a bot's seat (B1)
                    "timeouts": state.timeouts.get(p.seat, 0),
                }
                for p in state.players
            ],
            "time_control": time_control(state.options),
            "rated": state.options.rated,
            "clock": clock,
            "offers": offers_view(state),
        }
    )
    response.headers["ETag"] = f'"{version}"'
    return response


@bp.get("/games/<game:game_id>")
@documented(Operation("/games/{game_id}", "get", "A game's public state", GameView, errors=(404,)))
def show(game_id: str) -> ResponseReturnValue:
    return _view(game_id, None)


@bp.get("/games/<game:game_id>/state")
@documented(
    Operation(
        "/games/{game_id}/state",
        "get",
        "The state at any version (snapshot + fold)",
        GameView,
        params=[query("at", "integer", "version (default: latest)", minimum=1, maximum=MAX_INT)],
        errors=(404, 422),
    )
)
def state_at(game_id: str) -> ResponseReturnValue:
    return _view(game_id, int_arg("at", None, 1))


@bp.post("/games/<game:game_id>/seats")
@documented(
    Operation(
        "/games/{game_id}/seats",
        "post",
        "Take a seat with a colour (two in the "
        "two-colour variant) and optional entropy for the deck",
        CommandAccepted,
        201,
        SeatCreate,
        auth=True,
        errors=(401, 403, 404, 409, 422),
        params=[IDEMPOTENCY_KEY, INCLUDE],
        headers=ANSWERED,
    )
)
def join(game_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    data = body(SeatCreate)
    with_legal = include_legal()
    key = idempotency_key()
    colours = chosen_colours(data)
    tables().admit_seat(game_id, who, data.get("invitation"))  # a private table's (I4)
    result = game_service().join(game_id, who, colours, data["entropy"], key)
    _seated(result, who)
    return accepted(result, 201, with_legal=with_legal)


def _seated(result: CommandResult, who: Account) -> None:
    """After a seat was taken at a private table: a decline sent meanwhile is taken
    back (I5)."""
    if result.state is not None and result.state.options.private:
        tables().seated(result.game_id, who)


@bp.post("/games/<game:game_id>/start")
@documented(
    Operation(
        "/games/{game_id}/start",
        "post",
        "Start the game (a seated player)",
        CommandAccepted,
        request=NoFields,
        auth=True,
        errors=(401, 403, 404, 409, 422),
        params=[IDEMPOTENCY_KEY, INCLUDE],
        headers=ANSWERED,
    )
)
def start(game_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    body(NoFields)  # nothing, or {}: anything else is a mistake worth saying
    with_legal = include_legal()
    key = idempotency_key()
    result = game_service().execute(game_id, who, {"type": "StartGame"}, None, key)
    return accepted(result, with_legal=with_legal)


@bp.get("/games/<game:game_id>/legal")
@documented(
    Operation(
        "/games/{game_id}/legal",
        "get",
        "Legal commands of the active seat; any item can be POSTed unchanged to /commands",
        LegalCommands,
        errors=(404,),
    )
)
def legal(game_id: str) -> ResponseReturnValue:
    return reply(legal_body(game_id, *game_service().load(game_id)))


def _expected_version(envelope: dict[str, object]) -> int | None:
    """The version a command expects: ``If-Match: "<version>"`` or ``expected_version``."""
    match = request.headers.get("If-Match")
    value = envelope.get("expected_version")
    in_body = value if isinstance(value, int) else None
    if match is None:
        return in_body
    text = match.strip()
    if text == "*":  # any version (RFC 9110)
        header_version = None
    else:
        # a strong tag only: a weak one (W/"12") never matches If-Match (RFC 9110 13.1.1);
        # the bare number too, as many clients send it
        quoted = len(text) >= 3 and text[0] == text[-1] == '"'
        try:
            header_version = bounded_int(text[1:-1] if quoted else text, "If-Match", 0)
        except BadRequest as exc:
            raise BadRequest(
                "bad_if_match",
                'If-Match is the version, quoted as a strong tag ("12") or bare (12), or *',
            ) from exc
    if text == "*":  # any version: the body's, if it names one
        return in_body
    if in_body is not None and in_body != header_version:
        raise BadRequest(
            "conflicting_versions", "If-Match and expected_version name different versions"
        )
    return header_version


@bp.post("/games/<game:game_id>/commands")
@documented(
    Operation(
        "/games/{game_id}/commands",
        "post",
        "Play a command",
        CommandAccepted,
        request=CommandEnvelope,
        auth=True,
        errors=(401, 403, 404, 409, 422),
        params=[
            header(
                "If-Match",
                'expected version, quoted as a strong tag ("12") or bare (12); or *: any (422'
                " bad_if_match otherwise; 409 stale_version when the game is elsewhere)",
                pattern=f'^(\\*|"{VERSION}"|{VERSION})$',
            ),
            IDEMPOTENCY_KEY,
            INCLUDE,
        ],
        headers=ANSWERED,
    )
)
def command(game_id: str) -> ResponseReturnValue:
    who = account()
    limit("commands", who.account_id)
    envelope = body(CommandEnvelope)
    expected = _expected_version(envelope)
    envelope.pop("expected_version", None)
    key = idempotency_key()
    with_legal = include_legal()
    joining = envelope.get("type") == "JoinGame" and not envelope.get("bot")
    if joining:  # a private table's seats (I4; a bot's is seated by a seated player)
        tables().admit_seat(game_id, who, None)
    result = game_service().execute(game_id, who, envelope, expected, key)
    if joining:
        _seated(result, who)
    return accepted(result, with_legal=with_legal)


@bp.get("/games/<game:game_id>/events")
@documented(
    Operation(
        "/games/{game_id}/events",
        "get",
        "Events after a version (JSON, or NDJSON with Accept: application/x-ndjson)",
        EventPage,
        params=[
            AFTER,
            query("limit", "integer", "at most this many (1 to 1000)", minimum=1, maximum=1000),
        ],
        errors=(404, 422),
        also={"application/x-ndjson": {"schema": {"type": "string"}}},
    )
)
def events(game_id: str) -> ResponseReturnValue:
    version, _ = game_service().load(game_id)
    after = int_arg("after", 0) or 0
    limit = int_arg("limit", 500, 1, 1000) or 500
    replica = current_app.extensions["tongiaki.services"].replica
    if replica is not None:  # whole pages from the standby, else the primary's
        found = replica.read(game_id, after, limit + 1, head=version)
    else:
        found = game_service().store.read(game_id, after, limit + 1)
    rows, more = paged(found, limit)
    if request.accept_mimetypes.best == "application/x-ndjson":
        text = "".join(json.dumps(event_json(e)) + "\n" for e in rows)
        return Response(text, mimetype="application/x-ndjson")
    next_after = rows[-1].version if rows else after
    return reply(
        {
            "game_id": game_id,
            "head": version,
            "events": [event_json(e) for e in rows],
            "next_after": next_after,
            "has_more": more,
        }
    )


PAGE = [
    query(
        "after",
        "integer",
        "sequence number to start after (next_after of the last page)",
        minimum=0,
        maximum=MAX_INT,
    ),
    query("limit", "integer", "at most this many (default 200)", minimum=1, maximum=1000),
]


@bp.get("/games/<game:game_id>/journal")
@documented(
    Operation(
        "/games/{game_id}/journal",
        "get",
        "Commands received, accepted or rejected, a page at a time"
        " (the game's players and auditors)",
        Journal,
        auth=True,
        params=PAGE,
        errors=(401, 403, 404, 422),
    )
)
def journal(game_id: str) -> ResponseReturnValue:
    player_or_auditor(game_id, "journal")
    after = int_arg("after", 0) or 0
    limit = int_arg("limit", 200, 1, 1000) or 200
    entries, more = paged(game_service().store.journal(game_id, after, limit + 1), limit)
    next_after = entries[-1].seq if entries else after
    return reply(
        {"game_id": game_id, "commands": entries, "next_after": next_after, "has_more": more}
    )


@bp.get("/games/<game:game_id>/verify")
@documented(
    Operation(
        "/games/{game_id}/verify",
        "get",
        "Check the hash chain, the revealed seed against every draw, and re-run every command",
        VerificationSchema,
        errors=(404,),
    )
)
def verify(game_id: str) -> ResponseReturnValue:
    report = verify_game(game_service().store, game_id).as_dict()
    if report["disputes"] and not _party(game_id):
        # a dispute exists only for the game's players and auditors (docs/disputes.md)
        report["disputes"] = []
        report["rerun_problems"] = [
            p for p in report["rerun_problems"] if not p.startswith("dispute ")
        ] + (["a dispute's record has a problem"] if not report["ok"] else [])
    return reply(report)


def _party(game_id: str) -> bool:
    """Whether the caller (if any token was sent) sits at the game or is an auditor."""
    if not request.headers.get("Authorization"):
        return False
    try:
        player_or_auditor(game_id, "dispute")
    except ServiceError:
        return False
    return True
