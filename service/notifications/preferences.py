"""What each account wants to be told, and how: its notification settings as stored
(``notify_settings``: read, changed, saved), the channels they name, and the service's
milliseconds since the epoch that the outbox counts in. The one reader and writer of
``notify_settings``; what a change may hold is checked by
``service.notifications.checks``."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from projections.models import NOTICE_KINDS
from service.store.base import SqlStore
from service.timing.clocks import stamp

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

    def channels(self, mail: bool) -> list[str]:
        """The channels the account is told on (e-mail only where the server sends mail)."""
        wanted = (("webhook", self.webhook_url), ("email", self.email and mail))
        return [channel for channel, on in wanted if on]


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


def read_settings(store: SqlStore, account_id: str) -> NotifySettings | None:
    """One account's settings, or None if it never saved any."""
    with store.reading() as cur:
        row = cur.execute(
            f"SELECT {SETTINGS_COLUMNS} FROM notify_settings WHERE account_id = %s",
            (account_id,),
        ).fetchone()
    return settings_from_row(row) if row else None


def chosen(known: NotifySettings | None, changes: dict[str, Any]) -> dict[str, Any]:
    """An account's choices once ``changes`` are made: ``webhook_url``, ``email``,
    ``kinds``, ``your_move`` and ``quiet_minutes`` as given (None clears an address);
    what is not given stays as it was (all kinds, for an account's first save)."""
    return {
        "webhook_url": changes.get("webhook_url", known.webhook_url if known else None),
        "email": changes.get("email", known.email if known else None),
        "kinds": changes.get("kinds", known.kinds if known else NOTICE_KINDS),
        "your_move": changes.get("your_move", known.your_move if known else "batched"),
        "quiet_minutes": changes.get("quiet_minutes", known.quiet_minutes if known else None),
    }


def save_settings(
    store: SqlStore,
    account_id: str,
    known: NotifySettings | None,
    choices: dict[str, Any],
    rotate_secret: bool,
    now: datetime,
) -> NotifySettings:
    """Save an account's (checked) ``choices``: its secret kept unless ``rotate_secret``
    (a new one at the first save), and the moment of its first save kept (only the
    notifications made after it are delivered). The settings as saved."""
    at = stamp(now)
    secret = known.secret if known is not None and not rotate_secret else secrets.token_hex(32)
    since = known.since if known is not None else at
    kinds = ",".join(k for k in NOTICE_KINDS if k in choices["kinds"])
    with store.transaction() as cur:
        cur.execute(
            "INSERT INTO notify_settings (account_id, webhook_url, secret, email, kinds,"
            " since, updated_at, your_move, quiet_minutes)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (account_id) DO UPDATE SET webhook_url = excluded.webhook_url,"
            " secret = excluded.secret, email = excluded.email, kinds = excluded.kinds,"
            " updated_at = excluded.updated_at, your_move = excluded.your_move,"
            " quiet_minutes = excluded.quiet_minutes",
            (
                account_id,
                choices["webhook_url"],
                secret,
                choices["email"],
                kinds,
                since,
                at,
                choices["your_move"],
                choices["quiet_minutes"],
            ),
        )
    saved = read_settings(store, account_id)
    assert saved is not None
    return saved
