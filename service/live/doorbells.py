"""Doorbells: how a committed command gets its read models brought level.

After every commit the service rings a doorbell. With ``REDIS_URL`` the game id
joins the queue's set of dirty games, and one ``catch_up_dirty`` job (run by
``tongiaki worker``, ``workers.jobs``) is queued unless one is already waiting:
whatever the number of busy games, at most one batch job waits at a time, and it
levels every game that was dirty when it started. Without ``REDIS_URL`` the same
catch-up runs inline after the commit.

A lost job or a Redis outage only delays the read models: the sweeper (in the
worker, or inline in the embedded default, at start and every
``TONGIAKI_SWEEP_EVERY`` seconds) finds every game some projection lags behind
and catches it up. The service enqueues jobs by name, so it never imports the
worker's code.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Protocol

from redis import Redis
from redis.exceptions import NoScriptError, RedisError
from rq import Queue, Retry

from projections.store import MAX_ATTEMPTS, ReadModels
from service.runtime.outages import Outage
from service.store.base import StoreUnavailable

log = logging.getLogger("tongiaki.workers")

RETRY_INTERVALS = [1, 5]  # seconds before the 2nd and 3rd attempt (rq back-off)
CATCH_UP = "workers.jobs.catch_up"  # one game (sweeper, retries)
CATCH_UP_DIRTY = "workers.jobs.catch_up_dirty"  # every game rung since the last batch


# Seconds a "batch job already queued" mark lives. It is cleared when the job
# starts; the expiry only matters if the job is lost, and a duplicate job, should
# the mark expire while the job still waits, finds nothing to do.
PENDING_TTL = 10


def pending_key(queue: str) -> str:
    """Marks a queue whose batch job is queued and not started yet."""
    return f"tongiaki:pending:{queue}"


def dirty_key(queue: str) -> str:
    """The set of game ids with events the read models may not have yet."""
    return f"tongiaki:dirty:{queue}"


def retry() -> Retry:
    return Retry(max=MAX_ATTEMPTS - 1, interval=RETRY_INTERVALS)


class InlineDoorbell:
    """Embedded default: catch up right after the commit, in the same process."""

    def __init__(self, rm: ReadModels) -> None:
        self.rm = rm

    def ring(self, game_id: str) -> None:
        for _ in range(MAX_ATTEMPTS):
            try:
                self.rm.catch_up_game(game_id)
                return
            except Exception:  # counted and logged; the command stands
                log.exception("inline projection of %s failed", game_id)


# One atomic round trip per ring: mark the game dirty, claim the "queued" mark if free.
RING = """
redis.call('SADD', KEYS[1], ARGV[1])
if ARGV[3] ~= '' then redis.call('PUBLISH', ARGV[3], ARGV[1]) end
return redis.call('SET', KEYS[2], 1, 'NX', 'EX', ARGV[2])
"""


class RqDoorbell:
    """Production: mark the game dirty, queue a batch job unless one waits; never fail.

    Rings synchronously; the service wraps it in ``BackgroundDoorbell`` so that a
    slow or hung Redis never delays a command.
    """

    def __init__(
        self, redis_url: str, queue: str = "tongiaki", timeout: float = 2.0, publish: str = ""
    ) -> None:
        self.publish = publish  # a channel the game id is published on too (the change feed)
        self.redis = Redis.from_url(
            redis_url, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        self.queue = Queue(queue, connection=self.redis)
        self.pending = pending_key(queue)
        self.dirty = dirty_key(queue)
        self.script = self.redis.register_script(RING)
        self.outage = Outage(
            "Redis",
            log,
            "doorbells not rung",
            "the sweeper catches those games' read models up",
        )

    def _claim(self, game_id: str) -> bool:
        try:  # EVALSHA directly: half the client cost of the Script helper
            claimed = self.redis.execute_command(
                "EVALSHA",
                self.script.sha,
                2,
                self.dirty,
                self.pending,
                game_id,
                PENDING_TTL,
                self.publish,
            )
        except NoScriptError:  # a fresh or flushed Redis: load it
            claimed = self.script(
                keys=[self.dirty, self.pending], args=[game_id, PENDING_TTL, self.publish]
            )
        return claimed is not None

    def ring(self, game_id: str) -> None:
        """Add the game to the dirty set; queue a batch job if none waits."""
        try:
            if self._claim(game_id):
                try:
                    self.queue.enqueue(CATCH_UP_DIRTY, self.queue.name, retry=retry(), result_ttl=0)
                except RedisError:
                    self.redis.delete(self.pending)
                    raise
        except RedisError as exc:  # logged once per outage, not per command
            self.outage.failed(exc)
            return
        self.outage.ok()


class Ringer(Protocol):
    """What ``BackgroundDoorbell`` rings: something that never raises."""

    def ring(self, game_id: str) -> None: ...


class BackgroundDoorbell:
    """Rings another doorbell from a thread of its own: ``ring`` only notes the game.

    Games rung while a ring is under way are rung together next, once each. If
    the process dies with games noted but not rung, or Redis is away, the
    sweeper catches them up: a ring is a hint, never the only way an event is
    projected.
    """

    def __init__(self, inner: Ringer, limit: int = 10_000) -> None:
        self.inner = inner
        self.limit = limit  # games noted at most; beyond, the sweeper finds them
        self._pending: dict[str, None] = {}
        self._wake = threading.Condition()
        self._busy = False
        self._thread: threading.Thread | None = None
        self._pid = 0

    def ring(self, game_id: str) -> None:
        """Note the game and wake the ringer; never blocks on Redis."""
        with self._wake:
            if len(self._pending) < self.limit:
                self._pending[game_id] = None
            self._start()
            self._wake.notify()

    def _start(self) -> None:
        if self._thread is None or self._pid != os.getpid() or not self._thread.is_alive():
            self._pid = os.getpid()  # a forked process has no thread: start its own
            self._thread = threading.Thread(target=self._run, name="doorbell", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._pending:
                    self._busy = False
                    self._wake.notify_all()
                    self._wake.wait()
                games, self._pending = list(self._pending), {}
                self._busy = True
            for game_id in games:
                self.inner.ring(game_id)  # logs and swallows Redis errors

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every noted game was rung (tests, shutdown); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._wake:
            while self._pending or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._wake.wait(left)
        return True


def enqueue_game(queue: Queue, game_id: str) -> None:
    """Queue ``catch_up(game_id)`` with rq's back-off (sweeper, failed batch items)."""
    queue.enqueue(CATCH_UP, game_id, retry=retry(), result_ttl=0)


def sweep(rm: ReadModels, queue: Queue | None = None) -> list[str]:
    """Enqueue (or, without a queue, run) a catch-up for every lagging game."""
    lagging = rm.behind()
    for game_id in lagging:
        if queue is None:
            try:
                rm.catch_up_game(game_id)
            except Exception:  # counted; the next sweep tries again
                log.exception("sweep of %s failed", game_id)
        else:
            enqueue_game(queue, game_id)
    if lagging:
        log.info("sweeper: %d games behind", len(lagging))
    return lagging


def sweep_inline(rm: ReadModels, every: float, closed: Callable[[], bool]) -> threading.Event:
    """Embedded default: catch up lagging games now (after a crash, say) and every
    ``every`` seconds, in a thread of their own, until ``closed()`` (the app's store
    is closed) or the returned event is set."""
    stop = threading.Event()

    def loop() -> None:
        while not closed():
            try:
                sweep(rm)
            except (StoreUnavailable, RedisError) as exc:  # away: the next sweep tries again
                log.warning("inline sweep skipped: %s", exc)
            except Exception:
                log.exception("inline sweep failed")
            if stop.wait(every):
                return

    threading.Thread(target=loop, name="sweeper", daemon=True).start()
    return stop
