"""A bound on how long a commit may wait for a synchronous standby (docs/replication.md).

With ``synchronous_commit = on`` and a synchronous standby named, PostgreSQL holds each
commit until the standby has it on disk; if the standby is away, it holds it forever
(``statement_timeout`` does not end that wait). A command, a sign-up, a request whose
token's last use is stamped, would hang with its client. So every transaction and read
of the PostgreSQL pool runs watched: past ``COMMIT_WAIT`` seconds, one thread of the
process asks PostgreSQL which of the late ones wait for the standby (``wait_event =
'SyncRep'``) and cancels those (libpq's cancel request); a long query that is working
is left alone. Cancelled in the standby's wait, PostgreSQL keeps the commit on the
primary and says so in a warning, which ``service.store.postgres`` turns into a 503:
the client is told within seconds to try again, and the retry with the same
``Idempotency-Key`` gets the stored answer once the standby has it.
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

COMMIT_WAIT = 10.0  # seconds a commit may wait for a synchronous standby, then cancelled


class CommitWatch:
    """The appends in flight in this process, and the thread that cancels those past
    their time (started on first use, again after a fork)."""

    def __init__(self, limit: float = COMMIT_WAIT) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._flying: dict[int, tuple[float, Any, str]] = {}  # deadline, connection, URL
        self._ids = itertools.count()
        self._pid = 0

    @contextmanager
    def watching(self, conn: Any, url: str) -> Iterator[None]:
        """Run the body watched, on ``conn`` of the database at ``url``."""
        self._start()
        key = next(self._ids)
        with self._lock:
            self._flying[key] = (time.monotonic() + self.limit, conn, url)
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
                late = [(k, c, u) for k, (t, c, u) in self._flying.items() if t <= now]
            if late:
                self._cancel_waiting(late)

    def _cancel_waiting(self, late: list[tuple[int, Any, str]]) -> None:
        """Cancel those of ``late`` whose backend waits for a synchronous standby."""
        import psycopg

        pids = {}
        for key, conn, url in late:
            try:
                pids[conn.info.backend_pid] = (key, conn, url)
            except Exception:  # closed meanwhile
                continue
        if not pids:
            return
        try:
            with psycopg.connect(late[0][2], autocommit=True, connect_timeout=2) as side:
                waiting = {
                    row[0]
                    for row in side.execute(
                        "SELECT pid FROM pg_stat_activity"
                        " WHERE wait_event = 'SyncRep' AND pid = ANY(%s)",
                        (list(pids),),
                    )
                }
        except psycopg.Error as exc:  # the database away: the connections fail by themselves
            log.warning("could not look at late commits: %s", exc)
            return
        for pid in waiting:
            key, conn, _ = pids[pid]
            with self._lock:
                self._flying.pop(key, None)
            log.warning(
                "a commit waited over %.0f s for the synchronous standby: cancelled", self.limit
            )
            try:
                conn.cancel_safe(timeout=5.0)
            except Exception as exc:  # the connection is gone: nothing to cancel
                log.warning("could not cancel a late commit: %s", exc)


WATCH = CommitWatch()  # this process's
