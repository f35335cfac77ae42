"""The OpenAPI document and the human-readable API page."""

from __future__ import annotations

import hashlib
import json
from functools import cache

from flask import Blueprint, Response, request
from flask.typing import ResponseReturnValue

from domain.position import LETTER
from domain.state import COLOURS
from domain.tiles import ALL_TILES, IslandTile
from service.http.api.openapi import Operation, build_spec, docs_page, documented
from service.http.api.replies import reply
from service.http.api.schemas.meta import TileData

bp = Blueprint("meta", __name__)


@cache
def _documents() -> tuple[bytes, bytes]:
    """The document and its page: made once per process (they are what the code says,
    and cost ~40 ms of CPU to make: a crowd asking for them at once took seconds each,
    found by a probe)."""
    spec = build_spec()
    document = json.dumps(spec, separators=(",", ":"), sort_keys=True).encode()
    return document, docs_page(spec).encode()


def _cached(body: bytes, mimetype: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.set_etag(hashlib.sha256(body).hexdigest()[:32])  # each its own
    response.cache_control.public = True
    response.cache_control.max_age = 300
    response.make_conditional(request)  # 304 to a client that has it (in place)
    response.headers.pop("Date", None)  # the server writes one (a 304 had two)
    return response


@bp.get("/openapi.json")
def openapi() -> ResponseReturnValue:
    return _cached(_documents()[0], "application/json")


@bp.get("/docs")
def docs() -> ResponseReturnValue:
    return _cached(_documents()[1], "text/html")


def tile_data() -> dict[str, object]:
    """The 32 tiles as the board is drawn from them (docs/tiles.md)."""
    tiles: dict[str, object] = {}
    for t in ALL_TILES:
        if isinstance(t, IslandTile):
            tiles[t.id] = {
                "kind": "island",
                "name": t.name,
                "value": t.value,
                "beaches": [
                    {"capacity": b.capacity, "jetties": list(b.jetties)} for b in t.beaches
                ],
            }
        else:
            tiles[t.id] = {
                "kind": "ocean",
                "name": f"Ocean {t.number}",
                "paths": [{"a": p.a, "b": p.b, "danger": p.danger} for p in t.paths],
            }
    return {"tiles": tiles, "colours": {c: LETTER[c] for c in COLOURS}}


@bp.get("/tiles")
@documented(
    Operation(
        "/tiles",
        "get",
        "Tile data: islands (value, beaches with capacity and jetty edges), ocean paths",
        TileData,
    )
)
def tiles() -> ResponseReturnValue:
    response = reply(tile_data())
    response.cache_control.max_age = 3600
    return response
