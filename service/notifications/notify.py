"""Reminders (docs/clocks.md): the notifier, the one object the service holds for
notifications — each account's settings as the API changes them, the outbox as its
owner sees it, and the deliverer's rounds.

The outbox is a read model (``rm_notifications``, built by the ``notifications``
projection from the games' events, plus "deadline soon" reminders the deliverer
adds from the clocks read model). Each account chooses, in ``notify_settings``,
a webhook URL, an e-mail address and which kinds it wants. A round of the deliverer:

1. ``remind``: a reminder for every decision whose deadline is within
   ``TONGIAKI_REMIND_BEFORE`` seconds (``service.notifications.planner``);
2. ``plan``: one delivery row per notification and channel the account wants
   (only notifications made after the settings were first saved), ``your_move``
   held for the digests (``service.notifications.digests``);
3. ``pump``: due deliveries claimed under a lease (``service.notifications.outbox``)
   for the senders that are free, each sent as soon as a sender takes it — a signed
   JSON POST, or a mail through ``SMTP_URL`` (``service.notifications.channels``) —
   and its attempt recorded as it ends; a failure is retried
   ``TONGIAKI_NOTIFY_BACKOFF`` seconds after it, then given up
   (``service.notifications.deliverer``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from projections.phrases import Phrase
from service.notifications import channels, outbox, planner
from service.notifications.addresses import Resolver, system_resolver
from service.notifications.checks import check_choices
from service.notifications.deliverer import Deliverer
from service.notifications.digests import Digests
from service.notifications.outbox import Delivery
from service.notifications.preferences import (
    NotifySettings,
    chosen,
    read_settings,
    save_settings,
)
from service.notifications.schema import MIGRATIONS, NOTIFY_SCHEMA, TABLES
from service.runtime.settings import Settings
from service.store.base import SqlStore


class Notifier:
    """Settings, the outbox as an account sees it, and delivery."""

    def __init__(
        self,
        store: SqlStore,
        settings: Settings,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        resolver: Resolver = system_resolver,
    ) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self.resolver = (
            resolver  # one lookup per check and per delivery (service.notifications.addresses)
        )
        self.digests = Digests(store, settings.remind_quiet)
        self.deliverer = Deliverer(store, self._send, clock, settings.notify_backoff)

    def upgrade(self) -> None:
        """Create the tables and bring them to the latest version (idempotent)."""
        self.store.ensure_tables(TABLES, "notify_schema", NOTIFY_SCHEMA)
        for version, statements in sorted(MIGRATIONS.items()):
            self.store.ensure_tables(statements, "notify_schema", version)

    @property
    def mail(self) -> bool:
        """Whether e-mail can be sent (``SMTP_URL``)."""
        return bool(self.settings.smtp_url)

    # --- settings ---------------------------------------------------------------

    def get(self, account_id: str) -> NotifySettings | None:
        return read_settings(self.store, account_id)

    def put(
        self,
        account_id: str,
        changes: dict[str, Any],
        rotate_secret: bool = False,
    ) -> NotifySettings:
        """Change an account's choices (checked; 422 otherwise): ``webhook_url``,
        ``email``, ``kinds`` as given (None clears an address); what is not given
        stays as it was (all kinds, for an account's first save)."""
        known = self.get(account_id)
        choices = chosen(known, changes)
        check_choices(choices, changes, self.settings.webhooks_private, self.resolver)
        return save_settings(self.store, account_id, known, choices, rotate_secret, self.clock())

    # --- the outbox as its owner sees it -----------------------------------------

    def deliveries(self, ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """Each notification's deliveries, with every attempt (the delivery log)."""
        return outbox.delivery_log(self.store, ids)

    def announce(self, game_id: str, version: int, players: Sequence[str], said: Phrase) -> None:
        """A "dispute_ruled" notification to every player of the game (its id names the
        game's version: the projection's own for a ruling that moved the game is the
        same notification, made once)."""
        now = self.clock()
        with self.store.transaction() as cur:
            for player in players:
                outbox.add(cur, player, game_id, version, "dispute_ruled", now, said)

    # --- the deliverer -----------------------------------------------------------

    def round(self, remind: bool = True) -> int:
        """One look: reminders, planning, and the due deliveries handed to free senders
        (they send in the background). Deliveries handed over."""
        now = self.clock()
        if remind:
            self.remind(now)
        self.plan(now)
        self.digests.run(now, self.mail)
        return self.pump(now)

    def remind(self, now: datetime) -> int:
        """A "deadline soon" notification for each decision whose deadline is within
        ``remind_before`` (only when the decision was given more than twice as long)."""
        return planner.remind(self.store, now, self.settings.remind_before)

    def plan(self, now: datetime, limit: int = 500) -> int:
        """A delivery row per notification and channel its account wants."""
        return planner.plan(self.store, now, self.mail, limit)

    def pump(self, now: datetime) -> int:
        """The due deliveries handed to the free senders."""
        return self.deliverer.pump(now)

    def idle(self) -> bool:
        """Whether no delivery is being sent (tests)."""
        return self.deliverer.idle()

    def send_due(self, now: datetime, wait: float = 30.0) -> int:
        """Hand the due deliveries to senders and wait until every sender is idle
        (tests and tools: the deliverer itself does not wait)."""
        return self.deliverer.send_due(now, wait)

    def close(self) -> None:
        self.deliverer.close()

    def _send(self, delivery: Delivery) -> tuple[bool, str]:
        """One delivery on its channel, through the resolver of the moment."""
        return channels.send(delivery, self.settings, self.clock, self.resolver)
