"""Turn clocks (docs/clocks.md): the service's time, recorded with the events.

The engine never reads a clock. The service stamps every transaction of a timed
game, once it has started, with the clock as it stands after that transaction:
the ``clock`` entry of the metadata of the transaction's last event. So the head
event of a timed game always says whose decision runs, since when, and by when
it must be taken; an auditor recomputes every figure from the recorded times.

- C2: a decision starts when it becomes pending. Under ``move`` it must be taken
  within ``move_seconds``; under ``fischer`` within the seat's time left, which
  loses the time used and gains ``increment_seconds`` with every decision.
- D7 and C2: a paused game's clock stands still; resuming moves the decision's
  start on by the pause. A rewind (D6) starts the pending decision afresh.
- T5: a takeback puts every seat's time back as it stood at the version it goes back
  to; the pending decision starts afresh.
- C3: at or after the deadline, not a microsecond before, the service times the
  decision out (``GameService.act_for_seat``).
- V3, V4 (docs/vacation.md): in a game with vacation each decision records the seat's
  ``Leave`` (``service.timing.vacation``): its clock stands still during the seat's
  announced spells, and its deadline moves on by its reserve of automatic vacation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from domain import commands as cmd
from domain.commands import GameOptions
from domain.state import GameState, Phase
from service.timing.vacation import MOST_RECORDED, Leave, clock_ms, merged, run_until

UNDER_WAY = (Phase.SETUP, Phase.PLAYING)
# commands that take the pending decision (a player's move or the bot's)
DECISIONS: tuple[type, ...] = (*cmd.PLAY_COMMANDS, cmd.ActForSeat)
# a game's vacation planner (docs/vacation.md): the leave of the decision ``player_id``
# starts at ``since`` in ``game_id`` with ``allowed_ms`` of its own time
Plan = Callable[[str, str, datetime, int], Leave]


def ms(delta: timedelta) -> int:
    """A duration in whole milliseconds (rounded down)."""
    return (delta.days * 86_400_000) + (delta.seconds * 1000) + (delta.microseconds // 1000)


def parse_time(text: str) -> datetime:
    """A recorded ISO 8601 time (always with its offset)."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def stamp(moment: datetime) -> str:
    """A time as recorded: ISO 8601 in UTC."""
    return moment.astimezone(UTC).isoformat()


