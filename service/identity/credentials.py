"""Credentials on SQL (``identity_credentials``): a page's session (a cookie) or a
program's bearer token, each kept only as the SHA-256 of its secret, with the account
it names, what it is called (the browser, or the token's name), how it was got, when it
was made and last used, when it ends, and whether it was revoked.

An account's first token (the one ``POST /accounts`` shows) is in the event store's
``accounts`` row; it becomes a row here the first time it is used or revoked, so that
it can be listed and revoked like the others."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.store.account_port import Account
from service.store.base import SqlStore
from service.store.rows import Row, named, value
from service.timing.clocks import stamp

SESSION, TOKEN = "session", "token"
TOUCH_MS = 60_000  # last use recorded at most once a minute per credential


def secret_hash(secret: str) -> str:
    """What is kept of a secret (a token, a session, a link, a binding)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret() -> str:
    """A fresh secret: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def ms(moment: datetime) -> int:
    """A time as milliseconds since the epoch."""
    return int(moment.timestamp() * 1000)


@dataclass(frozen=True)
class Credential:
    """One credential as stored (never its secret)."""

    credential_id: str
    account_id: str
    kind: str  # SESSION or TOKEN
    label: str
    method: str  # how it was got: sign-up, token, email, passkey, created
    created_at: str
    last_used_at: str
    last_used_ms: int
    expires_ms: int | None
    revoked_at: str | None

    def live(self, now_ms: int) -> bool:
        """Neither revoked nor past its end."""
        return self.revoked_at is None and (self.expires_ms is None or now_ms < self.expires_ms)


CREDENTIAL = Row(
    Credential,
    "credential_id",
    "account_id",
    "kind",
    "label",
    "method",
    "created_at",
    "last_used_at",
    "last_used_ms",
    "expires_ms",
    "revoked_at",
)
CREDENTIAL_ID = Row(named, "credential_id")


def _with_account(
    account_name: str | None,
    account_kind: str | None,
    account_token_hash: str | None,
    account_created_at: str | None,
    **credential: Any,
) -> tuple[Credential, Account | None]:
    found = Credential(**credential)
    if account_name is None or account_kind is None:
        return found, None
    token_hash, created_at = account_token_hash or "", account_created_at or ""
    return found, Account(found.account_id, account_name, account_kind, token_hash, created_at)


# a credential and its account in one statement (every authenticated request asks both)
CREDENTIAL_AND_ACCOUNT = Row(
    _with_account,
    "a.name AS account_name",
    "a.kind AS account_kind",
    "a.token_hash AS account_token_hash",
    "a.created_at AS account_created_at",
    *(f"c.{column} AS {column}" for column in CREDENTIAL.names),
)


class Credentials:
    """The credentials table of one store."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    def add(
        self,
        account_id: str,
        secret: str,
        *,
        kind: str,
        label: str,
        method: str,
        now: datetime,
        expires_ms: int | None = None,
        credential_id: str | None = None,
    ) -> Credential:
        """Record a new credential for ``secret`` (only its hash)."""
        found = Credential(
            credential_id or secrets.token_hex(8),
            account_id,
            kind,
            label[:200],
            method,
            stamp(now),
            stamp(now),
            ms(now),
            expires_ms,
            None,
        )
        with self.store.transaction() as tx:
            tx.execute(
                "INSERT INTO identity_credentials (credential_id, secret_hash, account_id, kind,"
                " label, method, created_at, last_used_at, last_used_ms, expires_ms)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (secret_hash) DO NOTHING",
                (
                    found.credential_id,
                    secret_hash(secret),
                    account_id,
                    kind,
                    found.label,
                    method,
                    found.created_at,
                    found.last_used_at,
                    found.last_used_ms,
                    expires_ms,
                ),
            )
        return found

    def adopt(
        self, account_id: str, hashed: str, created_at: str, now: datetime, by: str = "sign-up"
    ) -> None:
        """The account's first token (``accounts.token_hash``) as a row, once (``by``: how
        it was made, sign-up or an operator's command)."""
        with self.store.transaction() as tx:
            tx.execute(
                "INSERT INTO identity_credentials (credential_id, secret_hash, account_id, kind,"
                " label, method, created_at, last_used_at, last_used_ms)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (secret_hash) DO NOTHING",
                (
                    secrets.token_hex(8),
                    hashed,
                    account_id,
                    TOKEN,
                    "first token",
                    by,
                    created_at,
                    stamp(now),
                    ms(now),
                ),
            )

    def by_hash(self, hashed: str) -> Credential | None:
        """The credential whose secret hashes to ``hashed``."""
        with self.store.reading() as tx:
            return CREDENTIAL.one(
                tx.execute(
                    f"SELECT {CREDENTIAL.select} FROM identity_credentials WHERE secret_hash = %s",
                    (hashed,),
                )
            )

    def with_account(self, hashed: str) -> tuple[Credential, Account | None] | None:
        """The credential whose secret hashes to ``hashed`` and its account as it is now
        (None if the account is gone), read in one round trip (two on the in-memory
        store, whose accounts are not in its database)."""
        if not self.store.accounts_in_database:
            found = self.by_hash(hashed)
            return None if found is None else (found, self.store.account(found.account_id))
        with self.store.reading() as tx:
            return CREDENTIAL_AND_ACCOUNT.one(
                tx.execute(
                    f"SELECT {CREDENTIAL_AND_ACCOUNT.select} FROM identity_credentials c"
                    " LEFT JOIN accounts a ON a.account_id = c.account_id"
                    " WHERE c.secret_hash = %s",
                    (hashed,),
                )
            )

    def touch(self, found: Credential, now: datetime) -> None:
        """Record a use, at most once a minute (a read does not write each time)."""
        if ms(now) - found.last_used_ms < TOUCH_MS:
            return
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE identity_credentials SET last_used_at = %s, last_used_ms = %s"
                " WHERE credential_id = %s",
                (stamp(now), ms(now), found.credential_id),
            )

    def of_account(self, account_id: str, now: datetime) -> list[Credential]:
        """The account's live credentials, newest use first."""
        with self.store.reading() as tx:
            rows = CREDENTIAL.all(
                tx.execute(
                    f"SELECT {CREDENTIAL.select} FROM identity_credentials"
                    " WHERE account_id = %s AND revoked_at IS NULL"
                    " ORDER BY last_used_ms DESC, credential_id LIMIT 500",
                    (account_id,),
                )
            )
        return [c for c in rows if c.live(ms(now))]

    def revoke(self, account_id: str, credential_id: str, now: datetime) -> bool:
        """Revoke one of the account's credentials; whether it was live."""
        with self.store.transaction() as tx:
            done = tx.execute(
                "UPDATE identity_credentials SET revoked_at = %s"
                " WHERE account_id = %s AND credential_id = %s AND revoked_at IS NULL"
                " RETURNING credential_id",
                (stamp(now), account_id, credential_id),
            )
            return value(done) is not None

    def revoke_all(self, account_id: str, first_token_hash: str, now: datetime) -> list[str]:
        """Revoke every credential of the account, its first token too (a row made
        revoked if it had none): the ids revoked."""
        self.adopt(account_id, first_token_hash, stamp(now), now)
        with self.store.transaction() as tx:
            ids = [
                r["credential_id"]
                for r in CREDENTIAL_ID.all(
                    tx.execute(
                        f"SELECT {CREDENTIAL_ID.select} FROM identity_credentials"
                        " WHERE account_id = %s AND revoked_at IS NULL",
                        (account_id,),
                    )
                )
            ]
            tx.execute(
                "UPDATE identity_credentials SET revoked_at = %s"
                " WHERE account_id = %s AND revoked_at IS NULL",
                (stamp(now), account_id),
            )
        return ids

    def ended_among(self, credential_ids: list[str], now: datetime) -> set[str]:
        """Which of these credentials are revoked, ended or gone (live streams' check)."""
        if not credential_ids:
            return set()
        marks = ", ".join(["%s"] * len(credential_ids))
        with self.store.reading() as tx:
            rows = CREDENTIAL.all(
                tx.execute(
                    f"SELECT {CREDENTIAL.select} FROM identity_credentials"
                    f" WHERE credential_id IN ({marks})",
                    list(credential_ids),
                )
            )
        live = {c.credential_id for c in rows if c.live(ms(now))}
        return set(credential_ids) - live

    def forget_ended_sessions(self, account_id: str, now: datetime) -> None:
        """Drop the account's sessions that ended or were revoked (a revoked token is
        kept: its row is what refuses it)."""
        with self.store.transaction() as tx:
            tx.execute(
                "DELETE FROM identity_credentials WHERE account_id = %s AND kind = %s"
                " AND (revoked_at IS NOT NULL OR expires_ms < %s)",
                (account_id, SESSION, ms(now)),
            )

    def live_of_kind(self, account_id: str, kind: str, now: datetime) -> list[Credential]:
        """The account's live sessions (or tokens), least recently used first."""
        with self.store.reading() as tx:
            rows = CREDENTIAL.all(
                tx.execute(
                    f"SELECT {CREDENTIAL.select} FROM identity_credentials"
                    " WHERE account_id = %s AND kind = %s AND revoked_at IS NULL"
                    " ORDER BY last_used_ms, credential_id",
                    (account_id, kind),
                )
            )
        return [c for c in rows if c.live(ms(now))]
