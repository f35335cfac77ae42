"""The ``Streams`` port on a SQL database: each game's events (``events``) with its
index row (``games``) and the journal of every command received (``journal``); and the
same, read inside a read-model transaction (``projections.ports.History``).

An append is one transaction: the game's index row claimed and locked first (appends
to one game queue up there), then the journal entry, the events with their hash chain
and the new head, and a ruling's dispute events when there is one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from projections.ports import Tx
from service.store import disputes
from service.store.accounts import import_account
from service.store.base import (
    GENESIS,
    Account,
    AccountGone,
    Appended,
    CommandRecord,
    ConcurrencyConflict,
    DisputeAppend,
    GameRow,
    JournalEntry,
    NewEvent,
    StoredEvent,
    chain_events,
    no_nul,
)
from service.store.chains import EVENT, HEAD, Head, insert_events
from service.store.database import SqlDatabase, SqlTx
from service.store.journal import ENTRY, find_entry, insert_entry
from service.store.log_port import commits, game_stream
from service.store.log_sql import add_pending
from service.store.rows import Row, named, value
from service.store.secrets import keep_seed

GAME = Row(GameRow, "game_id", "version", "hash", "status", "created_at", "updated_at")
VERSION = Row(named, "game_id", "version", "status")
GAME_HEAD = Row(named, "game_id", "version")
JOURNAL_HEAD = Row(named, "game_id", "MAX(seq) AS seq")


class SqlStreams:
    """Games' event streams and their journal."""

    def __init__(self, db: SqlDatabase) -> None:
        self.db = db

    # --- writing ----------------------------------------------------------------

    def append(
        self,
        record: CommandRecord,
        expected_version: int,
        events: Sequence[NewEvent],
        status: str,
        prev_hash: str | None = None,
        dispute: DisputeAppend | None = None,
        seating: str | None = None,
    ) -> Appended:
        """Append one command's events atomically (see ``EventStore.append``)."""
        if not events:
            raise ValueError("an append holds at least one event")
        no_nul(record.game_id, record.command_id)
        with self.db.transaction() as tx:
            head = self._claim(tx, record, status)
            if head.version != expected_version or (
                prev_hash is not None and prev_hash != head.hash
            ):
                found = find_entry(tx, record.game_id, record.command_id)
                if found is not None:  # a retry of a command that was already applied
                    return self._duplicate(tx, found)
                raise ConcurrencyConflict(record.game_id, expected_version, head.version)
            if seating is not None:
                self._still_a_player(tx, seating)
            stored = chain_events(record.game_id, head.version, head.hash, events)
            entry = insert_entry(tx, JournalEntry.accepted(record, head.version, stored))
            if entry is None:  # the id was journalled before (e.g. rejected)
                found = find_entry(tx, record.game_id, record.command_id)
                assert found is not None
                return self._duplicate(tx, found)
            last = stored[-1]
            insert_events(tx, stored)
            tx.execute(
                "UPDATE games SET version = %s, hash = %s, status = %s, updated_at = %s"
                " WHERE game_id = %s",
                (last.version, last.hash, status, record.received_at, record.game_id),
            )
            add_pending(tx, game_stream(record.game_id), last.version, last.hash)
            if dispute is not None:
                disputes.append_in(
                    tx,
                    dispute.dispute_id,
                    record.game_id,
                    dispute.expected_version,
                    dispute.events,
                    dispute.status,
                    dispute.at,
                )
        return Appended(tuple(stored), last.version, last.hash, entry=entry)

    def _still_a_player(self, tx: SqlTx, account_id: str) -> None:
        """Raise ``AccountGone`` unless the account is a player's, its row locked until
        the commit: a deletion's first step (``change_kind``) waits for this append, and
        an append after it finds the account gone (docs/profiles.md, P6)."""
        kind = value(
            tx.execute(
                f"SELECT kind FROM accounts WHERE account_id = %s {self.db.lock_suffix}",
                (account_id,),
            )
        )
        if kind != "player":
            raise AccountGone(account_id)

    def _claim(self, tx: SqlTx, record: CommandRecord, status: str) -> Head:
        """Claim and lock the game's index row in one statement (a placeholder at version
        0 for a new game): appends to one game queue up here. Its head."""
        head = HEAD.one(
            tx.execute(
                "INSERT INTO games (game_id, version, hash, status, created_at, updated_at)"
                " VALUES (%s, 0, %s, %s, %s, %s) ON CONFLICT (game_id)"
                f" DO UPDATE SET game_id = games.game_id RETURNING {HEAD.select}",
                (record.game_id, GENESIS, status, record.received_at, record.received_at),
            )
        )
        assert head is not None  # an upsert returns its row
        return head

    def _duplicate(self, tx: SqlTx, found: JournalEntry) -> Appended:
        """A command journalled before, as its append returned it."""
        events: tuple[StoredEvent, ...] = ()
        if found.outcome == "accepted" and found.first_version is not None:
            events = tuple(
                EVENT.all(
                    tx.execute(
                        f"SELECT {EVENT.select} FROM events"
                        " WHERE game_id = %s AND version BETWEEN %s AND %s ORDER BY version",
                        (found.game_id, found.first_version, found.last_version),
                    )
                )
            )
        last = events[-1] if events else None
        return Appended(
            events,
            last.version if last else found.judged_version,
            last.hash if last else "",
            duplicate=True,
            entry=found,
        )

    def reject(
        self, record: CommandRecord, judged_version: int, rejection: dict[str, Any]
    ) -> JournalEntry:
        """Journal a rejected command, or return the outcome stored for its id."""
        no_nul(record.game_id, record.command_id)
        with self.db.transaction() as tx:
            found = find_entry(tx, record.game_id, record.command_id)
            if found is not None:
                return found
            stored = insert_entry(tx, JournalEntry.rejected(record, judged_version, rejection))
            if stored is None:
                found = find_entry(tx, record.game_id, record.command_id)
                assert found is not None
                return found
            return stored

    def import_stream(
        self,
        events: Sequence[StoredEvent],
        status: str,
        at: str,
        journal: Sequence[JournalEntry] = (),
        seed: bytes | None = None,
        accounts: Sequence[Account] = (),
        logged: Sequence[int] = (),
    ) -> None:
        """Store an exported game as it is (hashes kept), with its journal, deck seed and
        the accounts of its seats (those already here are kept as they are), in one
        transaction; ``ConcurrencyConflict`` if the game is already here."""
        game_id = events[0].game_id
        with self.db.transaction() as tx:
            exists = value(tx.execute("SELECT version FROM games WHERE game_id = %s", (game_id,)))
            if exists is not None:
                raise ConcurrencyConflict(game_id, 0, int(exists))
            for start in range(0, len(events), 100):
                insert_events(tx, events[start : start + 100])
            for entry in journal:
                if insert_entry(tx, replace(entry, game_id=game_id)) is None:
                    raise ConcurrencyConflict(game_id, 0, -1)
            if seed is not None:
                keep_seed(tx, game_id, seed)
            for account in accounts:
                import_account(tx, account)
            head = events[-1]
            tx.execute(
                "INSERT INTO games (game_id, version, hash, status, created_at, updated_at)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                (game_id, head.version, head.hash, status, at, at),
            )
            hashes = {e.version: e.hash for e in events}
            for version in commits(events, journal, logged):
                add_pending(tx, game_stream(game_id), version, hashes[version])

    # --- reading ------------------------------------------------------------------

    def durable(self) -> None:
        """Every commit of this database is as durable as the next (one file, one disk)."""

    def outcome(self, game_id: str, command_id: str) -> JournalEntry | None:
        """The journalled outcome of a command id, if any."""
        with self.db.reading() as tx:
            return find_entry(tx, game_id, command_id)

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events with version > ``after``, in order, at most ``limit``."""
        query = (
            f"SELECT {EVENT.select} FROM events"
            " WHERE game_id = %s AND version > %s ORDER BY version"
        )
        params: list[Any] = [game_id, after]
        if limit is not None:
            query += " LIMIT %s"
            params.append(limit)
        with self.db.reading() as tx:
            return EVENT.all(tx.execute(query, params))

    def head(self, game_id: str) -> GameRow | None:
        """The game's index row, or None."""
        with self.db.reading() as tx:
            return GAME.one(
                tx.execute(f"SELECT {GAME.select} FROM games WHERE game_id = %s", (game_id,))
            )

    def versions(self, game_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        """Head version and status of each of ``game_ids`` that exists (500 per query)."""
        found: dict[str, tuple[int, str]] = {}
        ids = list(game_ids)
        with self.db.reading() as tx:
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                marks = ", ".join(["%s"] * len(chunk))
                rows = VERSION.all(
                    tx.execute(
                        f"SELECT {VERSION.select} FROM games WHERE game_id IN ({marks})", chunk
                    )
                )
                found.update({r["game_id"]: (int(r["version"]), r["status"]) for r in rows})
        return found

    def games(
        self, status: str | None = None, limit: int = 100, offset: int = 0, listed: bool = False
    ) -> list[GameRow]:
        """Games, most recently updated first, optionally of one status, from ``offset``;
        ``listed``: only those a listing shows, not private tables (docs/invitations.md,
        I1: the ``private_tables`` rows service/invitations keeps in the store's database)."""
        query = f"SELECT {GAME.select} FROM games"
        params: list[Any] = []
        where = []
        if status is not None:
            where.append("status = %s")
            params.append(status)
        if listed:
            where.append(
                "NOT EXISTS (SELECT 1 FROM private_tables p WHERE p.game_id = games.game_id)"
            )
        if where:
            query += " WHERE " + " AND ".join(where)
        query += " ORDER BY updated_at DESC, game_id LIMIT %s OFFSET %s"
        params += [limit, offset]
        with self.db.reading() as tx:
            return GAME.all(tx.execute(query, params))

    def journal(self, game_id: str, after: int = 0, limit: int | None = None) -> list[JournalEntry]:
        """Commands received for the game, in arrival order: ``seq > after``, at most ``limit``."""
        query = f"SELECT {ENTRY.select} FROM journal WHERE game_id = %s AND seq > %s ORDER BY seq"
        params: list[Any] = [game_id, after]
        if limit is not None:
            query += " LIMIT %s"
            params.append(limit)
        with self.db.reading() as tx:
            return ENTRY.all(tx.execute(query, params))

    # --- read inside a read-model transaction (projections.ports.History) -----------

    def events_after(self, tx: Tx, game_id: str, version: int) -> list[StoredEvent]:
        """A game's events after ``version``, read inside ``tx``."""
        return EVENT.all(
            tx.execute(
                f"SELECT {EVENT.select} FROM events"
                " WHERE game_id = %s AND version > %s ORDER BY version",
                (game_id, version),
            )
        )

    def journal_after(self, tx: Tx, game_id: str, seq: int) -> list[JournalEntry]:
        """A game's journal entries after ``seq``, read inside ``tx``."""
        return ENTRY.all(
            tx.execute(
                f"SELECT {ENTRY.select} FROM journal WHERE game_id = %s AND seq > %s ORDER BY seq",
                (game_id, seq),
            )
        )

    def heads(self, tx: Tx, in_order: bool = False) -> dict[str, int]:
        """Every game's head version; ``in_order``: in the order the games last changed."""
        order = " ORDER BY updated_at, game_id" if in_order else ""
        rows = GAME_HEAD.all(tx.execute(f"SELECT {GAME_HEAD.select} FROM games{order}"))
        return {r["game_id"]: int(r["version"]) for r in rows}

    def journal_heads(self, tx: Tx) -> dict[str, int]:
        """Every game's last journal sequence number."""
        rows = JOURNAL_HEAD.all(
            tx.execute(f"SELECT {JOURNAL_HEAD.select} FROM journal GROUP BY game_id")
        )
        return {r["game_id"]: int(r["seq"] or 0) for r in rows}
