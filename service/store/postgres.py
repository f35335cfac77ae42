"""PostgreSQL adapter (psycopg 3 with a connection pool): production."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from service.store.base import (
    GENESIS,
    Appended,
    CommandRecord,
    ConcurrencyConflict,
    DisputeAppend,
    InvalidData,
    JournalEntry,
    NewEvent,
    StoredEvent,
    StoreError,
    StoreUnavailable,
    canonical,
    chain_events,
)
from service.store.commit_wait import COMMIT_WAIT, WATCH
from service.store.database import Cursor, SqlDatabase, SqlTx
from service.store.log_sql import BACKFILL
from service.store.rows import Row, value
from service.store.schema import SCHEMA_VERSION, TABLES
from service.store.sql import SqlEventStore
from service.store.streams import SqlStreams

IMMUTABLE = [
    """CREATE OR REPLACE FUNCTION tongiaki_events_immutable() RETURNS trigger
       LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'events are immutable (%)', TG_OP; END $$""",
    """CREATE OR REPLACE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
       FOR EACH ROW EXECUTE FUNCTION tongiaki_events_immutable()""",
    """CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
       FOR EACH STATEMENT EXECUTE FUNCTION tongiaki_events_immutable()""",
    """CREATE OR REPLACE TRIGGER dispute_events_no_update_delete
       BEFORE UPDATE OR DELETE ON dispute_events
       FOR EACH ROW EXECUTE FUNCTION tongiaki_events_immutable()""",
    """CREATE OR REPLACE TRIGGER dispute_events_no_truncate BEFORE TRUNCATE ON dispute_events
       FOR EACH STATEMENT EXECUTE FUNCTION tongiaki_events_immutable()""",
    # the change feed (service.live.feed): every commit of events says which games moved,
    # once per game and transaction, to every process listening, whoever wrote them
    """CREATE OR REPLACE FUNCTION tongiaki_events_notify() RETURNS trigger
       LANGUAGE plpgsql AS $$
       BEGIN
           PERFORM pg_notify('tongiaki_events', d.game_id)
           FROM (SELECT DISTINCT n.game_id FROM new_rows n) d;
           RETURN NULL;
       END $$""",
    """CREATE OR REPLACE TRIGGER events_notify AFTER INSERT ON events
       REFERENCING NEW TABLE AS new_rows
       FOR EACH STATEMENT EXECUTE FUNCTION tongiaki_events_notify()""",
]

# One round trip per command: the whole append runs server-side, atomically.
APPEND_FUNCTION = """
CREATE OR REPLACE FUNCTION tongiaki_append(
    p_game text, p_expected integer, p_prev text, p_new_version integer, p_new_hash text,
    p_status text, p_at text, p_command text, p_actor text, p_payload text,
    p_events json, p_fingerprint text)
RETURNS TABLE (outcome text, head integer, journal_seq bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v integer;
    h text;
    s bigint;
BEGIN
    IF p_expected = 0 THEN
        INSERT INTO games (game_id, version, hash, status, created_at, updated_at)
        VALUES (p_game, 0, repeat('0', 64), p_status, p_at, p_at)
        ON CONFLICT (game_id) DO NOTHING;
    END IF;
    SELECT g.version, g.hash INTO v, h FROM games g WHERE g.game_id = p_game FOR UPDATE;
    IF v IS NULL THEN
        RETURN QUERY SELECT 'conflict'::text, 0, NULL::bigint;
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM journal j WHERE j.game_id = p_game AND j.command_id = p_command) THEN
        RETURN QUERY SELECT 'duplicate'::text, v, NULL::bigint;
        RETURN;
    END IF;
    IF v <> p_expected OR h <> p_prev THEN
        RETURN QUERY SELECT 'conflict'::text, v, NULL::bigint;
        RETURN;
    END IF;
    INSERT INTO journal (game_id, command_id, actor, received_at, payload, judged_version,
                         outcome, first_version, last_version, fingerprint)
    VALUES (p_game, p_command, p_actor, p_at, p_payload, p_expected, 'accepted',
            p_expected + 1, p_new_version, p_fingerprint)
    RETURNING journal.seq INTO s;
    INSERT INTO events (game_id, version, type, data, metadata, prev_hash, hash)
    SELECT p_game, p_expected + x.i::integer, x.e->>0, x.e->>1, x.e->>2, x.e->>3, x.e->>4
    FROM json_array_elements(p_events) WITH ORDINALITY AS x(e, i);
    UPDATE games SET version = p_new_version, hash = p_new_hash, status = p_status,
                     updated_at = p_at
    WHERE game_id = p_game;
    INSERT INTO log_pending (stream, version, head)
    VALUES ('game/' || p_game, p_new_version, p_new_hash);
    RETURN QUERY SELECT 'accepted'::text, p_new_version, s;
