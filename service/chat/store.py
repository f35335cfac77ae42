"""The chat's storage on SQL (docs/chat.md M9): each chat's hash-chained stream, and the
rows pages read, written together in one transaction per event.

The same SQL serves SQLite, PostgreSQL and the in-memory store (whose tables live in
its in-memory SQLite database). An append locks the stream's head row first, so two
events of one chat are written one after the other, each linked to the one before;
what a rule checks against the record (M4's count, M6's once, M7's once) is read
after that lock, in the same transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from projections.ports import Tx
from service.chat.schema import CHAT_SCHEMA, SITE, TABLES
from service.store.base import GENESIS, SqlStore, StoredEvent, canonical, chain_hash, no_nul
from service.store.rows import Row, value


@dataclass(frozen=True)
class Message:
    """One message as stored, and its hiding (M7) if any."""

    game_id: str
    seq: int
    channel: str
    author: str
    text: str
    at: str
    at_ms: int
    hidden_seq: int | None
    hidden_by: str | None
    hidden_reason: str | None
    hidden_at: str | None


MESSAGE = Row(
    Message,
    "game_id",
    "seq",
    "channel",
    "author",
    "text",
    "at",
    "at_ms",
    "hidden_seq",
    "hidden_by",
    "hidden_reason",
    "hidden_at",
)


@dataclass(frozen=True)
class Report:
    """A report of a message (M6), as the auditors' queue lists it."""

    game_id: str
    seq: int
    reporter: str
    reason: str
    at: str
    report_seq: int


REPORT = Row(Report, "game_id", "seq", "reporter", "reason", "at", "report_seq")


@dataclass(frozen=True)
class Stop:
    """An account stopped from chatting (M8)."""

    account_id: str
    stopped_by: str
    reason: str
    at: str


STOP = Row(Stop, "account_id", "stopped_by", "reason", "at")
EVENT = Row(
    StoredEvent,
    "stream AS game_id",
    "seq AS version",
    "type",
    "data",
    "metadata",
    "prev_hash",
    "hash",
)
Check = Callable[[Tx], None]  # a rule read against the record, after the head's lock


