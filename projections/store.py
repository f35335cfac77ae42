"""The read side's entry point: ``ReadModels``, the catch-up engine with the named
questions the API asks (``scoreboard``, ``lobby``, ``steps``…), never SQL.

Each question is answered by the read model whose tables hold the answer
(``projections.readmodels``); this class only puts them in one place. The names
callers pass it or catch from it are here too (``__all__``), where they have
always been imported from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from projections.checkpoints import MAX_ATTEMPTS, Checkpoint, ProjectionHalted
from projections.engine import Engine
from projections.readmodels import (
    PROJECTIONS,
    audit,
    deadlines,
    leaderboard,
    lobby,
    notifications,
    profiles,
    queue,
    ratings,
    scoreboard,
    timeline,
)
from projections.readmodels.deadlines import Due
from projections.readmodels.leaderboard import Standing
from projections.readmodels.lobby import CLOCKS, VARIANTS
from projections.readmodels.notifications import Notification
from projections.readmodels.ratings import RatedGame, Rating
from projections.readmodels.scoreboard import Scoreboard
from projections.readmodels.timeline import KEYFRAME_EVERY, Keyframe, Rewind, StepRow, Turn

__all__ = [
    "CLOCKS",
    "KEYFRAME_EVERY",
    "MAX_ATTEMPTS",
    "PROJECTIONS",
    "VARIANTS",
    "Checkpoint",
    "ProjectionHalted",
    "ReadModels",
]


class ReadModels(Engine):
    """The read-model tables over the event store's database: catch-up, maintenance
    and the named queries the API asks."""

    def scoreboard(self, game_id: str) -> Scoreboard | None:
        """The game's scoreboard with its ``version``, or None before it is built."""
        return scoreboard.board(self.reads, game_id)

    def leaderboard(self, limit: int, offset: int = 0) -> list[Standing]:
        """Accounts by wins, then points (ties by account id)."""
        return leaderboard.standings(self.reads, limit, offset)

    def ratings(self, min_games: int, limit: int, offset: int = 0) -> list[Rating]:
        """Accounts with at least ``min_games`` rated games by rating (docs/ratings.md G7)."""
        return ratings.leaderboard(self.reads, min_games, limit, offset)

    def rating(self, account_id: str) -> Rating | None:
        """An account's rating now, or None before its first rated game (G8)."""
        return ratings.current(self.reads, account_id)

    def rating_history(self, account_id: str, limit: int, offset: int = 0) -> list[RatedGame]:
        """An account's rated games, latest first, with its rating before and after (G9)."""
        return ratings.history(self.reads, account_id, limit, offset)

    def lobby(
        self,
        status: str | None,
        limit: int,
        offset: int = 0,
        *,
        before: tuple[str, str] | None = None,
        players: int | None = None,
        variant: str | None = None,
        clock: str | None = None,
        free_seat: bool = False,
        among: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Lobby entries by last activity, newest first (``lobby.entries``)."""
        return lobby.entries(
            self.reads,
            status,
            limit,
            offset,
            before=before,
            players=players,
            variant=variant,
            clock=clock,
            free_seat=free_seat,
            among=among,
        )

    def my_games(self, account_id: str, limit: int, offset: int) -> list[dict[str, Any]]:
        """An account's games, the ones waiting for its move first, each with ``my_move``."""
        return lobby.my_games(self.reads, account_id, limit, offset)

    def profile_games(
        self, account_id: str, group: str, limit: int, offset: int, private: bool = True
    ) -> list[dict[str, Any]]:
        """An account's games under one heading of its profile (docs/profiles.md, P1);
        ``private=False``: its private tables left out (docs/invitations.md, I1)."""
        return profiles.games(self.reads, account_id, group, limit, offset, private)

    def profile_totals(self, account_id: str) -> tuple[dict[str, int], list[dict[str, Any]]]:
        """An account's games counted under each heading of its profile (P1), and the
        time controls it plays with the time it used (P2)."""
        return profiles.totals(self.reads, account_id)

    def queue(self, account_id: str, limit: int) -> list[dict[str, Any]]:
        """The games waiting for the account's decision, longest first (Q1, Q2)."""
        return queue.waiting(self.reads, account_id, limit)

    def queue_count(self, account_id: str) -> int:
        """How many games wait for the account's decision (Q1)."""
        return queue.count(self.reads, account_id)

    def due(self, game_id: str) -> int | None:
        """When the game's clock needs the service next (epoch ms; docs/clocks.md)."""
        return deadlines.due(self.db, game_id)

    def due_games(self, now_ms: int, limit: int = 1000) -> list[Due]:
        """Games whose clock needed the service by ``now_ms``, the most overdue first."""
        return deadlines.due_games(self.db, now_ms, limit)

    def notifications(
        self, account_id: str, limit: int, before: tuple[int, str] | None
    ) -> list[Notification]:
        """An account's notifications, newest first, after the cursor ``before``."""
        return notifications.of_account(self.reads, account_id, limit, before)

    def steps(self, game_id: str, after: int, limit: int, upto: int | None = None) -> list[StepRow]:
        """The replay steps after a version (up to ``upto``), in order."""
        return timeline.steps(self.reads, game_id, after, limit, upto)

    def rewinds(self, game_id: str, upto: int | None = None) -> list[Rewind]:
        """The game's rewinds (D6) up to ``upto``."""
        return timeline.rewinds(self.reads, game_id, upto)

    def turns(self, game_id: str, upto: int | None = None) -> list[Turn]:
        """Each turn with the version of its first step (in the history as it stands)."""
        return timeline.turns(self.reads, game_id, upto)

    def keyframe(self, game_id: str, at_most: int) -> Keyframe | None:
        """The newest replay keyframe (version, position text) at or below ``at_most``."""
        with self.db.reading() as tx:
            return timeline.nearest_keyframe(tx, game_id, at_most)

    def audit(self, game_id: str, after: int, limit: int) -> list[dict[str, Any]]:
        """Commands received after a sequence number, each with the steps it caused."""
        return audit.commands(self.reads, game_id, after, limit)
