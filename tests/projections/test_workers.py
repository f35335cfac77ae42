"""rq workers against real Redis and PostgreSQL: burst, SIGKILL, Redis outage."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from redis import Redis
from rq import Queue, SimpleWorker

from service.store.postgres import PostgresEventStore
from tests.projections.conftest import append_game, simulated
from tests.projections.test_readmodels import dump
from workers import jobs
from workers.jobs import RqDoorbell, sweep
from workers.readmodels import ReadModels

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pg(pg_schema):
    _, url = pg_schema
    store = PostgresEventStore(url, max_size=6)
    store.upgrade()
    rm = ReadModels(store, clock=lambda: "2026-11-22T12:00:00+00:00")
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
    jobs.readmodels.cache_clear()
    yield queue
    jobs.readmodels.cache_clear()
    Queue(queue, connection=Redis.from_url(redis_url)).empty()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            Redis(port=port).ping()
            return proc
        except Exception:
            time.sleep(0.05)
    raise RuntimeError("redis-server did not start")


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


def test_with_redis_stopped_commands_still_succeed_and_the_sweeper_levels_everything(pg, env):
    _, store, rm = pg
    port = free_port()
    redis = start_redis(port)
    bell = RqDoorbell(f"redis://127.0.0.1:{port}/0", env)
    try:
        append_game(store, simulated(32).events[:60], game_id="before", after_each=bell.ring)
        redis.kill()
        redis.wait()
        # Redis is down: every doorbell fails, every command is still appended
        game = append_game(store, simulated(33).events, game_id="during", after_each=bell.ring)
        assert store.head(game).version == len(simulated(33).events)
        redis = start_redis(port)  # back, empty: the jobs rung while it was down are gone
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
