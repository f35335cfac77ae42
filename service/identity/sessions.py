"""Who is calling, and the credentials that say so: a bearer token (programs) or a
page's session cookie, checked against ``identity_credentials`` at every request (a
revocation holds at once, on every process), never cached.

A session is made only by a sign-in (a token, an e-mail link, a passkey) and always
with a fresh secret: a cookie set before it names nothing (no session fixation). Its
CSRF token is derived from its secret (``csrf_token``): a page sends it back in
``X-CSRF-Token`` with every write."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from service.errors import BadRequest, Forbidden, NotFound, Unauthorized
from service.identity import security_log
from service.identity.credentials import (
    SESSION,
    TOKEN,
    Credential,
    Credentials,
    ms,
    new_secret,
    secret_hash,
)
from service.store.base import DELETED, Account, SqlStore
from service.store.rows import value
from service.timing.clocks import stamp

SESSION_DAYS = 30  # a page's session ends this long after its sign-in
MAX_TOKENS = 100  # live tokens per account (a new one past it is refused)
MAX_SESSIONS = 50  # live sessions per account (a new one past it ends the least recently used)
MAX_LABEL = 64


@dataclass(frozen=True)
class Caller:
    """The account behind a request, and the credential that named it."""

    account: Account
    credential: Credential
    via: str  # "bearer" or "cookie"


def csrf_token(session_secret: str) -> str:
    """The CSRF token of a session: known to the page (``GET /me``), never to another site."""
    return hmac.new(session_secret.encode("utf-8"), b"tongiaki-csrf", hashlib.sha256).hexdigest()


def csrf_matches(session_secret: str, given: str | None) -> bool:
    """Whether ``given`` is the session's CSRF token (compared in constant time)."""
    return hmac.compare_digest(csrf_token(session_secret).encode(), (given or "").encode("utf-8"))


