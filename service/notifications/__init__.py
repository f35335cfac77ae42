"""Notifications: reminders' outbox, digests, webhooks and the addresses they may reach."""
