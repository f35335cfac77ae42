"""Private tables and invitations on SQL: recorded with their game, read, declined.
A decline is one conditional statement, so two declines (or a decline and a
re-invitation) leave one answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.store.base import SqlStore
from service.store.rows import Row, value

INVITED, DECLINED = "invited", "declined"


@dataclass(frozen=True)
class PrivateTable:
    """A private game: who opened it and its link's token (None: no link)."""

    game_id: str
    opener: str
    token: str | None
    created_at: str


@dataclass(frozen=True)
class Invitation:
    """One invited account and its answer so far."""

    game_id: str
    account_id: str
    status: str
    invited_at: str
    answered_at: str | None


TABLE = Row(PrivateTable, "game_id", "opener", "token", "created_at")
INVITATION = Row(Invitation, "game_id", "account_id", "status", "invited_at", "answered_at")


class InvitationTable:
    """The private tables and invitations of one store."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    def record(self, table: PrivateTable, invitees: Sequence[str]) -> None:
        """Record a private table and its invitations (idempotent: a retry keeps the first)."""
        with self.store.transaction() as tx:
            tx.execute(
                "INSERT INTO private_tables (game_id, opener, token, created_at)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (game_id) DO NOTHING",
                (table.game_id, table.opener, table.token, table.created_at),
            )
            for account_id in invitees:
                tx.execute(
                    "INSERT INTO table_invitations (game_id, account_id, status, invited_at)"
                    " VALUES (%s, %s, %s, %s) ON CONFLICT (game_id, account_id) DO NOTHING",
                    (table.game_id, account_id, INVITED, table.created_at),
                )

    def table(self, game_id: str) -> PrivateTable | None:
        """The private table of this game, if it is one."""
        with self.store.reading() as tx:
            return TABLE.one(
                tx.execute(
                    f"SELECT {TABLE.select} FROM private_tables WHERE game_id = %s", (game_id,)
                )
            )

    def invitations(self, game_id: str) -> list[Invitation]:
        """A table's invitations, in the order they were made (then by account)."""
        with self.store.reading() as tx:
            return INVITATION.all(
                tx.execute(
                    f"SELECT {INVITATION.select} FROM table_invitations WHERE game_id = %s"
                    " ORDER BY invited_at, account_id",
                    (game_id,),
                )
            )

    def invitation(self, game_id: str, account_id: str) -> Invitation | None:
        """One account's invitation to a table."""
        with self.store.reading() as tx:
            return INVITATION.one(
                tx.execute(
                    f"SELECT {INVITATION.select} FROM table_invitations"
                    " WHERE game_id = %s AND account_id = %s",
                    (game_id, account_id),
                )
            )

    def of_account(self, account_id: str, most: int) -> list[Invitation]:
        """An account's standing invitations (not declined), newest first."""
        with self.store.reading() as tx:
            return INVITATION.all(
                tx.execute(
                    f"SELECT {INVITATION.select} FROM table_invitations"
                    " WHERE account_id = %s AND status = %s"
                    " ORDER BY invited_at DESC, game_id LIMIT %s",
                    (account_id, INVITED, most),
                )
            )

    def undecline(self, game_id: str, account_id: str) -> None:
        """Take a decline back: the account took its seat as it declined (I5)."""
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE table_invitations SET status = %s, answered_at = NULL"
                " WHERE game_id = %s AND account_id = %s AND status = %s",
                (INVITED, game_id, account_id, DECLINED),
            )

    def decline(self, game_id: str, account_id: str, now: str) -> bool:
        """Decline a standing invitation; whether this call declined it (one statement:
        of two declines at once, one does)."""
        with self.store.transaction() as tx:
            done = tx.execute(
                "UPDATE table_invitations SET status = %s, answered_at = %s"
                " WHERE game_id = %s AND account_id = %s AND status = %s RETURNING game_id",
                (DECLINED, now, game_id, account_id, INVITED),
            )
            return value(done) is not None
