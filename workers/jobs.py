"""The worker: rq jobs (they carry only ids) and the worker loop with its sweeper.

The service queues ``catch_up_dirty`` (a batch: every game rung since the last
batch started, one transaction per game) and the sweeper ``catch_up(game_id)``;
both by name (``service.doorbells``). The worker is the outermost layer: it
imports the service's store and settings, nothing imports it.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import threading
from functools import cache

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue, get_current_job

from projections.store import ReadModels
from service.doorbells import dirty_key, enqueue_game, pending_key, sweep
from service.settings import Settings
from service.store.base import StoreUnavailable

log = logging.getLogger("tongiaki.workers")

PR_SET_PDEATHSIG = 1  # linux/prctl.h


@cache
def readmodels() -> ReadModels:
    """This worker process's read models, on the configured database."""
    from service.app import open_store

    store = open_store(Settings.from_env())
    rm = ReadModels(store, store)
    rm.upgrade()
    return rm


def catch_up(game_id: str) -> dict[str, int]:
    """The job for one game (sweeper, retries): bring its projections level."""
    return readmodels().catch_up_game(game_id)


def catch_up_dirty(queue: str) -> dict[str, int]:
    """The batch job: level every game rung since the last batch started.

    It first clears the queue's "queued" mark and takes the dirty set, in one
    Redis transaction, *before* reading any event: a command committed from now
    on rings a new batch, one committed earlier is read by this one, so batching
    never loses an event. A game whose catch-up fails gets its own retried
    ``catch_up`` job (poison events halt after ``MAX_ATTEMPTS``); the others go on.
    """
    job = get_current_job()
    redis = job.connection if job is not None else Redis.from_url(Settings.from_env().redis_url)
    tx = redis.pipeline(transaction=True)
    tx.delete(pending_key(queue))
    tx.smembers(dirty_key(queue))
    tx.delete(dirty_key(queue))
    _, members, _ = tx.execute()
    games = sorted(m.decode() if isinstance(m, bytes) else str(m) for m in members)
    rm = readmodels()
    applied: dict[str, int] = {}
    for game_id in games:
        try:
            applied[game_id] = sum(rm.catch_up_game(game_id).values())
        except Exception:  # counted by the read models; retried on its own
            log.exception("catch-up of %s failed; retrying it as its own job", game_id)
            enqueue_game(Queue(queue, connection=redis), game_id)
    return applied


def die_with_parent() -> None:
    """Make every child this process forks from now on (rq's scheduler) get SIGTERM
    when this process dies, even by SIGKILL, instead of running on as an orphan that
    holds the scheduler lock (Linux ``PR_SET_PDEATHSIG``; elsewhere nothing)."""
    parent = os.getpid()

    def in_child() -> None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        except (OSError, AttributeError):
            return
        if os.getppid() != parent:  # the parent died before the call above
            os.kill(os.getpid(), signal.SIGTERM)

    if sys.platform.startswith("linux"):
        os.register_at_fork(after_in_child=in_child)


def run_worker(settings: Settings, *, burst: bool = False) -> None:
    """An rq worker on the service's queue, with the sweeper beside it.

    A ``SimpleWorker``: jobs run in this process, on its connection pool (a forked
    work horse would share the parent's database sockets), and the pool and the
    folds cached by ``ReadModels`` serve every job.
    """
    from rq import SimpleWorker

    die_with_parent()  # rq's scheduler is a forked child: not an orphan if we are killed
    redis = Redis.from_url(settings.redis_url)
    queue = Queue(settings.queue, connection=redis)
    rm = readmodels()
    sweep(rm, queue)
    stop = threading.Event()

    def sweeper() -> None:
        while not stop.wait(settings.sweep_every):
            try:
                sweep(rm, queue)
            except (StoreUnavailable, RedisError) as exc:  # away: the next sweep tries again
                log.warning("sweep skipped: %s", exc)
            except Exception:
                log.exception("sweep failed")

    if not burst:
        threading.Thread(target=sweeper, name="sweeper", daemon=True).start()
    try:
        SimpleWorker([queue], connection=redis).work(burst=burst, with_scheduler=True)
    finally:
        stop.set()
