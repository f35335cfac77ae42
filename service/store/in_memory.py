"""The whole service's storage in this process's memory: the events, journal, secrets,
snapshots, accounts and disputes in ``memory.MemoryEventStore``, and the tables of the
read models and of the notifications in an in-memory SQLite database beside it.

``DATABASE_URL=memory:`` runs the service on it, HTTP API included: for tests, demos
and tools. Nothing survives the process, and it serves one process only.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager

from projections.ports import Tx
from service.store.base import JournalEntry, StoredEvent
from service.store.database import SqlTx
from service.store.memory import MemoryEventStore
from service.store.sqlite import SQLiteDatabase


class InMemoryStore(MemoryEventStore):
    """The in-memory event store, with a database for the read side (``SqlStore``).

    The read side's database is one SQLite connection to ``:memory:`` (a pool of one:
    each further connection would open another, empty, database). Its history is the
    event store's: events and journal entries never change, so reading them outside
    the read-model transaction reads what the transaction would."""

    def __init__(self) -> None:
        super().__init__()
        self.db = SQLiteDatabase(":memory:", pool_size=1)

    # --- the read side's database ---------------------------------------------------

    @property
    def accounts_in_database(self) -> bool:
        """The accounts are in memory, not in the read side's SQLite."""
        return False

    @property
    def postgres(self) -> bool:
        """SQLite's dialect."""
        return False

    @property
    def lock_suffix(self) -> str:
        """A SQLite transaction holds the write lock from its start."""
        return ""

    def transaction(self) -> AbstractContextManager[SqlTx]:
        """One transaction on the read side's tables."""
        return self.db.transaction()

    def reading(self) -> AbstractContextManager[SqlTx]:
        """A read of the read side's tables."""
        return self.db.reading()

    def ensure_tables(self, statements: Sequence[str], marker: str, version: int) -> None:
        """Create the read side's tables unless ``marker`` records ``version`` (one
        process: the database's own check, under its lock, is the only one needed)."""
        self.db.create_tables(statements, marker, version)

    def private_tables(self) -> set[str]:
        """The ids of the private tables (docs/invitations.md, I1), kept in this store's
        SQL database by service/invitations (none before its tables exist)."""
        with self.db.reading() as tx:
            known = tx.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'private_tables'"
            ).fetchall()
            if not known:
                return set()
            return {str(r[0]) for r in tx.execute("SELECT game_id FROM private_tables").fetchall()}

    def ping(self, timeout: float) -> None:
        """The read side's database answers (the events are in this process)."""
        self.db.ping(timeout)

    def close(self) -> None:
        """Stop; the read side's connection is closed."""
        super().close()
        self.db.close()

    # --- the history the read models fold -------------------------------------------

    def events_after(self, tx: Tx, game_id: str, version: int) -> list[StoredEvent]:
        """A game's events after ``version``."""
        return self.read(game_id, after=version)

    def journal_after(self, tx: Tx, game_id: str, seq: int) -> list[JournalEntry]:
        """A game's journal entries after ``seq``."""
        return self.journal(game_id, after=seq)

    def heads(self, tx: Tx, in_order: bool = False) -> dict[str, int]:
        """Every game's head version; ``in_order``: in the order the games last changed."""
        with self._lock:
            rows = list(self._games.values())
        if in_order:
            rows.sort(key=lambda g: (g.updated_at, g.game_id))
        return {row.game_id: row.version for row in rows}

    def journal_heads(self, tx: Tx) -> dict[str, int]:
        """Every game's last journal sequence number."""
        with self._lock:
            return {
                game_id: max((e.seq or 0) for e in entries)
                for game_id, entries in self._journal.items()
                if entries
            }
