"""The tables every SQL database of the event store holds, and the schema's version.

``{serial}`` and ``{blob}`` are the column types each dialect spells its own way; each
adapter adds what only it has (triggers that keep events immutable, PostgreSQL's
``tongiaki_append``) when it migrates.
"""

from __future__ import annotations

from service.store.log_sql import TABLES as LOG_TABLES

# 1: first schema; 2: PostgreSQL's tongiaki_append takes the events as one JSON argument;
# 3: journal.fingerprint (what an Idempotency-Key stood for); 4: disputes, dispute_events;
# 5: PostgreSQL notifies the change feed of every commit of events (service.live.feed);
# 6: the transparency log's tables (service.store.log_sql), each stream's head at the
# upgrade its first pending entry
SCHEMA_VERSION = 6

TABLES = [
    """CREATE TABLE IF NOT EXISTS games (
        game_id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        hash TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS events (
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (game_id, version))""",
    """CREATE TABLE IF NOT EXISTS journal (
        game_id TEXT NOT NULL,
        command_id TEXT NOT NULL,
        seq {serial},
        actor TEXT NOT NULL,
        received_at TEXT NOT NULL,
        payload TEXT NOT NULL,
        judged_version INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        first_version INTEGER,
        last_version INTEGER,
        rejection TEXT,
        fingerprint TEXT,
        PRIMARY KEY (game_id, command_id))""",
    "CREATE INDEX IF NOT EXISTS journal_by_game ON journal (game_id, seq)",
    "CREATE INDEX IF NOT EXISTS games_by_status ON games (status, updated_at)",
    """CREATE TABLE IF NOT EXISTS secrets (
        game_id TEXT PRIMARY KEY,
        seed {blob} NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS accounts (
        account_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS snapshots (
        game_id TEXT NOT NULL,
        fold_version TEXT NOT NULL,
        version INTEGER NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (game_id, fold_version, version))""",
    """CREATE TABLE IF NOT EXISTS disputes (
        dispute_id TEXT PRIMARY KEY,
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        hash TEXT NOT NULL,
        status TEXT NOT NULL,
        opened_by TEXT NOT NULL,
        reason TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS disputes_by_game ON disputes (game_id, created_at)",
    "CREATE INDEX IF NOT EXISTS disputes_by_status ON disputes (status, created_at)",
    """CREATE TABLE IF NOT EXISTS dispute_events (
        dispute_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (dispute_id, version))""",
    *LOG_TABLES,
]
