"""The OpenAPI document, generated from the marshmallow schemas, and a readable page."""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import g
from marshmallow import Schema

from service.http.api.command_schema import commands_body
from service.http.api.schemas import (
    accounts,
    base,
    bots,
    chat,
    disputes,
    forks,
    games,
    identity,
    languages,
    leagues,
    meta,
    notes,
    profiles,
    proofs,
    ratings,
    scores,
    tables,
    vacation,
    views,
)
from service.play.text import patterns as text_patterns


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
    also: dict[str, dict[str, Any]] = field(default_factory=dict)  # other content types
    headers: tuple[str, ...] = ()  # response headers of the success answer
    limited: bool = False  # counted against a rate limit (429)
    more: dict[int, str] = field(default_factory=dict)  # other answers without a body


OPERATIONS: list[Operation] = []


def documented(op: Operation) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a view's operation in the OpenAPI document; while the view runs, its
    operation is the request's (``service.http.api.replies.reply`` serializes the answer
    with the schema documented here)."""

    def mark(view: Callable[..., Any]) -> Callable[..., Any]:
        OPERATIONS.append(op)

        @functools.wraps(view)
        def run(*args: Any, **kwargs: Any) -> Any:
            g.operation = op
            return view(*args, **kwargs)

        return run

    return mark


def current_operation() -> Operation:
    """The documented operation of the view answering this request."""
    op = g.get("operation")
    if not isinstance(op, Operation):
        raise LookupError("this view is not documented (service.http.api.openapi.documented)")
    return op


def query(
    name: str, kind: str, description: str, *, required: bool = False, **schema: Any
) -> dict[str, Any]:
    """A query parameter (``schema`` adds bounds: minimum, maximum, enum…)."""
    found: dict[str, Any] = {
        "in": "query",
        "name": name,
        "schema": {"type": kind, **schema},
        "description": description,
    }
    if required:
        found["required"] = True
    return found


def header(name: str, description: str, **schema: Any) -> dict[str, Any]:
    """A request header (``schema`` adds its shape: pattern, lengths…)."""
    return {
        "in": "header",
        "name": name,
        "schema": {"type": "string", **schema},
        "description": description,
    }


MAX_INT = 2**31 - 1


def up_to(limit: int) -> str:
    """A regular expression (no anchors) for the decimal numbers 0 to ``limit`` as the
    service reads them: plain digits, no sign, no leading zero."""
    digits = str(limit)
    parts = ["0", f"[1-9][0-9]{{0,{len(digits) - 2}}}"] if len(digits) > 1 else ["[0-9]"]
    for i, d in enumerate(digits):  # same length: below the limit at position i
        low = 1 if i == 0 else 0
        if int(d) > low:
            top = str(int(d) - 1)
            span = top if top == str(low) else f"[{low}-{top}]"
            rest = len(digits) - i - 1
            parts.append(digits[:i] + span + (f"[0-9]{{{rest}}}" if rest else ""))
    parts.append(digits)
    return "(" + "|".join(parts) + ")"


VERSION = up_to(MAX_INT)  # a version in a header, as plain digits

# Response headers the service sends, by name.
HEADERS: dict[str, dict[str, Any]] = {
    "Retry-After": {
        "description": "seconds to wait before trying again",
        "schema": {"type": "integer"},
    },
    "WWW-Authenticate": {
        "description": 'Bearer realm="tongiaki" (error="invalid_token" for a bad token)',
        "schema": {"type": "string"},
    },
    "Allow": {"description": "the methods this path accepts", "schema": {"type": "string"}},
    "ETag": {
        "description": 'the game\'s version after the command, e.g. "12"',
        "schema": {"type": "string"},
    },
    "Idempotent-Replayed": {
        "description": "true when the answer replays the stored outcome of an Idempotency-Key",
        "schema": {"type": "string"},
    },
}

# Why each status can come, for every operation that may answer it.
REASONS = {
    400: "the body is not JSON, or not a JSON object (problem)",
    401: "no bearer token or session, or one that names no account or was revoked (problem)",
    410: "a sign-in link or passkey prompt used already, or ended (problem)",
    403: "not allowed: not your seat or your turn, not a player (problem)",
    404: "no such game (problem)",
    405: "this path does not take that method; Allow lists those it takes (problem)",
    408: "the body did not arrive within 5 seconds; the connection closes (problem)",
    409: "a rule violation (with its rule) or a stale version (problem)",
    413: "the body is over 16 KiB, whatever the method (problem)",
    414: "the request line is too long for the HTTP server (problem)",
    415: "a body not sent as application/json in UTF-8 (problem)",
    422: "a field, query argument or header is invalid (problem)",
    429: "too many requests of this kind from this account or address (problem)",
    431: "the headers are too large for the HTTP server (problem)",
    503: "the database cannot be reached, a read model is behind or halted, or (streams)"
    " every stream slot of the process is held or too many viewers catch up at once"
    " (problem)",
}
ERROR_HEADERS = {
    401: ("WWW-Authenticate",),
    405: ("Allow",),
    429: ("Retry-After",),
    503: ("Retry-After",),
}


def _statuses(op: Operation) -> set[int]:
    """Every error status the operation can answer: its own and the service-wide ones."""
    # any request may carry a body: over the limit 413, too slow 408
    codes = set(op.errors) | {405, 408, 413, 414, 431, 503}
    if op.auth:
        codes |= {401, 429}
    if op.limited:
        codes |= {429}
    if op.method in ("post", "put", "patch") or op.request is not None:  # a JSON body
        codes |= {400, 408, 413, 415, 422}
    if any(
        "{" + name + "}" in op.path for name in ("game_id", "dispute_id", "league_id", "fork_id")
    ):
        codes |= {404}
    if any(p["in"] in ("query", "header") for p in op.params):
        codes |= {422}
    return codes


def _required(schema: type[Schema]) -> bool:
    """Whether a body must be sent: a field is required, or the schema asks for one of
    several (``openapi_extra``: an empty body is ``{}``, which would not do)."""
    extra = getattr(schema, "openapi_extra", {})
    return any(f.required for f in schema._declared_fields.values()) or "oneOf" in extra


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
    # the pages' session (docs/accounts.md): a write also sends X-CSRF-Token (403 csrf_failed)
    spec.components.security_scheme(
        "session", {"type": "apiKey", "in": "cookie", "name": "tongiaki_session"}
    )
    spec.components.schema("Problem", schema=base.Problem)
    by_path: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        by_path.setdefault(op.path, {})[op.method] = _operation(op)
    _link(by_path, "/games", "post", "201", "game_id")
    _link(by_path, "/games/{game_id}/disputes", "post", "201", "dispute_id")
    _link(by_path, "/leagues", "post", "201", "league_id")
    for path, operations in by_path.items():
        spec.path(path=path, operations=operations)
    document = spec.to_dict()
    for name, component in document["components"]["schemas"].items():
        _complete(name, component)
    return document


# every module of schemas (tests/service/test_api.py checks none is left out)
SCHEMA_MODULES = (
    *(accounts, base, bots, chat, disputes, forks, games, identity, languages, leagues, meta),
    notes,
    *(profiles, proofs, ratings, scores, tables, vacation, views),
)


def schema_named(name: str) -> type[Schema] | None:
    """The schema class a component of the document is named after."""
    for module in SCHEMA_MODULES:
        found = getattr(module, name, None)
        if isinstance(found, type) and issubclass(found, Schema):
            return found
    return None


def _complete(name: str, component: dict[str, Any]) -> None:
    """What a schema checks across its fields (marshmallow's validates_schema), said in
    JSON Schema where the class says it (``openapi_extra``); text patterns."""
    if name == "CommandEnvelope":  # every command's own shape, from the domain's types
        component.clear()
        component.update(commands_body())
        return
    schema = schema_named(name)
    extra = getattr(schema, "openapi_extra", None)
    if extra:
        component.update(extra)
    # text checked by service.play.text: its exact shape, made once per process
    for field_name, kind in getattr(schema, "openapi_patterns", {}).items():
        component["properties"][field_name]["pattern"] = text_patterns()[kind]


def _responses(op: Operation) -> dict[str, Any]:
    """An operation's answers: its success (with its schema), others, its problems."""
    responses: dict[str, Any] = {}
    success: dict[str, Any] = {"description": "OK"}
    if op.status == 204:  # no body
        success = {"description": "No content"}
    elif op.response is not None:
        success["content"] = {op.content: {"schema": op.response}, **op.also}
    else:
        success["description"] = op.content
        success["content"] = {op.content: {"schema": {"type": "string"}}}
    if op.headers:
        success["headers"] = {h: HEADERS[h] for h in op.headers}
    responses[str(op.status)] = success
    for code, description in op.more.items():
        responses[str(code)] = {"description": description}
    for code in sorted(_statuses(op)):
        responses[str(code)] = {
            "description": REASONS.get(code, "problem"),
            "content": {"application/problem+json": {"schema": "Problem"}},
        }
        if code in ERROR_HEADERS:
            responses[str(code)]["headers"] = {h: HEADERS[h] for h in ERROR_HEADERS[code]}
    return responses


PATH_PARAMETERS = {
    "game_id": "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$",
    "dispute_id": "^[A-Za-z0-9_-]{1,64}$",
    "credential_id": "^[0-9a-f]{12,16}$",
    "passkey_id": "^[0-9a-f]{12}$",
    "seq": "^[1-9][0-9]{0,9}$",  # a chat message's (docs/chat.md)
    "account_id": "^[A-Za-z0-9_-]{1,64}$",
    "league_id": "^[0-9a-f]{12}$",  # docs/leagues.md
    "fork_id": "^f[0-9a-f]{20}$",  # docs/forks.md
}


def _operation(op: Operation) -> dict[str, Any]:
    """One operation of the document."""
    operation: dict[str, Any] = {
        "operationId": operation_id(op.method, op.path),
        "summary": op.summary,
        "responses": _responses(op),
    }
    params = [dict(p) for p in op.params]
    for name, pattern in PATH_PARAMETERS.items():
        if "{" + name + "}" in op.path:
            path_parameter = {"type": "string", "pattern": pattern}
            params.insert(
                0, {"in": "path", "name": name, "required": True, "schema": path_parameter}
            )
    if params:
        operation["parameters"] = params
    if op.request is not None:
        operation["requestBody"] = {
            "required": _required(op.request),
            "content": {"application/json": {"schema": op.request}},
        }
    if op.auth:
        operation["security"] = [{"bearer": []}, {"session": []}]
    return operation


def operation_id(method: str, path: str) -> str:
    """An operation's id: its method and path in words (``get_games_game_id_state``)."""
    words = [w.strip("{}") for w in path.strip("/").split("/") if w]
    return "_".join([method, *words])


def _link(
    by_path: dict[str, dict[str, Any]], path: str, method: str, status: str, name: str
) -> None:
    """OpenAPI links from an answer carrying ``name`` (a new game's or dispute's id) to
    every operation that takes it in its path: clients and stateful testers follow them."""
    source = by_path.get(path, {}).get(method)
    if source is None:
        return
    links = {}
    for target_path, operations in by_path.items():
        if "{" + name + "}" not in target_path:
            continue
        others = set(re.findall(r"\{(\w+)\}", target_path)) - {name, "game_id"}
        if others:  # a path that needs more than the answer (a chat message's seq) has no link
            continue
        for target_method in operations:
            target = operation_id(target_method, target_path)
            parameters = {name: f"$response.body#/{name}"}
            if "{game_id}" in target_path and name != "game_id":
                parameters["game_id"] = "$request.path.game_id"
            links[target] = {"operationId": target, "parameters": parameters}
    source["responses"][status]["links"] = links


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
        # its style is a file of the pages': the policy allows no inline style
        '<link rel=stylesheet href="/static/api-docs.css">'
        "<h1>Tongiaki API</h1><p>JSON under <code>/api/v1</code>; the machine-readable document "
        "is <a href=/api/v1/openapi.json><code>/api/v1/openapi.json</code></a>. 🔒 needs "
        "<code>Authorization: Bearer &lt;token&gt;</code> (from <code>POST /accounts</code>). "
        "Errors are <code>application/problem+json</code> with a <code>code</code> and, for rule "
        "violations, the <code>rule</code> of rules.md.</p>"
        "<table><tr><th>Method</th><th>Path</th><th>What</th><th>Responses</th></tr>"
        + "".join(rows)
        + "</table></html>"
    )


MAX_OFFSET = 1_000_000
# the position in a listing that has no cursor (games, lobby): with has_more
OFFSET = query(
    "offset",
    "integer",
    "skip this many (the next page: offset + limit)",
    minimum=0,
    maximum=MAX_OFFSET,
)
