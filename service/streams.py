"""Live streams' socket helper: whether a viewer has hung up (``service.feed`` does
the rest: who watches which game, and how new events reach them)."""

from __future__ import annotations

import select
import socket


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
