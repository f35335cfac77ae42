"""The notification tables the service keeps beside the outbox read model
(``rm_notifications``, made by ``projections.store``): each account's settings, the
deliveries with their attempts, the digests' last times; as first made, and the
migrations that bring them further (``notify_schema``)."""

from __future__ import annotations

NOTIFY_SCHEMA = 1  # the tables as first made; MIGRATIONS bring them further
TABLES = [
    """CREATE TABLE IF NOT EXISTS notify_settings (
        account_id TEXT PRIMARY KEY,
        webhook_url TEXT,
        secret TEXT NOT NULL,
        email TEXT,
        kinds TEXT NOT NULL,
        since TEXT NOT NULL,
        updated_at TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS notify_deliveries (
        notification_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        account_id TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_ms BIGINT NOT NULL,
        last_error TEXT,
        delivered_at TEXT,
        PRIMARY KEY (notification_id, channel))""",
    "CREATE INDEX IF NOT EXISTS notify_deliveries_due ON notify_deliveries (status, next_ms)",
    """CREATE TABLE IF NOT EXISTS notify_attempts (
        notification_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        at TEXT NOT NULL,
        ok INTEGER NOT NULL,
        detail TEXT NOT NULL,
        PRIMARY KEY (notification_id, channel, attempt))""",
]

# 2: how your_move reminders are delivered (service.notifications.digests)
MIGRATIONS = {
    2: [
        "ALTER TABLE notify_settings ADD COLUMN your_move TEXT NOT NULL DEFAULT 'batched'",
        "ALTER TABLE notify_settings ADD COLUMN quiet_minutes INTEGER",
        "ALTER TABLE notify_deliveries ADD COLUMN games TEXT",
        """CREATE TABLE IF NOT EXISTS notify_digests (
            account_id TEXT PRIMARY KEY,
            last_ms BIGINT NOT NULL)""",
    ]
}
