"""The outbox's storage: the one module that reads and writes the notifications
(``rm_notifications``), their deliveries (``notify_deliveries``), each attempt
(``notify_attempts``) and the digests' last times (``notify_digests``).

A notification is made once (its id names what it is about), then planned: a delivery
row per channel its account wants, or held for a digest. A due delivery is claimed
under a lease of ``LEASE_MS``: if the process dies while sending, another takes it up
when the lease ends (at least once, never lost). Each attempt is recorded as it ends;
a failure is retried after the next of the backoff's delays, then given up.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from projections.models import notice_id
from projections.phrases import Phrase
from service.notifications.preferences import EPOCH, to_ms
from service.preferences.languages import languages_of
from service.store.base import SqlStore
from service.timing.clocks import stamp

PLANNED = 1  # rm_notifications.planned: its deliveries made (or none wanted)
HELD = 2  # rm_notifications.planned: a your_move notification waiting for its digest
LEASE_MS = 30_000  # a claimed delivery is not claimed again for this long


@dataclass(frozen=True)
class Delivery:
    """A claimed delivery: one notification, one channel, with what sending it needs."""

    notification_id: str
    channel: str  # "webhook" or "email"
    attempts: int  # made before this one
    account_id: str
    game_id: str
    version: int
    kind: str
    created_at: str
    text: str
    webhook_url: str | None
    secret: str
    email: str | None
    games: str | None  # a digest's games (JSON), else None
    words: str | None = None  # the text as a phrase (JSON: projections.phrases), if kept
    language: str | None = None  # the account's language (docs/i18n.md), if it chose one


class Unplanned(NamedTuple):
    """A notification whose deliveries are still to be planned."""

    id: str
    account_id: str
    kind: str
    created_at: str


class Held(NamedTuple):
    """A your_move notification held for its account's next digest."""

    id: str
    account_id: str
    game_id: str
    version: int
    created_ms: int


def add(
    cur: Any,
    account_id: str,
    game_id: str,
    version: int,
    kind: str,
    at: datetime,
    said: Phrase,
) -> None:
    """One notification into the outbox (once: its id names what it is about), its words
    in English and as a phrase (told in the account's language)."""
    cur.execute(
        "INSERT INTO rm_notifications (id, account_id, game_id, version, kind, created_at,"
        " created_ms, text, words) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (id) DO NOTHING",
        (
            notice_id(account_id, game_id, version, kind),
            account_id,
            game_id,
            version,
            kind,
            stamp(at),
            to_ms(at),
            said.english(),
            json.dumps(said.data(), separators=(",", ":")),
        ),
    )


def unplanned(cur: Any, limit: int) -> list[Unplanned]:
    """Notifications not planned yet, ``limit`` at most."""
    rows = cur.execute(
        "SELECT id, account_id, kind, created_at FROM rm_notifications WHERE planned = 0 LIMIT %s",
        (limit,),
    ).fetchall()
    return [Unplanned(*row) for row in rows]


def held(cur: Any) -> list[Held]:
    """Every notification held for a digest, by account, oldest first."""
    rows = cur.execute(
        "SELECT id, account_id, game_id, version, created_ms FROM rm_notifications"
        " WHERE planned = %s ORDER BY account_id, created_ms, id",
        (HELD,),
    ).fetchall()
    return [Held(*row) for row in rows]


def mark(cur: Any, ids: Sequence[str], planned: int) -> None:
    """Mark notifications ``PLANNED`` or ``HELD``."""
    if ids:
        cur.execute(
            "UPDATE rm_notifications SET planned = %s WHERE id IN"
            f" ({', '.join(['%s'] * len(ids))})",
            (planned, *ids),
        )


def add_delivery(
    cur: Any,
    notification_id: str,
    channel: str,
    account_id: str,
    next_ms: int,
    status: str = "pending",
    games: list[dict[str, Any]] | None = None,
    note: str | None = None,
) -> None:
    """A delivery row (once per notification and channel): ``pending`` from ``next_ms``
    (a digest's with its ``games``), or settled at once (``batched``, ``skipped``, with
    a ``note`` saying why)."""
    cur.execute(
        "INSERT INTO notify_deliveries (notification_id, channel, account_id, status,"
        " attempts, next_ms, games, last_error) VALUES (%s, %s, %s, %s, 0, %s, %s, %s)"
        " ON CONFLICT (notification_id, channel) DO NOTHING",
        (
            notification_id,
            channel,
            account_id,
            status,
            next_ms,
            json.dumps(games) if games is not None else None,
            note,
        ),
    )


def last_digests(cur: Any, accounts: Sequence[str]) -> dict[str, int]:
    """When each of these accounts was last sent a digest (those that were), in ms."""
    marks = ", ".join(["%s"] * len(accounts))
    rows = cur.execute(
        f"SELECT account_id, last_ms FROM notify_digests WHERE account_id IN ({marks})",
        tuple(accounts),
    ).fetchall()
    return {account: int(last) for account, last in rows}


def digest_sent(cur: Any, account_id: str, now_ms: int) -> None:
    cur.execute(
        "INSERT INTO notify_digests (account_id, last_ms) VALUES (%s, %s)"
        " ON CONFLICT (account_id) DO UPDATE SET last_ms = excluded.last_ms",
        (account_id, now_ms),
    )


