"""Keeping the deadlines (docs/clocks.md C3–C6): the bot's moves, when they are due.

Where a game's clock needs the service next is a read model (``rm_clocks``, kept
by the lobby projection): the deadline of the pending decision, or "now" when the
pending seat is absent or resigned. Two things act on it:

- production: after a game's read models are brought level, the worker schedules
  ``clock_tick(game_id)`` with rq's scheduler at that time (``enqueue_at``;
  ``tongiaki worker`` runs with the scheduler), and its sweeper queues a tick for
  every game overdue (a lost job, a Redis outage);
- the embedded default: ``LocalScheduler``, a thread of the one process, told after
  every commit (``ClockBell``) and sweeping the read model the same way.

A tick plays what is due through ``GameService.act_for_seat``, which appends on
the version it judged: a tick racing the player's move, or another tick, loses
cleanly and writes nothing. So ticks may run twice, early or late: early does
nothing, twice does nothing more.
"""

from __future__ import annotations

import heapq
import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from projections.store import ReadModels
from service.errors import Conflict, NotFound, ServiceError
from service.play.attempts import Doorbell
from service.play.games import GameService
from service.store.base import StoreUnavailable
from service.timing.clocks import due, pending_seat

log = logging.getLogger("tongiaki.clocks")

CLOCK_TICK = "workers.jobs.clock_tick"  # the rq job (by name: the service never imports it)
BUDGET = 64  # decisions one tick plays at most before it lets others have a turn
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def from_ms(epoch_ms: int) -> datetime:
    """A time in epoch milliseconds as a UTC datetime."""
    return EPOCH + timedelta(milliseconds=epoch_ms)


def to_ms(moment: datetime) -> int:
    """A datetime in epoch milliseconds."""
    return int((moment - EPOCH) / timedelta(milliseconds=1))


class Timekeeper:
    """Plays a game's due decisions with the bot, on the given ``GameService``."""

    def __init__(self, games: GameService, budget: int = BUDGET) -> None:
        self.games = games
        self.budget = budget

    def tick(self, game_id: str) -> datetime | None:
        """Play every decision of the game that is due now (at most ``budget``), then
        say when the game is due next (None: nothing waits on time)."""
        for _ in range(self.budget):
            try:
                if self.games.act_for_seat(game_id) is None:
                    break
            except NotFound:
                return None
            except Conflict as exc:
                if exc.code == "stale_version":  # a move landed first: look again
                    continue
                log.warning("the bot's move for %s was refused: %s", game_id, exc.detail)
                return None
            except ServiceError as exc:
                log.warning("the bot's move for %s was refused: %s", game_id, exc.detail)
                return None
        return self.next_due(game_id)

    def next_due(self, game_id: str) -> datetime | None:
        """When the game's clock needs the service next."""
        try:
            version, state = self.games.load(game_id)
        except NotFound:
            return None
        clock = self.games.clock_at(game_id, version, state)
        return due(clock, state, self.games.clock())

    def beside_bot(self, game_id: str) -> bool:
        """Whether the game is under way with a seat the bot plays (absent, resigned): a
        player's move there makes the bot's decision due at once, which a worker hears
        of only through its queue (``LocalScheduler.follow``)."""
        try:
            _, state = self.games.load(game_id)
        except NotFound:
            return False
        if pending_seat(state) is None or state.paused is not None:
            return False
        return any(state.bot_reason(p.seat) is not None for p in state.players)


