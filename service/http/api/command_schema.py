"""The JSON Schema of the commands players send, made from the domain's own types.

``POST /games/{game_id}/commands`` takes a command as ``domain.serialization``
reads it: ``{"type": "<name>", <field>: <value>, …}``, strict (an unknown type or
field, a missing field or a value of another kind is 422 ``malformed_command``),
plus an optional ``expected_version``. The document says exactly that, one schema
per command a player may send, so a client (or a fuzzer) knows every shape; what a
command means in a position is the rules' to judge (409 with the rule).

OpenAPI 3.0 has no tuple of different kinds: ``Expand.take_from`` (an island and a
beach) is said as a pair of strings or integers, and its order in its description.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Union

from domain import commands as cmd

MAX_INT = 2**31 - 1  # numbers in a request (service.http.api.parse_json)
# the commands a player's POST may carry (service.play.games: anything else is 422)
PLAYER_COMMANDS: tuple[type, ...] = (
    *cmd.PLAY_COMMANDS,
    *cmd.SEAT_COMMANDS,
    cmd.JoinGame,
    cmd.StartGame,
)
# text of a command is journalled as sent: no store keeps a NUL. The bounds keep a
# command well under the 16 KiB of a body (no command of a game comes near them)
TEXT = {"type": "string", "maxLength": 256, "pattern": "^[^\\x00]*$"}
MAX_ITEMS = 32


def kind(hint: Any) -> dict[str, Any]:
    """The JSON Schema of a field of type ``hint`` (as domain.serialization decodes it)."""
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        options = [o for o in typing.get_args(hint) if o is not type(None)]
        schema = kind(options[0]) if len(options) == 1 else {"anyOf": [kind(o) for o in options]}
        if len(options) < len(typing.get_args(hint)):
            schema = {**schema, "nullable": True}
        return schema
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": kind(args[0]), "maxItems": MAX_ITEMS}
        kinds = [kind(a) for a in args]
        items = kinds[0] if all(k == kinds[0] for k in kinds) else {"anyOf": kinds}
        return {"type": "array", "items": items, "minItems": len(args), "maxItems": len(args)}
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer", "minimum": -MAX_INT, "maximum": MAX_INT}
    if hint is str:
        return dict(TEXT)
    raise TypeError(f"no JSON Schema for {hint!r}")  # pragma: no cover


def command_schema(command: type) -> dict[str, Any]:
    """One command: its ``type``, its fields (required unless they have a default)."""
    hints = typing.get_type_hints(command)
    properties: dict[str, Any] = {"type": {"type": "string", "enum": [command.__name__]}}
    required = ["type"]
    given = cmd.SERVICE_FIELDS.get(command, ())
    for f in dataclasses.fields(command):
        if f.name in given:  # the service fills it in from the record (T1)
            continue
        properties[f.name] = kind(hints[f.name])
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    properties["expected_version"] = {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_INT,
        "nullable": True,
        "description": "as If-Match (give one or the other, or the same in both)",
    }
    doc = (command.__doc__ or "").strip().split("\n\n")[0]
    return {
        "type": "object",
        "title": command.__name__,
        "description": " ".join(doc.split()),
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def commands_body() -> dict[str, Any]:
    """The body of ``POST /games/{game_id}/commands``: one of the players' commands."""
    return {
        "description": "a command, as an item of GET /games/{game_id}/legal gives it (each may"
        " be POSTed unchanged); Expand.take_from is [island, beach]",
        "oneOf": [command_schema(c) for c in PLAYER_COMMANDS],
    }
