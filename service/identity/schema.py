"""The identity tables, beside the read models in the store's database: every
credential (a page's session or a program's token, kept only as a hash), the
accounts' e-mail addresses, the sign-in links and passkey challenges (hashes, with
their expiry and the browser they are bound to), the passkeys, and the accounts an
operator disabled."""

from __future__ import annotations

IDENTITY_SCHEMA = 1
TABLES = [
    """CREATE TABLE IF NOT EXISTS identity_credentials (
        credential_id TEXT PRIMARY KEY,
        secret_hash TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        label TEXT NOT NULL,
        method TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT NOT NULL,
        last_used_ms BIGINT NOT NULL,
        expires_ms BIGINT,
        revoked_at TEXT)""",
    "CREATE INDEX IF NOT EXISTS identity_credentials_account ON identity_credentials (account_id)",
    """CREATE TABLE IF NOT EXISTS identity_emails (
        address TEXT PRIMARY KEY,
        account_id TEXT NOT NULL UNIQUE,
        added_at TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS identity_links (
        link_hash TEXT PRIMARY KEY,
        purpose TEXT NOT NULL,
        address TEXT NOT NULL,
        account_id TEXT,
        bind_hash TEXT NOT NULL,
        expires_ms BIGINT NOT NULL,
        used_ms BIGINT)""",
    """CREATE TABLE IF NOT EXISTS identity_challenges (
        challenge_hash TEXT PRIMARY KEY,
        purpose TEXT NOT NULL,
        account_id TEXT,
        bind_hash TEXT NOT NULL,
        expires_ms BIGINT NOT NULL,
        used_ms BIGINT)""",
    """CREATE TABLE IF NOT EXISTS identity_passkeys (
        passkey_id TEXT PRIMARY KEY,
        raw_id TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL,
        name TEXT NOT NULL,
        public_key TEXT NOT NULL,
        sign_count BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT)""",
    "CREATE INDEX IF NOT EXISTS identity_passkeys_account ON identity_passkeys (account_id)",
    """CREATE TABLE IF NOT EXISTS identity_disabled (
        account_id TEXT PRIMARY KEY,
        disabled_at TEXT NOT NULL)""",
]
