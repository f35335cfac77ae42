"""Passkeys (WebAuthn) with the ``webauthn`` library: an account registers one or more
(``identity_passkeys``: the credential's id, public key and signature counter), signs in
with any of them, removes one.

Every ceremony starts with a challenge the server makes (``identity_challenges``: its
hash, what it is for, its end, and the account or the browser it is bound to) and ends
by using that challenge once: an assertion sent twice finds its challenge used (a
replay), an assertion for another site fails the library's origin and RP ID checks, an
assertion of a removed passkey names no passkey here."""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from hmac import compare_digest
from typing import Any

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from service.errors import BadRequest, Conflict, Forbidden, Gone, NotFound, Unauthorized
from service.identity import security_log
from service.identity.credentials import ms, secret_hash
from service.store.base import Account, SqlStore
from service.store.rows import Row, named, value
from service.timing.clocks import stamp

CHALLENGE_MINUTES = 5
MAX_PASSKEYS = 20  # per account
MAX_NAME = 64
REGISTER, SIGN_IN = "register", "sign_in"
CHALLENGE = Row(named, "purpose", "account_id", "bind_hash", "expires_ms", "used_ms")
PASSKEY = Row(named, "passkey_id", "raw_id", "account_id", "name", "public_key", "sign_count")
LISTED = Row(named, "passkey_id", "name", "created_at", "last_used_at")


@dataclass(frozen=True)
class Site:
    """Where passkeys are used: the pages' origin and the relying party's id (its host)."""

    origin: str
    rp_id: str


