"""Who may send a command: a player with a seat, for their own seat, on their turn,
while the game is not paused (docs/disputes.md, D7)."""

from __future__ import annotations

from typing import Any

from domain import commands as cmd
from domain.state import GameState
from service.errors import BadRequest, Conflict, Forbidden
from service.store.base import Account


def admit(account: Account, payload: Any, state: GameState) -> None:
    """Refuse, before anything is journalled, accounts that have no business here."""
    if account.kind != "player":
        raise Forbidden("not_a_player", "auditor accounts cannot play")
    # a seat of one's own; a bot's seat (B1) is seated by a player of the table
    joining = isinstance(payload, dict) and payload.get("type") == "JoinGame"
    joining = joining and not payload.get("bot")
    if not joining and all(p.player_id != account.account_id for p in state.players):
        raise Forbidden("not_seated", "you have no seat at this table")


def sent_by_players(command: cmd.Command) -> None:
    """Refuse a command players do not send (the service's and auditors' own)."""
    if type(command) not in (*cmd.PLAY_COMMANDS, *cmd.SEAT_COMMANDS, cmd.JoinGame, cmd.StartGame):
        raise BadRequest("not_a_player_command", f"{type(command).__name__} is not sent by players")


def authorise(account: Account, command: cmd.Command, state: GameState) -> None:
    """Refuse a command its sender may not send now: any move while the game is paused
    (D7), another's seat, a turn that is not theirs."""
    if state.paused is not None and isinstance(command, cmd.PLAY_COMMANDS):
        # every player's move, whoever's turn it is (docs/disputes.md, D7)
        raise Conflict(
            "game_paused", "the game is paused while an auditor looks at a dispute", rule="D7"
        )
    if isinstance(command, cmd.CreateGame | cmd.StartGame):
        return
    if isinstance(command, cmd.JoinGame) and command.bot:
        return  # any seated player seats a bot (docs/bots.md, B1)
    if isinstance(command, (cmd.JoinGame, cmd.ReclaimSeat, cmd.Resign, *cmd.OFFER_COMMANDS)):
        if getattr(command, "player_id", None) != account.account_id:
            raise Forbidden("not_your_seat", "you can only act for your own seat")
        return
    colour = state.active_colour
    if colour is None or state.owner(colour).player_id != account.account_id:
        if colour is None:
            raise Forbidden("not_your_turn", "not your turn: no move is awaited")
        raise Forbidden("not_your_turn", f"not your turn: it is {colour}'s turn")
