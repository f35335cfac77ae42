"""Response shapes are stated once (issue 27): the marshmallow schema that documents an
answer in the OpenAPI document is the one that serializes it (``reply``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from flask import Flask
from marshmallow import fields

from service.http.api.openapi import Operation, current_operation, documented
from service.http.api.replies import body_of, reply
from service.http.api.schemas.base import Strict, StrictBoolean

API = Path(__file__).resolve().parents[2] / "service" / "http" / "api"


class Shape(Strict):
    name = fields.String(required=True)
    seats = fields.List(fields.Integer(), required=True)


class Seated:
    """A typed value: the schema reads its attributes."""

    def __init__(self) -> None:
        self.name = "Ana"
        self.seats = [1, 2]
        self.token_hash = "never sent"


def app_with(op: Operation, value: object, status: int | None = None) -> Flask:
    app = Flask("replies")
    app.testing = True  # a view's exception reaches the test

    @app.get("/x")
    @documented(op)
    def view() -> object:
        return reply(value, status)

    return app


def test_an_answer_is_what_its_documented_schema_dumps_and_nothing_else():
    op = Operation("/x", "get", "x", Shape)
    answer = app_with(op, {"name": "Ana", "seats": [1], "secret": "s"}).test_client().get("/x")
    assert answer.status_code == 200
    assert answer.get_json() == {"name": "Ana", "seats": [1]}


def test_a_typed_value_is_serialized_by_its_attributes_with_the_documented_status():
    op = Operation("/x", "get", "x", Shape, status=201)
    answer = app_with(op, Seated()).test_client().get("/x")
    assert answer.status_code == 201
    assert answer.get_json() == {"name": "Ana", "seats": [1, 2]}
    replayed = app_with(op, Seated(), 200).test_client().get("/x")
    assert replayed.status_code == 200


def test_a_view_that_is_not_documented_has_no_schema_to_answer_with():
    app = Flask("replies")
    with app.test_request_context("/x"), pytest.raises(LookupError):
        current_operation()
    op = Operation("/x", "get", "x", None, content="text/html")
    with pytest.raises(LookupError):
        app_with(op, {}).test_client().get("/x")


def test_no_api_view_builds_its_json_by_hand():
    """Every JSON answer of the API goes through ``reply``: no other module of the API
    calls jsonify or hands Flask a dict to serialize."""
    offenders = []
    for path in sorted(API.rglob("*.py")):
        if path.name == "replies.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id == "jsonify":
                offenders.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and getattr(d.func, "id", "") == "documented"
                for d in node.decorator_list
            ):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Return) and isinstance(inner.value, ast.Dict):
                        offenders.append(f"{path.name}:{inner.lineno}")
    assert not offenders, offenders


class Inner(Strict):
    n = fields.Integer(required=True)


class Every(Strict):
    text = fields.String()
    number = fields.Integer()
    ratio = fields.Float()
    flag = fields.Boolean()
    raw = fields.Raw()
    mapping = fields.Dict()
    listed = fields.List(fields.Integer())
    inner = fields.Nested(Inner, allow_none=True)
    inners = fields.List(fields.Nested(Inner))
    many = fields.Nested(Inner, many=True)
    renamed = fields.List(fields.String(), attribute="fields", data_key="fields")
    strict = StrictBoolean()


class Holder:
    def __init__(self, **values: object) -> None:
        self.__dict__.update(values)


@pytest.mark.parametrize(
    "value",
    [
        {},
        {"text": "a", "number": 3, "ratio": 0.5, "flag": True, "raw": [1, {"x": None}]},
        {"text": 5, "number": True, "ratio": 2, "flag": 0, "text2": "not declared"},
        {"text": b"bytes", "number": "12", "mapping": {"a": [1]}, "listed": [1, True]},
        {"text": None, "number": None, "mapping": None, "listed": None, "inner": None},
        {"inner": {"n": 1, "m": 2}, "inners": [{"n": 2}, Holder(n=3)], "many": [{"n": 4}]},
        {"fields": ["a", 1], "strict": False},
        Holder(text="t", number=1, inner=Holder(n=5), fields=["x"], other="not declared"),
    ],
)
def test_the_plan_dumps_as_marshmallow_does(value):
    """The plan's shortcut gives marshmallow's own answer: conversions, absent keys,
    None, nested and listed schemas, attributes of typed values, a renamed field and
    a field of a kind left to marshmallow."""
    assert body_of(Every, value) == Every().dump(value)
