"""How many live streams (``GET /games/{id}/stream``) one process holds at once.

Each open stream holds a request thread for as long as it lasts (up to an hour):
with a fixed pool of threads (gunicorn's gthread workers), a handful of viewers
would leave none for anybody else. So a process holds at most ``limit`` streams
and answers the next with 503 ``too_many_streams`` (``Retry-After``); the pages
then follow the game by polling ``/events``. Streams that never hold a request
thread are the next step (see the README).
"""

from __future__ import annotations

import select
import socket
import threading

from service import metrics
from service.errors import Unavailable

RETRY_AFTER = 10  # seconds a refused viewer waits before asking for a stream again


class StreamSlots:
    """A counting semaphore that refuses instead of waiting."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        # no slot at all (one thread per process): every viewer polls instead
        self._free = threading.BoundedSemaphore(limit) if limit > 0 else None

    def take(self) -> None:
        """Hold a slot, or raise 503 ``too_many_streams``."""
        if self._free is None or not self._free.acquire(blocking=False):
            raise Unavailable(
                "too_many_streams",
                f"this server process already holds {self.limit} live streams; follow the"
                " game with GET /games/{id}/events?after= meanwhile, or retry later",
                retry_after=RETRY_AFTER,
            )
        metrics.streams(1)

    def give_back(self) -> None:
        """Release a slot taken by ``take``."""
        if self._free is not None:
            self._free.release()
            metrics.streams(-1)


def hung_up(connection: socket.socket | None) -> bool:
    """Whether the client closed ``connection`` (it never sends on a stream, so a
    readable end with no data is its close). Without a socket (tests): False."""
    if connection is None:
        return False
    try:
        # select first: a socket with a timeout (the embedded server's) would wait that
        # long inside recv whatever its flags say
        readable, _, _ = select.select([connection], [], [], 0)
        if not readable:
            return False  # nothing to read: still there
        return connection.recv(1, socket.MSG_PEEK) == b""
    except (BlockingIOError, InterruptedError):
        return False
    except (OSError, ValueError):  # closed, or no longer a socket
        return True
