"""Live streams' socket helper: whether a viewer has hung up (``service.feed`` does
the rest: who watches which game, and how new events reach them)."""

from __future__ import annotations

import select
import socket
import sys
from typing import Any


def _poll() -> Any:
    """A real poll object: gevent's select() (when gunicorn's gevent workers patched it)
    refuses file descriptors past 1023, and a check with no wait needs no greenlet."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("select"):
        return monkey.get_original("select", "poll")()
    return select.poll()


def hung_up(connection: socket.socket | None) -> bool:
    """Whether the client closed ``connection`` (it never sends on a stream, so a
    readable end with no data is its close). Without a socket (tests): False."""
    if connection is None:
        return False
    try:
        poll = _poll()
        poll.register(connection.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)
        if not poll.poll(0):
            return False  # nothing to read: still there
        return connection.recv(1, socket.MSG_PEEK) == b""
    except (BlockingIOError, InterruptedError):
        return False
    except (OSError, ValueError):  # closed, or no longer a socket
        return True
