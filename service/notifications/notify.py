"""Reminders (docs/clocks.md): the notification outbox delivered by webhook and e-mail.

The outbox is a read model (``rm_notifications``, built by the ``notifications``
projection from the games' events, plus "deadline soon" reminders the deliverer
adds from the clocks read model). Each account chooses, in ``notify_settings``,
a webhook URL, an e-mail address and which kinds it wants. The deliverer:

1. ``remind``: a reminder for every decision whose deadline is within
   ``TONGIAKI_REMIND_BEFORE`` seconds (once per decision: the id names it);
2. ``plan``: one delivery row per notification and channel the account wants
   (only notifications made after the settings were first saved);
3. ``pump``: claims due deliveries for the senders that are free (``FOR UPDATE SKIP
   LOCKED`` on PostgreSQL, so two workers never claim one delivery at once), sends
   each as soon as a sender takes it — a signed JSON POST, or a mail through
   ``SMTP_URL`` — and records each attempt in the delivery log as it ends; a
   failure is retried ``TONGIAKI_NOTIFY_BACKOFF`` seconds after it, then given up.
   ``SENDERS`` deliveries go at once, at most ``PER_ACCOUNT`` of one account, so a
   slow endpoint holds up only its own account's.

A claim is a lease of ``LEASE_MS``: if the process dies while sending, another
takes the delivery up when the lease ends. A delivery that had gone out before
the death was recorded is then sent again (at least once, never lost): the
webhook's ``X-Tongiaki-Delivery`` and the mail's ``Message-ID`` are the same both
times, so the receiver can tell.

Webhooks are signed: ``X-Tongiaki-Signature: sha256=<hex>``, the HMAC-SHA256 of
``<X-Tongiaki-Timestamp>.<body>`` with the account's secret.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import re
import secrets
import smtplib
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any
from urllib.parse import unquote, urlsplit

from projections.models import NOTICE_KINDS, notice_id
from service.errors import BadRequest
from service.notifications import webhooks
from service.notifications.addresses import (
    Refused,
    Resolver,
    Unresolvable,
    public_only,
    resolve,
    system_resolver,
)
from service.notifications.digests import HELD, MODES, Digests
from service.notifications.preferences import (
    EPOCH,
    SETTINGS_COLUMNS,
    NotifySettings,
    settings_from_row,
    settings_of,
    to_ms,
)
from service.play.text import EMAIL_PATTERN
from service.runtime.settings import Settings
from service.store.base import SqlStore, StoreUnavailable
from service.timing.clocks import parse_time, stamp

log = logging.getLogger("tongiaki.notify")

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

CHANNELS = ("webhook", "email")
MAX_URL = 2000
MAX_EMAIL = 254
MAX_QUIET_MINUTES = 1440  # a day
EMAIL = re.compile(EMAIL_PATTERN)
TIMEOUT = 5.0  # seconds a webhook, or each step with the mail server, may take
LEASE_MS = 30_000  # a claimed delivery is not claimed again for this long
SENDERS = 16  # deliveries sent at once by one process
PER_ACCOUNT = 2  # of them for one account at most
NOTIFY_EVERY = 0.25  # seconds between the deliverer's looks for due deliveries
REMIND_EVERY = 1.0  # seconds between its looks for deadlines coming


def malformed_host(host: str) -> str | None:
    """Why ``host`` is neither an IP address nor a DNS name (an empty label, a label
    over 63 characters, over 253 in all), or None. Checked before resolving: gevent's
    resolver printed a traceback to the log for such names."""
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    if len(host.rstrip(".")) > 253:
        return "a host name has at most 253 characters"
    if not re.fullmatch(webhooks.HOST_NAME, host):
        return (
            f"{host[:80]!r} is not a host name: labels of 1 to 63 letters, digits, hyphens"
            " or underscores, between dots"
        )
    return None


def private_address(host: str, resolver: Resolver = system_resolver) -> str | None:
    """Why ``host`` may not receive webhooks, or None: it does not resolve, or one of its
    addresses is, or embeds, one that is not public (``service.notifications.addresses``)."""
    if (why := malformed_host(host)) is not None:
        return why
    try:
        public_only(host, resolve(host, 0, resolver))
    except Unresolvable as exc:
        return str(exc)
    except Refused as exc:
        return str(exc)
    return None


def check_webhook(url: str, allow_private: bool, resolver: Resolver = system_resolver) -> str:
    """A webhook URL the service will POST to (422 ``bad_webhook`` otherwise): of the
    shape ``service.notifications.webhooks.URL_PATTERN`` says (the API's document says the
    same), its host resolves, to public addresses only unless ``allow_private``."""
    if len(url) > MAX_URL:
        raise BadRequest("bad_webhook", f"a webhook URL has at most {MAX_URL} characters")
    if any(not 33 <= ord(c) <= 126 for c in url):
        raise BadRequest(
            "bad_webhook",
            "a webhook URL is printable ASCII without spaces (a host name in another script"
            " in its xn-- form, other characters %-encoded)",
        )
    if not webhooks.URL.fullmatch(url):
        raise BadRequest("bad_webhook", f"not a webhook URL: {_url_problem(url)}")
    host = urlsplit(url).hostname or ""
    if len(host.rstrip(".")) > 253:
        raise BadRequest("bad_webhook", "a webhook URL's host name has at most 253 characters")
    why = private_address(host, resolver)
    if why is not None and why.endswith("does not resolve"):
        raise BadRequest("bad_webhook", f"a webhook URL's host must resolve: {why}")
    if why is not None and not allow_private:
        raise BadRequest("bad_webhook", f"webhooks go to public addresses only: {why}")
    return url


def _url_problem(url: str) -> str:
    """What is wrong with a URL of another shape, in a few words."""
    scheme, _, rest = url.partition("://")
    if scheme not in ("http", "https") or not _:
        return "it is http:// or https://"
    authority = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    if "@" in authority:
        return "it holds no user name or password"
    host, port = authority, ""
    if authority.startswith("["):
        inside, close, after = authority[1:].partition("]")
        if not close or (after and not after.startswith(":")):
            return "an address in brackets is an IPv6 address, then at most a port"
        if not re.fullmatch(webhooks.IPV6, inside):
            return f"[{inside[:60]}] is not an IPv6 address"
        port = after[1:]
    else:
        host, _, port = authority.partition(":")
        if not host:
            return "it has a host"
        if not re.fullmatch(webhooks.HOST_NAME, host):
            return (
                f"{host[:80]!r} is not a host name: labels of 1 to 63 letters, digits,"
                " hyphens or underscores, between dots"
            )
    if port and not re.fullmatch(webhooks.PORT, port):
        return "its port is a number from 1 to 65535"
    return "it is http(s)://host[:port][/path]"


def check_email(address: str) -> str:
    if len(address) > MAX_EMAIL:
        raise BadRequest(
            "bad_email", f"email: an e-mail address has at most {MAX_EMAIL} characters"
        )
    if not EMAIL.fullmatch(address):
        raise BadRequest(
            "bad_email",
            "email: an e-mail address is name@example.org: the name of printable ASCII without"
            " spaces, quotes or control characters, dots only between characters; the domain"
            " of labels of letters, digits and hyphens (not at either end), the last one"
            " starting with a letter",
        )
    return address


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The ``X-Tongiaki-Signature`` of a webhook body."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


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
        self._pool = ThreadPoolExecutor(SENDERS, thread_name_prefix="notify")
        self._lock = threading.Lock()
        self._sending: dict[str, int] = {}  # account → its deliveries being sent now
        self._busy = 0  # senders at work

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
        with self.store.reading() as cur:
            row = cur.execute(
                f"SELECT {SETTINGS_COLUMNS} FROM notify_settings WHERE account_id = %s",
                (account_id,),
            ).fetchone()
        return settings_from_row(row) if row else None

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
        webhook_url = changes.get("webhook_url", known.webhook_url if known else None)
        email = changes.get("email", known.email if known else None)
        kinds = changes.get("kinds", known.kinds if known else NOTICE_KINDS)
        your_move = changes.get("your_move", known.your_move if known else "batched")
        quiet = changes.get("quiet_minutes", known.quiet_minutes if known else None)
        if your_move not in MODES:
            raise BadRequest("bad_your_move", f"your_move is one of {', '.join(MODES)}")
        if quiet is not None and not 1 <= quiet <= MAX_QUIET_MINUTES:
            raise BadRequest(
                "bad_quiet_minutes", f"quiet_minutes is 1 to {MAX_QUIET_MINUTES}, or null"
            )
        if "webhook_url" in changes and webhook_url is not None:
            check_webhook(webhook_url, self.settings.webhooks_private, self.resolver)
        if "email" in changes and email is not None:
            check_email(email)
        if not set(kinds) <= set(NOTICE_KINDS):
            raise BadRequest("bad_kinds", f"kinds are among {', '.join(NOTICE_KINDS)}")
        now = stamp(self.clock())
        secret = known.secret if known is not None and not rotate_secret else secrets.token_hex(32)
        since = known.since if known is not None else now
        chosen = ",".join(k for k in NOTICE_KINDS if k in kinds)
        with self.store.transaction() as cur:
            cur.execute(
                "INSERT INTO notify_settings (account_id, webhook_url, secret, email, kinds,"
                " since, updated_at, your_move, quiet_minutes)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (account_id) DO UPDATE SET webhook_url = excluded.webhook_url,"
                " secret = excluded.secret, email = excluded.email, kinds = excluded.kinds,"
                " updated_at = excluded.updated_at, your_move = excluded.your_move,"
                " quiet_minutes = excluded.quiet_minutes",
                (account_id, webhook_url, secret, email, chosen, since, now, your_move, quiet),
            )
        saved = self.get(account_id)
        assert saved is not None
        return saved

    # --- the outbox as its owner sees it -----------------------------------------

    def deliveries(self, ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """Each notification's deliveries, with every attempt (the delivery log)."""
        if not ids:
            return {}
        marks = ", ".join(["%s"] * len(ids))
        with self.store.reading() as cur:
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

    # --- the deliverer -----------------------------------------------------------

    def round(self, remind: bool = True) -> int:
        """One look: reminders, planning, and the due deliveries handed to free senders
        (they send in the background). Deliveries handed over."""
        now = self.clock()
        if remind:
            self.remind(now)
        self.plan(now)
        self.digests.run(now, self.channels)
        return self.pump(now)

    def channels(self, s: NotifySettings) -> list[str]:
        """The channels an account is told on (mail only where the server sends mail)."""
        return [c for c, on in (("webhook", s.webhook_url), ("email", s.email and self.mail)) if on]

    def idle(self) -> bool:
        """Whether no delivery is being sent (tests)."""
        return self._busy == 0

    def remind(self, now: datetime) -> int:
        """A "deadline soon" notification for each decision whose deadline is within
        ``remind_before`` (only when the decision was given more than twice as long)."""
        before = self.settings.remind_before
        now_ms = to_ms(now)
        with self.store.reading() as cur:
            rows = cur.execute(
                "SELECT c.game_id, c.version, c.due_ms, l.active_player, l.data"
                " FROM rm_clocks c JOIN rm_lobby l ON l.game_id = c.game_id"
                " WHERE c.due_ms > %s AND c.due_ms <= %s",
                (now_ms, now_ms + before * 1000),
            ).fetchall()
        made = 0
        for game_id, version, due, player, data in rows:
            entry = json.loads(data)
            clock = entry.get("clock") or {}
            if not player or not clock.get("since") or not clock.get("deadline"):
                continue
            seat = clock.get("seat")
            if any(s.get("bot") for s in entry.get("seats", []) if s.get("seat") == seat):
                continue
            span = parse_time(clock["deadline"]) - parse_time(clock["since"])
            if span.total_seconds() <= 2 * before:
                continue
            minutes = max(1, (int(due) - now_ms) // 60_000)
            unit = "minute" if minutes == 1 else "minutes"
            text = f"Your move: the deadline is in {minutes} {unit} ({clock['deadline']})."
            with self.store.transaction() as cur:
                _insert(cur, player, game_id, int(version), "deadline_soon", now, text)
            made += 1
        return made

    def announce(self, game_id: str, version: int, players: Sequence[str], text: str) -> None:
        """A "dispute_ruled" notification to every player of the game (its id names the
        game's version: the projection's own for a ruling that moved the game is the
        same notification, made once)."""
        now = self.clock()
        with self.store.transaction() as cur:
            for player in players:
                _insert(cur, player, game_id, version, "dispute_ruled", now, text)

    def plan(self, now: datetime, limit: int = 500) -> int:
        """A delivery row per notification and channel its account wants."""
        now_ms = to_ms(now)
        with self.store.transaction() as cur:
            rows = cur.execute(
                "SELECT id, account_id, kind, created_at FROM rm_notifications"
                " WHERE planned = 0 LIMIT %s",
                (limit,),
            ).fetchall()
            if not rows:
                return 0
            accounts = sorted({r[1] for r in rows})
            chosen = settings_of(cur, accounts)
            planned = []
            # your_move, batched: for the account's next digest (service.notifications.digests)
            held = []
            for n, account_id, kind, created in rows:
                s = chosen.get(account_id)
                if s is None or kind not in s.kinds:
                    continue
                if parse_time(created) < parse_time(s.since):
                    continue
                channels = self.channels(s)
                if kind == "your_move" and s.your_move != "every":
                    if s.your_move == "batched" and channels:
                        held.append(n)
                    continue
                planned += [(n, c, account_id, "pending", 0, now_ms) for c in channels]
            for row in planned:
                cur.execute(
                    "INSERT INTO notify_deliveries (notification_id, channel, account_id,"
                    " status, attempts, next_ms) VALUES (%s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT (notification_id, channel) DO NOTHING",
                    row,
                )
            ids = [r[0] for r in rows]
            cur.execute(
                "UPDATE rm_notifications SET planned = 1 WHERE id IN"
                f" ({', '.join(['%s'] * len(ids))})",
                tuple(ids),
            )
            if held:
                cur.execute(
                    f"UPDATE rm_notifications SET planned = {HELD} WHERE id IN"
                    f" ({', '.join(['%s'] * len(held))})",
                    tuple(held),
                )
        return len(planned)

    def pump(self, now: datetime) -> int:
        """Claim the due deliveries the free senders can take (``PER_ACCOUNT`` at most
        for one account, counting those under way) and hand each to a sender, which
        sends it and records the attempt."""
        with self._lock:
            free = SENDERS - self._busy
            sending = dict(self._sending)
        if free <= 0:
            return 0
        now_ms = to_ms(now)
        lock = " FOR UPDATE OF d SKIP LOCKED" if self.store.postgres else ""
        taken: list[Sequence[Any]] = []
        with self.store.transaction() as cur:
            rows = cur.execute(
                "SELECT d.notification_id, d.channel, d.attempts, n.account_id, n.game_id,"
                " n.version, n.kind, n.created_at, n.text, s.webhook_url, s.secret, s.email,"
                " d.games"
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
                (now_ms, now_ms, PER_ACCOUNT, free * 4),
            ).fetchall()
            for row in rows:
                account = row[3]
                if len(taken) >= free or sending.get(account, 0) >= PER_ACCOUNT:
                    continue  # left for a later look: unclaimed, another process may take it
                sending[account] = sending.get(account, 0) + 1
                taken.append(row)
                cur.execute(
                    "UPDATE notify_deliveries SET next_ms = %s"
                    " WHERE notification_id = %s AND channel = %s",
                    (now_ms + LEASE_MS, row[0], row[1]),
                )
        for row in taken:
            with self._lock:
                self._busy += 1
                self._sending[row[3]] = self._sending.get(row[3], 0) + 1
            try:
                self._pool.submit(self._deliver, row)
            except RuntimeError:  # shutting down: the lease ends, another process sends it
                self._done(row[3])
        return len(taken)

    def _deliver(self, row: Sequence[Any]) -> None:
        """A sender: send one delivery, record the attempt."""
        try:
            ok, detail = self._send(row)
            self._record(row[0], row[1], int(row[2]) + 1, ok, detail)
        except StoreUnavailable as exc:  # the lease ends and it is sent again
            log.warning("delivery of %s by %s not recorded: %s", row[0], row[1], exc)
        except Exception:
            log.exception("delivery of %s by %s failed", row[0], row[1])
        finally:
            self._done(row[3])

    def _done(self, account: str) -> None:
        with self._lock:
            self._busy -= 1
            left = self._sending.get(account, 1) - 1
            if left:
                self._sending[account] = left
            else:
                self._sending.pop(account, None)

    def send_due(self, now: datetime, wait: float = 30.0) -> int:
        """Hand the due deliveries to senders and wait until every sender is idle
        (tests and tools: the deliverer itself does not wait)."""
        handed = self.pump(now)
        deadline = time.monotonic() + wait
        while not self.idle() and time.monotonic() < deadline:
            time.sleep(0.01)
        return handed

    def _send(self, row: Sequence[Any]) -> tuple[bool, str]:
        n, channel, _, account_id, game_id, version, kind, created, text, url, secret, email = row[
            :12
        ]
        notice: dict[str, Any] = {
            "id": n,
            "account_id": account_id,
            "game_id": game_id,
            "version": version,
            "kind": kind,
            "created_at": created,
            "text": text,
        }
        public = self.settings.public_url
        if public:  # where the player opens the game
            notice["url"] = f"{public}/games/{game_id}"
        if row[
            12
        ]:  # a digest: every game where it is the player's move (service.notifications.digests)
            games = json.loads(row[12])
            for g in games:
                if public:
                    g["url"] = f"{public}/games/{g['game_id']}"
            notice["games"] = games
            if len(games) > 1:
                notice["text"] = f"It is your move in {len(games)} games."
        try:
            if channel == "webhook":
                return self._post(url, secret, notice)
            return self._mail(email, notice)
        except Exception as exc:  # a delivery never takes the deliverer down
            log.exception("delivery of %s by %s failed", n, channel)
            return False, f"{type(exc).__name__}: {exc}"[:500]

    def _post(self, url: str | None, secret: str, notice: dict[str, Any]) -> tuple[bool, str]:
        if not url:
            return False, "no webhook URL any more"
        body = json.dumps(notice, sort_keys=True, separators=(",", ":")).encode()
        timestamp = str(int(self.clock().timestamp()))
        outcome = webhooks.post(
            url,
            body,
            {
                "Content-Type": "application/json",
                "User-Agent": "tongiaki-webhooks/1",
                "X-Tongiaki-Delivery": notice["id"],
                "X-Tongiaki-Event": notice["kind"],
                "X-Tongiaki-Timestamp": timestamp,
                "X-Tongiaki-Signature": signature(secret, timestamp, body),
            },
            allow_private=self.settings.webhooks_private,
            timeout=TIMEOUT,
            resolver=self.resolver,
        )
        return outcome.ok, outcome.detail

    def _mail(self, address: str | None, notice: dict[str, Any]) -> tuple[bool, str]:
        if not address:
            return False, "no e-mail address any more"
        if not self.mail:
            return False, "SMTP_URL is not set"
        parts = urlsplit(self.settings.smtp_url)
        message = EmailMessage()
        message["From"] = self.settings.mail_from
        message["To"] = address
        message["Subject"] = f"Tongiaki: {notice['text']}"[:200]
        message["Message-ID"] = f"<{notice['id']}@tongiaki>"  # a repeat is the same mail
        message["Date"] = formatdate(self.clock().timestamp(), usegmt=True)
        if len(notice.get("games", [])) > 1:
            lines = [
                f"- game {g['game_id']} (version {g['version']})"
                + (f": {g['url']}" if "url" in g else "")
                for g in notice["games"]
            ]
            message.set_content(f"{notice['text']}\n\n" + "\n".join(lines) + "\n")
        else:
            link = f"\n{notice['url']}\n" if "url" in notice else ""
            message.set_content(
                f"{notice['text']}\n{link}\nGame {notice['game_id']}, version"
                f" {notice['version']} ({notice['created_at']}).\n"
            )
        secure = parts.scheme == "smtps"
        port = parts.port or (465 if secure else 25)
        klass = smtplib.SMTP_SSL if secure else smtplib.SMTP
        try:
            with klass(parts.hostname or "", port, timeout=TIMEOUT) as smtp:
                if not secure and "starttls=1" in (parts.query or ""):
                    smtp.starttls()
                if parts.username:
                    smtp.login(unquote(parts.username), unquote(parts.password or ""))
                refused = smtp.send_message(message)
        except (smtplib.SMTPException, OSError) as exc:
            return False, f"{type(exc).__name__}: {exc}"[:500]
        if refused:
            return False, f"refused: {sorted(refused)}"
        return True, "sent"

    def _record(self, n: str, channel: str, attempt: int, ok: bool, detail: str) -> None:
        now = self.clock()
        backoff = self.settings.notify_backoff
        if ok:
            status, next_ms, error, delivered = "delivered", to_ms(now), None, stamp(now)
        elif attempt > len(backoff):
            status, next_ms, error, delivered = "failed", to_ms(now), detail, None
        else:
            delay = timedelta(seconds=backoff[attempt - 1])
            status, next_ms, error, delivered = "pending", to_ms(now + delay), detail, None
        with self.store.transaction() as cur:
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

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _insert(
    cur: Any, account_id: str, game_id: str, version: int, kind: str, at: datetime, text: str
) -> None:
    """One notification into the outbox (once: its id names what it is about)."""
    cur.execute(
        "INSERT INTO rm_notifications (id, account_id, game_id, version, kind, created_at,"
        " created_ms, text) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
        (
            notice_id(account_id, game_id, version, kind),
            account_id,
            game_id,
            version,
            kind,
            stamp(at),
            to_ms(at),
            text,
        ),
    )


def run_deliveries(notifier: Notifier, every: float, closed: Callable[[], bool]) -> threading.Event:
    """A thread that looks for due deliveries every ``every`` seconds (and for coming
    deadlines every ``REMIND_EVERY``) until ``closed()`` or the returned event is set
    (the embedded default and the worker); the senders work beside it."""
    stop = threading.Event()

    def loop() -> None:
        reminded = 0.0
        while not closed() and not stop.is_set():
            try:
                remind = time.monotonic() - reminded >= REMIND_EVERY
                if remind:
                    reminded = time.monotonic()
                notifier.round(remind)
            except StoreUnavailable as exc:  # away: the next round tries again
                log.warning("notifications skipped: %s", exc)
            except Exception:
                log.exception("notifications failed")
            if stop.wait(every):
                return

    threading.Thread(target=loop, name="notify", daemon=True).start()
    return stop
