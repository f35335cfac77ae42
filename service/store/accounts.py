"""The ``Accounts`` port on a SQL database: players and auditors (table ``accounts``),
their tokens only as hashes."""

from __future__ import annotations

from collections.abc import Iterable

from service.store.base import DELETED, NAMED_ONLY, Account
from service.store.database import SqlDatabase, SqlTx
from service.store.rows import Row, named

ACCOUNT = Row(Account, "account_id", "name", "kind", "token_hash", "created_at")
NAME = Row(named, "account_id", "name")
ACCOUNT_ID = Row(named, "account_id")


def import_account(tx: SqlTx, account: Account) -> None:
    """Record an imported game's account inside ``tx``: an account only named by an
    earlier import (no token) takes the real one's token; any other account here is
    kept as it is."""
    tx.execute(
        f"INSERT INTO accounts ({ACCOUNT.select}) VALUES (%s, %s, %s, %s, %s)"
        " ON CONFLICT (account_id) DO UPDATE SET"
        " name = excluded.name, kind = excluded.kind,"
        " token_hash = excluded.token_hash, created_at = excluded.created_at"
        f" WHERE accounts.kind = '{NAMED_ONLY}' AND excluded.kind <> '{NAMED_ONLY}'",
        (account.account_id, account.name, account.kind, account.token_hash, account.created_at),
    )


class SqlAccounts:
    """Accounts in the ``accounts`` table."""

    def __init__(self, db: SqlDatabase) -> None:
        self.db = db

    def add_account(self, account: Account) -> None:
        """Record an account (its token only as a hash)."""
        with self.db.transaction() as tx:
            tx.execute(
                f"INSERT INTO accounts ({ACCOUNT.select}) VALUES (%s, %s, %s, %s, %s)",
                (
                    account.account_id,
                    account.name,
                    account.kind,
                    account.token_hash,
                    account.created_at,
                ),
            )

    def account_by_token_hash(self, token_hash: str) -> Account | None:
        """The account whose token hashes to ``token_hash``."""
        with self.db.reading() as tx:
            return ACCOUNT.one(
                tx.execute(
                    f"SELECT {ACCOUNT.select} FROM accounts WHERE token_hash = %s", (token_hash,)
                )
            )

    def account(self, account_id: str) -> Account | None:
        """The account with this id."""
        with self.db.reading() as tx:
            return ACCOUNT.one(
                tx.execute(
                    f"SELECT {ACCOUNT.select} FROM accounts WHERE account_id = %s", (account_id,)
                )
            )

    def account_names(self, account_ids: Iterable[str]) -> dict[str, str]:
        """The names of these accounts, in one query."""
        ids = sorted(set(account_ids))
        if not ids:
            return {}
        marks = ", ".join(["%s"] * len(ids))
        with self.db.reading() as tx:
            rows = NAME.all(
                tx.execute(f"SELECT {NAME.select} FROM accounts WHERE account_id IN ({marks})", ids)
            )
        return {r["account_id"]: r["name"] for r in rows}

    def accounts_named(self, text: str, limit: int) -> list[str]:
        """Players' accounts whose name holds ``text`` (any case): at most ``limit`` ids."""
        escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        with self.db.reading() as tx:
            rows = ACCOUNT_ID.all(
                tx.execute(
                    f"SELECT {ACCOUNT_ID.select} FROM accounts WHERE kind = 'player'"
                    " AND LOWER(name) LIKE %s ESCAPE '\\' ORDER BY account_id LIMIT %s",
                    (f"%{escaped}%", limit),
                )
            )
        return [r["account_id"] for r in rows]

    def players_with_name(self, name: str, limit: int) -> list[str]:
        """Players' accounts named ``name`` in any case, the exact ones first: at most
        ``limit`` ids."""
        with self.db.reading() as tx:
            rows = ACCOUNT_ID.all(
                tx.execute(
                    f"SELECT {ACCOUNT_ID.select} FROM accounts WHERE kind = 'player'"
                    " AND LOWER(name) = LOWER(%s)"
                    " ORDER BY CASE WHEN name = %s THEN 0 ELSE 1 END, account_id LIMIT %s",
                    (name, name, limit),
                )
            )
        return [r["account_id"] for r in rows]

    def rename_account(self, account_id: str, expected: str, name: str) -> bool:
        """Set the name if it is still ``expected`` (of two renames at once, one wins)."""
        with self.db.transaction() as tx:
            done = tx.execute(
                "UPDATE accounts SET name = %s WHERE account_id = %s AND name = %s"
                " AND kind = 'player' RETURNING account_id",
                (name, account_id, expected),
            ).fetchall()
        return bool(done)

    def change_kind(self, account_id: str, name: str, expected: str, kind: str) -> bool:
        """Set the kind if the account is still named ``name`` with kind ``expected``.
        The row's update waits for every append seating the account (their lock on it)."""
        with self.db.transaction() as tx:
            done = tx.execute(
                "UPDATE accounts SET kind = %s WHERE account_id = %s AND name = %s"
                " AND kind = %s RETURNING account_id",
                (kind, account_id, name, expected),
            ).fetchall()
        return bool(done)

    def forget_account(self, account_id: str, name: str) -> None:
        """The account deleted itself: an anonymous name, no kind to act as, no token."""
        with self.db.transaction() as tx:
            tx.execute(
                "UPDATE accounts SET name = %s, kind = %s, token_hash = %s WHERE account_id = %s",
                (name, DELETED, f"deleted:{account_id}", account_id),
            )
