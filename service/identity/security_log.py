"""The security log: every sign-in, sign-out, revocation and failed attempt as one log
line (logger ``tongiaki.security``), with the account, the credential's public id
(``cred``: a session's, a token's or a passkey's), the method and the client's address,
and never a secret (a token, a cookie, a link, a challenge): an address is named by a
short hash of it. (The log's redaction hides any value whose name says "credential",
"key" or "session": the public ids go by ``cred``.)"""

from __future__ import annotations

import hashlib
import logging

log = logging.getLogger("tongiaki.security")


def address_tag(address: str) -> str:
    """An e-mail address in the log: the first 12 hex digits of its SHA-256."""
    return hashlib.sha256(address.encode("utf-8")).hexdigest()[:12]


def record(event: str, **fields: str | int | None) -> None:
    """One security event, its fields as the log line's extra fields."""
    shown = {k: v for k, v in fields.items() if v is not None}
    text = " ".join(f"{k}={v}" for k, v in sorted(shown.items()))
    log.info("%s %s", event, text, extra={"security": event, **shown})


def failed(event: str, reason: str, **fields: str | int | None) -> None:
    """A refused attempt (a bad token, a used link, an unknown passkey…)."""
    shown = {k: v for k, v in fields.items() if v is not None}
    text = " ".join(f"{k}={v}" for k, v in sorted(shown.items()))
    log.warning("%s refused: %s %s", event, reason, text, extra={"security": event, **shown})
