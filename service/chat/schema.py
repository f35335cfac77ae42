"""The chat's tables (docs/chat.md M9), beside the read models in the store's database:
each chat's hash-chained stream (``chat_heads``, ``chat_events``: a game's chat, or the
site's ``*`` for stops) and what pages read (messages, reports, mutes, stops), written
in the same transaction as the event they come from."""

from __future__ import annotations

CHAT_SCHEMA = 1
SITE = "*"  # the site's stream (stops, M8): no game's id starts with "*"
TABLES = [
    """CREATE TABLE IF NOT EXISTS chat_heads (
        stream TEXT PRIMARY KEY,
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS chat_events (
        stream TEXT NOT NULL,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (stream, seq))""",
    """CREATE TABLE IF NOT EXISTS chat_messages (
        game_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        channel TEXT NOT NULL,
        author TEXT NOT NULL,
        text TEXT NOT NULL,
        at TEXT NOT NULL,
        at_ms BIGINT NOT NULL,
        hidden_seq INTEGER,
        hidden_by TEXT,
        hidden_reason TEXT,
        hidden_at TEXT,
        PRIMARY KEY (game_id, seq))""",
    "CREATE INDEX IF NOT EXISTS chat_messages_author ON chat_messages (game_id, author, at_ms)",
    "CREATE INDEX IF NOT EXISTS chat_messages_hidden ON chat_messages (game_id, hidden_seq)",
    """CREATE TABLE IF NOT EXISTS chat_reports (
        game_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        reporter TEXT NOT NULL,
        reason TEXT NOT NULL,
        at TEXT NOT NULL,
        report_seq INTEGER NOT NULL,
        PRIMARY KEY (game_id, seq, reporter))""",
    "CREATE INDEX IF NOT EXISTS chat_reports_by_time ON chat_reports (at)",
    """CREATE TABLE IF NOT EXISTS chat_mutes (
        game_id TEXT NOT NULL,
        muter TEXT NOT NULL,
        muted TEXT NOT NULL,
        PRIMARY KEY (game_id, muter, muted))""",
    """CREATE TABLE IF NOT EXISTS chat_stops (
        account_id TEXT PRIMARY KEY,
        stopped_by TEXT NOT NULL,
        reason TEXT NOT NULL,
        at TEXT NOT NULL)""",
]