@dataclass(frozen=True)
class Clock:
    """A timed game's clock after a transaction (C2)."""

    control: str  # "move" or "fischer"
    move_ms: int  # "move": each decision's time
    increment_ms: int  # "fischer": added per decision
    seat: int | None = None  # whose decision runs (None: none, or the game is over)
    since: datetime | None = None  # when it started (moved on by pauses)
    left_ms: dict[int, int] = field(default_factory=dict)  # "fischer": per seat, at ``since``
    paused_at: datetime | None = None
    used_ms: int | None = None  # what the decision this transaction took had used
    vacation: Leave | None = None  # the running decision's, in a game with vacation (V3)
    vacation_used_ms: int | None = None  # the automatic vacation the decision taken spent

    @classmethod
    def start(cls, options: GameOptions, state: GameState) -> Clock:
        """The clock of a game that has just started: every seat's full time."""
        base = options.base_seconds * 1000 if options.time_control == "fischer" else 0
        return cls(
            options.time_control,
            options.move_seconds * 1000,
            options.increment_seconds * 1000,
            left_ms={p.seat: base for p in state.players} if base else {},
        )

    def allowed_ms(self) -> int | None:
        """The running decision's whole allowance, from ``since`` (None: none runs)."""
        if self.seat is None:
            return None
        if self.control == "fischer":
            return self.left_ms.get(self.seat, 0)
        return self.move_ms

    @property
    def deadline(self) -> datetime | None:
        """When the running decision times out (None: none runs, or the game is paused)."""
        allowed = self.allowed_ms()
        if allowed is None or self.since is None or self.paused_at is not None:
            return None
        if self.vacation is not None:  # V3, V4
            return run_until(self.since, allowed + self.vacation.reserve_ms, self.vacation.away)
        return self.since + timedelta(milliseconds=allowed)

    def clock_used_ms(self, until: datetime) -> int:
        """The running decision's clock time from ``since`` to ``until``: wall time less
        the seat's announced spells (V4)."""
        if self.since is None:
            return 0
        away = self.vacation.away if self.vacation is not None else ()
        return clock_ms(self.since, until, away)

    def remaining_ms(self, now: datetime) -> dict[int, int]:
        """Each seat's time left at ``now`` (the running seat's counting down; under
        ``move`` only the running seat has one). Never below zero."""
        left = dict(self.left_ms)
        allowed = self.allowed_ms()
        if allowed is not None and self.seat is not None and self.since is not None:
            until = self.paused_at or now
            left[self.seat] = max(0, allowed - self.clock_used_ms(until))
        return left

    def to_data(self) -> dict[str, Any]:
        """The ``clock`` metadata entry (JSON, integers and ISO times)."""
        deadline = self.deadline
        data: dict[str, Any] = {
            "control": self.control,
            "seat": self.seat,
            "since": stamp(self.since) if self.since is not None else None,
            "deadline": stamp(deadline) if deadline is not None else None,
        }
        if self.control == "move":
            data["move_ms"] = self.move_ms
        else:
            data["increment_ms"] = self.increment_ms
            data["left_ms"] = {str(k): v for k, v in sorted(self.left_ms.items())}
        if self.paused_at is not None:
            data["paused_at"] = stamp(self.paused_at)
        if self.used_ms is not None:
            data["used_ms"] = self.used_ms
        if self.vacation is not None:
            data["vacation"] = self.vacation.to_data()
        if self.vacation_used_ms is not None:
            data["vacation_used_ms"] = self.vacation_used_ms
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Clock:
        """The clock a metadata entry describes."""
        since, paused = data.get("since"), data.get("paused_at")
        leave = data.get("vacation")
        return cls(
            str(data["control"]),
            int(data.get("move_ms", 0)),
            int(data.get("increment_ms", 0)),
            seat=data.get("seat"),
            since=parse_time(since) if since else None,
            left_ms={int(k): int(v) for k, v in (data.get("left_ms") or {}).items()},
            paused_at=parse_time(paused) if paused else None,
            used_ms=data.get("used_ms"),
            vacation=Leave.from_data(leave) if isinstance(leave, dict) else None,
            vacation_used_ms=data.get("vacation_used_ms"),
        )


def pending_seat(state: GameState) -> int | None:
    """The seat whose decision is pending in a game under way."""
    if state.phase not in UNDER_WAY or state.pending is None:
        return None
    return state.owner(state.pending.colour).seat


def advance(
    before: Clock | None,
    state: GameState,
    command: cmd.Command,
    after: GameState,
    now: datetime,
    restored: Clock | None = None,
    plan: Plan | None = None,
) -> Clock | None:
    """The clock after ``command`` took ``state`` to ``after`` at ``now`` (C2);
    None for an untimed game or one that has not started. ``restored``: the clock
    recorded with the version a takeback went back to (T5): every seat's time as it
    stood there, the pending decision started afresh. ``plan``: in a game with
    vacation, the leave of each decision that starts (V3, V4; verification gives the
    recorded one)."""
    options = after.options
    if options.time_control == "none" or after.phase not in (*UNDER_WAY, Phase.ENDED):
        return None
    clock = before if before is not None else Clock.start(options, after)
    clock = replace(clock, used_ms=None, vacation_used_ms=None)
    restart = False
    if isinstance(command, DECISIONS) and clock.seat is not None and clock.since is not None:
        clock = _charged(clock, command, now)
        restart = True
    elif isinstance(command, cmd.RewindGame):
        restart = True
    if restored is not None:
        clock = replace(restored, seat=None, since=None, paused_at=None, used_ms=None)
        clock = replace(clock, vacation=None, vacation_used_ms=None)
        restart = True
    if isinstance(command, cmd.PauseGame) and after.paused is not None:
        return replace(clock, paused_at=now)
    if clock.paused_at is not None and after.paused is None:  # resumed (or rewound)
        if clock.since is not None:
            clock = replace(clock, since=clock.since + (now - clock.paused_at))
        clock = replace(clock, paused_at=None)
    if isinstance(command, cmd.AnnounceAway):
        return _away_added(clock, after, command, now)
    seat = pending_seat(after)
    if seat is None:
        return replace(clock, seat=None, since=None, vacation=None)
    if restart or seat != clock.seat or clock.since is None:
        clock = replace(clock, seat=seat, since=now, vacation=None)
        if options.vacation and plan is not None:
            player = after.owner(after.pending.colour).player_id if after.pending else ""
            allowed = replace(clock, vacation=None).allowed_ms() or 0
            clock = replace(clock, vacation=plan(after.game_id, player, now, allowed))
    return clock