def claim(
    store: SqlStore, now_ms: int, free: int, sending: dict[str, int], per_account: int
) -> list[Delivery]:
    """Lease up to ``free`` due deliveries, at most ``per_account`` of one account counting
    the ``sending`` ones (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so two processes never
    claim one delivery at once). Those left over stay unclaimed for a later look."""
    lock = " FOR UPDATE OF d SKIP LOCKED" if store.postgres else ""
    taken: list[Delivery] = []
    sending = dict(sending)
    with store.transaction() as cur:
        rows = cur.execute(
            "SELECT d.notification_id, d.channel, d.attempts, n.account_id, n.game_id,"
            " n.version, n.kind, n.created_at, n.text, s.webhook_url, s.secret, s.email,"
            " d.games, n.words"
            " FROM notify_deliveries d"
            " JOIN rm_notifications n ON n.id = d.notification_id"
            " JOIN notify_settings s ON s.account_id = d.account_id"
            " WHERE d.status = 'pending' AND d.next_ms <= %s"
            # the first few of each account only: one account's backlog (a slow or
            # dead endpoint) never hides the others' deliveries behind it
            " AND (d.notification_id, d.channel) IN (SELECT notification_id, channel FROM"
            " (SELECT notification_id, channel, ROW_NUMBER() OVER (PARTITION BY account_id"
            " ORDER BY next_ms) AS k FROM notify_deliveries"
            " WHERE status = 'pending' AND next_ms <= %s) AS firsts WHERE k <= %s)"
            f" ORDER BY d.next_ms LIMIT %s{lock}",
            (now_ms, now_ms, per_account, free * 4),
        ).fetchall()
        for delivery in (Delivery(*row) for row in rows):
            account = delivery.account_id
            if len(taken) >= free or sending.get(account, 0) >= per_account:
                continue  # left for a later look: unclaimed, another process may take it
            sending[account] = sending.get(account, 0) + 1
            taken.append(delivery)
            cur.execute(
                "UPDATE notify_deliveries SET next_ms = %s"
                " WHERE notification_id = %s AND channel = %s",
                (now_ms + LEASE_MS, delivery.notification_id, delivery.channel),
            )
        chosen = languages_of(cur, sorted({d.account_id for d in taken}))
    return [replace(d, language=chosen.get(d.account_id)) for d in taken]


def record(
    store: SqlStore,
    delivery: Delivery,
    ok: bool,
    detail: str,
    now: datetime,
    backoff: Sequence[float],
) -> None:
    """One attempt ended: the delivery ``delivered``, ``pending`` again after the next of
    the ``backoff``'s delays, or ``failed`` past the last; the attempt in the log."""
    attempt = int(delivery.attempts) + 1
    if ok:
        status, next_ms, error, delivered = "delivered", to_ms(now), None, stamp(now)
    elif attempt > len(backoff):
        status, next_ms, error, delivered = "failed", to_ms(now), detail, None
    else:
        delay = timedelta(seconds=backoff[attempt - 1])
        status, next_ms, error, delivered = "pending", to_ms(now + delay), detail, None
    n, channel = delivery.notification_id, delivery.channel
    with store.transaction() as cur:
        cur.execute(
            "UPDATE notify_deliveries SET status = %s, attempts = %s, next_ms = %s,"
            " last_error = %s, delivered_at = %s WHERE notification_id = %s AND channel = %s",
            (status, attempt, next_ms, error, delivered, n, channel),
        )
        cur.execute(
            "INSERT INTO notify_attempts (notification_id, channel, attempt, at, ok, detail)"
            " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (n, channel, attempt, stamp(now), 1 if ok else 0, detail),
        )


def delivery_log(store: SqlStore, ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Each notification's deliveries, with every attempt (the delivery log)."""
    if not ids:
        return {}
    marks = ", ".join(["%s"] * len(ids))
    with store.reading() as cur:
        rows = cur.execute(
            "SELECT notification_id, channel, status, attempts, last_error, delivered_at,"
            f" next_ms, games FROM notify_deliveries WHERE notification_id IN ({marks})"
            " ORDER BY channel",
            tuple(ids),
        ).fetchall()
        tries = cur.execute(
            "SELECT notification_id, channel, attempt, at, ok, detail FROM notify_attempts"
            f" WHERE notification_id IN ({marks}) ORDER BY attempt",
            tuple(ids),
        ).fetchall()
    log_of: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for n, channel, attempt, at, ok, detail in tries:
        log_of.setdefault((n, channel), []).append(
            {"attempt": attempt, "at": at, "ok": bool(ok), "detail": detail}
        )
    found: dict[str, list[dict[str, Any]]] = {}
    for n, channel, status, attempts, error, delivered, next_ms, games in rows:
        found.setdefault(n, []).append(
            {
                "channel": channel,
                "games": [g["game_id"] for g in json.loads(games)] if games else None,
                "status": status,
                "attempts": attempts,
                "last_error": error,
                "delivered_at": delivered,
                "next_attempt_at": stamp(EPOCH + timedelta(milliseconds=next_ms))
                if status == "pending"
                else None,
                "log": log_of.get((n, channel), []),
            }
        )
    return found