class Passkeys:
    """Registration, sign-in and removal of passkeys."""

    def __init__(self, store: SqlStore, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.clock = clock

    # --- challenges ---------------------------------------------------------------

    def _challenge(self, purpose: str, account_id: str | None, bind: str) -> bytes:
        now = self.clock()
        challenge = secrets.token_bytes(32)
        with self.store.transaction() as tx:
            tx.execute("DELETE FROM identity_challenges WHERE expires_ms < %s", (ms(now),))
            tx.execute(
                "INSERT INTO identity_challenges (challenge_hash, purpose, account_id, bind_hash,"
                " expires_ms) VALUES (%s, %s, %s, %s, %s)",
                (
                    secret_hash(bytes_to_base64url(challenge)),
                    purpose,
                    account_id,
                    secret_hash(bind),
                    ms(now + timedelta(minutes=CHALLENGE_MINUTES)),
                ),
            )
        return challenge

    def _use_challenge(
        self, credential: dict[str, Any], purpose: str, bind: str, account_id: str | None = None
    ) -> bytes:
        """The challenge the credential answers, used now (once); a registration's must
        be the same account's."""
        given = _client_challenge(credential)
        hashed = secret_hash(given)
        now = ms(self.clock())
        with self.store.transaction() as tx:
            row = CHALLENGE.one(
                tx.execute(
                    f"SELECT {CHALLENGE.select} FROM identity_challenges"
                    f" WHERE challenge_hash = %s {self.store.lock_suffix}",
                    (hashed,),
                )
            )
            if row is None or row["purpose"] != purpose or row["account_id"] != account_id:
                raise Unauthorized(
                    "passkey_refused", "this answer is to no challenge of this server: start again"
                )
            if row["used_ms"] is not None:
                raise Gone("challenge_used", "this passkey answer was used already (a replay?)")
            if int(row["expires_ms"]) <= now:
                raise Gone(
                    "challenge_expired", f"the passkey prompt ended ({CHALLENGE_MINUTES} minutes)"
                )
            if not compare_digest(secret_hash(bind), str(row["bind_hash"])):
                raise Forbidden(
                    "challenge_other_browser", "this passkey answer is bound to another browser"
                )
            tx.execute(
                "UPDATE identity_challenges SET used_ms = %s WHERE challenge_hash = %s",
                (now, hashed),
            )
        return base64url_to_bytes(given)

    # --- registration ---------------------------------------------------------------

    def register_options(self, account: Account, site: Site, bind: str) -> str:
        """The options for ``navigator.credentials.create`` (JSON)."""
        known = self._of_account(account.account_id)
        if len(known) >= MAX_PASSKEYS:
            raise Forbidden(
                "too_many_passkeys", f"an account holds at most {MAX_PASSKEYS} passkeys"
            )
        options = generate_registration_options(
            rp_id=site.rp_id,
            rp_name="Tongiaki",
            user_id=account.account_id.encode("utf-8"),
            user_name=account.name,
            challenge=self._challenge(REGISTER, account.account_id, bind),
            timeout=CHALLENGE_MINUTES * 60_000,
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(p["raw_id"])) for p in known
            ],
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
        )
        return str(options_to_json(options))

    def register(
        self, account: Account, credential: dict[str, Any], name: str, site: Site, bind: str
    ) -> dict[str, Any]:
        """Check a new passkey and keep it: what the list shows of it."""
        name = " ".join(name.split()) or "passkey"
        if len(name) > MAX_NAME:
            raise BadRequest("bad_name", f"a passkey's name has at most {MAX_NAME} characters")
        challenge = self._use_challenge(credential, REGISTER, bind, account.account_id)
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=site.rp_id,
                expected_origin=site.origin,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
            security_log.failed("passkey_register", str(exc)[:200], account=account.account_id)
            raise Unauthorized("passkey_refused", f"the passkey was refused: {exc}") from exc
        now = self.clock()
        passkey_id = secrets.token_hex(6)
        if len(self._of_account(account.account_id)) >= MAX_PASSKEYS:
            raise Forbidden(
                "too_many_passkeys", f"an account holds at most {MAX_PASSKEYS} passkeys"
            )
        with self.store.transaction() as tx:
            stored = tx.execute(
                "INSERT INTO identity_passkeys (passkey_id, raw_id, account_id, name, public_key,"
                " sign_count, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (raw_id) DO NOTHING RETURNING passkey_id",
                (
                    passkey_id,
                    bytes_to_base64url(verified.credential_id),
                    account.account_id,
                    name,
                    bytes_to_base64url(verified.credential_public_key),
                    verified.sign_count,
                    stamp(now),
                ),
            )
            if value(stored) is None:
                raise Conflict("passkey_known", "this passkey is already registered here")
        security_log.record("passkey_added", account=account.account_id, cred=passkey_id)
        return {
            "passkey_id": passkey_id,
            "name": name,
            "created_at": stamp(now),
            "last_used_at": None,
        }

    # --- signing in -------------------------------------------------------------------

    def sign_in_options(self, site: Site, bind: str) -> str:
        """The options for ``navigator.credentials.get`` (JSON): any of this site's passkeys."""
        options = generate_authentication_options(
            rp_id=site.rp_id,
            challenge=self._challenge(SIGN_IN, None, bind),
            timeout=CHALLENGE_MINUTES * 60_000,
            user_verification=UserVerificationRequirement.PREFERRED,
        )
        return str(options_to_json(options))

    def sign_in(self, credential: dict[str, Any], site: Site, bind: str, client: str) -> str:
        """The account id a passkey's assertion proves (401 otherwise)."""
        try:
            challenge = self._use_challenge(credential, SIGN_IN, bind)
        except (Unauthorized, Gone, Forbidden) as exc:
            security_log.failed("passkey_sign_in", exc.code, client=client)
            raise
        raw_id = str(credential.get("rawId") or credential.get("id") or "")
        with self.store.reading() as tx:
            found = PASSKEY.one(
                tx.execute(
                    f"SELECT {PASSKEY.select} FROM identity_passkeys WHERE raw_id = %s", (raw_id,)
                )
            )
        if found is None:
            security_log.failed("passkey_sign_in", "unknown passkey", client=client)
            raise Unauthorized(
                "unknown_passkey",
                "this passkey belongs to no account here (removed from its account?)",
            )
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=site.rp_id,
                expected_origin=site.origin,
                credential_public_key=base64url_to_bytes(found["public_key"]),
                credential_current_sign_count=int(found["sign_count"]),
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
            security_log.failed(
                "passkey_sign_in", str(exc)[:200], cred=found["passkey_id"], client=client
            )
            raise Unauthorized("passkey_refused", f"the passkey was refused: {exc}") from exc
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE identity_passkeys SET sign_count = %s, last_used_at = %s"
                " WHERE passkey_id = %s",
                (verified.new_sign_count, stamp(self.clock()), found["passkey_id"]),
            )
        return str(found["account_id"])

    # --- the account's passkeys ----------------------------------------------------------

    def _of_account(self, account_id: str) -> list[dict[str, Any]]:
        with self.store.reading() as tx:
            return PASSKEY.all(
                tx.execute(
                    f"SELECT {PASSKEY.select} FROM identity_passkeys WHERE account_id = %s",
                    (account_id,),
                )
            )

    def listed(self, account_id: str) -> list[dict[str, Any]]:
        """The account's passkeys as its page lists them."""
        with self.store.reading() as tx:
            return LISTED.all(
                tx.execute(
                    f"SELECT {LISTED.select} FROM identity_passkeys WHERE account_id = %s"
                    " ORDER BY created_at, passkey_id",
                    (account_id,),
                )
            )

    def remove(self, account: Account, passkey_id: str) -> None:
        """Remove one of the account's passkeys (404 unless it has it)."""
        with self.store.transaction() as tx:
            done = tx.execute(
                "DELETE FROM identity_passkeys WHERE account_id = %s AND passkey_id = %s"
                " RETURNING passkey_id",
                (account.account_id, passkey_id),
            )
            if value(done) is None:
                raise NotFound("no_passkey", "this account has no passkey of that id")
        security_log.record("passkey_removed", account=account.account_id, cred=passkey_id)


def _client_challenge(credential: dict[str, Any]) -> str:
    """The challenge a credential's client data answers (base64url), or 422."""
    try:
        raw = credential["response"]["clientDataJSON"]
        data = json.loads(base64.urlsafe_b64decode(str(raw) + "=" * (-len(str(raw)) % 4)))
        challenge = data["challenge"]
    except (KeyError, TypeError, ValueError) as exc:
        raise BadRequest(
            "bad_passkey_answer", "credential.response.clientDataJSON names no challenge"
        ) from exc
    if not isinstance(challenge, str) or not 16 <= len(challenge) <= 128:
        raise BadRequest("bad_passkey_answer", "the client data's challenge is not one of ours")
    return challenge
