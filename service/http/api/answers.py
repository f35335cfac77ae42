"""What a command is answered with: the accepted answer (new version, events, the
receipt with the log's signed promise, the legal commands when asked), and the request
headers every command reads (``Idempotency-Key``, ``include=legal``)."""

from __future__ import annotations

from functools import lru_cache

from flask import current_app, request
from flask.typing import ResponseReturnValue

from domain import commands as cmd
from domain.legal import legal_commands
from domain.serialization import encode
from domain.state import GameState
from service.errors import BadRequest
from service.http.api import game_service
from service.http.api.openapi import header, query
from service.http.api.replies import reply
from service.play.event_json import event_json
from service.play.receipts import CommandResult
from service.store.log_port import game_stream


@lru_cache(maxsize=65536)
def encode_command(command: cmd.Command) -> dict[str, object]:
    """A legal command as JSON data; commands are immutable values, so this is cached.

    The dicts are shared: callers serialise them and never change them.
    """
    return encode(command)


INCLUDE = query(
    "include",
    "string",
    "legal: the response also carries the next decision's legal commands "
    "(as GET /games/{game_id}/legal), which saves a round trip per move",
    enum=["legal"],
)
ANSWERED = ("ETag", "Idempotent-Replayed")


def include_legal() -> bool:
    """Whether ``?include=legal`` asks for the next legal commands (422 for other values).

    Checked before the command runs: a bad query changes nothing.
    """
    raw = request.args.get("include")
    if raw is None:
        return False
    if raw != "legal":
        raise BadRequest("bad_query", "include accepts only 'legal'")
    return True


IDEMPOTENCY_KEY = header(
    "Idempotency-Key",
    "1 to 128 visible ASCII characters, yours for this game: a retry of the same request "
    "gets the stored outcome (same status and body); another request with it gets 422 "
    "idempotency_key_reused (422 bad_idempotency_key for a key of another shape)",
    pattern="^[!-~]{1,128}$",
    minLength=1,
    maxLength=128,
)


def idempotency_key() -> str | None:
    """The ``Idempotency-Key`` header, if sent (422 unless 1–128 visible ASCII characters)."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not 1 <= len(key) <= 128 or not all("!" <= c <= "~" for c in key):
        raise BadRequest(
            "bad_idempotency_key", "Idempotency-Key has 1 to 128 visible ASCII characters"
        )
    return key


def legal_body(game_id: str, version: int, state: GameState) -> dict[str, object]:
    """The pending decision and every legal command, each POSTable unchanged (R25)."""
    colour = state.active_colour
    return {
        "game_id": game_id,
        "version": version,
        "decision": state.pending.kind if state.pending else None,
        "colour": colour,
        "player_id": state.owner(colour).player_id if colour else None,
        "commands": [encode_command(c) for c in legal_commands(state)],
    }


def receipt(result: CommandResult) -> dict[str, object]:
    """The receipt: the game's head after the command, and the log's signed promise of it
    (service.transparency.promises)."""
    out: dict[str, object] = {"version": result.version, "hash": result.hash}
    log = current_app.extensions["tongiaki.services"].log
    if log is not None and result.received_at:
        out["promise"] = log.promise(
            game_stream(result.game_id), result.version, result.hash, result.received_at
        )
    return out


def accepted(
    result: CommandResult, status: int = 200, *, with_legal: bool = False
) -> ResponseReturnValue:
    """The response to an accepted command: new version, events, receipt (and legal)."""
    payload: dict[str, object] = {
        "game_id": result.game_id,
        "version": result.version,
        "events": [event_json(e) for e in result.events],
        "receipt": receipt(result),
        "replayed": result.duplicate,
    }
    if with_legal:
        if result.state is not None:
            payload["legal"] = legal_body(result.game_id, result.version, result.state)
        else:  # a replayed command id: the game as it is now
            payload["legal"] = legal_body(result.game_id, *game_service().load(result.game_id))
    response = reply(payload, status)
    response.headers["ETag"] = f'"{result.version}"'
    if result.duplicate:
        response.headers["Idempotent-Replayed"] = "true"
    return response
