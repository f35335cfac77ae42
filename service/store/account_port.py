"""The accounts' port: players and auditors as the event store keeps them (tokens only
as hashes), and the kinds an account has. ``service.store.base`` composes it into the
``EventStore`` and exports its names under its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Account:
    """A player or auditor; the bearer token is kept only as its SHA-256."""

    account_id: str
    name: str
    kind: str  # "player" | "auditor" | NAMED_ONLY | DELETED
    token_hash: str
    created_at: str


# an account known here only by the name its imported games recorded (an export without
# the accounts): it cannot sign in (its token hash is of no token); importing the same
# account with its token later makes it a player's
NAMED_ONLY = "named"
# an account that deleted itself (docs/profiles.md, P7): an anonymous name, no token
DELETED = "deleted"
# an account whose deletion is under way (P6): it takes no seat and acts as nobody; the
# deletion ends it DELETED, or back to a player's when it is refused
DELETING = "deleting"


class Accounts(Protocol):
    """Players and auditors; tokens only as hashes."""

    def add_account(self, account: Account) -> None:
        """Record an account."""
        ...

    def account_by_token_hash(self, token_hash: str) -> Account | None:
        """The account holding this token."""
        ...

    def account(self, account_id: str) -> Account | None:
        """The account with this id."""
        ...

    def account_names(self, account_ids: Iterable[str]) -> dict[str, str]:
        """The names of these accounts (ids it does not know are left out)."""
        ...

    def accounts_named(self, text: str, limit: int) -> list[str]:
        """Ids of at most ``limit`` players' accounts whose name holds ``text``, in any
        case (the lobby's search by player)."""
        ...

    def players_with_name(self, name: str, limit: int) -> list[str]:
        """Ids of at most ``limit`` players' accounts whose name is ``name`` in any case,
        those named exactly so first (invitees and league players, I2 and L2)."""
        ...

    def rename_account(self, account_id: str, expected: str, name: str) -> bool:
        """Set the account's name to ``name`` if it is still ``expected`` (compare and
        set: of two renames at once, one wins); whether it did (docs/profiles.md, P3)."""
        ...

    def change_kind(self, account_id: str, name: str, expected: str, kind: str) -> bool:
        """Set the account's kind to ``kind`` if it is still named ``name`` with kind
        ``expected`` (compare and set: a deletion begun against a rename, P6); whether
        it did. Once an account is ``DELETING``, no append seats it (``AccountGone``)."""
        ...

    def forget_account(self, account_id: str, name: str) -> None:
        """An account that deleted itself: its name becomes ``name``, its kind
        ``DELETED``, its first token hash an unusable value (docs/profiles.md, P7)."""
        ...
