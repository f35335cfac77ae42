"""Changing an account's display name (docs/profiles.md, P3–P5).

The accounts table holds the current name, which every page and answer looks up
where a name is shown; the record keeps the name each command was sent under (the
events' and the journal's ``actor``), never rewritten. A change is a compare and
set on the account's row: of two changes at once, exactly one wins (P3).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from datetime import datetime

from service.errors import Conflict, Forbidden, NotFound, TooManyRequests
from service.play.accounts import valid_name
from service.profiles.schema import PROFILES_SCHEMA, TABLES
from service.store.base import Account, SqlStore
from service.timing.clocks import stamp

MOST_PER_DAY = 5  # changes of name per account in any 24 hours (P5)
DAY_MS = 86_400_000
DELETED_PREFIX = "deleted player"  # the names of deleted accounts (P7), nobody else's


def looks_deleted(name: str) -> bool:
    """Whether a name reads as a deleted account's (P4): compared as shown, so another
    case, full-width letters and other spaces (no-break, en, doubled) are the same."""
    shown = " ".join(unicodedata.normalize("NFKC", name).casefold().split())
    return shown.startswith(DELETED_PREFIX)


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


class Names:
    """Display names over one store."""

    def __init__(self, store: SqlStore, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.clock = clock

    def upgrade(self) -> None:
        """Create the profiles' table (idempotent)."""
        self.store.ensure_tables(TABLES, "profiles_schema", PROFILES_SCHEMA)

    def rename(self, who: Account, name: str, was: str | None = None) -> Account:
        """Change ``who``'s display name to ``name`` (P3–P5): the account as it is now.
        ``was``: the name the client saw; another one now is 409 ``name_changed``."""
        if who.kind != "player":
            raise Forbidden("not_a_player", "only players' accounts change their name here")
        name = valid_name(name, rule="P4")
        if looks_deleted(name):
            raise Conflict(
                "name_reserved", f"names starting '{DELETED_PREFIX}' are deleted accounts'",
                rule="P4",
            )  # fmt: skip
        current = self.store.account(who.account_id)
        if current is None:
            raise NotFound("unknown_account", "no such account")
        if was is not None and was != current.name:
            raise _changed(current)
        if name == current.name:
            return current
        now = self.clock()
        self._within_bounds(who.account_id, _ms(now))
        if not self.store.rename_account(who.account_id, current.name, name):
            raise _changed(self.store.account(who.account_id) or current)
        self._count(who.account_id, _ms(now), stamp(now))
        found = self.store.account(who.account_id)
        assert found is not None  # renamed just now; accounts are never removed
        return found

    def _count(self, account_id: str, at_ms: int, at: str) -> None:
        """Record one change (P5): each its own row, two in one millisecond too (a fast
        client's renames were once counted as one, and a sixth in a day went through)."""
        for later in range(1000):
            with self.store.transaction() as tx:
                kept = tx.execute(
                    "INSERT INTO profile_renames (account_id, changed_ms, changed_at)"
                    " VALUES (%s, %s, %s) ON CONFLICT (account_id, changed_ms) DO NOTHING"
                    " RETURNING account_id",
                    (account_id, at_ms + later, at),
                ).fetchall()
            if kept:
                return

    def _within_bounds(self, account_id: str, now_ms: int) -> None:
        """429 ``too_many_renames`` past ``MOST_PER_DAY`` changes in 24 hours (P5)."""
        with self.store.reading() as tx:
            found = tx.execute(
                "SELECT COUNT(*), MIN(changed_ms) FROM profile_renames"
                " WHERE account_id = %s AND changed_ms > %s",
                (account_id, now_ms - DAY_MS),
            ).fetchall()
        count, first = (int(found[0][0]), found[0][1]) if found else (0, None)
        if count >= MOST_PER_DAY:
            wait = max(1, (int(first) + DAY_MS - now_ms) // 1000) if first is not None else 60
            raise TooManyRequests(
                "too_many_renames",
                f"a name changes at most {MOST_PER_DAY} times in 24 hours",
                rule="P5",
                retry_after=wait,
            )

    def forget(self, account_id: str) -> None:
        """Drop the account's changes of name (its deletion, P8)."""
        with self.store.transaction() as tx:
            tx.execute("DELETE FROM profile_renames WHERE account_id = %s", (account_id,))


def _changed(current: Account) -> Conflict:
    return Conflict(
        "name_changed",
        "the name changed meanwhile (another change won): look at it again",
        rule="P3",
        name=current.name,
    )
