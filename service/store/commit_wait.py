"""A bound on how long a command's commit may wait (docs/replication.md).

With ``synchronous_commit = on`` and a synchronous standby named, PostgreSQL holds each
commit until the standby has it on disk; if the standby is away, it holds it forever
(``statement_timeout`` does not end that wait). A command would hang with its player.
So each append runs watched: past ``COMMIT_WAIT`` seconds one thread of the process
cancels it (libpq's cancel request). Cancelled before its commit, nothing is written
(``QueryCanceled``: 503); cancelled in the standby's wait, PostgreSQL keeps the commit
on the primary and says so in a warning, which ``service.store.postgres`` turns into a
503 too. Either way the player is told within seconds to try again, and their retry
with the same ``Idempotency-Key`` finds whatever did commit.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

log = logging.getLogger("tongiaki.store")

COMMIT_WAIT = 10.0  # seconds an append may take before it is cancelled


class CommitWatch:
    """The appends in flight in this process, and the thread that cancels those past
    their time (started on first use, again after a fork)."""

    def __init__(self, limit: float = COMMIT_WAIT) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._flying: dict[int, tuple[float, Any]] = {}
        self._ids = itertools.count()
        self._pid = 0
        self.cancelled = 0  # appends cancelled (tests, logs)

    @contextmanager
    def watching(self, conn: Any) -> Iterator[None]:
        """Run the body as one watched append on ``conn``."""
        self._start()
        key = next(self._ids)
        with self._lock:
            self._flying[key] = (time.monotonic() + self.limit, conn)
        try:
            yield
        finally:
            with self._lock:
                self._flying.pop(key, None)

    def _start(self) -> None:
        if self._pid == os.getpid():
            return
        with self._lock:
            if self._pid != os.getpid():
                self._pid = os.getpid()
                threading.Thread(target=self._run, name="commit-watch", daemon=True).start()

    def _run(self) -> None:
        while True:
            time.sleep(min(1.0, self.limit / 4))
            now = time.monotonic()
            with self._lock:
                late = [(k, c) for k, (t, c) in self._flying.items() if t <= now]
                for key, _ in late:
                    self._flying.pop(key, None)
            for _, conn in late:
                self.cancelled += 1
                log.warning(
                    "an append took over %.0f s (a synchronous standby away?): cancelled",
                    self.limit,
                )
                try:
                    conn.cancel_safe(timeout=5.0)
                except Exception as exc:  # the connection is gone: nothing to cancel
                    log.warning("could not cancel a late append: %s", exc)


WATCH = CommitWatch()  # this process's
