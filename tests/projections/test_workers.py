"""rq workers against real Redis and PostgreSQL: burst, SIGKILL, Redis outage."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from redis import Redis
from rq import Queue, SimpleWorker
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from projections.store import ReadModels
from service.live.doorbells import RqDoorbell, sweep
from service.store.postgres import PostgresEventStore
from tests.projections.conftest import append_game, simulated
from tests.projections.test_readmodels import dump
from tests.servers import children, start_redis
from workers import jobs

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pg(pg_schema):
    _, url = pg_schema
    store = PostgresEventStore(url, max_size=6)
    store.upgrade()
    rm = ReadModels(store, store, clock=lambda: "2026-11-22T12:00:00+00:00")
    rm.upgrade()
    yield url, store, rm
    store.close()


@pytest.fixture
def env(pg, redis_url, monkeypatch):
    """The job functions read their settings from the environment, as a worker does."""
    url, _, _ = pg
    queue = f"test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("TONGIAKI_QUEUE", queue)
    jobs.forget()
    yield queue
    jobs.forget()
    Queue(queue, connection=Redis.from_url(redis_url)).empty()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_simple_worker_in_burst_mode_brings_every_read_model_level(pg, env, redis_url):
    _, store, rm = pg
    bell = RqDoorbell(redis_url, env)
    games = [
        append_game(store, simulated(s).events, game_id=f"g{s}", after_each=bell.ring)
        for s in (30, 31)
    ]
    queue = Queue(env, connection=Redis.from_url(redis_url))
    assert queue.count > 0 and rm.behind() == sorted(games)
    SimpleWorker([queue], connection=queue.connection).work(burst=True)
    assert rm.behind() == []
    level = dump(rm)
    rm.rebuild()
    assert dump(rm) == level


def test_rings_for_many_games_queue_one_batch_job_that_levels_them_all(pg, env, redis_server):
    _, store, _ = pg
    port = free_port()
    redis = start_redis(redis_server, port)  # a Redis of its own: SCRIPT FLUSH is server-wide
    try:
        bell = RqDoorbell(f"redis://127.0.0.1:{port}/0", env)
        bell.redis.script_flush()  # as after a Redis restart: the ring loads its script again
        games = [
            append_game(store, simulated(s).events[:30], game_id=f"b{s}", after_each=bell.ring)
            for s in (34, 35, 36)
        ]
        queue = Queue(env, connection=Redis(port=port))
        assert queue.count == 1  # one waiting batch job, however many games and commands
        assert [j.func_name for j in queue.jobs] == ["workers.jobs.catch_up_dirty"]
        assert queue.jobs[0].args == (env,)  # ids only: the queue's name
        SimpleWorker([queue], connection=queue.connection).work(burst=True)
        rm = jobs.readmodels()
        assert rm.behind() == [] and queue.count == 0
        assert all(rm.checkpoint("scoreboard", g).version == store.head(g).version for g in games)
    finally:
        redis.kill()
        redis.wait()


def test_a_ring_while_a_batch_runs_queues_the_next_batch(pg, env, redis_url):
    """The batch takes the dirty set before reading events: a later commit rings anew."""
    _, store, _ = pg
    bell = RqDoorbell(redis_url, env)
    first = append_game(store, simulated(37).events[:12], game_id="first", after_each=bell.ring)
    later = simulated(38).events[:12]
    rm = jobs.readmodels()

    def commit_meanwhile(name, game_id, batch):
        if game_id == "first" and name == "scoreboard":
            rm.before_apply = None
            append_game(store, later, game_id="later", after_each=bell.ring)

    rm.before_apply = commit_meanwhile
    queue = Queue(env, connection=Redis.from_url(redis_url))
    SimpleWorker([queue], connection=queue.connection).work(burst=True)
    assert rm.behind() == []  # the second batch, queued during the first, ran too
    assert rm.checkpoint("audit", "later").version == store.head("later").version
    assert rm.checkpoint("audit", first).version == store.head(first).version


def test_a_game_failing_in_a_batch_gets_its_own_retried_job_and_the_others_level(
    pg, env, redis_url
):
    _, store, _ = pg
    bell = RqDoorbell(redis_url, env)
    for g, seed in (("good", 39), ("bad", 40)):
        append_game(store, simulated(seed).events[:12], game_id=g, after_each=bell.ring)
    rm = jobs.readmodels()

    def poison(name, game_id, batch):
        if game_id == "bad" and name == "lobby":
            raise ValueError("poison")

    rm.before_apply = poison
    queue = Queue(env, connection=Redis.from_url(redis_url))
    worker = SimpleWorker([queue], connection=queue.connection)
    worker.work(burst=True)
    assert rm.behind() == ["bad"]
    # counted twice: in the batch, then in its own job, whose rq retry now waits
    assert rm.checkpoint("lobby", "bad").failures == 2
    assert rm.checkpoint("lobby", "bad").error is None  # not halted yet
    assert rm.checkpoint("scoreboard", "bad").version == store.head("bad").version
    waiting = [
        Job.fetch(j, connection=queue.connection)
        for j in queue.scheduled_job_registry.get_job_ids()
    ]
    assert [(j.func_name, j.args) for j in waiting] == [("workers.jobs.catch_up", ("bad",))]
    rm.before_apply = None
    queue.enqueue(jobs.catch_up, "bad")  # the retry's time has not come: run one now
    worker.work(burst=True)
    assert rm.behind() == []


def test_with_redis_stopped_commands_still_succeed_and_the_sweeper_levels_everything(
    pg, env, redis_server
):
    _, store, rm = pg
    port = free_port()
    redis = start_redis(redis_server, port)
    bell = RqDoorbell(f"redis://127.0.0.1:{port}/0", env)
    try:
        append_game(store, simulated(32).events[:60], game_id="before", after_each=bell.ring)
        redis.kill()
        redis.wait()
        # Redis is down: every doorbell fails, every command is still appended
        game = append_game(store, simulated(33).events, game_id="during", after_each=bell.ring)
        assert store.head(game).version == len(simulated(33).events)
        # back, empty: the jobs rung while it was down are gone
        redis = start_redis(redis_server, port)
        queue = Queue(env, connection=Redis(port=port))
        assert queue.count == 0
        assert sweep(rm, queue) == ["before", "during"]
        SimpleWorker([queue], connection=queue.connection).work(burst=True)
        assert rm.behind() == []
    finally:
        redis.kill()
        redis.wait()


def test_a_worker_killed_mid_batch_then_restarted_leaves_read_models_equal_to_a_rebuild(
    pg, env, redis_url
):
    url, store, rm = pg
    games = [
        append_game(store, simulated(s, players=4).events, game_id=f"k{s}") for s in range(40, 52)
    ]
    queue = Queue(env, connection=Redis.from_url(redis_url))
    for g in games:
        queue.enqueue(jobs.catch_up, g)
    child_env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": redis_url, "TONGIAKI_QUEUE": env}
    worker = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "worker"],
        cwd=ROOT,
        env=child_env,
        start_new_session=True,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            done = len(rm.query("SELECT DISTINCT game_id FROM rm_steps"))
            if done >= 2:
                break
            time.sleep(0.02)
        else:
            pytest.fail("the worker processed nothing in 60 s")
        assert worker.poll() is None, "the worker did not start"
        os.killpg(worker.pid, signal.SIGKILL)  # the worker and its work horse, mid-batch
        worker.wait()
        assert rm.behind(), "the kill came after everything was done: nothing was tested"
        restarted = subprocess.run(
            [sys.executable, "-m", "service.cli", "worker", "--burst"],
            cwd=ROOT,
            env=child_env,
            timeout=300,
            capture_output=True,
        )
        assert restarted.returncode == 0, restarted.stderr.decode()[-2000:]
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
    assert rm.behind() == [], restarted.stderr.decode()[-3000:]
    level = dump(rm)
    rm.rebuild()
    assert dump(rm) == level


def test_the_worker_forks_no_scheduler_and_its_thread_keeps_rqs_schedule(env, pg, redis_url):
    """rq's scheduler was a forked child (an orphan if the worker was killed, dead after
    a Redis outage); the worker now keeps the schedule with a thread of its own: no
    child process, and a job scheduled a second ahead is moved to the queue and run."""
    from datetime import UTC, datetime, timedelta

    url, _, _ = pg
    child_env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": redis_url, "TONGIAKI_QUEUE": env}
    worker = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "worker"],
        cwd=ROOT,
        env=child_env,
        start_new_session=True,
        stderr=subprocess.DEVNULL,
    )
    queue = Queue(env, connection=Redis.from_url(redis_url))
    registry = ScheduledJobRegistry(queue=queue)
    try:
        job = queue.enqueue_at(
            datetime.now(UTC) + timedelta(seconds=1), jobs.catch_up, "nosuchgame"
        )
        deadline = time.monotonic() + 30
        while job.get_status(refresh=True) != "finished":
            assert time.monotonic() < deadline, job.get_status()
            time.sleep(0.1)
        assert registry.count == 0
        assert children(worker.pid) == set()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()


def test_a_games_tick_is_on_rqs_schedule_once_and_only_for_its_pending_decision(redis_url):
    """rq keeps each deadline (the durable record beside the worker's own timer): the
    same deadline noted twice is one job, a new decision's deadline replaces the old
    one's job, an overdue one is queued at the front, and a game with nothing to wait
    for leaves nothing scheduled (the probe found a job left per decision)."""
    from datetime import UTC, datetime

    from rq.registry import ScheduledJobRegistry

    from service.play.timekeeper import to_ms

    queue = Queue(f"clock-{uuid.uuid4().hex[:8]}", connection=Redis.from_url(redis_url))
    scheduled = ScheduledJobRegistry(queue=queue)
    soon = to_ms(datetime.now(UTC)) + 3_600_000
    try:
        jobs.schedule_clock(queue, "g1", soon)
        jobs.schedule_clock(queue, "g1", soon)  # the batch and the tick both note it
        assert scheduled.count == 1 and queue.count == 0
        first = scheduled.get_job_ids()[0]
        jobs.schedule_clock(queue, "g1", soon + 60_000)  # the next decision
        assert scheduled.count == 1 and scheduled.get_job_ids()[0] != first
        assert not queue.connection.exists(f"rq:job:{first}")
        jobs.schedule_clock(queue, "g2", soon)
        jobs.schedule_clock(queue, "g3", to_ms(datetime.now(UTC)) - 1)  # overdue: now
        assert scheduled.count == 2 and queue.count == 1
        jobs.schedule_clock(queue, "g1", None)  # over, or nothing to wait for
        jobs.schedule_clock(queue, "g2", None)
        assert scheduled.count == 0
    finally:
        for job_id in scheduled.get_job_ids():
            scheduled.remove(job_id, delete_job=True)
        queue.empty()
        for g in ("g1", "g2", "g3"):
            queue.connection.delete(jobs.clock_key(queue, g))


def test_rqs_loop_raising_a_redis_error_is_started_again_not_the_end_of_the_worker(monkeypatch):
    """Redis going away while rq finishes a job (its result, its heartbeat) makes rq's
    ``work`` re-raise the ConnectionError: the worker process died with it, and timed
    games never timed out again (found under load by test_redis_outage_served)."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    calls: list[bool] = []
    made: list[int] = []

    class Loop:
        def __init__(self, queues, connection) -> None:  # type: ignore[no-untyped-def]
            made.append(1)
            if len(made) == 2:  # rq's worker speaks to Redis as it is made
                raise RedisConnectionError("Error 111 connecting. Connection refused.")
            self._stop_requested = False
            self._shutdown_requested_date = None

        def work(self, burst: bool, with_scheduler: bool) -> None:
            calls.append(burst)
            if len(calls) == 1:
                raise RedisConnectionError("Error 111 connecting. Connection refused.")
            self._stop_requested = True  # the second loop is asked to stop (SIGTERM)

    failures: list[object] = []

    class Counted:
        def failed(self, error: object) -> None:
            failures.append(error)

    monkeypatch.setattr("rq.SimpleWorker", Loop)
    monkeypatch.setattr(jobs, "RESTART_PAUSE", 0.01)
    queue = Queue("q", connection=Redis(port=1))  # never spoken to
    jobs._work(queue, False, Counted(), threading.Event())  # type: ignore[arg-type]
    assert calls == [False, False]  # started again (made twice), then stopped when asked
    assert len(made) == 3
    assert [str(f) for f in failures] == ["Error 111 connecting. Connection refused."] * 2


def test_rqs_traceback_for_redis_going_away_is_counted_by_the_outage_not_written():
    """rq logs "found an unhandled exception, quitting..." with the traceback of Redis
    going away while it finished a job: the outage says it once instead (JSON lines, no
    traceback); any other exception is still written."""
    import logging

    from redis.exceptions import ConnectionError as RedisConnectionError

    failures: list[object] = []

    class Counted:
        def failed(self, error: object) -> None:
            failures.append(error)

    only = jobs.OutageFilter(Counted())  # type: ignore[arg-type]

    def record(error: BaseException) -> logging.LogRecord:
        try:
            raise error
        except BaseException:
            return logging.LogRecord(
                "rq.worker", logging.ERROR, __file__, 1, "found an unhandled exception, "
                "quitting...", (), sys.exc_info()
            )  # fmt: skip

    assert only.filter(record(RedisConnectionError("Connection refused."))) is False
    assert only.filter(record(ValueError("a bug"))) is True
    assert [str(f) for f in failures] == ["Connection refused."]
