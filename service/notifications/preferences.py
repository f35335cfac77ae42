"""What each account wants to be told, and how: its notification settings as stored
(``notify_settings``), and the service's milliseconds since the epoch that the outbox
counts in. Shared by the outbox (``service.notifications.notify``) and the digests
(``service.notifications.digests``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_ms(moment: datetime) -> int:
    return int((moment - EPOCH) / timedelta(milliseconds=1))


@dataclass(frozen=True)
class NotifySettings:
    """What one account wants to be told, and how."""

    account_id: str
    webhook_url: str | None
    secret: str
    email: str | None
    kinds: tuple[str, ...]
    since: str
    your_move: str = "batched"  # how your_move reminders go (service.notifications.digests.MODES)
    quiet_minutes: int | None = None  # the account's quiet period; None: the server's

    def view(self, mail: bool, default_quiet: int) -> dict[str, Any]:
        """As the API shows it to its owner (the secret included: it signs their hooks)."""
        return {
            "webhook_url": self.webhook_url,
            "webhook_secret": self.secret if self.webhook_url else None,
            "email": self.email,
            "kinds": list(self.kinds),
            "your_move": self.your_move,
            "quiet_minutes": self.quiet_minutes,
            "default_quiet_minutes": default_quiet,
            "email_available": mail,
        }


SETTINGS_COLUMNS = "account_id, webhook_url, secret, email, kinds, since, your_move, quiet_minutes"


def settings_from_row(row: Sequence[Any]) -> NotifySettings:
    account_id, url, secret, email, kinds, since, your_move, quiet = row
    return NotifySettings(
        account_id,
        url,
        secret,
        email,
        tuple(k for k in kinds.split(",") if k),
        since,
        your_move,
        int(quiet) if quiet is not None else None,
    )


def settings_of(cur: Any, accounts: Sequence[str]) -> dict[str, NotifySettings]:
    """The settings of these accounts (those that have any), by account id, read with the
    cursor of the caller's transaction."""
    if not accounts:
        return {}
    marks = ", ".join(["%s"] * len(accounts))
    rows = cur.execute(
        f"SELECT {SETTINGS_COLUMNS} FROM notify_settings WHERE account_id IN ({marks})",
        tuple(accounts),
    ).fetchall()
    return {s.account_id: s for s in map(settings_from_row, rows)}
