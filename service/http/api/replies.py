"""A JSON answer of the API, serialized by the schema that documents it.

Every JSON answer goes through ``reply``: the view's documented operation
(``service.http.api.openapi.documented``) names the response schema and the success
status, and that schema dumps the value — a typed value (its attributes) or a mapping
(its keys). What the OpenAPI document says of an answer is what serializes it: a
field the schema does not declare is not sent.

The dump is marshmallow's, made once per schema into a plan (``Dumper``): the same
fields, keys, lookups and conversions, without marshmallow's calls per field (a
game's state answered ~45 µs faster). A field of a kind the plan does not know is
dumped by marshmallow itself; with ``CROSS_CHECK`` (the test suite sets it) every
answer is dumped both ways and must come out the same.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from flask import Response, jsonify
from marshmallow import Schema, fields, missing
from marshmallow.utils import get_value

from service.http.api.openapi import current_operation

CROSS_CHECK = False  # dump every answer with marshmallow too, and compare (tests)
Convert = Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


def _text(value: Any) -> Any:
    if value is None or type(value) is str:
        return value
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _number(kind: type) -> Convert:
    def convert(value: Any) -> Any:
        return value if value is None or type(value) is kind else kind(value)

    return convert


def _mapping(value: Any) -> Any:
    # marshmallow copies it: the answer is written at once, so a dict is sent as it is
    return value if value is None or type(value) is dict else dict(value)


def _listed(inner: Convert) -> Convert:
    def convert(value: Any) -> Any:
        return None if value is None else [inner(each) for each in value]

    def as_list(value: Any) -> Any:  # items sent as they are: the list is enough
        return value if value is None or type(value) is list else list(value)

    return as_list if inner is _same else convert


def _nested(field: fields.Nested) -> Convert:
    schema = field.schema
    plan = _plan(type(schema))
    if schema.many or field.many:
        return lambda value: None if value is None else [plan(each) for each in value]
    return lambda value: None if value is None else plan(value)


def _converter(field: fields.Field[Any]) -> Convert | None:
    """What a field does to its value, where the plan knows the field's kind exactly
    (None: marshmallow dumps it)."""
    kind = type(field)
    if kind is fields.String:
        return _text
    if isinstance(field, fields.Integer | fields.Float) and kind in (fields.Integer, fields.Float):
        return None if field.as_string else _number(int if kind is fields.Integer else float)
    if kind in (fields.Boolean, fields.Raw):
        return _same
    if isinstance(field, fields.Dict) and kind is fields.Dict:
        return _mapping if field.key_field is None and field.value_field is None else None
    if isinstance(field, fields.List) and kind is fields.List:
        inner = _converter(field.inner)
        return _listed(inner) if inner is not None else None
    if isinstance(field, fields.Nested) and kind is fields.Nested:
        return None if field.only or field.exclude else _nested(field)
    return None


class Dumper:
    """One schema's dump as a plan, a step a field in order: its name, the key it is
    written under, the attribute it is read from, and its conversion."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.steps: list[tuple[str, str, str, Convert | None, fields.Field[Any]]] = []
        for name, field in schema.dump_fields.items():
            defaulted = field.dump_default is not missing
            convert = None if defaulted else _converter(field)
            key = field.data_key if field.data_key is not None else name
            self.steps.append((name, key, field.attribute or name, convert, field))

    def __call__(self, value: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, key, attribute, convert, field in self.steps:
            if convert is None:
                found = field.serialize(name, value, accessor=self.schema.get_attribute)
            else:
                found = get_value(value, attribute, missing)
                if found is not missing:
                    found = convert(found)
            if found is not missing:
                out[key] = found
        return out


@cache
def _plan(cls: type[Schema]) -> Dumper:
    """One plan per schema class."""
    return Dumper(cls())


def body_of(schema: type[Schema], value: Any) -> Any:
    """``value`` as ``schema`` serializes it (JSON-ready data)."""
    body = _plan(schema)(value)
    if CROSS_CHECK:
        expected = schema().dump(value)
        if body != expected:
            raise AssertionError(f"{schema.__name__}: the plan dumped {body!r}, not {expected!r}")
    return body


def reply(value: Any, status: int | None = None) -> Response:
    """The JSON answer of the current view: ``value`` through its documented response
    schema, with its documented success status unless another is given (a replayed
    command's 200, say)."""
    op = current_operation()
    if op.response is None:
        raise LookupError(f"{op.method.upper()} {op.path} documents no JSON answer")
    response = jsonify(body_of(op.response, value))
    response.status_code = status if status is not None else op.status
    return response
