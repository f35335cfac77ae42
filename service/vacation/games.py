"""An announced spell told to the games (docs/vacation.md V4): each game under way with
vacation where the account sits records it (``AnnounceAway``, the ``AwayAnnounced``
event), so the decision already running when its player leaves stands still during the
spell too (``service.timing.clocks``), and the others read it in the game's history.

The announcement is in the ledger first; a game that ends or moves meanwhile refuses or
re-judges the command as any other, and a decision that starts after the announcement
records the spell from the ledger when it starts (V4).
"""

from __future__ import annotations

import logging
from typing import Protocol

from domain import commands as cmd
from domain.state import GameState, Phase
from service.errors import ServiceError
from service.play.receipts import CommandResult
from service.store.base import Account
from service.timing.clocks import stamp
from service.timing.vacation import Span
from service.vacation.ledger import Ledger

log = logging.getLogger("tongiaki.vacation")
UNDER_WAY = (Phase.SETUP, Phase.PLAYING)


class Games(Protocol):
    """What telling the games needs of the game service."""

    def load(self, game_id: str, at: int | None = None) -> tuple[int, GameState]: ...

    def record_for(
        self, game_id: str, account: Account, command: cmd.AnnounceAway
    ) -> CommandResult: ...


class Telling:
    """Records an announced spell at the account's games under way with vacation."""

    def __init__(self, games: Games, ledger: Ledger) -> None:
        self.games = games
        self.ledger = ledger

    def __call__(self, who: Account, spell: Span) -> list[str]:
        """The games that recorded ``spell`` (the others had ended, or have no seat or
        no vacation for the account: the event store says, not the lobby)."""
        command = cmd.AnnounceAway(who.account_id, stamp(spell[0]), stamp(spell[1]))
        told = []
        for game_id in self.ledger.vacation_games(who.account_id):
            try:
                state = self.games.load(game_id)[1]
            except ServiceError:
                continue
            seated = any(p.player_id == who.account_id for p in state.players)
            if state.phase not in UNDER_WAY or not state.options.vacation or not seated:
                continue
            try:
                self.games.record_for(game_id, who, command)
            except ServiceError as exc:  # it ended or was paused meanwhile: journalled
                log.info("game %s did not record a spell of %s: %s", game_id, who.account_id, exc)
                continue
            told.append(game_id)
        return told