def _away_added(clock: Clock, state: GameState, command: cmd.AnnounceAway, now: datetime) -> Clock:
    """V4: a spell announced while its player's decision runs stops that decision's clock
    too, from the announcement on (never before it: the time already run stays run). A
    decision whose deadline has passed is the bot's already (C3): the spell comes too
    late for it. The leave's ``starts`` moves on with the spell; its reserve stays as it
    was reckoned (V9). Another seat's decision, or none: the clock is as it was (the
    player's next decisions record the spell when they start)."""
    leave, seat = clock.vacation, pending_seat(state)
    if leave is None or clock.since is None or seat is None or seat != clock.seat:
        return clock
    if all(p.player_id != command.player_id for p in state.players if p.seat == seat):
        return clock
    deadline = clock.deadline
    if deadline is not None and deadline <= now:
        return clock
    spell = (max(parse_time(command.starts), now), parse_time(command.until))
    if spell[1] <= spell[0]:
        return clock
    away = tuple(merged([*leave.away, spell]))
    if len(away) > MOST_RECORDED:
        return clock
    allowed = clock.allowed_ms() or 0
    starts = run_until(clock.since, allowed, away)
    return replace(clock, vacation=replace(leave, away=away, starts=starts))


def _charged(clock: Clock, command: cmd.Command, now: datetime) -> Clock:
    """The clock once the running decision is taken at ``now`` (C2): the time it used,
    under ``fischer`` taken from the seat's time left; with vacation (V3) the clock time
    past its own allowance is the automatic vacation it spent."""
    assert clock.seat is not None and clock.since is not None
    used = max(0, ms(now - clock.since))
    spent = clock.clock_used_ms(now) if clock.vacation is not None else used
    left = dict(clock.left_ms)
    # the bot's moves for an absent or resigned seat cost and earn nothing (C5, C6)
    charged = not (isinstance(command, cmd.ActForSeat) and command.reason != "timeout")
    if clock.control == "fischer" and charged:
        left[clock.seat] = max(0, left.get(clock.seat, 0) - spent) + clock.increment_ms
    vacation_used = None
    if clock.vacation is not None:
        allowed = clock.allowed_ms() or 0
        vacation_used = min(clock.vacation.reserve_ms, max(0, spent - allowed))
    return replace(clock, left_ms=left, used_ms=used, vacation_used_ms=vacation_used)


def due(clock: Clock | None, state: GameState, since: datetime) -> datetime | None:
    """When the service must act on the game next (C3, C5, C6): when the pending
    decision is the bot's (an absent or resigned seat; untimed games too), at once:
    ``since``, the time of the last transaction; otherwise at the deadline. None when
    nothing waits on time (no decision, or the game is paused, D7)."""
    seat = pending_seat(state)
    if seat is None or state.paused is not None:
        return None
    if state.bot_reason(seat) is not None:
        return since
    return clock.deadline if clock is not None else None


def clock_view(data: dict[str, Any] | None, now: datetime) -> dict[str, Any] | None:
    """A recorded ``clock`` as the API shows it: as recorded, plus ``now`` and each
    seat's ``time_left_ms`` at ``now`` (the running seat's counting down)."""
    if data is None:
        return None
    clock = Clock.from_data(data)
    left = clock.remaining_ms(now)
    return {
        **data,
        "now": stamp(now),
        "time_left_ms": {str(k): v for k, v in sorted(left.items())},
    }
