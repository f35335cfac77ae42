"""Problem types: every ``code`` an error answer can carry, and the page its ``type`` names.

A problem document's ``type`` is ``/problems/<code>``, a page of this service
(RFC 9457: a URI reference, here relative to the service). The catalogue behind
those pages is read from the code itself, so it cannot drift from what the
service answers: the engine's refusals (``RuleViolation(code, rule, message)``
in ``domain/``, with every rule each code can cite and its messages) and the
service's own errors (a ``ServiceError`` subclass raised with a literal code),
plus the HTTP errors the framework and the servers answer themselves.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cache
from http import HTTPStatus
from pathlib import Path

from werkzeug.exceptions import default_exceptions

from service import errors
from service.http.statuses import status_of

ROOT = Path(__file__).resolve().parents[2]
SERVICE_ERRORS = {
    cls.__name__: cls
    for cls in vars(errors).values()
    if isinstance(cls, type) and issubclass(cls, errors.ServiceError)
}
# codes answered outside any ServiceError: the one error handler's own, and the
# embedded and gunicorn servers' refusals (service.servers.refusals.problem_bytes)
OTHER_CODES = {
    "database_unavailable": (503, "The database cannot be reached right now; retry shortly."),
    "not_ready": (
        503,
        "GET /readyz: the process cannot serve yet (database, Redis or a read model; the"
        " detail names each reason).",
    ),
    "unacceptable_value": (422, "A value the store cannot keep (a NUL character, say)."),
    "internal_error": (500, "Something went wrong on the service's side; nothing a client sent."),
    "request_uri_too_long": (414, "The request line is longer than the server reads."),
    "request_header_fields_too_large": (431, "A header is longer than the server reads."),
    "bad_request": (400, "The HTTP request itself cannot be read."),
    "http_version_not_supported": (505, "An HTTP version the server does not speak."),
}


def code_for(reason: str) -> str:
    """The code of an HTTP error the framework or a server answers: its reason phrase
    in lower case, words joined by ``_`` (``Method Not Allowed``: ``method_not_allowed``)."""
    return reason.lower().replace(" ", "_").replace("-", "_").replace("'", "")


def type_uri(code: str) -> str:
    """The ``type`` of a problem document with ``code``: this service's page for it."""
    return f"/problems/{code}"


@dataclass
class ProblemType:
    """What a code means: HTTP statuses, the rules it can cite, the messages it says."""

    code: str
    statuses: set[int] = field(default_factory=set)
    rules: set[str] = field(default_factory=set)
    messages: list[str] = field(default_factory=list)
    source: str = ""  # "engine", "service" or "http"

    def add_message(self, text: str) -> None:
        if text and text not in self.messages:
            self.messages.append(text)


@cache
def catalogue() -> dict[str, ProblemType]:
    """Every code, read once from the engine's and the service's source."""
    found: dict[str, ProblemType] = {}

    def entry(code: str, source: str) -> ProblemType:
        return found.setdefault(code, ProblemType(code, source=source))

    for path in sorted((ROOT / "domain").glob("*.py")):
        for call in _calls(path):
            if _name(call) == "RuleViolation" and len(call.args) >= 2:
                code = _literal(call.args[0])
                if code is None:
                    continue
                item = entry(code, "engine")
                item.statuses.add(409)
                rule = _literal(call.args[1])
                if rule is not None:
                    item.rules.add(rule)
                if len(call.args) >= 3:
                    item.add_message(_text(call.args[2]))
    for path in sorted((ROOT / "service").rglob("*.py")):
        for call in _calls(path):
            cls = SERVICE_ERRORS.get(_name(call) or "")
            if cls is None or not call.args:
                continue
            code = _literal(call.args[0])
            if code is None:
                continue
            item = entry(code, "service")
            item.statuses.add(status_of(cls))
            if len(call.args) >= 2:
                item.add_message(_text(call.args[1]))
            for keyword in call.keywords:  # rule="C3": the rule the answer cites
                rule = _literal(keyword.value) if keyword.arg == "rule" else None
                if rule is not None:
                    item.rules.add(rule)
    for status, exc in default_exceptions.items():
        instance = exc()
        item = entry(code_for(instance.name), "http")
        item.statuses.add(status)
        item.add_message(str(instance.description or "").strip())
    for status in HTTPStatus:  # what the HTTP servers themselves answer
        if status >= 400:
            item = entry(code_for(status.phrase), "http")
            item.statuses.add(int(status))
            item.add_message(status.description)
    for code, (status, text) in OTHER_CODES.items():
        item = entry(code, "http")
        item.statuses.add(status)
        item.add_message(text)
    return found


def _calls(path: Path) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def _name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _literal(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _text(node: ast.expr) -> str:
    """A message as written in the source: f-string fields shown as ``…``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            literal = _literal(value) if isinstance(value, ast.Constant) else None
            parts.append(literal if literal is not None else "…")
        return "".join(parts)
    return ""
