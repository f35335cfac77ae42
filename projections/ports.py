"""What the read side needs from the rest of the service, as small protocols.

The read models live in the event store's database (one transaction holds a
game's events, its read-model rows and its checkpoints, so a catch-up applies
exactly once), but the read side knows nothing of the store's adapters: it is
given a ``Database`` to run its own tables on, a ``History`` to read the events
and journal from (inside that transaction). ``service.store``'s SQL adapters
provide both. States it needs it folds itself, from its keyframes.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol


class Rows(Protocol):
    """What a statement returns."""

    def fetchone(self) -> Any:
        """The next row, or None."""
        ...

    def fetchall(self) -> list[Any]:
        """The remaining rows."""
        ...


class Tx(Protocol):
    """A transaction (or a read): statements with ``%s`` placeholders."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        """Run one statement."""
        ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement for each row."""
        ...

    def pipeline(self) -> AbstractContextManager[Any]:
        """Send the statements run inside together (PostgreSQL), or as they come."""
        ...


class Database(Protocol):
    """The database the read-model tables are kept in."""

    @property
    def postgres(self) -> bool:
        """Whether it is PostgreSQL (bulk inserts take one JSON argument there)."""
        ...

    @property
    def lock_suffix(self) -> str:
        """What locks selected rows until commit (``FOR UPDATE``, or nothing)."""
        ...

    def transaction(self) -> AbstractContextManager[Tx]:
        """One transaction: everything inside commits together or not at all."""
        ...

    def reading(self) -> AbstractContextManager[Tx]:
        """A read, each statement its own snapshot."""
        ...

    def ensure_tables(self, statements: Sequence[str], key: str, version: int) -> None:
        """Run ``statements`` once per ``version`` of the tables named ``key``."""
        ...


class Recorded(Protocol):
    """An event as the store keeps it."""

    @property
    def version(self) -> int: ...

    @property
    def type(self) -> str: ...

    def body(self) -> dict[str, Any]:
        """The event as a dict, with its ``type``."""
        ...

    def meta(self) -> dict[str, Any]:
        """Its metadata (actor, command id, recorded time, versions)."""
        ...


class Received(Protocol):
    """A command as the journal keeps it."""

    @property
    def seq(self) -> int | None: ...

    @property
    def command_id(self) -> str: ...

    @property
    def actor(self) -> Any: ...

    @property
    def received_at(self) -> str: ...

    @property
    def payload(self) -> Any: ...

    @property
    def judged_version(self) -> int: ...

    @property
    def outcome(self) -> str: ...

    @property
    def first_version(self) -> int | None: ...

    @property
    def last_version(self) -> int | None: ...

    @property
    def rejection(self) -> Any: ...


class History(Protocol):
    """The event store, read inside a read-model transaction."""

    def events_after(self, tx: Tx, game_id: str, version: int) -> Sequence[Recorded]:
        """A game's events after ``version``, in order."""
        ...

    def journal_after(self, tx: Tx, game_id: str, seq: int) -> Sequence[Received]:
        """A game's journal entries after ``seq``, in order."""
        ...

    def heads(self, tx: Tx, in_order: bool = False) -> dict[str, int]:
        """Every game's head version; ``in_order``: the games in the order they last
        changed (oldest first, then by id), so that a rebuild or a sweep in that order
        folds the ratings forward, each ended game after those that ended before it
        (G5), not back and forth (a refold from each game's place: the square of the
        games)."""
        ...

    def journal_heads(self, tx: Tx) -> dict[str, int]:
        """Every game's last journal sequence number."""
        ...
