"""The forks table, beside the read models in the store's database: one row per fork,
its anchor in the original (game, version, the hash there), its deck and its moves."""

from __future__ import annotations

FORKS_SCHEMA = 1
TABLES = [
    """CREATE TABLE IF NOT EXISTS analysis_forks (
        fork_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        game_id TEXT NOT NULL,
        version BIGINT NOT NULL,
        anchor_hash TEXT NOT NULL,
        parent TEXT NOT NULL,
        revealed INTEGER NOT NULL,
        deck TEXT NOT NULL,
        moves TEXT NOT NULL,
        moves_made BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        touched_at TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS analysis_forks_account ON analysis_forks (account_id, touched_at)",
    "CREATE INDEX IF NOT EXISTS analysis_forks_touched ON analysis_forks (touched_at)",
]
