"""Sign-in by e-mail link, and an account's e-mail address (``identity_emails``).

A link is one-time: 256 random bits mailed, only its hash kept, with its end
(``LINK_MINUTES``) and the browser that asked (the hash of that browser's binding
cookie). Asking answers the same whether or not the address has an account, and does
the same work (a link row, a mail queued): a mail for an address without an account
says so and carries no link. The link's secret rides in the URL's fragment, so it
reaches no server log and no ``Referer``; the page posts it back to be used."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from hmac import compare_digest

from service.errors import Conflict, Forbidden, Gone, NotFound, ServiceError
from service.i18n.catalogs import gettext
from service.i18n.locales import DEFAULT
from service.identity import security_log
from service.identity.credentials import ms, new_secret, secret_hash
from service.identity.mailer import Mailer
from service.notifications.checks import check_email
from service.preferences.languages import languages_of
from service.store.base import Account, SqlStore
from service.store.rows import Row, named, value
from service.timing.clocks import stamp

LINK_MINUTES = 15
SIGN_IN, ADD_EMAIL = "sign_in", "add_email"
KEEP_MS = 86_400_000  # used or ended links are dropped a day after their end
LINK = Row(named, "purpose", "address", "account_id", "bind_hash", "expires_ms", "used_ms")


def normal_address(address: str) -> str:
    """An address as kept and compared: trimmed, in lower case (documented)."""
    return check_email(address.strip()).lower()


@dataclass(frozen=True)
class Confirmed:
    """What a used link did: the account it signed in, or the address it added."""

    purpose: str
    account: Account
    address: str


class Links:
    """Links mailed, and used once."""

    def __init__(self, store: SqlStore, clock: Callable[[], datetime], mailer: Mailer) -> None:
        self.store = store
        self.clock = clock
        self.mailer = mailer

    def address_of(self, account_id: str) -> str | None:
        """The account's e-mail address for signing in, if it has one."""
        with self.store.reading() as tx:
            found = value(
                tx.execute(
                    "SELECT address FROM identity_emails WHERE account_id = %s", (account_id,)
                )
            )
        return str(found) if found is not None else None

    def _owner(self, address: str) -> str | None:
        with self.store.reading() as tx:
            found = value(
                tx.execute("SELECT account_id FROM identity_emails WHERE address = %s", (address,))
            )
        return str(found) if found is not None else None

    def _link(self, purpose: str, address: str, account_id: str | None, bind: str) -> str:
        now = self.clock()
        token = new_secret()
        with self.store.transaction() as tx:
            tx.execute("DELETE FROM identity_links WHERE expires_ms < %s", (ms(now) - KEEP_MS,))
            tx.execute(
                "INSERT INTO identity_links (link_hash, purpose, address, account_id, bind_hash,"
                " expires_ms) VALUES (%s, %s, %s, %s, %s, %s)",
                (
                    secret_hash(token),
                    purpose,
                    address,
                    account_id,
                    secret_hash(bind),
                    ms(now + timedelta(minutes=LINK_MINUTES)),
                ),
            )
        return token

    def ask_sign_in(
        self, address: str, bind: str, base_url: str, client: str, lang: str = DEFAULT
    ) -> None:
        """Mail a sign-in link to ``address`` (or, without an account, say so), in the
        account's language if it chose one, else ``lang`` (the asking browser's)."""
        address = normal_address(address)
        owner = self._owner(address)
        token = self._link(SIGN_IN, address, owner, bind)
        lang = self._language(owner, lang)
        if owner is not None:
            text = gettext(
                lang,
                "To sign in to Tongiaki in the browser where you asked, open this link within"
                " {minutes} minutes (it works once):\n\n{link}\n\nIf you did not ask, ignore"
                " this mail: nobody can use the link but the browser that asked for it.\n",
                minutes=LINK_MINUTES,
                link=f"{base_url}/sign-in/link#{token}",
            )
        else:
            text = gettext(
                lang,
                "Somebody asked to sign in to Tongiaki with this address, which no account"
                " uses. If it was you: make an account in the lobby, then add this address"
                " to it on your account's page ({url}).\nIf you did not ask, ignore this"
                " mail.\n",
                url=f"{base_url}/account",
            )
        self.mailer.send(address, gettext(lang, "Sign in to Tongiaki"), text)
        security_log.record(
            "sign_in_link_asked", address=security_log.address_tag(address), client=client
        )

    def _language(self, account_id: str | None, asked: str) -> str:
        """The language to mail ``account_id`` in: its choice, else ``asked``."""
        if account_id is None:
            return asked
        with self.store.reading() as cur:
            return languages_of(cur, [account_id]).get(account_id, asked)

    def ask_add(
        self,
        account: Account,
        address: str,
        bind: str,
        base_url: str,
        client: str,
        lang: str = DEFAULT,
    ) -> None:
        """Mail a link that adds ``address`` to ``account`` (unless another account has
        it), in the account's language if it chose one, else ``lang``."""
        address = normal_address(address)
        owner = self._owner(address)
        free = owner is None or owner == account.account_id
        token = self._link(ADD_EMAIL, address, account.account_id if free else None, bind)
        lang = self._language(account.account_id, lang)
        if free:
            text = gettext(
                lang,
                "To sign in to Tongiaki with this address, open this link within {minutes}"
                " minutes in the browser where you asked:\n\n{link}\n",
                minutes=LINK_MINUTES,
                link=f"{base_url}/sign-in/link#{token}",
            )
        else:
            text = gettext(
                lang,
                "Somebody asked to add this address to a Tongiaki account, but another account"
                " already signs in with it. Nothing changed.\n",
            )
        self.mailer.send(address, gettext(lang, "Add your address to Tongiaki"), text)
        security_log.record(
            "email_link_asked",
            account=account.account_id,
            address=security_log.address_tag(address),
            client=client,
        )

    def use(self, token: str, bind: str | None, client: str) -> tuple[str, str, str]:
        """Use a link once: its purpose, address and account id (a clear problem
        otherwise: unknown, used, ended, or another browser's)."""
        now = ms(self.clock())
        hashed = secret_hash(token)
        with self.store.transaction() as tx:
            row = LINK.one(
                tx.execute(
                    f"SELECT {LINK.select} FROM identity_links WHERE link_hash = %s"
                    f" {self.store.lock_suffix}",
                    (hashed,),
                )
            )
            problem = _why_not(row, bind, now)
            if problem is None and row is not None and row["purpose"] == SIGN_IN:
                owner = value(
                    tx.execute(
                        "SELECT account_id FROM identity_emails WHERE address = %s",
                        (row["address"],),
                    )
                )
                if owner != row["account_id"]:  # the address was removed or moved since
                    problem = Gone(
                        "link_expired", "this address signs in no account any more: ask anew"
                    )
            if problem is None and row is not None:
                done = tx.execute(
                    "UPDATE identity_links SET used_ms = %s WHERE link_hash = %s"
                    " AND used_ms IS NULL RETURNING link_hash",
                    (now, hashed),
                )
                if value(done) is None:
                    problem = Gone("link_used", "this link was used already: ask for a new one")
        if problem is not None or row is None:
            security_log.failed("email_link", problem.code if problem else "unknown", client=client)
            raise problem or NotFound("link_unknown", "no such link")
        return str(row["purpose"]), str(row["address"]), str(row["account_id"])

    def add_address(self, account: Account, address: str) -> None:
        """Make ``address`` the account's (its earlier one let go): 409 if taken meanwhile."""
        with self.store.transaction() as tx:
            owner = value(
                tx.execute("SELECT account_id FROM identity_emails WHERE address = %s", (address,))
            )
            if owner is not None and owner != account.account_id:
                raise Conflict("email_taken", "another account signs in with this address now")
            tx.execute("DELETE FROM identity_emails WHERE account_id = %s", (account.account_id,))
            tx.execute(
                "INSERT INTO identity_emails (address, account_id, added_at) VALUES (%s, %s, %s)",
                (address, account.account_id, stamp(self.clock())),
            )
        security_log.record(
            "email_added", account=account.account_id, address=security_log.address_tag(address)
        )

    def remove_address(self, account: Account) -> bool:
        """Forget the account's address; whether it had one."""
        with self.store.transaction() as tx:
            done = tx.execute(
                "DELETE FROM identity_emails WHERE account_id = %s RETURNING address",
                (account.account_id,),
            )
            return value(done) is not None


def _why_not(row: dict[str, object] | None, bind: str | None, now: int) -> ServiceError | None:
    """Why a link cannot be used now (None: it can)."""
    if row is None or row["account_id"] is None:
        # a link for an address without an account was never mailed: nobody has it
        return NotFound(
            "link_unknown", "this sign-in link is not one this server sent (cut short in the mail?)"
        )
    if row["used_ms"] is not None:
        return Gone("link_used", "this link was used already: ask for a new one")
    if int(str(row["expires_ms"])) <= now:
        return Gone("link_expired", f"this link ended ({LINK_MINUTES} minutes): ask for a new one")
    if not bind or not compare_digest(secret_hash(bind), str(row["bind_hash"])):
        return Forbidden(
            "link_other_browser",
            "open the link in the browser where you asked for it (it is bound to that browser)",
        )
    return None
