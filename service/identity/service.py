"""The identity service: the one object the app holds for accounts people keep
(``current_app.extensions["tongiaki.identity"]``): sessions and tokens, e-mail links,
passkeys, the mailer, and what a revocation ends (live streams, through ``on_revoked``)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from service.identity.links import Links
from service.identity.mailer import Mailer
from service.identity.passkeys import Passkeys
from service.identity.schema import IDENTITY_SCHEMA, TABLES
from service.identity.sessions import Sessions
from service.runtime.settings import Settings
from service.store.base import Account, SqlStore


class Identity:
    """Sign-in and credentials over one store."""

    def __init__(
        self,
        store: SqlStore,
        settings: Settings,
        clock: Callable[[], datetime],
        mailer: Mailer | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        # without SMTP_URL the embedded default (SQLite, memory:) prints links on its console
        # without SMTP_URL the embedded default prints links on its console; a link mailed
        # for real points at TONGIAKI_PUBLIC_URL only (never at a Host header a client sent)
        self.mailer = mailer or Mailer(
            settings.smtp_url if settings.public_url else "",
            settings.mail_from,
            console=not settings.uses_postgres and not settings.smtp_url,
        )
        if not self.mailer.available:
            logging.getLogger("tongiaki.identity").info(
                "sign-in by e-mail link is off: %s (passkeys and tokens work)",
                "TONGIAKI_PUBLIC_URL is not set, and links point there"
                if settings.smtp_url
                else "SMTP_URL is not set",
            )
        self._ended: list[Callable[[set[str]], None]] = []
        self.sessions = Sessions(store, clock, self._revoked)
        self.links = Links(store, clock, self.mailer)
        self.passkeys = Passkeys(store, clock)

    def upgrade(self) -> None:
        """Create the identity tables (idempotent)."""
        self.store.ensure_tables(TABLES, "identity_schema", IDENTITY_SCHEMA)

    def when_revoked(self, ended: Callable[[set[str]], None]) -> None:
        """Call ``ended`` with the credential ids revoked in this process."""
        self._ended.append(ended)

    def _revoked(self, ids: set[str]) -> None:
        for ended in self._ended:
            ended(ids)

    def summary(self, account: Account) -> dict[str, object]:
        """How the account can sign in again: its address, passkeys, and what it risks."""
        address = self.links.address_of(account.account_id)
        passkeys = len(self.passkeys.listed(account.account_id))
        return {
            "email": address,
            "passkeys": passkeys,
            "recoverable": bool(address or passkeys),
        }