class ChatStore:
    """The chat's streams and rows on one SQL store."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    def upgrade(self) -> None:
        """Create the chat's tables (idempotent)."""
        self.store.ensure_tables(TABLES, "chat_schema", CHAT_SCHEMA)

    # --- appending ---------------------------------------------------------------

    def _append(
        self, tx: Tx, stream: str, kind: str, data: dict[str, Any], at: str, check: Check
    ) -> int:
        """Lock the stream's head, run ``check``, append one event; its ``seq``."""
        tx.execute(
            "INSERT INTO chat_heads (stream, seq, hash) VALUES (%s, 0, %s) ON CONFLICT DO NOTHING",
            (stream, GENESIS),
        )
        head = tx.execute(
            f"SELECT seq, hash FROM chat_heads WHERE stream = %s {self.store.lock_suffix}",
            (stream,),
        ).fetchone()
        assert head is not None
        check(tx)
        seq, prev = int(head[0]) + 1, str(head[1])
        body, meta = canonical(data), canonical({"at": at})
        digest = chain_hash(prev, body, meta)
        tx.execute(
            "INSERT INTO chat_events (stream, seq, type, data, metadata, prev_hash, hash)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (stream, seq, kind, body, meta, prev, digest),
        )
        tx.execute(
            "UPDATE chat_heads SET seq = %s, hash = %s WHERE stream = %s", (seq, digest, stream)
        )
        if self.store.postgres:  # every process's live streams hear of it at the commit
            tx.execute("SELECT pg_notify('tongiaki_chat', %s)", (stream,))
        return seq

    def post(
        self, game_id: str, channel: str, author: str, text: str, at: str, at_ms: int, check: Check
    ) -> Message:
        """Append ``ChatMessagePosted`` once ``check`` (M4, M8) passes; the message."""
        no_nul(text)
        data = {"channel": channel, "author": author, "text": text}
        with self.store.transaction() as tx:
            seq = self._append(tx, game_id, "ChatMessagePosted", data, at, check)
            tx.execute(
                "INSERT INTO chat_messages (game_id, seq, channel, author, text, at, at_ms)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (game_id, seq, channel, author, text, at, at_ms),
            )
        return Message(game_id, seq, channel, author, text, at, at_ms, None, None, None, None)

    def hide(self, game_id: str, seq: int, by: str, reason: str, at: str, check: Check) -> int:
        """Append ``ChatMessageHidden`` once ``check`` (M7) passes; its seq."""
        no_nul(reason)
        data = {"seq": seq, "by": by, "reason": reason}
        with self.store.transaction() as tx:
            hid = self._append(tx, game_id, "ChatMessageHidden", data, at, check)
            tx.execute(
                "UPDATE chat_messages SET hidden_seq = %s, hidden_by = %s, hidden_reason = %s,"
                " hidden_at = %s WHERE game_id = %s AND seq = %s",
                (hid, by, reason, at, game_id, seq),
            )
        return hid

    def report(self, game_id: str, seq: int, by: str, reason: str, at: str, check: Check) -> int:
        """Append ``ChatMessageReported`` once ``check`` (M6) passes; its seq."""
        no_nul(reason)
        data = {"seq": seq, "by": by, "reason": reason}
        with self.store.transaction() as tx:
            rep = self._append(tx, game_id, "ChatMessageReported", data, at, check)
            tx.execute(
                "INSERT INTO chat_reports (game_id, seq, reporter, reason, at, report_seq)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                (game_id, seq, by, reason, at, rep),
            )
        return rep

    def mute(self, game_id: str, muter: str, muted: str, at: str, on: bool) -> bool:
        """Set (or clear) a mute (M5); whether anything changed (nothing is appended
        for a mute already as asked)."""
        kind = "ChatMuteSet" if on else "ChatMuteCleared"
        changed = False

        def check(tx: Tx) -> None:
            nonlocal changed
            there = tx.execute(
                "SELECT 1 FROM chat_mutes WHERE game_id = %s AND muter = %s AND muted = %s",
                (game_id, muter, muted),
            ).fetchone()
            changed = (there is None) == on
            if not changed:
                raise _Unchanged

        try:
            with self.store.transaction() as tx:
                self._append(tx, game_id, kind, {"by": muter, "account": muted}, at, check)
                if on:
                    tx.execute(
                        "INSERT INTO chat_mutes (game_id, muter, muted) VALUES (%s, %s, %s)",
                        (game_id, muter, muted),
                    )
                else:
                    tx.execute(
                        "DELETE FROM chat_mutes WHERE game_id = %s AND muter = %s AND muted = %s",
                        (game_id, muter, muted),
                    )
        except _Unchanged:
            return False
        return changed

    def stop(self, account_id: str, by: str, reason: str, at: str, on: bool) -> bool:
        """Stop an account from chatting (or lift it) site-wide (M8); whether it changed."""
        no_nul(reason)
        kind = "ChatStopSet" if on else "ChatStopCleared"

        def check(tx: Tx) -> None:
            there = tx.execute(
                "SELECT 1 FROM chat_stops WHERE account_id = %s", (account_id,)
            ).fetchone()
            if (there is None) != on:
                raise _Unchanged

        data = {"account": account_id, "by": by, "reason": reason}
        try:
            with self.store.transaction() as tx:
                self._append(tx, SITE, kind, data, at, check)
                tx.execute("DELETE FROM chat_stops WHERE account_id = %s", (account_id,))
                if on:
                    tx.execute(
                        "INSERT INTO chat_stops (account_id, stopped_by, reason, at)"
                        " VALUES (%s, %s, %s, %s)",
                        (account_id, by, reason, at),
                    )
        except _Unchanged:
            return False
        return True

    # --- reading -----------------------------------------------------------------

    def messages(
        self, game_id: str, channels: Sequence[str], after: int, limit: int, muted: Sequence[str]
    ) -> list[Message]:
        """Messages after ``after`` in ``channels``, oldest first, none by ``muted``."""
        marks = ", ".join(["%s"] * len(channels))
        skip = f" AND author NOT IN ({', '.join(['%s'] * len(muted))})" if muted else ""
        with self.store.reading() as tx:
            rows = tx.execute(
                f"SELECT {MESSAGE.select} FROM chat_messages WHERE game_id = %s AND seq > %s"
                f" AND channel IN ({marks}){skip} ORDER BY seq LIMIT %s",
                (game_id, after, *channels, *muted, limit),
            )
            return MESSAGE.all(rows)

    def hidden_since(
        self, game_id: str, channels: Sequence[str], after: int, upto: int, limit: int
    ) -> list[Message]:
        """Messages up to ``upto`` hidden after ``after`` (a page shown earlier updates)."""
        marks = ", ".join(["%s"] * len(channels))
        with self.store.reading() as tx:
            rows = tx.execute(
                f"SELECT {MESSAGE.select} FROM chat_messages WHERE game_id = %s"
                f" AND hidden_seq > %s AND seq <= %s AND channel IN ({marks})"
                " ORDER BY hidden_seq LIMIT %s",
                (game_id, after, upto, *channels, limit),
            )
            return MESSAGE.all(rows)

    def message(self, tx: Tx | None, game_id: str, seq: int) -> Message | None:
        """One message (inside ``tx`` where a rule reads it under the head's lock)."""
        if tx is None:
            with self.store.reading() as read:
                return self.message(read, game_id, seq)
        rows = tx.execute(
            f"SELECT {MESSAGE.select} FROM chat_messages WHERE game_id = %s AND seq = %s",
            (game_id, seq),
        )
        return MESSAGE.one(rows)

    def head(self, stream: str) -> int:
        """The stream's last seq (0 for a chat with nothing said)."""
        with self.store.reading() as tx:
            found = value(tx.execute("SELECT seq FROM chat_heads WHERE stream = %s", (stream,)))
        return int(found or 0)

    def heads(self, streams: Sequence[str]) -> dict[str, int]:
        """The last seq of each of ``streams`` that has one (the live streams' pings)."""
        if not streams:
            return {}
        marks = ", ".join(["%s"] * len(streams))
        with self.store.reading() as tx:
            rows = tx.execute(
                f"SELECT stream, seq FROM chat_heads WHERE stream IN ({marks})", tuple(streams)
            ).fetchall()
        return {str(r[0]): int(r[1]) for r in rows}

    def recent(self, tx: Tx, game_id: str, author: str, since_ms: int, limit: int) -> list[int]:
        """When ``author``'s latest messages in the game were posted (M4), newest first."""
        rows = tx.execute(
            "SELECT at_ms FROM chat_messages WHERE game_id = %s AND author = %s AND at_ms > %s"
            " ORDER BY at_ms DESC LIMIT %s",
            (game_id, author, since_ms, limit),
        ).fetchall()
        return [int(r[0]) for r in rows]

    def reported(self, tx: Tx | None, game_id: str, seq: int, reporter: str) -> bool:
        """Whether ``reporter`` reported the message already (M6)."""
        if tx is None:
            with self.store.reading() as read:
                return self.reported(read, game_id, seq, reporter)
        sql = "SELECT 1 FROM chat_reports WHERE game_id = %s AND seq = %s AND reporter = %s"
        return tx.execute(sql, (game_id, seq, reporter)).fetchone() is not None

    def reported_by(self, game_id: str, reporter: str, seqs: Sequence[int]) -> set[int]:
        """Which of ``seqs`` ``reporter`` reported."""
        if not seqs:
            return set()
        marks = ", ".join(["%s"] * len(seqs))
        with self.store.reading() as tx:
            rows = tx.execute(
                "SELECT seq FROM chat_reports WHERE game_id = %s AND reporter = %s"
                f" AND seq IN ({marks})",
                (game_id, reporter, *seqs),
            ).fetchall()
        return {int(r[0]) for r in rows}

    def mutes(self, game_id: str, muter: str) -> list[str]:
        """Whom ``muter`` muted in the game (M5), by account id."""
        with self.store.reading() as tx:
            rows = tx.execute(
                "SELECT muted FROM chat_mutes WHERE game_id = %s AND muter = %s ORDER BY muted",
                (game_id, muter),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def stopped(self, tx: Tx | None, account_id: str) -> Stop | None:
        """The account's stop (M8), if any."""
        if tx is None:
            with self.store.reading() as read:
                return self.stopped(read, account_id)
        rows = tx.execute(
            f"SELECT {STOP.select} FROM chat_stops WHERE account_id = %s", (account_id,)
        )
        return STOP.one(rows)

    def stops(self, limit: int, offset: int) -> list[Stop]:
        """Every account stopped, newest first."""
        with self.store.reading() as tx:
            rows = tx.execute(
                f"SELECT {STOP.select} FROM chat_stops ORDER BY at DESC, account_id"
                " LIMIT %s OFFSET %s",
                (limit, offset),
            )
            return STOP.all(rows)

    def reports(self, limit: int, offset: int) -> list[tuple[Report, Message]]:
        """The auditors' queue (M6): reports newest first, each with its message."""
        with self.store.reading() as tx:
            rows = REPORT.all(
                tx.execute(
                    f"SELECT {REPORT.select} FROM chat_reports ORDER BY at DESC, game_id, seq,"
                    " reporter LIMIT %s OFFSET %s",
                    (limit, offset),
                )
            )
            found = []
            for report in rows:
                message = self.message(tx, report.game_id, report.seq)
                if message is not None:
                    found.append((report, message))
            return found

    def events(self, stream: str, after: int = 0, limit: int = 10_000) -> list[StoredEvent]:
        """A chat's stream (M9), as stored."""
        with self.store.reading() as tx:
            rows = tx.execute(
                f"SELECT {EVENT.select} FROM chat_events WHERE stream = %s AND seq > %s"
                " ORDER BY seq LIMIT %s",
                (stream, after, limit),
            )
            return EVENT.all(rows)


class _Unchanged(Exception):
    """Nothing to append: the state is already as asked (the transaction rolls back)."""
