"""rq's schedule, kept by a thread of the worker that outlives any Redis outage.

``enqueue_at`` puts a job (a clock tick, docs/clocks.md) in the queue's scheduled
registry; something must move it to the queue when its time comes. rq's own
scheduler (``work(with_scheduler=True)``) is a forked process that dies on the
first Redis error, with a raw traceback, and rq starts it again only at its next
maintenance, ten minutes later. This thread does the same work with rq's own
``RQScheduler`` methods (its lock, so that one worker of many schedules, its
heartbeat, ``enqueue_scheduled_jobs``) every second, and goes on through an
outage: the outage is logged once when it starts and once when it ends (JSON, as
every line of the worker), and the first look after it moves every job that fell
due meanwhile.

Redis without persistence loses the schedule when it restarts; the worker's
sweeper then queues a tick for every game whose clock is overdue (the database
is the record).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time

from redis import Redis
from redis.exceptions import RedisError
from rq.scheduler import RQScheduler

from service.runtime.loops import repeat
from service.runtime.outages import Outage

log = logging.getLogger("tongiaki.workers")

EVERY = 1.0  # seconds between looks at the schedule (rq's own interval)
LOCK_RETRY = 5.0  # seconds between tries for the lock another worker holds


class Schedule:
    """Moves due scheduled jobs of ``queues`` to their queue, once a second."""

    def __init__(self, redis: Redis, queues: list[str], outage: Outage, every: float = EVERY):
        self.queues = set(queues)
        self.outage = outage
        self.every = every
        self.scheduler = RQScheduler(list(queues), connection=redis, interval=int(every) or 1)
        self._stop = threading.Event()
        self._tried = 0.0
        self._thread: threading.Thread | None = None

    def start(self) -> Schedule:
        """Look now and every ``every`` seconds, in a thread of its own, until stopped."""
        self._thread = repeat(
            self._look_once,
            self.every,
            self._stop,
            name="rq-schedule",
            log=log,
            what="the schedule's look",  # never the end of scheduling: the next tries again
        )
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop looking, and give the lock back for another worker."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        with contextlib.suppress(RedisError):
            self.scheduler.release_locks()
            self.scheduler.register_death()

    @property
    def holds_lock(self) -> bool:
        return bool(self.scheduler.acquired_locks == self.queues)

    def look(self) -> None:
        """One look: the lock (taken, or kept alive), then the due jobs moved. Each look
        speaks to Redis, so its outcome says whether Redis is there."""
        s = self.scheduler
        if not self.holds_lock and time.monotonic() - self._tried >= LOCK_RETRY:
            self._tried = time.monotonic()
            if s.acquire_locks():
                s.register_birth()
        if s.acquired_locks:
            s.heartbeat()  # keeps the lock; re-takes it if it expired during an outage
            s.enqueue_scheduled_jobs()
        else:  # another worker schedules: only whether Redis answers
            s.connection.ping()

    def _look_once(self) -> None:
        """One look, Redis away counted by the outage."""
        try:
            self.look()
            self.outage.ok()
        except RedisError as exc:
            self.outage.failed(exc)
            self._tried = 0.0  # try the lock again as soon as Redis answers
