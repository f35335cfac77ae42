"""The transparency log's proofs for the API's clients (issue 28): an entry's proof
bundle for a game's or a dispute's commit, and a consistency proof between two of the
log's trees (for pages that keep the largest checkpoint they have seen).

The log itself (checkpoint, key, tiles) is published under ``/log``
(``service.http.transparency``), in the C2SP formats.
"""

from __future__ import annotations

import base64

from flask import Blueprint, current_app
from flask.typing import ResponseReturnValue

from service.errors import BadRequest, NotFound
from service.http.api import MAX_INT, account, game_service, int_arg
from service.http.api.disputes import disputes
from service.http.api.openapi import Operation, documented, query
from service.http.api.replies import reply
from service.http.api.schemas.proofs import Consistency, EntryProof
from service.store.log_port import dispute_stream, game_stream
from service.transparency.log import TransparencyLog
from service.transparency.merkle import ProofError

bp = Blueprint("proofs", __name__)

VERSION_ARG = query(
    "version",
    "integer",
    "a version of the stream: the answer is the entry that covers it (its commit's)",
    required=True,
    minimum=1,
    maximum=MAX_INT,
)
RETRY = "1"  # seconds: pending commits are integrated within a second


def transparency_log() -> TransparencyLog:
    """This process's log."""
    log = current_app.extensions["tongiaki.services"].log
    if log is None:  # pragma: no cover - a serving process always signs
        raise NotFound("no_log", "this process publishes no transparency log")
    return log  # type: ignore[no-any-return]


def _proof(stream: str, version: int, head: int) -> ResponseReturnValue:
    if version > head:
        raise NotFound("unknown_version", f"{stream} has no version {version} (it is at {head})")
    proven = transparency_log().proof(stream, version)
    if proven is None:
        raise NotFound(
            "not_logged",
            f"{stream} v{version} is not in the log's published checkpoint yet: each commit is"
            " integrated within a second (and cosigned by the witnesses, if any); retry shortly",
            retry_after=int(RETRY),
        )
    return reply(
        {
            "stream": stream,
            "version": version,
            "entry_version": proven.entry.version,
            "index": proven.entry.index,
            "tree_size": proven.size,
            "entry": proven.entry.data.decode("ascii"),
            "bundle": proven.bundle.text,
            "root_at_entry": base64.b64encode(proven.root_at_entry).decode(),
            "since_entry": [base64.b64encode(h).decode() for h in proven.since_entry],
        }
    )


@bp.get("/games/<game:game_id>/proof")
@documented(
    Operation(
        "/games/{game_id}/proof",
        "get",
        "The log's proof of a game's version: the entry covering it and a C2SP tlog-proof"
        " bundle; 404 not_logged with Retry-After until its commit is integrated (within a"
        " second), 404 unknown_version past the game's head",
        EntryProof,
        params=[VERSION_ARG],
        errors=(404, 422),
    )
)
def game_proof(game_id: str) -> ResponseReturnValue:
    row = game_service().store.head(game_id)  # the index row: no fold needed here
    if row is None or row.version == 0:
        raise NotFound("unknown_game", f"there is no game {game_id!r}")
    version = int_arg("version", None, 1)
    if version is None:
        raise BadRequest("bad_query", "version is required: the commit's version")
    return _proof(game_stream(game_id), version, row.version)


@bp.get("/disputes/<dispute:dispute_id>/proof")
@documented(
    Operation(
        "/disputes/{dispute_id}/proof",
        "get",
        "The log's proof of a dispute's version (its game's players and auditors; 404"
        " not_logged with Retry-After until integrated)",
        EntryProof,
        params=[VERSION_ARG],
        auth=True,
        errors=(401, 404, 422),
    )
)
def dispute_proof(dispute_id: str) -> ResponseReturnValue:
    loaded = disputes().visible(account(), dispute_id)
    version = int_arg("version", None, 1)
    if version is None:
        raise BadRequest("bad_query", "version is required: the commit's version")
    return _proof(dispute_stream(dispute_id), version, loaded.row.version)


@bp.get("/log/consistency")
@documented(
    Operation(
        "/log/consistency",
        "get",
        "RFC 9162 consistency proof between two sizes of the log's tree (old ≤ new ≤ its"
        " size now; 422 bad_tree_size otherwise)",
        Consistency,
        params=[
            query(
                "old", "integer", "the older tree's size", required=True, minimum=0, maximum=MAX_INT
            ),
            query(
                "new", "integer", "the newer tree's size", required=True, minimum=0, maximum=MAX_INT
            ),
        ],
        errors=(422,),
    )
)
def consistency() -> ResponseReturnValue:
    old, new = int_arg("old", None), int_arg("new", None)
    if old is None or new is None:
        raise BadRequest("bad_query", "old and new are required: two sizes of the log's tree")
    log = transparency_log()
    size = log.store.log_head().size
    if not old <= new <= size:
        raise BadRequest("bad_tree_size", f"old ≤ new ≤ {size} (the log's tree's size now)")
    try:
        proof = log.consistency(old, new)
    except ProofError as exc:  # pragma: no cover - sizes checked above
        raise BadRequest("bad_query", str(exc)) from exc
    return reply({"old": old, "new": new, "proof": [base64.b64encode(h).decode() for h in proof]})