END $$
"""


@contextmanager
def translated() -> Iterator[None]:
    """psycopg's errors in the store's vocabulary (the one choke point, style.md §6)."""
    try:
        yield
    except psycopg.errors.UniqueViolation as exc:
        raise StoreError(f"integrity: {exc}") from exc
    except psycopg.errors.QueryCanceled as exc:  # a commit's wait past COMMIT_WAIT
        raise StoreUnavailable(
            f"postgresql: cancelled after {COMMIT_WAIT:.0f} s ({exc.diag.message_primary});"
            " is a synchronous standby away? Nothing was written: retry"
        ) from exc
    except psycopg.DataError as exc:  # NUL in text, integer out of range, bad encoding
        raise InvalidData(f"a value cannot be stored: {exc.diag.message_primary}") from exc
    except (psycopg.OperationalError, PoolTimeout) as exc:  # unreachable, restarted, full
        raise StoreUnavailable(f"postgresql: {exc}") from exc


MIGRATION_ATTEMPTS = 20
MIGRATION_LOCK_TIMEOUT = "200ms"  # below deadlock_timeout (1 s by default)
CONNECT_TIMEOUT = 5.0  # seconds a request waits for a pooled connection, then 503
CHECK_TIMEOUT = 3  # seconds for the first connection: with a process's start, within 5 s


def redacted(url: str) -> str:
    """A database URL without its password (user part or password=), for messages."""
    url = re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", url)
    return re.sub(r"(?i)(password=)[^&\s]*", r"\1***", url)


# Any constant will do: it only has to be the same for every process.
UPGRADE_LOCK = 0x70D61A4


IDLE_CHECK = 1.0  # seconds a pooled connection may idle before it is checked on use
RECONNECT_TIMEOUT = 8.0


def _cooperative_timeout(seconds: float) -> Any:
    """A ``gevent.Timeout`` when this process is gevent's (its waits are cooperative, so
    one can be cut short), else a context that does nothing."""
    try:
        from gevent import Timeout, monkey
    except ImportError:  # pragma: no cover - gevent is a dependency
        return contextlib.nullcontext()
    if not monkey.is_module_patched("socket"):
        return contextlib.nullcontext()
    return Timeout(seconds)


def _check_if_idle(conn: psycopg.Connection[Any]) -> None:
    """Before a connection is handed out: one empty round trip if it was last handed out
    a while ago, so a connection the server dropped meanwhile (a restart, a failover) is
    replaced instead of failing a request. Hot connections skip it: under load it costs
    nothing. (No ``reset`` callback: with one, psycopg_pool returns every connection
    through its worker thread, which cost ~15 % of the commands per second.)"""
    now = time.monotonic()
    last = getattr(conn, "_tongiaki_used", 0.0)
    conn._tongiaki_used = now  # type: ignore[attr-defined]
    if now - last > IDLE_CHECK:
        conn.execute("")


UNREPLICATED = "might not have been replicated"  # PostgreSQL's detail, syncrep.c
UNREPLICATED_COMMIT = (
    "postgresql: the commit is on the primary but its synchronous standby did not confirm it;"
    " retry (with the same Idempotency-Key)"
)


def _hear_unreplicated(conn: psycopg.Connection[Any]) -> None:
    """A new pooled connection notes PostgreSQL's warning that a commit's wait for the
    synchronous standby was cancelled (the commit stands on the primary alone)."""

    def heard(diag: psycopg.errors.Diagnostic) -> None:
        if UNREPLICATED in (diag.message_detail or ""):
            conn._tongiaki_unreplicated = True  # type: ignore[attr-defined]

    conn.add_notice_handler(heard)


def _replicated(conn: psycopg.Connection[Any]) -> None:
    """Raise ``StoreUnavailable`` if a commit on ``conn`` stands on the primary alone."""
    if getattr(conn, "_tongiaki_unreplicated", False):
        conn._tongiaki_unreplicated = False  # type: ignore[attr-defined]
        raise StoreUnavailable(UNREPLICATED_COMMIT)


_NAMED = re.compile(
    r"CREATE (?:TABLE|INDEX) IF NOT EXISTS (\w+)|CREATE OR REPLACE TRIGGER (\w+)\s.*?\sON (\w+)",
    re.S,
)


def _exists(cur: Cursor, statement: str) -> bool:
    """Whether the table, index or trigger a schema statement makes is already there (a
    function is always replaced: that locks no table)."""
    m = _NAMED.search(statement)
    if m is None:
        return False
    if m[1]:
        return bool(value(cur.execute("SELECT to_regclass(%s) IS NOT NULL", (m[1],))))
    found = cur.execute(
        "SELECT 1 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
        " WHERE t.tgname = %s AND c.relname = %s"
        " AND c.relnamespace = current_schema()::regnamespace",
        (m[2], m[3]),
    )
    return value(found) is not None


class PostgresDatabase(SqlDatabase):
    """A PostgreSQL database on a pool of connections (autocommit unless in a transaction)."""

    lock_suffix = "FOR UPDATE"
    postgres = True

    def __init__(
        self,
        url: str,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = CONNECT_TIMEOUT,
        check: bool = True,
    ) -> None:
        self.url = url
        try:  # one direct connection first: its error names the cause (refused, no database…)
            if check:  # (not a replica's: the primary serves while it is away)
                psycopg.connect(url, connect_timeout=CHECK_TIMEOUT, autocommit=True).close()
        except psycopg.Error as exc:
            where, cause = redacted(url), " ".join(str(exc).split())
            raise StoreUnavailable(f"cannot connect to PostgreSQL ({where}): {cause}") from exc
        self.pool = ConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            open=True,
            timeout=timeout,  # a request waits this long for a connection, then 503
            kwargs={"autocommit": True, "connect_timeout": max(1, int(timeout))},
            check=_check_if_idle,
            configure=_hear_unreplicated,
            # after an outage the pool retries with a doubling delay until this, then
            # starts afresh on the next request: the service is back within seconds of
            # the database, not after the backoff grew to minutes
            reconnect_timeout=RECONNECT_TIMEOUT,
        )

    @contextmanager
    def transaction(self) -> Iterator[SqlTx]:
        """One transaction on a pooled connection. A commit PostgreSQL says it made on the
        primary alone (its wait for the synchronous standby cancelled) is not a success:
        ``StoreUnavailable``, so that nothing is acknowledged on one machine only (the
        client's retry with its ``Idempotency-Key`` finds the commit, docs/replication.md)."""
        with translated(), self.pool.connection() as conn:
            with WATCH.watching(conn, self.url), conn.transaction(), conn.cursor() as cur:
                yield SqlTx(self, cur, conn.pipeline)
            _replicated(conn)

    @contextmanager
    def reading(self) -> Iterator[SqlTx]:
        """Autocommit: a single statement is its own transaction (a SELECT its own
        snapshot), one round trip."""
        with translated(), self.pool.connection() as conn:
            with WATCH.watching(conn, self.url), conn.cursor() as cur:
                yield SqlTx(self, cur, conn.pipeline)
            _replicated(conn)  # an autocommitted append is a commit too

    def ping(self, timeout: float) -> None:
        """See ``SqlDatabase.ping``; bounded, as a readiness probe's own timeout is
        often 1 s. First a connection of its own, so a database that stopped answering
        (hung, or cut off without a reset) is told within ``timeout`` under gevent and
        within libpq's smallest ``connect_timeout`` (2 s) otherwise, instead of hanging
        like the requests; then a pooled one within ``timeout`` (the pool exhausted)."""
        deadline = _cooperative_timeout(timeout)
        try:
            with deadline, psycopg.connect(
                self.url, connect_timeout=2, autocommit=True
            ) as conn:  # fmt: skip
                conn.execute("SELECT 1")
        except psycopg.Error as exc:
            raise StoreUnavailable(f"postgresql: {' '.join(str(exc).split())}") from exc
        except BaseException as exc:
            if exc is deadline:  # gevent's Timeout: this one
                raise StoreUnavailable(f"postgresql did not answer within {timeout:g} s") from None
            raise
        with translated(), self.pool.connection(timeout=timeout) as conn:
            conn.execute("SELECT 1")

    def upgrade_lock(self, tx: SqlTx) -> None:
        """An advisory lock, until the transaction ends."""
        tx.cursor.execute("SELECT pg_advisory_xact_lock(%s)", (UPGRADE_LOCK,))

    def table_exists(self, tx: SqlTx, name: str) -> bool:
        """Whether the table ``name`` is there (in the search path)."""
        return bool(value(tx.cursor.execute("SELECT to_regclass(%s) IS NOT NULL", (name,))))

    def upgrade(self) -> int:
        """Create or migrate the schema under an advisory lock (idempotent).

        A database already at ``SCHEMA_VERSION`` is not touched (no DDL, no lock).
        A migration may run while commands are in flight: it waits at most
        ``MIGRATION_LOCK_TIMEOUT`` for each lock, less than PostgreSQL waits before
        it looks for deadlocks, so it gives way to the commands (never the other
        way round), then tries again.
        """
        for attempt in range(MIGRATION_ATTEMPTS):
            current = self.recorded_version()
            if current >= SCHEMA_VERSION:
                return current
            try:
                return self._migrate()
            except StoreUnavailable as exc:
                gave_way = "lock timeout" in str(exc) or "deadlock" in str(exc)
                if not gave_way or attempt == MIGRATION_ATTEMPTS - 1:
                    raise
                time.sleep(0.2 * (attempt + 1))
        raise AssertionError("unreachable")

    def _migrate(self) -> int:
        with self.transaction() as tx:
            cur = tx.cursor
            cur.execute(f"SET LOCAL lock_timeout = '{MIGRATION_LOCK_TIMEOUT}'")
            self.upgrade_lock(tx)
            cur.execute(
                "CREATE TABLE IF NOT EXISTS schema_version"
                " (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            logged = self.table_exists(tx, "log_pending")
            # only what is missing: DDL on a table that exists still locks it (an index
            # ShareLock, a trigger more), and under traffic that is how migrations and
            # commands deadlock
            for statement in TABLES:
                if not _exists(cur, statement):
                    cur.execute(statement.format(serial="BIGSERIAL", blob="BYTEA"))
            for statement in IMMUTABLE:
                if not _exists(cur, statement):
                    cur.execute(statement)
            column = cur.execute(
                "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND table_name = 'journal' AND column_name = 'fingerprint'"
            )
            if value(column) is None:
                cur.execute("ALTER TABLE journal ADD COLUMN IF NOT EXISTS fingerprint TEXT")
            # schema 1 took five text arrays; schema 2 one JSON argument; 3 the fingerprint
            cur.execute(
                "DROP FUNCTION IF EXISTS tongiaki_append(text, integer, text, integer, text, text,"
                " text, text, text, text, text[], text[], text[], text[], text[])"
            )
            cur.execute(
                "DROP FUNCTION IF EXISTS tongiaki_append(text, integer, text, integer, text, text,"
                " text, text, text, text, json)"
            )
            cur.execute(APPEND_FUNCTION)
            if not logged:  # schema 6: the log starts from every stream's head
                for statement in BACKFILL:
                    cur.execute(statement)
            cur.execute(
                "INSERT INTO schema_version (version) VALUES (%s) ON CONFLICT DO NOTHING",
                (SCHEMA_VERSION,),
            )
            version = value(cur.execute("SELECT MAX(version) FROM schema_version"))
        return int(version)

    @property
    def closed(self) -> bool:
        """Whether ``close`` was called."""
        return bool(self.pool.closed)

    def close(self) -> None:
        """Close the pool."""
        self.pool.close()


@dataclass(frozen=True)
class _Outcome:
    """What ``tongiaki_append`` says: accepted (and the journal entry's number), a
    duplicate or a conflict (and the game's head version)."""

    outcome: str
    head: int
    journal_seq: int | None


OUTCOME = Row(_Outcome, "outcome", "head", "journal_seq")


def _arguments(
    record: CommandRecord,
    expected_version: int,
    prev_hash: str,
    status: str,
    stored: Sequence[StoredEvent],
) -> tuple[Any, ...]:
    """``tongiaki_append``'s arguments for a command's chained events."""
    last = stored[-1]
    return (
        record.game_id,
        expected_version,
        prev_hash,
        last.version,
        last.hash,
        status,
        record.received_at,
        record.command_id,
        canonical(record.actor),
        canonical(record.payload),
        # one JSON parameter: far cheaper to send than five text arrays
        json.dumps([[e.type, e.data, e.metadata, e.prev_hash, e.hash] for e in stored]),
        record.fingerprint,
    )


class PostgresStreams(SqlStreams):
    """Streams whose append is one round trip: ``tongiaki_append``, server-side."""

    db: PostgresDatabase

    def durable(self) -> None:
        """A transaction that writes WAL (a logical message, which changes no table)
        commits and, with a synchronous standby, waits until the standby has the WAL up
        to its commit: everything committed before is on both disks once it returns (a
        retry's stored answer may have been committed on the primary alone, its own wait
        cancelled). A transaction that writes no WAL would not wait."""
        with self.db.reading() as tx:
            tx.execute("SELECT pg_logical_emit_message(true, 'tongiaki', 'durable')")

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
        """Append in one round trip (``tongiaki_append``); see ``EventStore.append``.

        A ruling's append (``dispute``, rare) takes the SQL path the SQLite adapter
        uses, in one transaction with the dispute's (its row locked ``FOR UPDATE``), and
        so does a seat's (``seating``: a few per game), with the account's row."""
        if not events:
            raise ValueError("an append holds at least one event")
        if dispute is not None or seating is not None:
            return super().append(
                record, expected_version, events, status, prev_hash, dispute, seating
            )
        if prev_hash is None:
            head = self.head(record.game_id)
            prev_hash = (
                head.hash if head is not None and head.version == expected_version else GENESIS
            )
        stored = chain_events(record.game_id, expected_version, prev_hash, events)
        with self.db.reading() as tx:  # autocommit: the function is one transaction
            done = OUTCOME.one(
                tx.execute(
                    f"SELECT {OUTCOME.select} FROM tongiaki_append("
                    "%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    _arguments(record, expected_version, prev_hash, status, stored),
                )
            )
        assert done is not None
        if done.outcome == "accepted":
            seq = int(done.journal_seq or 0)
            entry = JournalEntry.accepted(record, expected_version, stored, seq=seq)
            return Appended(tuple(stored), stored[-1].version, stored[-1].hash, entry=entry)
        found = self.outcome(record.game_id, record.command_id)
        if found is not None:
            with self.db.reading() as tx:
                return self._duplicate(tx, found)
        raise ConcurrencyConflict(record.game_id, expected_version, int(done.head))


class PostgresEventStore(SqlEventStore):
    """Event store in PostgreSQL; the games row is locked for the length of an append."""

    def __init__(
        self, url: str, min_size: int = 1, max_size: int = 10, timeout: float = CONNECT_TIMEOUT
    ) -> None:
        db = PostgresDatabase(url, min_size, max_size, timeout)
        super().__init__(db, PostgresStreams(db))
        self.url = url
