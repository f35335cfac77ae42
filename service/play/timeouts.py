"""Seat timeouts as a command meets them (docs/clocks.md, C3–C7).

C3: a player's move is taken before its decision's deadline, or not at all — the bot
plays it. C5/C6: an absent or resigned seat is played by the bot at once. C7: a
timeout that would leave nobody ends the game, and no move is made for it. The
timekeeper (``service.play.timekeeper``) says when; this module says what is due and
how a late player is answered.
"""

from __future__ import annotations

import random
import time
import uuid
from dataclasses import dataclass
from datetime import datetime

from domain import commands as cmd
from domain.bots import budget_of, make_bot
from domain.mcts import Budget, MctsBot
from domain.serialization import encode
from domain.state import GameState
from service.errors import Conflict, ServiceError
from service.play.repository import GameRepository
from service.store.base import Account, CommandRecord, canonical
from service.timing.clocks import parse_time, pending_seat, stamp

BOT = "greedy"  # the bot that plays timed-out, absent and resigned seats (docs/clocks.md)
SEAT_SECONDS = 1.0  # the most a search may think for a seat (it runs in a web or worker process)


@dataclass(frozen=True)
class BotMove:
    """The decision the bot plays for a seat, and its journal record."""

    command: cmd.ActForSeat
    record: CommandRecord


class SeatTimeouts:
    """What the recorded clocks say of a game's pending decision."""

    def __init__(self, repository: GameRepository, bot: str = BOT) -> None:
        budget_of(bot)  # a name the bots know (ValueError otherwise)
        self.repository = repository
        self.bot = bot  # TONGIAKI_SEAT_BOT: the operator's choice

    def running(self, game_id: str, version: int, state: GameState) -> datetime | None:
        """The deadline the clock recorded with ``version`` runs to (None: untimed, or no
        decision is on the clock)."""
        clock = self.repository.clock_at(game_id, version, state)
        return clock.deadline if clock is not None else None

    def deadline(self, game_id: str, version: int, state: GameState) -> datetime | None:
        """The pending decision's deadline (None: the game is untimed or paused)."""
        return None if state.paused is not None else self.running(game_id, version, state)

    def overdue(self, game_id: str, version: int, state: GameState, record: CommandRecord) -> bool:
        """Whether the pending decision's deadline had passed when ``record`` came (C3)."""
        deadline = self.deadline(game_id, version, state)
        return deadline is not None and parse_time(record.received_at) >= deadline

    def check_in_time(
        self,
        game_id: str,
        version: int,
        state: GameState,
        command: cmd.Command,
        record: CommandRecord,
    ) -> None:
        """C3: a player's move is taken before its decision's deadline, or not at all
        (the timekeeper's bot plays it; whichever of the two is appended first wins)."""
        if not isinstance(command, cmd.PLAY_COMMANDS):
            return
        deadline = self.running(game_id, version, state)
        if deadline is not None and parse_time(record.received_at) >= deadline:
            raise Conflict(
                "turn_timed_out",
                f"your time for this decision ran out at {stamp(deadline)}: the bot plays it"
                " for you (C3)",
                rule="C3",
                version=version,
            )

    def due_move(
        self, game_id: str, version: int, state: GameState, now: datetime
    ) -> BotMove | None:
        """The bot's move if it is due ``now``: the seat is absent (C5) or resigned (C6),
        or the deadline has passed (C3: at the deadline exactly, never a microsecond
        before). None when nothing is due."""
        seat = pending_seat(state)
        if seat is None or state.paused is not None or state.active_colour is None:
            return None
        reason = state.bot_reason(seat)
        if reason is None:
            deadline = self.running(game_id, version, state)
            if deadline is None or now < deadline:
                return None
            reason = "timeout"
        player = next(p for p in state.players if p.seat == seat)
        if reason == "timeout" and state.timeout_leaves_nobody(seat):
            played = ""  # C7: the game ends with this timeout; no move is made for it
        else:
            played = canonical(encode(self.choose(game_id, version, state, player.bot)))
        command = cmd.ActForSeat(state.active_colour, reason, played)
        actor = {
            "bot": player.bot or self.bot,
            "seat": seat,
            "acting_for": player.player_id,
            "reason": reason,
        }
        record = CommandRecord(
            game_id, uuid.uuid4().hex, actor, stamp(now), encode(command), version
        )
        return BotMove(command, record)

    def choose(
        self, game_id: str, version: int, state: GameState, bot_name: str = ""
    ) -> cmd.Command:
        """The seat's bot's move (a bot's seat's own, B2; otherwise the operator's),
        seeded by the game and version; the search thinks at most ``SEAT_SECONDS`` (the
        move is journalled: verification never searches)."""
        rng = random.Random(f"{game_id}:{version}")
        bot = make_bot(bot_name or self.bot, rng)
        if isinstance(bot, MctsBot):
            bot = MctsBot(rng, Budget(bot.budget.playouts, SEAT_SECONDS), time.monotonic)
        return bot.choose(state)


def timed_out(
    account: Account | None, state: GameState, version: int, error: ServiceError
) -> ServiceError:
    """The answer to a player whose move came after the bot had played their timed-out
    decision (C3): the seat has timed out and its player has not moved since; or
    whose seat is absent (C5), whether this decision's timeout or an earlier one
    made it so."""
    judged = error.code in ("stale_version", "not_your_turn", "seat_played_by_bot") or str(
        error.extra.get("rule") or ""
    ).startswith("R")
    if account is None or not judged:
        return error
    seat = next((p.seat for p in state.players if p.player_id == account.account_id), None)
    if seat is None or seat in state.resigned:
        return error
    if seat in state.absent:
        streak = state.timeouts.get(seat, 0)
        after = f" after {streak} timeout{'s' if streak != 1 else ''} in a row" if streak else ""
        return Conflict(
            "seat_played_by_bot",
            f"your seat is absent{after}: the bot plays it until you take it back"
            f" (ReclaimSeat, C5); the game is at version {version}",
            rule="C5",
            version=version,
        )
    if not state.timeouts.get(seat):
        return error
    return Conflict(
        "turn_timed_out",
        f"your decision timed out and the bot played it for you; the game is at version"
        f" {version}: see what is pending now and play on",
        rule="C3",
        version=version,
    )
