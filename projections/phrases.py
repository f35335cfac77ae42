"""Words to be said in a reader's language: a message and its values, kept as data.

A replay step's description is made of phrases (``projections.describe``): each a
message in English (its msgid, with ``{field}`` names) and the values of its fields —
numbers, names, or phrases themselves (a colour, a direction, a fleet). The English is
rendered here (``english``); the same data, stored beside it (``data``), is said in
another language by ``service.i18n.phrases`` from the ``messages`` catalog, where
pybabel finds every msgid written in a ``say``/``say_n`` call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Union

FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
Value = Union[str, int, "Phrase", "Listing", "Moment"]


@dataclass(frozen=True)
class Phrase:
    """A message (``msgid``; with ``plural``, the form for the count ``n``) and its
    fields' values."""

    msgid: str
    values: Mapping[str, Value] = field(default_factory=dict)
    plural: str | None = None
    n: int | None = None

    def english(self) -> str:
        text = self.msgid if self.plural is None or self.n == 1 else self.plural
        values = {k: english(v) for k, v in self.values.items()}
        if self.n is not None:
            values.setdefault("n", str(self.n))
        return FIELD.sub(lambda m: values.get(m[1], m[0]), text)

    def data(self) -> dict[str, Any]:
        """As JSON data: ``{"t": msgid, "v": {...}}`` (``"p"``, ``"n"`` for a plural)."""
        found: dict[str, Any] = {"t": self.msgid}
        if self.values:
            found["v"] = {k: data(v) for k, v in self.values.items()}
        if self.plural is not None:
            found["p"], found["n"] = self.plural, self.n
        return found


@dataclass(frozen=True)
class Listing:
    """Items said as a list: ``"a, b and c"`` (``joined`` "and"), or ``"a, b, c"``
    ("comma"), or ``"a/b"`` ("slash")."""

    items: tuple[Value, ...]
    joined: str = "and"

    def english(self) -> str:
        words = [english(i) for i in self.items]
        if self.joined == "slash":
            return "/".join(words)
        if self.joined == "comma" or len(words) < 2:
            return ", ".join(words)
        return ", ".join(words[:-1]) + " and " + words[-1]

    def data(self) -> dict[str, Any]:
        return {"l": [data(i) for i in self.items], "j": self.joined}


@dataclass(frozen=True)
class Moment:
    """A moment (ISO 8601), said as the reader writes dates: "6 Dec 2026, 14:00 UTC"."""

    iso: str

    def english(self) -> str:
        moment = datetime.fromisoformat(self.iso).astimezone(UTC)
        return moment.strftime("%-d %b %Y, %H:%M UTC")

    def data(self) -> dict[str, Any]:
        return {"d": self.iso}


def say(msgid: str, **values: Value) -> Phrase:
    """A message with its fields' values."""
    return Phrase(msgid, values)


def say_n(singular: str, plural: str, n: int, **values: Value) -> Phrase:
    """A message by count: ``singular`` for 1, else ``plural`` (in English); ``{n}``."""
    return Phrase(singular, values, plural, n)


def listing(items: Iterable[Value], joined: str = "and") -> Listing:
    return Listing(tuple(items), joined)


def english(value: Value) -> str:
    if isinstance(value, Phrase | Listing | Moment):
        return value.english()
    return str(value)


def data(value: Value) -> Any:
    if isinstance(value, Phrase | Listing | Moment):
        return value.data()
    return value