class LocalScheduler:
    """The embedded default's scheduler: one thread, a heap of (due time, game).

    ``at`` notes when a game is due (the earliest note wins); the thread ticks every
    game whose time has come and notes when it is due next. Every ``every`` seconds it
    also sweeps the read model for overdue games, so nothing depends on a note.

    ``follow`` (a worker's): a game under way with a seat the bot plays is looked at
    again every ``follow`` seconds (at the latest), whatever decision is pending.
    The player's move makes the bot's decision due at once, but a worker hears of the
    move only when its queue's batch job levels the game's read models; with that job
    late (its queue busy, a slow or failing catch-up) the bot waited for the player's
    deadline instead (~5 s after the move for a 5 s move clock).
    """

    def __init__(
        self,
        keeper: Timekeeper,
        rm: ReadModels,
        every: float,
        closed: Callable[[], bool],
        now: Callable[[], datetime] | None = None,
        follow: float | None = None,
    ) -> None:
        self.keeper = keeper
        self.rm = rm
        self.every = every
        self.follow = follow
        self.closed = closed
        self.now = now or keeper.games.clock
        self._heap: list[tuple[datetime, str]] = []
        self._next: dict[str, datetime] = {}  # each game's earliest note
        self._wake = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="clocks", daemon=True)

    def start(self) -> LocalScheduler:
        """Start the thread (a sweep comes first)."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread (it finishes the tick under way)."""
        with self._wake:
            self._stopped = True
            self._wake.notify()

    def at(self, game_id: str, when: datetime | None) -> None:
        """Tick ``game_id`` at ``when`` (None: nothing to note)."""
        if when is None:
            return
        with self._wake:
            known = self._next.get(game_id)
            if known is not None and known <= when:
                return
            self._next[game_id] = when
            heapq.heappush(self._heap, (when, game_id))
            self._wake.notify()

    def sweep(self) -> None:
        """Note every game the read model says is due by now."""
        for game_id, due_ms in self.rm.due_games(to_ms(self.now())):
            self.at(game_id, from_ms(due_ms))

    def _due_now(self) -> list[str]:
        """Pop the games whose time has come; wait (at most until the next sweep) if none."""
        with self._wake:
            if self._stopped:
                return []
            now = self.now()
            ready = []
            while self._heap and self._heap[0][0] <= now:
                when, game_id = heapq.heappop(self._heap)
                if self._next.get(game_id) == when:
                    del self._next[game_id]
                    ready.append(game_id)
            if not ready:
                wait = self.every
                if self._heap:
                    wait = min(wait, (self._heap[0][0] - now).total_seconds())
                self._wake.wait(max(wait, 0.001))
            return ready

    def _run(self) -> None:
        swept = None
        while not self._stopped and not self.closed():
            try:
                now = self.now()
                if swept is None or (now - swept).total_seconds() >= self.every:
                    swept = now
                    self.sweep()
                for game_id in self._due_now():
                    self.at(game_id, self._after_tick(game_id))
            except StoreUnavailable as exc:  # away: the next round tries again
                log.warning("clocks skipped: %s", exc)
                self._pause()
            except Exception:
                log.exception("clocks failed")
                self._pause()

    def _after_tick(self, game_id: str) -> datetime | None:
        """Tick the game; when it is due next (sooner while followed)."""
        following = self.keeper.tick(game_id)
        if following is not None and self.follow and self.keeper.beside_bot(game_id):
            following = min(following, self.now() + timedelta(seconds=self.follow))
        return following

    def _pause(self) -> None:
        with self._wake:
            if not self._stopped:
                self._wake.wait(min(self.every, 1.0))


class ClockBell:
    """Embedded default: ring the inner doorbell (the inline projections), then note
    when the game's clock needs the service next (the read model is level by then)."""

    def __init__(self, inner: Doorbell, rm: ReadModels, scheduler: LocalScheduler) -> None:
        self.inner = inner
        self.rm = rm
        self.scheduler = scheduler

    def ring(self, game_id: str) -> None:
        """Catch up, then schedule."""
        self.inner.ring(game_id)
        try:
            due_ms = self.rm.due(game_id)
        except Exception:  # the sweep notes it later
            log.exception("the clock of %s was not scheduled", game_id)
            return
        if due_ms is not None:
            self.scheduler.at(game_id, from_ms(due_ms))
