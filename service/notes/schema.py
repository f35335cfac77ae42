"""The notes table, beside the read models in the store's database: one row per note,
keyed by its author, its game and the version it is on (0: the game itself, N2)."""

from __future__ import annotations

NOTES_SCHEMA = 1
TABLES = [
    """CREATE TABLE IF NOT EXISTS player_notes (
        account_id TEXT NOT NULL,
        game_id TEXT NOT NULL,
        version BIGINT NOT NULL,
        text TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (account_id, game_id, version))""",
]
