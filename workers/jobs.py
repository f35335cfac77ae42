"""The worker: rq jobs (they carry only ids) and the worker loop with its sweeper.

The service queues ``catch_up_dirty`` (a batch: every game rung since the last
batch started, one transaction per game) and the sweeper ``catch_up(game_id)``;
both by name (``service.live.doorbells``). The worker is the outermost layer: it
imports the service's store and settings, nothing imports it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from datetime import UTC, datetime
from functools import cache

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue, get_current_job
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from projections.store import ReadModels
from service.bootstrap import Services, build, rq_doorbell
from service.live.doorbells import dirty_key, enqueue_game, pending_key, sweep
from service.notifications.deliverer import NOTIFY_EVERY, run_deliveries
from service.play.timekeeper import CLOCK_TICK, LocalScheduler, Timekeeper, from_ms, to_ms
from service.runtime.loops import repeat
from service.runtime.outages import Outage
from service.runtime.settings import Settings
from service.servers.serving import settle_heap
from service.store.base import SqlStore, StoreUnavailable
from service.transparency.integrator import Integrator, run_integrator
from service.transparency.witnessing import run_witnessing
from workers.scheduler import Schedule

log = logging.getLogger("tongiaki.workers")

_LOCAL_STARTED = threading.Event()  # this process runs its own timer (a worker, not burst)


@cache
def services() -> Services:
    """This worker process's services, built as every process builds them
    (``service.bootstrap``): one store and pool for every job, the read models, and a
    game service for the timekeeper whose commits ring rq like any command's
    (docs/clocks.md); no change feed (the worker serves no stream)."""
    settings = Settings.from_env()
    return build(settings, doorbell=rq_doorbell(settings), streams=None)


def store() -> SqlStore:
    """This worker process's event store."""
    return services().store


def readmodels() -> ReadModels:
    """This worker process's read models, on the configured database."""
    return services().readmodels


@cache
def timekeeper() -> Timekeeper:
    """This worker process's timekeeper: the bot's moves for due decisions."""
    return Timekeeper(services().games)


def forget() -> None:
    """Drop this process's store, read models and timekeeper (tests switch databases)."""
    for cached in (local_clock, timekeeper, services):
        cached.cache_clear()


FOLLOW = 0.25  # seconds between a worker's looks at a player's game beside the bot


def clock_key(queue: Queue, game_id: str) -> str:
    """The Redis key naming the tick scheduled for a game's pending decision."""
    return f"tongiaki:{queue.name}:clock:{game_id}"


@cache
def local_clock() -> LocalScheduler:
    """This worker process's own timer for the deadlines it schedules: rq's scheduler
    looks once a second and a tick then waits in the queue behind the projections'
    jobs, so timeouts came up to seconds late; this thread ticks a game at its
    deadline to the millisecond. rq's job stays as the deadline's durable record,
    for a worker that dies (it then finds nothing due, when this one did it)."""
    settings = Settings.from_env()
    stopped = threading.Event()
    return LocalScheduler(
        timekeeper(), readmodels(), settings.sweep_every, stopped.is_set, follow=FOLLOW
    )


