"""The OpenAPI document and the human-readable API page."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from flask.typing import ResponseReturnValue

from service.api.openapi import build_spec, docs_page

bp = Blueprint("meta", __name__)


@bp.get("/openapi.json")
def openapi() -> ResponseReturnValue:
    return jsonify(build_spec())


@bp.get("/docs")
def docs() -> ResponseReturnValue:
    return Response(docs_page(build_spec()), mimetype="text/html")
