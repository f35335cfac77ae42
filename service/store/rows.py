"""Named rows: a query's select list and how its rows are decoded, by column name.

A ``Row`` is written once per shape (``Row(StoredEvent, "game_id", "version", …)``): its
``select`` goes into the query, and each row that comes back is handed to ``make`` with
its values named after the columns (``AS`` names a computed one), so no caller reads a
row by position: ``make`` is a dataclass, a function, or ``named`` for a plain dict.
``value`` reads the one column of a statement that selects one.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from projections.ports import Rows

T = TypeVar("T")

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


class Row(Generic[T]):
    """The columns of one select list, and what each row of it becomes."""

    def __init__(self, make: Callable[..., T], *columns: str) -> None:
        self.make = make
        self.select = ", ".join(columns)
        self.names = tuple(column.rsplit(" AS ", 1)[-1] for column in columns)
        # where ``make``'s first parameters are these names in this order (a dataclass of
        # these columns), a row's values are passed in their order: the same call as by
        # name, without a dict per row
        parameters = inspect.signature(make).parameters.values()
        leading = tuple(p.name for p in parameters if p.kind in _POSITIONAL)
        self._in_order = leading[: len(self.names)] == self.names

    def one(self, rows: Rows) -> T | None:
        """The statement's next row, decoded (None if there is none)."""
        row = rows.fetchone()
        if row is None:
            return None
        if self._in_order:
            return self.make(*row)
        return self.make(**dict(zip(self.names, row, strict=True)))

    def all(self, rows: Rows) -> list[T]:
        """The statement's remaining rows, decoded."""
        make = self.make
        if self._in_order:
            return [make(*row) for row in rows.fetchall()]
        names = self.names
        return [make(**dict(zip(names, row, strict=True))) for row in rows.fetchall()]


def named(**columns: Any) -> dict[str, Any]:
    """A row as ``{column: value}``: what a ``Row`` of no dataclass makes."""
    return columns


def value(rows: Rows) -> Any:
    """The one column of a statement's next row (None if there is no row)."""
    row = rows.fetchone()
    return None if row is None else row[0]
