"""Schemas of ``/accounts`` and ``/me`` (service/http/api/accounts.py): sign-up, the
account, notification settings and notifications."""

from __future__ import annotations

from marshmallow import fields, validate

from projections.models import NOTICE_KINDS
from service.http.api.schemas.base import PRINTABLE, Strict, strict_boolean
from service.notifications.digests import MODES as YOUR_MOVE_MODES
from service.notifications.webhooks import URL_PATTERN as WEBHOOK_PATTERN
from service.play.text import EMAIL_PATTERN


class AccountCreate(Strict):
    openapi_patterns = {"name": "shown"}  # service.play.accounts checks it (422 bad_name)

    name = fields.String(
        required=True,
        validate=[validate.Length(1, 64), PRINTABLE],
        metadata={
            "description": "1 to 64 characters others can read: no control, format or"
            " bidirectional characters, and at least one visible one (422 bad_name)"
        },
    )


class AccountCreated(Strict):
    account_id = fields.String(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "shown once; send as Bearer"})


class Me(Strict):
    account_id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, metadata={"description": "player or auditor"})
    csrf_token = fields.String(
        allow_none=True,
        metadata={"description": "signed in by the session cookie: send as X-CSRF-Token"},
    )
    recoverable = fields.Boolean(
        metadata={"description": "false: no e-mail and no passkey (docs/accounts.md)"}
    )


class NotifySettingsIn(Strict):
    """A change: fields left out keep their value; null clears an address."""

    webhook_url = fields.String(
        allow_none=True,
        validate=validate.Length(1, 2000),
        metadata={
            # documented, and checked by service.notifications.checks.check_webhook in its words
            "pattern": WEBHOOK_PATTERN,
            "description": "http(s) URL that receives signed JSON POSTs; null: none. Its host"
            " must resolve, to public addresses only unless the server allows private ones"
            " (else 422 bad_webhook)",
        },
    )
    email = fields.String(
        allow_none=True,
        metadata={
            # checked by service.notifications.checks.check_email, length included (422 bad_email)
            "maxLength": 254,
            # documented, and checked by service.notifications.checks.check_email (422 bad_email)
            "pattern": EMAIL_PATTERN,
            "description": "where mails go (when the server has SMTP_URL); null: none. An"
            " address of printable ASCII, name@domain: no spaces, quotes or control"
            " characters (a domain in another script in its xn-- form)",
        },
    )
    kinds = fields.List(
        fields.String(validate=validate.OneOf(NOTICE_KINDS)),
        validate=validate.Length(0, len(NOTICE_KINDS)),
        metadata={"description": "the kinds wanted (all, at an account's first save)"},
    )
    your_move = fields.String(
        validate=validate.OneOf(YOUR_MOVE_MODES),
        metadata={
            "description": "how your_move reminders are delivered (docs/clocks.md, Reminders):"
            " batched (the default: the first at once, then at most one message per quiet"
            " period listing every game where it is still your move), every (each one),"
            " never"
        },
    )
    quiet_minutes = fields.Integer(
        allow_none=True,
        validate=validate.Range(1, 1440),
        metadata={"description": "the quiet period of batched reminders; null: the server's"},
    )
    rotate_secret = strict_boolean(
        load_default=False, metadata={"description": "make a new webhook signing secret"}
    )


class NotifySettingsView(Strict):
    webhook_url = fields.String(allow_none=True, required=True)
    webhook_secret = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "signs each webhook: X-Tongiaki-Signature = sha256=HMAC-SHA256"
            "(secret, X-Tongiaki-Timestamp + '.' + body), hex"
        },
    )
    email = fields.String(allow_none=True, required=True)
    kinds = fields.List(fields.String(), required=True)
    your_move = fields.String(required=True, metadata={"description": ", ".join(YOUR_MOVE_MODES)})
    quiet_minutes = fields.Integer(allow_none=True, required=True)
    default_quiet_minutes = fields.Integer(
        required=True, metadata={"description": "the server's quiet period (TONGIAKI_REMIND_QUIET)"}
    )
    email_available = fields.Boolean(
        required=True, metadata={"description": "whether this server sends mail (SMTP_URL)"}
    )


class Notification(Strict):
    id = fields.String(required=True)
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    kind = fields.String(required=True, metadata={"description": ", ".join(NOTICE_KINDS)})
    created_at = fields.String(required=True)
    text = fields.String(required=True)
    deliveries = fields.List(
        fields.Dict(),
        required=True,
        metadata={
            "description": "per channel: status (pending, delivered, failed; batched: told"
            " in a digest, skipped: no longer your move when the digest was due), attempts,"
            " last_error (batched, skipped: why), delivered_at, next_attempt_at (pending: the"
            " next try, or while one is under way the end of its 30 s claim), games (a"
            " digest: every game it tells of), log (every attempt)"
        },
    )


class Notifications(Strict):
    notifications = fields.List(fields.Nested(Notification), required=True)
    has_more = fields.Boolean(
        required=True,
        metadata={"description": "whether older ones follow: ask again with before=next_before"},
    )
    next_before = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "pass as ?before= for the older ones (null: no more)"},
    )
