"""Commands and events to JSON-safe dicts and back, losslessly (no floats).

A dict is ``{"type": "<ClassName>", <field>: <value>, …}``. Tuples become
lists, cells ``[q, r]``, nested records (options, scores) dicts. Decoding is
strict: an unknown type or field, a missing field or a value of the wrong type
raises ``MalformedPayload`` with a message naming the field.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache
from typing import Any, Union

from domain.commands import COMMAND_TYPES, Command, GameOptions
from domain.disputes import EVENT_TYPES as DISPUTE_EVENTS
from domain.disputes import DisputeEvent
from domain.errors import MalformedPayload
from domain.events import EVENT_TYPES, Event, PlayerScore

COMMANDS: dict[str, type] = {t.__name__: t for t in COMMAND_TYPES}
EVENTS: dict[str, type] = {t.__name__: t for t in EVENT_TYPES}
_RECORDS: tuple[type, ...] = (GameOptions, PlayerScore)


@cache
def _field_names(cls: type) -> tuple[str, ...] | None:
    """The field names of a dataclass type, or None for any other type."""
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls))
    return None


@cache
def _omitted_at_default(cls: type) -> dict[str, Any]:
    """The fields of ``cls`` written only when they differ from their default
    (``domain.events.OMITTED_AT_DEFAULT``)."""
    return {
        f.name: f.default for f in dataclasses.fields(cls) if f.metadata.get("omitted_at_default")
    }


def to_data(value: Any) -> Any:
    """A JSON-safe form of a dataclass value (tuples become lists)."""
    kind: type = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is tuple or kind is list:
        return [to_data(v) for v in value]
    names = _field_names(kind)
    if names is not None:
        omitted = _omitted_at_default(kind)
        if omitted:
            return {
                name: to_data(getattr(value, name))
                for name in names
                if name not in omitted or getattr(value, name) != omitted[name]
            }
        return {name: to_data(getattr(value, name)) for name in names}
    if isinstance(value, float):
        raise TypeError("floats are not allowed in events or commands")
    if isinstance(value, tuple | list):
        return [to_data(v) for v in value]
    return value


def encode(message: Command | Event) -> dict[str, Any]:
    """``{"type": ..., **fields}`` for a command or an event."""
    data: dict[str, Any] = {"type": type(message).__name__}
    data.update(to_data(message))
    return data


def decode_command(data: Any) -> Command:
    """The command described by ``data`` (strict; ``MalformedPayload`` otherwise)."""
    return typing.cast(Command, _decode(data, COMMANDS, "command"))


def decode_event(data: Any) -> Event:
    """The event described by ``data`` (strict; ``MalformedPayload`` otherwise)."""
    return typing.cast(Event, _decode(data, EVENTS, "event"))


def encode_dispute_event(event: DisputeEvent) -> dict[str, Any]:
    """``{"type": ..., **fields}`` for a dispute's event."""
    data: dict[str, Any] = {"type": type(event).__name__}
    data.update(to_data(event))
    return data


def decode_dispute_event(data: Any) -> DisputeEvent:
    """The dispute event described by ``data`` (strict; ``MalformedPayload`` otherwise)."""
    return typing.cast(DisputeEvent, _decode(data, dict(DISPUTE_EVENTS), "dispute event"))


def _decode(data: Any, registry: dict[str, type], what: str) -> Any:
    if not isinstance(data, dict):
        raise MalformedPayload(f"a {what} is a JSON object")
    name = data.get("type")
    cls = registry.get(name) if isinstance(name, str) else None
    if cls is None:
        raise MalformedPayload(f"unknown {what} type {name!r}; one of: {', '.join(registry)}")
    body = {k: v for k, v in data.items() if k != "type"}
    try:
        return _fast_record(cls)(body)
    except _Mismatch:
        # the slow path finds the field at fault and says which
        return _record(cls, body, name or what)


class _Mismatch(Exception):
    """Raised by the compiled decoders; the slow path then explains the problem."""


Converter = typing.Callable[[Any], Any]


def _mismatch() -> Any:
    raise _Mismatch


@cache
def _fast_record(cls: type) -> Converter:
    """A decoder compiled once per record type: no messages, ``_Mismatch`` on any error."""
    fields = dataclasses.fields(cls)
    names = frozenset(f.name for f in fields)
    required = frozenset(
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )
    hints = _hints(cls)
    converters = {f.name: _converter(hints[f.name]) for f in fields}

    def decode(data: Any) -> Any:
        if type(data) is not dict:
            raise _Mismatch
        keys = data.keys()
        if not (keys <= names and required <= keys):
            raise _Mismatch
        return cls(**{k: converters[k](v) for k, v in data.items()})

    return decode


@cache
def _converter(hint: Any) -> Converter:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        options = [o for o in typing.get_args(hint) if o is not type(None)]
        nullable = len(options) < len(typing.get_args(hint))
        inner = [_converter(o) for o in options]

        def union(v: Any) -> Any:
            if v is None and nullable:
                return None
            for convert in inner:
                try:
                    return convert(v)
                except _Mismatch:
                    continue
            raise _Mismatch

        return union
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _converter(args[0])

            def many(v: Any) -> Any:
                if type(v) is not list and type(v) is not tuple:
                    raise _Mismatch
                return tuple([item(x) for x in v])

            return many
        items = [_converter(a) for a in args]

        def fixed(v: Any) -> Any:
            if (type(v) is not list and type(v) is not tuple) or len(v) != len(items):
                raise _Mismatch
            return tuple([c(x) for c, x in zip(items, v, strict=True)])

        return fixed
    if hint in _RECORDS:
        return _fast_record(hint)
    if hint in (bool, int, str):
        exact = hint

        def scalar(v: Any) -> Any:
            return v if type(v) is exact else _mismatch()

        return scalar
    raise TypeError(f"unsupported type {hint!r}")  # pragma: no cover


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _record(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise MalformedPayload(f"{where}: expected an object")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise MalformedPayload(f"{where}: unknown field(s) {', '.join(unknown)}")
    hints = _hints(cls)
    values = {}
    for name, f in fields.items():
        if name in data:
            values[name] = _value(hints[name], data[name], f"{where}.{name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise MalformedPayload(f"{where}: missing field {name}")
    return cls(**values)


def _value(hint: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _value(option, value, where)
            except MalformedPayload as exc:
                errors.append(str(exc))
        raise MalformedPayload(errors[0] if errors else f"{where}: bad value")
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise MalformedPayload(f"{where}: expected a list")
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_value(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise MalformedPayload(f"{where}: expected {len(args)} items")
        return tuple(
            _value(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value, strict=False))
        )
    if hint in _RECORDS:
        return _record(hint, value, where)
    if hint is bool:
        if not isinstance(value, bool):
            raise MalformedPayload(f"{where}: expected true or false")
        return value
    if hint is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise MalformedPayload(f"{where}: expected an integer")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise MalformedPayload(f"{where}: expected a string")
        return value
    raise MalformedPayload(f"{where}: unsupported type {hint!r}")  # pragma: no cover
