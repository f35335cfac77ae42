"""The embedded server's request threads: a bounded pool, threads made as needed and
ending when idle a while."""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable

log = logging.getLogger("tongiaki.serving")

THREAD_LINGER = 2.0  # seconds an idle request thread waits for work before it ends


class _Idle:
    """A request thread waiting for work: handed a job directly, or ending."""

    __slots__ = ("job", "ready")

    def __init__(self) -> None:
        self.job: Callable[[], None] | None = None
        self.ready = threading.Event()


class Pool:
    """At most ``size`` request threads, made as needed; one idle for ``linger`` seconds
    ends (daemons: a stopping server does not wait for them).

    A job goes straight to a thread waiting for one (under the lock, so a thread that
    is about to end never takes it silently), else to a new thread, else it waits in
    the backlog for the first thread free. (The first version counted idle threads,
    and the count ran ahead of them: after a burst of more than ``size`` requests,
    the lingering threads ended while the count said some were waiting, and the next
    request waited for ever. A helper's probe found it.)"""

    def __init__(self, size: int, linger: float = THREAD_LINGER) -> None:
        self.size = size
        self.linger = linger
        self.lock = threading.Lock()
        self.idle: list[_Idle] = []
        self.backlog: deque[Callable[[], None]] = deque()
        self.threads = 0

    def submit(self, job: Callable[[], None]) -> None:
        with self.lock:
            if self.idle:
                waiting = self.idle.pop()
                waiting.job = job
                waiting.ready.set()
                return
            if self.threads >= self.size:
                self.backlog.append(job)
                return
            self.threads += 1
        threading.Thread(target=self._work, args=(job,), name="http-request", daemon=True).start()

    def _work(self, job: Callable[[], None]) -> None:
        me = _Idle()
        while True:
            try:
                job()
            except Exception:  # pragma: no cover - a handler's own errors are its own
                log.exception("a request thread's job failed")
            with self.lock:
                if self.backlog:
                    job = self.backlog.popleft()
                    continue
                me.job = None
                me.ready.clear()
                self.idle.append(me)
            if not me.ready.wait(self.linger):
                with self.lock:
                    if me in self.idle:  # no job came: this thread ends
                        self.idle.remove(me)
                        self.threads -= 1
                        return
                me.ready.wait()  # a job came just as the wait ended: it is set
            assert me.job is not None
            job = me.job
