"""The OpenAPI document, generated from the marshmallow schemas, and a readable page."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema

from service.api import schemas


@dataclass
class Operation:
    """One documented endpoint."""

    path: str
    method: str
    summary: str
    response: type[Schema] | None = None
    status: int = 200
    request: type[Schema] | None = None
    auth: bool = False
    params: list[dict[str, Any]] = field(default_factory=list)
    errors: tuple[int, ...] = ()
    content: str = "application/json"


OPERATIONS: list[Operation] = []


def documented(op: Operation) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a view's operation in the OpenAPI document."""

    def mark(view: Callable[..., Any]) -> Callable[..., Any]:
        OPERATIONS.append(op)
        return view

    return mark


def query(name: str, kind: str, description: str) -> dict[str, Any]:
    """A query parameter."""
    return {"in": "query", "name": name, "schema": {"type": kind}, "description": description}


def header(name: str, description: str) -> dict[str, Any]:
    """A request header."""
    return {"in": "header", "name": name, "schema": {"type": "string"}, "description": description}


def build_spec() -> dict[str, Any]:
    """The OpenAPI 3 document of ``/api/v1``."""
    spec = APISpec(
        title="Tongiaki API",
        version="1.0.0",
        openapi_version="3.0.3",
        plugins=[MarshmallowPlugin()],
        info={
            "description": "Play, watch and audit Tongiaki. Errors are application/problem+json."
        },
        servers=[{"url": "/api/v1"}],
    )
    spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    spec.components.schema("Problem", schema=schemas.Problem)
    by_path: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        responses: dict[str, Any] = {}
        if op.response is not None:
            responses[str(op.status)] = {
                "description": "OK",
                "content": {op.content: {"schema": op.response}},
            }
        else:
            responses[str(op.status)] = {"description": op.content}
        for code in op.errors:
            responses[str(code)] = {
                "description": "problem",
                "content": {"application/problem+json": {"schema": "Problem"}},
            }
        operation: dict[str, Any] = {"summary": op.summary, "responses": responses}
        params = [dict(p) for p in op.params]
        if "{game_id}" in op.path:
            params.insert(
                0, {"in": "path", "name": "game_id", "required": True, "schema": {"type": "string"}}
            )
        if params:
            operation["parameters"] = params
        if op.request is not None:
            operation["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": op.request}},
            }
        if op.auth:
            operation["security"] = [{"bearer": []}]
        by_path.setdefault(op.path, {})[op.method] = operation
    for path, operations in by_path.items():
        spec.path(path=path, operations=operations)
    return spec.to_dict()


def docs_page(spec: dict[str, Any]) -> str:
    """A human-readable page listing every endpoint of the document."""
    rows = []
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            lock = " 🔒" if op.get("security") else ""
            codes = ", ".join(sorted(op["responses"]))
            rows.append(
                f"<tr><td><code>{method.upper()}</code></td><td><code>/api/v1{html.escape(path)}</code>"
                f"</td><td>{html.escape(op['summary'])}{lock}</td><td>{codes}</td></tr>"
            )
    return (
        "<!doctype html><html lang=en><meta charset=utf-8><title>Tongiaki API</title>"
        "<style>body{font:15px system-ui;margin:2rem;max-width:70rem}td{padding:.3rem .6rem;"
        "border-bottom:1px solid #ddd}code{font-size:14px}</style>"
        "<h1>Tongiaki API</h1><p>JSON under <code>/api/v1</code>; the machine-readable document "
        "is <a href=/api/v1/openapi.json><code>/api/v1/openapi.json</code></a>. 🔒 needs "
        "<code>Authorization: Bearer &lt;token&gt;</code> (from <code>POST /accounts</code>). "
        "Errors are <code>application/problem+json</code> with a <code>code</code> and, for rule "
        "violations, the <code>rule</code> of rules.md.</p>"
        "<table><tr><th>Method</th><th>Path</th><th>What</th><th>Responses</th></tr>"
        + "".join(rows)
        + "</table></html>"
    )
