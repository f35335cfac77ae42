"""Schemas of ``/tiles`` (service/http/api/meta.py)."""

from __future__ import annotations

from marshmallow import fields

from service.http.api.schemas.base import Strict


class TileData(Strict):
    tiles = fields.Dict(required=True, metadata={"description": "by tile id"})
    colours = fields.Dict(required=True, metadata={"description": "colour → letter"})
