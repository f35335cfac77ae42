"""rq jobs (they carry only a game id), doorbells, the sweeper and the worker loop.

After every commit the service rings a doorbell: with ``REDIS_URL`` it enqueues
``catch_up(game_id)`` on the rq queue; without it the same function runs inline.
A lost job or a Redis outage only delays the read models: the sweeper (on
worker start and every ``TONGIAKI_SWEEP_EVERY`` seconds) finds every game some
projection lags behind and enqueues it again.
"""

from __future__ import annotations

import logging
import threading
from functools import cache

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue, Retry, get_current_job

from service.settings import Settings
from workers.readmodels import MAX_ATTEMPTS, ReadModels

log = logging.getLogger("tongiaki.workers")

RETRY_INTERVALS = [1, 5]  # seconds before the 2nd and 3rd attempt (rq back-off)


@cache
def readmodels() -> ReadModels:
    """This worker process's read models, on the configured database."""
    from service.app import open_store

    rm = ReadModels(open_store(Settings.from_env()))  # type: ignore[arg-type]
    rm.upgrade()
    return rm


PENDING_TTL = 60  # seconds a "job already queued" mark lives if its job is lost


def pending_key(queue: str, game_id: str) -> str:
    """Marks a game whose catch-up job is queued and not started yet."""
    return f"tongiaki:pending:{queue}:{game_id}"


def catch_up(game_id: str) -> dict[str, int]:
    """The job: bring every projection of ``game_id`` level with its events.

    It first clears the game's "queued" mark, *before* reading any event, so a
    command committed from now on rings a new job, and one committed earlier is
    read by this one: coalescing doorbells never loses an event.
    """
    job = get_current_job()
    if job is not None:
        job.connection.delete(pending_key(job.origin, game_id))
    return readmodels().catch_up_game(game_id)


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


class RqDoorbell:
    """Production: enqueue a job carrying only the game id; never fail the command."""

    def __init__(self, redis_url: str, queue: str = "tongiaki") -> None:
        self.redis = Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)
        self.queue = Queue(queue, connection=self.redis)

    def ring(self, game_id: str) -> None:
        """Enqueue a catch-up unless one is already queued and not started (coalescing)."""
        key = pending_key(self.queue.name, game_id)
        try:
            if self.redis.set(key, 1, nx=True, ex=PENDING_TTL):
                try:
                    self.queue.enqueue(catch_up, game_id, retry=retry(), result_ttl=0)
                except RedisError:
                    self.redis.delete(key)
                    raise
        except RedisError as exc:
            log.warning("doorbell for %s not rung (%s); the sweeper will catch up", game_id, exc)


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
            queue.enqueue(catch_up, game_id, retry=retry(), result_ttl=0)
    if lagging:
        log.info("sweeper: %d games behind", len(lagging))
    return lagging


def run_worker(settings: Settings, *, burst: bool = False) -> None:
    """An rq worker on the service's queue, with the sweeper beside it.

    A ``SimpleWorker``: jobs run in this process, on its connection pool (a forked
    work horse would share the parent's database sockets), and the pool and the
    folds cached by ``ReadModels`` serve every job.
    """
    from rq import SimpleWorker

    redis = Redis.from_url(settings.redis_url)
    queue = Queue(settings.queue, connection=redis)
    rm = readmodels()
    sweep(rm, queue)
    stop = threading.Event()

    def sweeper() -> None:
        while not stop.wait(settings.sweep_every):
            try:
                sweep(rm, queue)
            except Exception:  # Redis or the database away: try later
                log.exception("sweep failed")

    if not burst:
        threading.Thread(target=sweeper, name="sweeper", daemon=True).start()
    try:
        SimpleWorker([queue], connection=redis).work(burst=burst, with_scheduler=True)
    finally:
        stop.set()
