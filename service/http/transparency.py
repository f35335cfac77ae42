"""The transparency log as C2SP publishes a log (issue 28), under ``/log``:

- ``GET /log/checkpoint``: the newest signed checkpoint (C2SP tlog-checkpoint in a
  signed note, the witnesses' cosignatures beside the log's signature);
- ``GET /log/key``: the log's verifier key (``<name>+<key id>+<base64 key>``);
- ``GET /log/tile/<L>/<N>[.p/<W>]`` and ``GET /log/tile/entries/<N>[.p/<W>]``: C2SP
  tlog-tiles of height 8; full tiles never change (cached for a year, immutable).

Every answer is read from the database at the request: two web processes answer alike.
"""

from __future__ import annotations

from flask import Blueprint, Response
from flask.typing import ResponseReturnValue

from service.errors import NotFound
from service.http.api.proofs import transparency_log
from service.transparency.tiles import WIDTH, parse

bp = Blueprint("transparency", __name__)


@bp.after_request
def public(response: Response) -> Response:
    """The log is public: any site's tools may read it (no credentials are involved)."""
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response


IMMUTABLE = "public, max-age=31536000, immutable"
PARTIAL = "public, max-age=3600"  # a partial tile's bytes never change; it is replaced
TEXT = "text/plain"  # Flask adds the charset
MAX_PATH = 64  # characters of a tile path: the longest level-63 index fits


@bp.get("/log/checkpoint")
def checkpoint() -> ResponseReturnValue:
    """The newest signed checkpoint."""
    response = Response(transparency_log().head().note, mimetype=TEXT)
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/log/key")
def key() -> ResponseReturnValue:
    """The log's verifier key."""
    response = Response(transparency_log().key + "\n", mimetype=TEXT)
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


@bp.get("/log/tile/<path:rest>")
def tile(rest: str) -> ResponseReturnValue:
    """A tile or an entry bundle, by its canonical path."""
    path = f"tile/{rest}"
    found = parse(path) if len(path) <= MAX_PATH else None
    data = transparency_log().tile(path) if found is not None else None
    if found is None or data is None:
        raise NotFound(
            "no_such_tile",
            f"/log/{path[:MAX_PATH]} is no tile of this log's newest tree (C2SP tlog-tiles:"
            " tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>], N as x001/x234/067)",
        )
    response = Response(data, mimetype="application/octet-stream")
    response.headers["Cache-Control"] = IMMUTABLE if found.width == WIDTH else PARTIAL
    return response
