"""The private tables' own tables, beside the event store (docs/invitations.md): which
games are private, who opened them and their link's token (a secret: never in an
event), and one row per invited account with its answer."""

from __future__ import annotations

INVITATIONS_SCHEMA = 1
TABLES = [
    """CREATE TABLE IF NOT EXISTS private_tables (
        game_id TEXT PRIMARY KEY,
        opener TEXT NOT NULL,
        token TEXT,
        created_at TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS table_invitations (
        game_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        status TEXT NOT NULL,
        invited_at TEXT NOT NULL,
        answered_at TEXT,
        PRIMARY KEY (game_id, account_id))""",
    "CREATE INDEX IF NOT EXISTS table_invitations_by_account"
    " ON table_invitations (account_id, invited_at)",
]