def schedule_clock(queue: Queue, game_id: str, due_ms: int | None) -> None:
    """Tick ``game_id`` at ``due_ms``: with this worker's own timer, and with rq's
    scheduler (``enqueue_at``, at once when it is past), which keeps it if this worker
    dies. A game has one pending decision: the tick scheduled for its previous
    deadline is taken off rq's schedule, and the same deadline noted twice (the batch
    and the tick before it both see it) is scheduled once."""
    redis = queue.connection
    key = clock_key(queue, game_id)
    known: bytes | None = redis.get(key)  # type: ignore[assignment]  # a sync client
    known_due, _, known_job = (known.decode() if known else "").partition(":")
    if due_ms is None:  # nothing waits on time now (the game ended, or has no clock)
        if known is not None:
            redis.delete(key)
            _unschedule(queue, known_job)
        return
    if _LOCAL_STARTED.is_set():
        local_clock().at(game_id, from_ms(due_ms))
    if known_due == str(due_ms):
        return
    now_ms = to_ms(datetime.now(UTC))
    if due_ms <= now_ms:
        job = queue.enqueue(CLOCK_TICK, game_id, result_ttl=0, at_front=True)
    else:  # rq keeps whole seconds: up to the next, never before the deadline
        when = from_ms(-(-due_ms // 1000) * 1000)
        job = queue.enqueue_at(when, CLOCK_TICK, game_id, result_ttl=0)
    ttl = max(60, (due_ms - now_ms) // 1000 + 86_400)
    redis.set(key, f"{due_ms}:{job.id}", ex=ttl)
    _unschedule(queue, known_job)


def _unschedule(queue: Queue, job_id: str) -> None:
    """Take a tick off rq's schedule if it still waits there (not one running)."""
    if job_id:
        with contextlib.suppress(RedisError, NoSuchJobError):
            registry = ScheduledJobRegistry(queue=queue)
            if registry.remove(job_id):
                Job.fetch(job_id, connection=queue.connection).delete()


def clock_tick(game_id: str) -> str | None:
    """The job at a game's deadline: play what is due, then schedule the next tick."""
    job = get_current_job()
    settings = Settings.from_env()
    redis = job.connection if job is not None else Redis.from_url(settings.redis_url)
    queue = Queue(job.origin if job is not None else settings.queue, connection=redis)
    following = timekeeper().tick(game_id)
    if following is not None:
        schedule_clock(queue, game_id, to_ms(following))
    return following.isoformat() if following is not None else None


def catch_up(game_id: str) -> dict[str, int]:
    """The job for one game (sweeper, retries): bring its projections level, then
    schedule its clock."""
    rm = readmodels()
    applied = rm.catch_up_game(game_id)
    job = get_current_job()
    if job is not None:
        schedule_clock(Queue(job.origin, connection=job.connection), game_id, rm.due(game_id))
    return applied


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
            continue
        try:  # the game's clock, now that its read model is level (docs/clocks.md)
            schedule_clock(Queue(queue, connection=redis), game_id, rm.due(game_id))
        except (RedisError, StoreUnavailable) as exc:  # the sweeper notes it later
            log.warning("the clock of %s was not scheduled: %s", game_id, exc)
    return applied


def sweep_clocks(rm: ReadModels, queue: Queue) -> list[str]:
    """Queue a tick for every game whose clock is overdue (a lost job, an outage)."""
    overdue = rm.due_games(to_ms(datetime.now(UTC)))
    for game_id, due_ms in overdue:
        schedule_clock(queue, game_id, due_ms)
    return [game_id for game_id, _ in overdue]


REDIS_TIMEOUT = 10.0  # seconds a Redis command of the worker may take (a hung Redis)
RECONNECT_AT_MOST = 2  # seconds between the worker's tries while Redis is away
RESTART_PAUSE = 1.0  # seconds before rq's loop is started again after it gave up


class OutageFilter(logging.Filter):
    """rq's "could not connect to Redis instance … retrying" (one line per try), and its
    "found an unhandled exception, quitting" with a traceback when the exception is
    Redis going away (while rq finished a job), counted by the worker's ``Outage``
    instead: the outage is logged once, and its end once."""

    def __init__(self, outage: Outage) -> None:
        super().__init__()
        self.outage = outage

    def filter(self, record: logging.LogRecord) -> bool:
        if "could not connect to Redis" in record.getMessage():
            args = record.args if isinstance(record.args, tuple) else ()
            self.outage.failed(str(args[1]) if len(args) > 1 else "")
            return False
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, RedisError):  # rq's loop then ends; ``_work`` starts it again
            self.outage.failed(error)
            return False
        return True


def run_worker(settings: Settings, *, burst: bool = False) -> None:
    """An rq worker on the service's queue, with the sweeper, the schedule and the
    deliverer beside it.

    A ``SimpleWorker``: jobs run in this process, on its connection pool (a forked
    work horse would share the parent's database sockets), and the pool and the
    folds cached by ``ReadModels`` serve every job. rq's scheduler is not forked:
    a thread keeps the schedule (``workers.scheduler``), and rq's loop is started
    again if it gives up on Redis; so a Redis outage of any length ends with the
    worker scheduling and timing out as before, without a restart.
    """
    redis = Redis.from_url(
        settings.redis_url, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT
    )
    queue = Queue(settings.queue, connection=redis)
    outage = Outage(
        "Redis",
        log,
        "looks at the queue and the schedule failed",
        "the sweeper then queues every game behind and every clock overdue",
    )
    logging.getLogger("rq.worker").addFilter(OutageFilter(outage))
    rm = readmodels()
    _sweep_all(rm, queue, outage)
    stop = threading.Event()
    schedule = Schedule(redis, [queue.name], outage)
    if not burst:
        delivering = _start_background(settings, rm, queue, outage, schedule, stop)
    else:
        with contextlib.suppress(RedisError):
            schedule.look()  # a burst moves what is due now, once
        log_ = services().log
        if log_ is not None:  # and integrates what is pending, once
            Integrator(log_.store, log_.signer).drain()
    settle_heap()
    try:
        _work(queue, burst, outage, stop)
    finally:
        if _LOCAL_STARTED.is_set():
            local_clock().stop()
        stop.set()
        if not burst:
            schedule.stop()
            delivering.set()


def _sweep_all(rm: ReadModels, queue: Queue, outage: Outage) -> None:
    """Queue every game behind and a tick for every clock overdue; Redis away is counted
    by the ``outage`` (the next sweep tries again)."""
    try:
        sweep(rm, queue)  # (Redis is spoken to only when a game is behind:
        sweep_clocks(rm, queue)  # the schedule's looks say when it is back)
    except RedisError as exc:
        outage.failed(exc)


def _start_background(
    settings: Settings,
    rm: ReadModels,
    queue: Queue,
    outage: Outage,
    schedule: Schedule,
    stop: threading.Event,
) -> threading.Event:
    """The worker's threads until ``stop``: the sweeper, the schedule, the deliverer and
    the deadlines' own timer. The deliverer's stop."""
    repeat(
        lambda: _sweep_all(rm, queue, outage),
        settings.sweep_every,
        stop,
        name="sweeper",
        log=log,
        what="sweep",
        skipped=(StoreUnavailable,),
        at_once=False,  # the first sweep was made before the worker started
    )
    schedule.start()
    # reminders: the outbox the projections fill, delivered by webhook and mail
    delivering = run_deliveries(services().notifier, NOTIFY_EVERY, stop.is_set)
    local_clock().start()  # deadlines to the millisecond, beside rq's schedule
    leagues = services().leagues
    if leagues is not None:  # leagues' next rounds, opened by themselves (L7)
        leagues.rounds.run(settings.league_every, stop.is_set)
    _LOCAL_STARTED.set()
    log_ = services().log
    if log_ is not None:  # the transparency log: pending commits integrated within a second
        run_integrator(log_.store, log_.signer, settings.log_every, stop.is_set)
        if settings.witnesses:  # its checkpoints cosigned by its witnesses
            run_witnessing(log_, settings.witnesses, settings.log_every, stop.is_set)
    return delivering


def _work(queue: Queue, burst: bool, outage: Outage, stop: threading.Event) -> None:
    """rq's loop, started again whenever it gives up on Redis, until it is done (a burst)
    or asked to stop (SIGTERM, SIGINT), or ``stop`` is set."""
    from rq import SimpleWorker

    while True:
        try:  # rq's worker speaks to Redis as it is made, and re-raises a Redis error
            worker = SimpleWorker([queue], connection=queue.connection)  # of its teardown
            worker.max_connection_wait_time = RECONNECT_AT_MOST  # back within 2 s of Redis
            worker.work(burst=burst, with_scheduler=False)
        except RedisError as exc:  # (a job cut short by it is redone by the sweeper)
            outage.failed(exc)
        else:
            if burst or worker._stop_requested or worker._shutdown_requested_date:
                return  # done, or asked to stop (SIGTERM, SIGINT)
            # rq's loop gave up (Redis timed out, or failed outside a dequeue): again
            outage.failed("the worker's loop stopped on a Redis error")
        if stop.wait(RESTART_PAUSE):
            return
