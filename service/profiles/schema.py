"""The profiles' table, beside the read models in the store's database: each change of
an account's display name (P5 bounds how many a day), kept as long as the account."""

from __future__ import annotations

PROFILES_SCHEMA = 1
TABLES = [
    """CREATE TABLE IF NOT EXISTS profile_renames (
        account_id TEXT NOT NULL,
        changed_ms BIGINT NOT NULL,
        changed_at TEXT NOT NULL,
        PRIMARY KEY (account_id, changed_ms))""",
]
