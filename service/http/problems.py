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
from service.http.statuses import STATUSES, status_of

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

    templates: list[str] = field(default_factory=list)  # the messages with named fields

    def add_message(self, text: str) -> None:
        if text and text not in self.messages:
            self.messages.append(text)

    def add_template(self, text: str) -> None:
        if text and text not in self.templates:
            self.templates.append(text)


@dataclass(frozen=True)
class Refusal:
    """One refusal written in the source: its line, code, HTTP status, the rule it cites
    and its message as a template (``template``: an f-string's fields as ``{expr}``)."""

    line: int
    code: str
    status: int
    rules: tuple[str, ...]
    message: str
    template: str
    source: str  # "engine" or "service"


def refusals(path: Path) -> list[Refusal]:
    """The refusals written in one module: ``RuleViolation(code, rule, message)`` in
    ``domain/``, a ``ServiceError`` subclass raised with a literal code elsewhere."""
    found = []
    engine = path.resolve().is_relative_to(ROOT / "domain")
    for call in _calls(path):
        name = _name(call) or ""
        if engine and name == "RuleViolation" and len(call.args) >= 2:
            code, rule = _literal(call.args[0]), _literal(call.args[1])
            node = call.args[2] if len(call.args) >= 3 else None
            rules: tuple[str, ...] = (rule,) if rule is not None else ()
            status, source = 409, "engine"
        elif not engine and name in SERVICE_ERRORS and call.args:
            code, node = _literal(call.args[0]), call.args[1] if len(call.args) >= 2 else None
            status, source = status_of(SERVICE_ERRORS[name]), "service"
            rules = tuple(  # rule="C3": the rule the answer cites
                rule
                for keyword in call.keywords
                if keyword.arg == "rule" and (rule := _literal(keyword.value)) is not None
            )
        else:
            continue
        if code is None:
            continue
        text = _text(node) if node is not None else ""
        template = _template(node) if node is not None else ""
        found.append(Refusal(call.lineno, code, status, rules, text, template, source))
    return found


def sources() -> list[Path]:
    """The modules whose refusals the catalogue reads: the engine's, then the service's."""
    return sorted((ROOT / "domain").glob("*.py")) + sorted((ROOT / "service").rglob("*.py"))


@cache
def catalogue() -> dict[str, ProblemType]:
    """Every code, read once from the engine's and the service's source."""
    found: dict[str, ProblemType] = {}

    def entry(code: str, source: str) -> ProblemType:
        return found.setdefault(code, ProblemType(code, source=source))

    for path in sources():
        for refusal in refusals(path):
            item = entry(refusal.code, refusal.source)
            item.statuses.add(refusal.status)
            item.rules.update(refusal.rules)
            item.add_message(refusal.message)
            item.add_template(refusal.template)
    for code, status, text in http_problems():
        item = entry(code, "http")
        item.statuses.add(status)
        item.add_message(text)
        item.add_template(text)
    return found


def http_problems() -> list[tuple[str, int, str]]:
    """The codes, statuses and texts of what the framework and the servers answer
    themselves (werkzeug's errors, every HTTP status from 400, ``OTHER_CODES``)."""
    found = []
    for status, exc in default_exceptions.items():
        instance = exc()
        found.append((code_for(instance.name), status, str(instance.description or "").strip()))
    for phrase in HTTPStatus:  # what the HTTP servers themselves answer
        if phrase >= 400:
            found.append((code_for(phrase.phrase), int(phrase), phrase.description))
    found.extend((code, status, text) for code, (status, text) in OTHER_CODES.items())
    return found


def titles() -> list[str]:
    """Every problem ``title``: the service's kinds (``service.http.statuses``) and the
    HTTP errors' names."""
    names = [title for _, title in STATUSES.values()]
    names += [str(exc().name) for exc in default_exceptions.values()]
    names += [phrase.phrase for phrase in HTTPStatus if phrase >= 400]
    return list(dict.fromkeys(names))


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


def _template(node: ast.expr) -> str:
    """A message as a template: literal text as written (braces doubled), each f-string
    field as ``{expr}``, its expression as written (``{beach}``, ``{len(boats)}``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value.replace("{", "{{").replace("}", "}}"))
            elif isinstance(value, ast.FormattedValue):
                parts.append("{" + ast.unparse(value.value).replace("}", ")") + "}")
        return "".join(parts)
    return ""