class Sessions:
    """Credentials as the API checks them: authentication, sign-in, tokens, revocation."""

    def __init__(
        self,
        store: SqlStore,
        clock: Callable[[], datetime],
        on_revoked: Callable[[set[str]], None] = lambda ids: None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.credentials = Credentials(store)
        self.on_revoked = on_revoked  # live streams opened with them end (service.live)

    # --- who is calling -------------------------------------------------------------

    def authenticate(self, header: str | None, cookie: str | None, client: str) -> Caller:
        """The caller a bearer header (first) or a session cookie names: 401 otherwise."""
        if header is not None:
            if not header.startswith("Bearer "):
                raise Unauthorized("no_token", "send Authorization: Bearer <token>")
            return self._token(header[len("Bearer ") :].strip(), client)
        if cookie:
            return self._session(cookie, client)
        raise Unauthorized("no_token", "sign in, or send Authorization: Bearer <token>")

    def _token(self, token: str, client: str) -> Caller:
        now = self.clock()
        hashed = secret_hash(token)
        both = self.credentials.with_account(hashed)
        if both is None:  # an account's first token, never used since this table came
            account = self.store.account_by_token_hash(hashed)
            if account is None or not token:
                security_log.failed("authenticate", "unknown token", client=client)
                raise Unauthorized("bad_token", "that token names no account")
            made = "operator" if account.kind == "auditor" else "sign-up"
            self.credentials.adopt(account.account_id, hashed, account.created_at, now, made)
            both = self.credentials.with_account(hashed)
            if both is None:
                raise Unauthorized("bad_token", "that token names no account")
        found, account = both
        if found.kind != TOKEN or not found.live(ms(now)):
            security_log.failed(
                "authenticate", "revoked token", cred=found.credential_id, client=client
            )
            raise Unauthorized("bad_token", "that token was revoked")
        return Caller(self._account(account), self._used(found, now), "bearer")

    def _session(self, cookie: str, client: str) -> Caller:
        now = self.clock()
        both = self.credentials.with_account(secret_hash(cookie))
        found, account = both if both is not None else (None, None)
        if found is None or found.kind != SESSION or not found.live(ms(now)):
            security_log.failed(
                "authenticate",
                "ended session" if found else "unknown session",
                cred=found.credential_id if found else None,
                client=client,
            )
            raise Unauthorized("session_ended", "this browser's sign-in ended: sign in again")
        return Caller(self._account(account), self._used(found, now), "cookie")

    def _account(self, account: Account | None) -> Account:
        # read with the credential each time, never cached: an account's name changes
        # (docs/profiles.md, P3), on any process, and a command records the name its
        # account has when it is sent
        if account is None or account.kind == DELETED:
            raise Unauthorized("bad_token", "that credential names no account")
        return account

    def _used(self, found: Credential, now: datetime) -> Credential:
        self.credentials.touch(found, now)
        return found

    def ended_among(self, credential_ids: list[str]) -> set[str]:
        """Which of these credentials name nobody any more (live streams' check)."""
        return self.credentials.ended_among(credential_ids, self.clock())

    # --- signing in -----------------------------------------------------------------

    def open_session(
        self, account: Account, method: str, device: str, client: str, replacing: str | None
    ) -> str:
        """A new session for ``account`` (signed in by ``method``): its secret, for the
        cookie. The session this browser had (``replacing``, its cookie) is revoked: one
        browser, one session. Past ``MAX_SESSIONS`` the least recently used one ends.
        Refused for an account an operator disabled."""
        self.refuse_disabled(account.account_id)
        now = self.clock()
        ended = self._replaced(replacing, now)
        self.credentials.forget_ended_sessions(account.account_id, now)
        live = self.credentials.live_of_kind(account.account_id, SESSION, now)
        for old in live[: max(0, len(live) - MAX_SESSIONS + 1)]:
            if self.credentials.revoke(account.account_id, old.credential_id, now):
                ended.add(old.credential_id)
        secret = new_secret()
        found = self.credentials.add(
            account.account_id,
            secret,
            kind=SESSION,
            label=device or "a browser",
            method=method,
            now=now,
            expires_ms=ms(now + timedelta(days=SESSION_DAYS)),
        )
        try:  # disabled meanwhile (an operator's revoke-all ran between): taken back
            self.refuse_disabled(account.account_id)
        except Forbidden:
            self.credentials.revoke(account.account_id, found.credential_id, now)
            raise
        security_log.record(
            "sign_in",
            account=account.account_id,
            cred=found.credential_id,
            method=method,
            client=client,
            replaced=",".join(sorted(ended)) or None,
        )
        if ended:
            self.on_revoked(ended)
        return secret

    def _replaced(self, cookie: str | None, now: datetime) -> set[str]:
        """Revoke the live session a browser's cookie names (it signs in afresh)."""
        if not cookie:
            return set()
        found = self.credentials.by_hash(secret_hash(cookie))
        if found is None or found.kind != SESSION or not found.live(ms(now)):
            return set()
        self.credentials.revoke(found.account_id, found.credential_id, now)
        return {found.credential_id}

    def new_token(self, account: Account, label: str, client: str) -> tuple[Credential, str]:
        """A new bearer token for a program (shown once)."""
        label = " ".join(label.split())
        if not label or len(label) > MAX_LABEL:
            raise BadRequest("bad_label", f"a token's name has 1 to {MAX_LABEL} characters")
        if (
            len(self.credentials.live_of_kind(account.account_id, TOKEN, self.clock()))
            >= MAX_TOKENS
        ):
            raise Forbidden(
                "too_many_credentials",
                f"an account holds at most {MAX_TOKENS} tokens: revoke one first",
            )
        secret = new_secret()
        found = self.credentials.add(
            account.account_id, secret, kind=TOKEN, label=label, method="created", now=self.clock()
        )
        security_log.record(
            "token_created",
            account=account.account_id,
            cred=found.credential_id,
            client=client,
        )
        return found, secret

    # --- revoking -------------------------------------------------------------------

    def revoke(self, caller: Caller, credential_id: str, client: str) -> None:
        """Revoke one of the caller's credentials (its live streams end): 404 unless live."""
        now = self.clock()
        if not self.credentials.revoke(caller.account.account_id, credential_id, now):
            raise NotFound("no_credential", "this account has no live session or token of that id")
        security_log.record(
            "revoked",
            account=caller.account.account_id,
            cred=credential_id,
            by=caller.credential.credential_id,
            client=client,
        )
        self.on_revoked({credential_id})

    def disable(self, account: Account, by: str) -> list[str]:
        """An operator's revocation of a whole account (an auditor): every credential
        revoked, its passkeys and address forgotten, no sign-in any more."""
        now = self.clock()
        with self.store.transaction() as tx:
            tx.execute(
                "INSERT INTO identity_disabled (account_id, disabled_at) VALUES (%s, %s)"
                " ON CONFLICT (account_id) DO NOTHING",
                (account.account_id, stamp(now)),
            )
            tx.execute("DELETE FROM identity_passkeys WHERE account_id = %s", (account.account_id,))
            tx.execute("DELETE FROM identity_emails WHERE account_id = %s", (account.account_id,))
        ids = self.credentials.revoke_all(account.account_id, account.token_hash, now)
        security_log.record("account_disabled", account=account.account_id, by=by, ended=len(ids))
        self.on_revoked(set(ids))
        return ids

    def refuse_disabled(self, account_id: str) -> None:
        """403 for an account an operator disabled."""
        with self.store.reading() as tx:
            row = value(
                tx.execute(
                    "SELECT account_id FROM identity_disabled WHERE account_id = %s", (account_id,)
                )
            )
        if row is not None:
            raise Forbidden("account_disabled", "an operator disabled this account")
