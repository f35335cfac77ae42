"""Rematch proposals on SQL. Every answer starts with a conditional UPDATE of the
proposal's row: the row lock (PostgreSQL; SQLite's writer lock) puts answers to one
proposal in a line, and each sees the row as the one before it left it. So of two
acceptances at once exactly one is the last, and an acceptance racing a decline finds
the proposal still open or already declined, never both (RM8)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from projections.ports import Tx
from service.errors import Conflict
from service.store.base import SqlStore
from service.store.rows import Row, value

OPEN, DECLINED, ACCEPTED, OPENED = "open", "declined", "accepted", "opened"


@dataclass(frozen=True)
class Proposal:
    """A finished game's rematch proposal as it stands."""

    game_id: str
    round: int
    proposer: str
    status: str
    players: int
    accepted: int
    declined_by: str | None
    new_game_id: str | None
    proposed_at: str
    updated_at: str


PROPOSAL = Row(
    Proposal,
    "game_id", "round", "proposer", "status", "players", "accepted",
    "declined_by", "new_game_id", "proposed_at", "updated_at",
)  # fmt: skip


class RematchTable:
    """The rematch proposals and answers of one store."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    def propose(
        self, game_id: str, proposer: str, players: int, entropy: str, now: str
    ) -> int | None:
        """Open a proposal (a new round after a declined one) with the proposer's own
        acceptance; its round, or None when one is open or was accepted (RM3)."""
        with self.store.transaction() as tx:
            found = value(
                tx.execute(
                    "INSERT INTO rematches (game_id, round, proposer, status, players,"
                    " accepted, proposed_at, updated_at) VALUES (%s, 1, %s, %s, %s, 1, %s, %s)"
                    " ON CONFLICT (game_id) DO UPDATE SET round = rematches.round + 1,"
                    " proposer = excluded.proposer, status = excluded.status,"
                    " players = excluded.players, accepted = 1, declined_by = NULL,"
                    " proposed_at = excluded.proposed_at, updated_at = excluded.updated_at"
                    " WHERE rematches.status = %s RETURNING round",
                    # the proposer alone among bots' seats has agreed already (B4)
                    (
                        game_id,
                        proposer,
                        ACCEPTED if players <= 1 else OPEN,
                        players,
                        now,
                        now,
                        DECLINED,
                    ),
                )
            )
            if found is None:
                return None
            self._answer(tx, game_id, int(found), proposer, entropy, now)
            return int(found)

    def accept(self, game_id: str, account_id: str, entropy: str, now: str) -> Proposal | None:
        """Count the account's acceptance; the proposal after it, None when it is not
        open. ``Conflict`` (nothing written) when the account answered this round."""
        with self.store.transaction() as tx:
            found = PROPOSAL.one(
                tx.execute(
                    "UPDATE rematches SET accepted = accepted + 1, updated_at = %s"
                    f" WHERE game_id = %s AND status = %s RETURNING {PROPOSAL.select}",
                    (now, game_id, OPEN),
                )
            )
            if found is None:
                return None
            self._answer(tx, game_id, found.round, account_id, entropy, now)
            if found.accepted >= found.players:
                tx.execute(
                    "UPDATE rematches SET status = %s WHERE game_id = %s", (ACCEPTED, game_id)
                )
                return _with(found, status=ACCEPTED)
            return found

    def decline(self, game_id: str, account_id: str, now: str) -> Proposal | None:
        """Decline the open proposal; None when it is not open. ``Conflict`` (nothing
        written) when the account accepted it already."""
        with self.store.transaction() as tx:
            found = PROPOSAL.one(
                tx.execute(
                    "UPDATE rematches SET status = %s, declined_by = %s, updated_at = %s"
                    f" WHERE game_id = %s AND status = %s RETURNING {PROPOSAL.select}",
                    (DECLINED, account_id, now, game_id, OPEN),
                )
            )
            if found is not None and self._answered(tx, game_id, found.round, account_id):
                raise _answered_already()
            return found

    def cancel(self, game_id: str, gone: str, now: str) -> bool:
        """Decline a proposal not yet opened in the name of a player whose account is
        gone (RM9), open or agreed; whether it did."""
        with self.store.transaction() as tx:
            found = tx.execute(
                "UPDATE rematches SET status = %s, declined_by = %s, updated_at = %s"
                " WHERE game_id = %s AND status IN (%s, %s) AND new_game_id IS NULL"
                " RETURNING game_id",
                (DECLINED, gone, now, game_id, OPEN, ACCEPTED),
            )
            return value(found) is not None

    def opened(self, game_id: str, new_game_id: str, now: str) -> None:
        """Record the rematch's new game (RM6, RM7)."""
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE rematches SET status = %s, new_game_id = %s, updated_at = %s"
                " WHERE game_id = %s AND status = %s",
                (OPENED, new_game_id, now, game_id, ACCEPTED),
            )

    def get(self, game_id: str) -> Proposal | None:
        """The finished game's proposal (its latest round)."""
        with self.store.reading() as tx:
            return PROPOSAL.one(
                tx.execute(
                    f"SELECT {PROPOSAL.select} FROM rematches WHERE game_id = %s", (game_id,)
                )
            )

    def previous(self, new_game_id: str) -> str | None:
        """The game a rematch was opened from (RM7)."""
        with self.store.reading() as tx:
            found = value(
                tx.execute("SELECT game_id FROM rematches WHERE new_game_id = %s", (new_game_id,))
            )
            return None if found is None else str(found)

    def answers(self, game_id: str, round_: int) -> dict[str, str]:
        """The acceptances of a round: each account's entropy."""
        with self.store.reading() as tx:
            found = tx.execute(
                "SELECT account_id, entropy FROM rematch_answers WHERE game_id = %s AND round = %s",
                (game_id, round_),
            )
            return {str(a): str(e) for a, e in found.fetchall()}

    @staticmethod
    def _answered(tx: Tx, game_id: str, round_: int, account_id: str) -> bool:
        found = tx.execute(
            "SELECT 1 FROM rematch_answers WHERE game_id = %s AND round = %s AND account_id = %s",
            (game_id, round_, account_id),
        )
        return value(found) is not None

    def _answer(
        self, tx: Tx, game_id: str, round_: int, account_id: str, entropy: str, now: str
    ) -> None:
        """Keep one acceptance (raising, so the transaction writes nothing, on a second)."""
        if self._answered(tx, game_id, round_, account_id):
            raise _answered_already()
        tx.execute(
            "INSERT INTO rematch_answers (game_id, round, account_id, entropy, answered_at)"
            " VALUES (%s, %s, %s, %s, %s)",
            (game_id, round_, account_id, entropy, now),
        )


def _answered_already() -> Conflict:
    return Conflict("already_answered", "you answered this rematch already", rule="RM5")


def _with(found: Proposal, *, status: str) -> Proposal:
    """The proposal with another status."""
    return replace(found, status=status)
