"""The OpenAPI document and the human-readable API page."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from flask.typing import ResponseReturnValue

from domain.position import LETTER
from domain.state import COLOURS
from domain.tiles import ALL_TILES, IslandTile
from service.api.openapi import Operation, build_spec, docs_page, documented
from service.api.schemas import TileData

bp = Blueprint("meta", __name__)


@bp.get("/openapi.json")
def openapi() -> ResponseReturnValue:
    return jsonify(build_spec())


@bp.get("/docs")
def docs() -> ResponseReturnValue:
    return Response(docs_page(build_spec()), mimetype="text/html")


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
    response = jsonify(tile_data())
    response.cache_control.max_age = 3600
    return response
