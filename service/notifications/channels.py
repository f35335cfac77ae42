"""Sending one delivery on its channel: the notice as JSON, POSTed to the account's
webhook and signed, or a mail through ``SMTP_URL``. What became of it, in a few words
for the delivery log; never an exception.

Webhooks are signed: ``X-Tongiaki-Signature: sha256=<hex>``, the HMAC-SHA256 of
``<X-Tongiaki-Timestamp>.<body>`` with the account's secret. A delivery sent again
(its lease ended before its attempt was recorded) carries the same
``X-Tongiaki-Delivery``, and the same ``Message-ID`` as a mail, so the receiver can tell.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import smtplib
from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any
from urllib.parse import unquote, urlsplit

from service.i18n.catalogs import gettext, ngettext
from service.i18n.locales import DEFAULT, SUPPORTED
from service.i18n.phrases import Unreadable, render
from service.notifications import webhooks
from service.notifications.addresses import Resolver
from service.notifications.outbox import Delivery
from service.runtime.settings import Settings

log = logging.getLogger("tongiaki.notify")

TIMEOUT = 5.0  # seconds a webhook, or each step with the mail server, may take


def send(
    delivery: Delivery, settings: Settings, clock: Callable[[], datetime], resolver: Resolver
) -> tuple[bool, str]:
    """Send ``delivery`` on its channel: whether it went, and what happened."""
    told = notice(delivery, settings.public_url)
    try:
        if delivery.channel == "webhook":
            return post(delivery.webhook_url, delivery.secret, told, settings, clock, resolver)
        return mail(delivery.email, told, settings, clock)
    except Exception as exc:  # a delivery never takes the deliverer down
        log.exception("delivery of %s by %s failed", delivery.notification_id, delivery.channel)
        return False, f"{type(exc).__name__}: {exc}"[:500]


def notice(delivery: Delivery, public_url: str) -> dict[str, Any]:
    """What the account is told: the notification, a link to its game where the service
    knows its public address, and a digest's games; its ``text`` in the account's
    language (``lang``: docs/i18n.md), every other member as it is."""
    lang = delivery.language if delivery.language in SUPPORTED else DEFAULT
    told: dict[str, Any] = {
        "id": delivery.notification_id,
        "account_id": delivery.account_id,
        "game_id": delivery.game_id,
        "version": delivery.version,
        "kind": delivery.kind,
        "created_at": delivery.created_at,
        "text": _said(delivery, lang),
        "lang": lang,
    }
    if public_url:  # where the player opens the game
        told["url"] = f"{public_url}/games/{delivery.game_id}"
    if delivery.games:  # a digest: every game where it is the player's move
        games = json.loads(delivery.games)
        for g in games:
            if public_url:
                g["url"] = f"{public_url}/games/{g['game_id']}"
        told["games"] = games
        if len(games) > 1:
            told["text"] = ngettext(
                lang, "It is your move in {n} game.", "It is your move in {n} games.", len(games)
            )
    return told


def _said(delivery: Delivery, lang: str) -> str:
    """The notification's text in ``lang``: its phrase said in it, if kept (a notice made
    before phrases were kept is said in English)."""
    if lang == DEFAULT or delivery.words is None:
        return delivery.text
    try:
        return render(json.loads(delivery.words), lang)
    except (Unreadable, ValueError, KeyError, TypeError):
        return delivery.text


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The ``X-Tongiaki-Signature`` of a webhook body."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def post(
    url: str | None,
    secret: str,
    told: dict[str, Any],
    settings: Settings,
    clock: Callable[[], datetime],
    resolver: Resolver,
) -> tuple[bool, str]:
    """The notice POSTed to the account's webhook, signed (``service.notifications.webhooks``:
    to an address of the one lookup that was checked)."""
    if not url:
        return False, "no webhook URL any more"
    body = json.dumps(told, sort_keys=True, separators=(",", ":")).encode()
    timestamp = str(int(clock().timestamp()))
    outcome = webhooks.post(
        url,
        body,
        {
            "Content-Type": "application/json",
            "User-Agent": "tongiaki-webhooks/1",
            "X-Tongiaki-Delivery": told["id"],
            "X-Tongiaki-Event": told["kind"],
            "X-Tongiaki-Timestamp": timestamp,
            "X-Tongiaki-Signature": signature(secret, timestamp, body),
        },
        allow_private=settings.webhooks_private,
        timeout=TIMEOUT,
        resolver=resolver,
    )
    return outcome.ok, outcome.detail


def mail(
    address: str | None, told: dict[str, Any], settings: Settings, clock: Callable[[], datetime]
) -> tuple[bool, str]:
    """The notice mailed to the account's address through ``SMTP_URL``."""
    if not address:
        return False, "no e-mail address any more"
    if not settings.smtp_url:
        return False, "SMTP_URL is not set"
    message = EmailMessage()
    message["From"] = settings.mail_from
    message["To"] = address
    lang = told.get("lang", DEFAULT)
    message["Subject"] = gettext(lang, "Tongiaki: {text}", text=told["text"])[:200]
    message["Message-ID"] = f"<{told['id']}@tongiaki>"  # a repeat is the same mail
    message["Date"] = formatdate(clock().timestamp(), usegmt=True)
    message.set_content(_mail_text(told, lang))
    return hand_to_smtp(settings.smtp_url, message)


def _mail_text(told: dict[str, Any], lang: str) -> str:
    """A mail's text in ``lang``: a digest's line per game, else the notification and its
    game."""
    if len(told.get("games", [])) > 1:
        lines = [
            gettext(
                lang, "- game {game} (version {version})", game=g["game_id"], version=g["version"]
            )
            + (f": {g['url']}" if "url" in g else "")
            for g in told["games"]
        ]
        return f"{told['text']}\n\n" + "\n".join(lines) + "\n"
    link = f"\n{told['url']}\n" if "url" in told else ""
    game = gettext(
        lang,
        "Game {game}, version {version} ({at}).",
        game=told["game_id"],
        version=told["version"],
        at=told["created_at"],
    )
    return f"{told['text']}\n{link}\n{game}\n"


def hand_to_smtp(smtp_url: str, message: EmailMessage) -> tuple[bool, str]:
    """``message`` handed to the mail server ``smtp_url`` names (``smtps://``, or
    ``smtp://`` with ``?starttls=1``; a user and password if given)."""
    parts = urlsplit(smtp_url)
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
