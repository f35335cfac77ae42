"""A bot's seat at an open table (docs/bots.md, B1, B4): seated by a player of the table,
or again, in a rematch, in its proposer's name. The seat is the engine's to judge (B1:
an unrated table, a free colour, a level of ``SEAT_BOTS``); the timekeeper plays it (B2,
``service.play.timeouts``)."""

from __future__ import annotations

from collections.abc import Sequence

from domain import commands as cmd
from domain.serialization import encode
from domain.state import Player
from service.errors import Conflict
from service.play.games import GameService
from service.play.receipts import CommandResult
from service.store.base import Account


def seat_bot(
    games: GameService,
    game_id: str,
    account: Account,
    bot: str,
    colours: Sequence[str],
    idempotency_key: str | None = None,
) -> CommandResult:
    """``account``, seated at the table, seats ``bot`` with ``colours`` at the next seat
    (B1); the bot then plays the seat's every decision at once (B2)."""
    payload = encode(cmd.JoinGame("", tuple(colours), bot=bot))
    return games.execute(game_id, account, payload, None, idempotency_key)


def reseat_bot(games: GameService, game_id: str, account: Account, old: Player, seat: int) -> None:
    """B4: a rematch seats the old table's bot ``old`` at ``seat`` of the new game, in its
    proposer's (``account``'s) name, seated there or not yet. Run twice, or by two at
    once, it seats the bot once: the seat is taken on the version that had it free."""
    for _ in range(8):
        version, state = games.load(game_id)
        if len(state.players) >= seat:
            return  # taken already (by this rematch, run before)
        command = cmd.JoinGame("", old.colours, bot=old.bot)
        try:
            games.record_for(game_id, account, command, version)
            return
        except Conflict as exc:
            if exc.code != "stale_version":
                raise
    raise Conflict("rematch_busy", "the rematch's table kept changing: try again", rule="RM6")
