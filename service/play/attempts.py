"""A command on its way through ``service.play.games.GameService``: the attempt (what,
who, expecting which version), what the rules decided of it, and the doorbell told
after each commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from domain import commands as cmd
from domain.state import GameState
from service.store.base import Account, CommandRecord, DisputeAppend, NewEvent
from service.timing.clocks import Clock


class Doorbell(Protocol):
    """Told after every commit that a game has new events (projections issue)."""

    def ring(self, game_id: str) -> None:
        """Signal new events for ``game_id``."""
        ...


class SilentDoorbell:
    """No projections yet: nothing to wake."""

    def ring(self, game_id: str) -> None:
        """Do nothing."""


@dataclass(frozen=True)
class Attempt:
    """A command on its way to the store: what it is, who sent it, what it expects.

    ``authorised``: the service (a timed-out seat's bot) or an auditor (a dispute)
    acts, as the record's actor says: no seat, turn or time is checked."""

    record: CommandRecord
    command: cmd.Command
    account: Account | None
    expected_version: int | None = None
    dispute: DisputeAppend | None = None
    authorised: bool = False

    @property
    def game_id(self) -> str:
        """The game the command is for."""
        return self.record.game_id


@dataclass(frozen=True)
class Decided:
    """A command judged on a version: the events it appends and the game after them."""

    version: int
    events: list[NewEvent]
    after: GameState
    clock: Clock | None
