"""The read side on a PostgreSQL standby (``DATABASE_REPLICA_URL``, docs/replication.md).

Read models (lobby, scoreboards, timeline, audit…), the events pages of
``GET /games/{id}/events`` and the live streams' catch-up pages may be read from a
standby, so that the primary keeps its connections and its CPU for commands. A standby
is behind the primary by its replay lag, so nothing read there may show a player less
than they were given:

- a read model is read once its checkpoint *on the replica* has reached the version the
  reader asks for (``?min_version``: ``service.http.api.views.ready`` waits for it, then
  refuses with 503 ``projection_lagging``), and the data is read after the checkpoint
  from the same standby, whose replay only moves forward;
- a page of events counts only if it is whole: ``limit`` events, or every event up to
  the head the primary gave (``GET /games/{id}/events`` knows it from the game's load);
  a page the replica does not hold whole is read from the primary. Old events never
  change, so a whole page from a standby is the primary's page.

Everything that decides (commands, the games' states, verification, the deadlines)
reads the primary. A replica that is away or refuses costs one failed read: the primary
serves the read side for ``FALLBACK`` seconds, then the replica is tried again; each
read counts where it was served (``tongiaki_replica_reads``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from typing import Any

from service.runtime import counters as metrics
from service.runtime.outages import Outage
from service.store.base import StoredEvent, StoreUnavailable
from service.store.database import SqlDatabase, SqlTx
from service.store.postgres import PostgresDatabase
from service.store.streams import SqlStreams

log = logging.getLogger("tongiaki.replica")

FALLBACK = 5.0  # seconds the primary serves the read side after the replica failed
REPLICA_WAIT = 1.0  # seconds a read waits for one of the replica's connections


class ReplicaReads(SqlDatabase):
    """The read side's database: the replica while it answers, else the primary (for
    ``FALLBACK`` seconds). Transactions and everything else are the primary's."""

    lock_suffix = "FOR UPDATE"
    postgres = True

    def __init__(self, replica: SqlDatabase, primary: SqlDatabase, store: Any) -> None:
        self.replica = replica
        self.primary = primary
        self.store = store  # the primary's event store: the read-model tables' upgrades
        self._lock = threading.Lock()
        self._until = 0.0  # monotonic time until which the primary serves
        self.outage = Outage(
            "the replica", log, "reads served by the primary", "the primary served them"
        )

    def _away(self) -> None:
        with self._lock:
            self._until = time.monotonic() + FALLBACK

    def replica_up(self) -> bool:
        return time.monotonic() >= self._until

    @contextmanager
    def reading(self) -> Iterator[SqlTx]:
        """A read on the replica, or on the primary while the replica is away."""
        with ExitStack() as stack:
            served = self.replica if self.replica_up() else self.primary
            try:
                tx = stack.enter_context(served.reading())
            except StoreUnavailable as exc:
                if served is self.primary:
                    raise
                self._away()
                self.outage.failed(exc)
                served = self.primary
                tx = stack.enter_context(served.reading())
            try:
                yield tx
            except StoreUnavailable as exc:
                if served is self.replica:
                    self._away()  # this read fails (503); the next ones go to the primary
                    self.outage.failed(exc)
                raise
            if served is self.replica:
                self.outage.ok()
            metrics.replica_read("replica" if served is self.replica else "primary")

    def transaction(self) -> AbstractContextManager[SqlTx]:
        return self.primary.transaction()

    def upgrade_lock(self, tx: SqlTx) -> None:
        self.primary.upgrade_lock(tx)

    def table_exists(self, tx: SqlTx, name: str) -> bool:
        return self.primary.table_exists(tx, name)

    def upgrade(self) -> int:
        return self.primary.upgrade()

    def ensure_tables(self, statements: Sequence[str], marker: str, version: int) -> None:
        self.store.ensure_tables(statements, marker, version)

    @property
    def closed(self) -> bool:
        return self.primary.closed

    def close(self) -> None:
        self.replica.close()


class Replica:
    """What the read side reads from a standby: its database (``reads``, for the read
    models) and whole pages of events."""

    def __init__(self, url: str, primary: Any) -> None:
        standby = PostgresDatabase(url, max_size=10, timeout=REPLICA_WAIT, check=False)
        self.reads = ReplicaReads(standby, primary.db, primary)
        self.streams = SqlStreams(self.reads)
        self.primary = primary  # the event store

    def read(
        self, game_id: str, after: int, limit: int, head: int | None = None
    ) -> list[StoredEvent]:
        """The events after ``after``, at most ``limit``, as the primary has them: the
        replica's page if it is whole (``limit`` events, or every one up to ``head``),
        else the primary's."""
        rows = self.streams.read(game_id, after, limit)
        if len(rows) == limit or (head is not None and after + len(rows) >= head):
            return rows
        metrics.replica_read("primary")  # the replica has not replayed them yet
        return list(self.primary.read(game_id, after, limit))
