"""The transparency log on a SQL database (``LogStore``): pending commits, entries, tiles
of hashes and the newest checkpoint, in four tables beside the events.

``add_pending`` is called inside every transaction that extends a stream (a command's
append, a dispute's, an import); PostgreSQL's ``tongiaki_append`` writes the same row
itself. An integration runs in one transaction under an advisory lock on PostgreSQL
(another process integrating meanwhile is told so and does not wait) and under SQLite's
write lock.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from service.store.database import SqlDatabase, SqlTx
from service.store.log_port import Logged, LogHead, Pending
from service.store.rows import Row, named, value

# schema 6 (service.store.schema): the log's tables
TABLES = [
    """CREATE TABLE IF NOT EXISTS log_pending (
        seq {serial} PRIMARY KEY,
        stream TEXT NOT NULL,
        version INTEGER NOT NULL,
        head TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS log_entries (
        idx BIGINT PRIMARY KEY,
        stream TEXT NOT NULL,
        version INTEGER NOT NULL,
        entry {blob} NOT NULL)""",
    "CREATE UNIQUE INDEX IF NOT EXISTS log_entries_by_stream ON log_entries (stream, version)",
    """CREATE TABLE IF NOT EXISTS log_tiles (
        level INTEGER NOT NULL,
        idx BIGINT NOT NULL,
        hashes {blob} NOT NULL,
        PRIMARY KEY (level, idx))""",
    # id 1: the newest checkpoint; id 2: the newest one cosigned by witnesses
    """CREATE TABLE IF NOT EXISTS log_head (
        id INTEGER PRIMARY KEY,
        size BIGINT NOT NULL,
        note TEXT NOT NULL,
        made_at DOUBLE PRECISION NOT NULL)""",
]

# what a database that had games before the log existed starts its log with: each
# stream's head as it is at the upgrade (its earlier commits are covered by the chain)
BACKFILL = [
    "INSERT INTO log_pending (stream, version, head)"
    " SELECT 'game/' || game_id, version, hash FROM games WHERE version > 0"
    " ORDER BY updated_at, game_id",
    "INSERT INTO log_pending (stream, version, head)"
    " SELECT 'dispute/' || dispute_id, version, hash FROM disputes WHERE version > 0"
    " ORDER BY updated_at, dispute_id",
]

LOG_LOCK = 0x70D61A5  # the integration's advisory lock (any constant shared by all)


def _bytes(data: Any) -> bytes:
    return bytes(data) if data is not None else b""


PENDING = Row(Pending, "seq", "stream", "version", "head")


def _logged(idx: int, stream: str, version: int, entry: Any) -> Logged:
    return Logged(int(idx), stream, int(version), _bytes(entry))


LOGGED = Row(_logged, "idx", "stream", "version", "entry")
HEAD = Row(LogHead, "size", "note", "made_at")
FIRST = Row(named, "game_id", "data")
LAST = Row(named, "stream", "MAX(version) AS version")


def add_pending(tx: SqlTx, stream: str, version: int, head: str) -> None:
    """A commit of ``stream`` waits for its index (inside the commit's transaction)."""
    tx.execute(
        "INSERT INTO log_pending (stream, version, head) VALUES (%s, %s, %s)",
        (stream, version, head),
    )


class SqlLogBatch:
    """An integration inside one transaction (``LogBatch``)."""

    def __init__(self, tx: SqlTx) -> None:
        self.tx = tx

    def head(self) -> LogHead:
        """The checkpoint the log is at."""
        found = HEAD.one(self.tx.execute(f"SELECT {HEAD.select} FROM log_head WHERE id = 1"))
        return found or LogHead()

    def pending(self, limit: int) -> list[Pending]:
        """The oldest pending commits, in the order they were written."""
        return PENDING.all(
            self.tx.execute(
                f"SELECT {PENDING.select} FROM log_pending ORDER BY seq LIMIT %s", (limit,)
            )
        )

    def commitments(self, game_ids: Iterable[str]) -> dict[str, str]:
        """Each game's deck commitment, from its first event (``GameCreated``)."""
        rows = self._each(FIRST, "events WHERE version = 1 AND game_id IN ({})", game_ids)
        return {r["game_id"]: str(json.loads(r["data"]).get("deck_commitment", "")) for r in rows}

    def last_versions(self, streams: Iterable[str]) -> dict[str, int]:
        """The last version each of these streams has in the log."""
        rows = self._each(LAST, "log_entries WHERE stream IN ({}) GROUP BY stream", streams)
        return {r["stream"]: int(r["version"]) for r in rows}

    def _each(self, row: Row[dict[str, Any]], where: str, keys: Iterable[str]) -> list[Any]:
        """``SELECT row FROM where`` for the keys, 500 to a statement (``{}``: their marks)."""
        ids = sorted(set(keys))
        found: list[Any] = []
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            marks = ", ".join(["%s"] * len(chunk))
            found += row.all(
                self.tx.execute(f"SELECT {row.select} FROM {where.format(marks)}", chunk)
            )
        return found

    def tile(self, level: int, index: int) -> bytes:
        """A tile's hashes as stored."""
        return _tile(self.tx, level, index)

    def record(
        self,
        entries: Sequence[Logged],
        tiles: Mapping[tuple[int, int], bytes],
        done: Sequence[int],
        head: LogHead,
    ) -> None:
        """Entries, tiles, pending rows dropped, the checkpoint: in this transaction."""
        tx = self.tx
        for start in range(0, len(entries), 200):
            chunk = entries[start : start + 200]
            tx.execute(
                "INSERT INTO log_entries (idx, stream, version, entry) VALUES "
                + ", ".join(["(%s, %s, %s, %s)"] * len(chunk)),
                [v for e in chunk for v in (e.index, e.stream, e.version, e.data)],
            )
        for (level, index), hashes in sorted(tiles.items()):
            tx.execute(
                "INSERT INTO log_tiles (level, idx, hashes) VALUES (%s, %s, %s)"
                " ON CONFLICT (level, idx) DO UPDATE SET hashes = excluded.hashes",
                (level, index, hashes),
            )
        for start in range(0, len(done), 500):
            seqs = list(done[start : start + 500])
            marks = ", ".join(["%s"] * len(seqs))
            tx.execute(f"DELETE FROM log_pending WHERE seq IN ({marks})", seqs)
        _put_head(tx, 1, head)


def _put_head(tx: SqlTx, which: int, head: LogHead) -> None:
    tx.execute(
        "INSERT INTO log_head (id, size, note, made_at) VALUES (%s, %s, %s, %s)"
        " ON CONFLICT (id) DO UPDATE SET size = excluded.size, note = excluded.note,"
        " made_at = excluded.made_at",
        (which, head.size, head.note, head.made_at),
    )


def _tile(tx: SqlTx, level: int, index: int) -> bytes:
    found = value(
        tx.execute("SELECT hashes FROM log_tiles WHERE level = %s AND idx = %s", (level, index))
    )
    return _bytes(found)


class SqlLog:
    """The log's tables (``LogStore``)."""

    def __init__(self, db: SqlDatabase) -> None:
        self.db = db

    @contextmanager
    def integrating(self) -> Iterator[SqlLogBatch | None]:
        """An integration's transaction, or None while another process integrates."""
        with self.db.transaction() as tx:
            if self.db.postgres and not value(
                tx.execute("SELECT pg_try_advisory_xact_lock(%s)", (LOG_LOCK,))
            ):
                yield None
                return
            yield SqlLogBatch(tx)

    def log_head(self) -> LogHead:
        """The newest checkpoint."""
        with self.db.reading() as tx:
            return SqlLogBatch(tx).head()

    def log_tile(self, level: int, index: int) -> bytes:
        """A tile's hashes as stored."""
        with self.db.reading() as tx:
            return _tile(tx, level, index)

    def log_tiles(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
        """Many tiles' hashes in one statement."""
        wanted = sorted(set(keys))
        if not wanted:
            return {}
        marks = ", ".join(["(%s, %s)"] * len(wanted))
        with self.db.reading() as tx:
            rows = tx.execute(
                f"SELECT level, idx, hashes FROM log_tiles WHERE (level, idx) IN ({marks})",
                [n for key in wanted for n in key],
            ).fetchall()
        return {(int(r[0]), int(r[1])): _bytes(r[2]) for r in rows}

    def log_entries(self, start: int, count: int) -> list[bytes]:
        """Entries from ``start``, at most ``count``, in index order."""
        with self.db.reading() as tx:
            rows = tx.execute(
                "SELECT entry FROM log_entries WHERE idx >= %s AND idx < %s ORDER BY idx",
                (start, start + count),
            ).fetchall()
        return [_bytes(r[0]) for r in rows]

    def log_find(self, stream: str, version: int) -> Logged | None:
        """The entry of a stream's commit, once integrated."""
        with self.db.reading() as tx:
            return LOGGED.one(
                tx.execute(
                    f"SELECT {LOGGED.select} FROM log_entries WHERE stream = %s AND version = %s",
                    (stream, version),
                )
            )

    def log_covering(self, stream: str, version: int) -> Logged | None:
        """The stream's first entry at or after ``version``, once integrated."""
        with self.db.reading() as tx:
            return LOGGED.one(
                tx.execute(
                    f"SELECT {LOGGED.select} FROM log_entries WHERE stream = %s AND version >= %s"
                    " ORDER BY version LIMIT 1",
                    (stream, version),
                )
            )

    def log_stream(self, stream: str) -> list[Logged]:
        """A stream's entries, in version order."""
        with self.db.reading() as tx:
            return LOGGED.all(
                tx.execute(
                    f"SELECT {LOGGED.select} FROM log_entries WHERE stream = %s ORDER BY version",
                    (stream,),
                )
            )

    def log_pending(self) -> int:
        """How many commits wait for their index."""
        with self.db.reading() as tx:
            return int(value(tx.execute("SELECT COUNT(*) FROM log_pending")) or 0)

    def cosigned(self, head: LogHead) -> None:
        """Keep a checkpoint with its witnesses' cosignatures (the newest cosigned)."""
        with self.db.transaction() as tx:
            found = HEAD.one(tx.execute(f"SELECT {HEAD.select} FROM log_head WHERE id = 2"))
            if found is None or found.size <= head.size:
                _put_head(tx, 2, head)

    def log_cosigned(self) -> LogHead | None:
        """The newest checkpoint cosigned by witnesses, if any."""
        with self.db.reading() as tx:
            return HEAD.one(tx.execute(f"SELECT {HEAD.select} FROM log_head WHERE id = 2"))
