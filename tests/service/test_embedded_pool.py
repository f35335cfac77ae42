"""The embedded server's pool of request threads (service.servers.pool.Pool).

A helper's probe found that after one burst of more than 256 requests the server
never answered a lone request again: the pool's count of idle threads ran ahead of
them, the lingering threads ended, and the next job waited for a thread that was
counted but gone.
"""

from __future__ import annotations

import random
import threading
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from service.servers.pool import Pool


def wait_until(check, seconds: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not within the bound"
        time.sleep(0.01)


def test_after_a_burst_past_its_size_and_a_quiet_spell_a_job_still_runs():
    pool = Pool(4, linger=0.2)
    done = threading.Semaphore(0)
    for _ in range(10):  # more than the pool holds: a backlog
        pool.submit(lambda: (time.sleep(0.05), done.release()))
    for _ in range(10):
        assert done.acquire(timeout=10)
    wait_until(lambda: pool.threads == 0)  # every thread lingered, then ended
    ran = threading.Event()
    pool.submit(ran.set)  # the probe's lone request
    assert ran.wait(5)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 12), st.floats(0, 0.05), st.floats(0, 0.3)), min_size=1, max_size=6
    ),
    st.integers(1, 4),
)
def test_every_job_runs_and_the_threads_stay_within_the_size(bursts, size):
    """Bursts of jobs of random length with random quiet spells between them (some
    longer than the linger): every job runs, never more than ``size`` at once, and the
    pool ends its threads when all is quiet."""
    pool = Pool(size, linger=0.05)
    lock = threading.Lock()
    running = [0, 0]  # now, most at once
    finished = threading.Semaphore(0)
    total = 0

    def job(seconds: float) -> None:
        with lock:
            running[0] += 1
            running[1] = max(running[1], running[0])
        time.sleep(seconds)
        with lock:
            running[0] -= 1
        finished.release()

    rng = random.Random(len(bursts))
    for count, length, quiet in bursts:
        for _ in range(count):
            seconds = length * rng.random()
            pool.submit(lambda s=seconds: job(s))
            total += 1
        time.sleep(quiet)
    for _ in range(total):
        assert finished.acquire(timeout=20)
    assert running[1] <= size and pool.threads <= size
    wait_until(lambda: pool.threads == 0)
