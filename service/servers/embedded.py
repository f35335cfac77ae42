"""The embedded default's HTTP server: werkzeug's, with waiting connections holding no
thread.

A connection is held by the gate (``service.servers.gate``: one thread, one ``epoll``)
until its request head has arrived whole, and only then handed to a request thread
from a bounded pool (``service.servers.pool``; werkzeug closes a connection after its
answer). So:

- at most ``max_connections`` connections are open at once (live streams handed
  to the writer no longer count), at most ``per_client`` of one client address:
  past it, a connection is answered 503 at once and closed (logged at most once a
  second, ``service.servers.refusals.Refusals``);
- at most ``max_threads`` requests are served at once; more wait for a thread.

The request's body is still read under ``service.servers.deadlines.BodyDeadline``.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from werkzeug.serving import BaseWSGIServer

from service.servers.gate import HEAD_TIMEOUT, IDLE_TIMEOUT, Gate
from service.servers.pool import Pool
from service.servers.refusals import Refusals, refuse

MAX_CONNECTIONS = 4096  # open at once unless TONGIAKI_MAX_CONNECTIONS says
PER_CLIENT = 256  # of them from one client address unless TONGIAKI_CONNECTIONS_PER_CLIENT says
MAX_THREADS = 256  # requests served at once


def _client(address: Any) -> str:
    """A connection's client address (the key of the per-client bound)."""
    return str(address[0]) if isinstance(address, tuple) and address else str(address)


class EmbeddedServer(BaseWSGIServer):
    """werkzeug's server with a gate in front and a pool of request threads behind."""

    multithread = True

    def __init__(
        self,
        host: str,
        port: int,
        app: Any,
        handler: Any,
        max_connections: int = MAX_CONNECTIONS,
        per_client: int = PER_CLIENT,
        max_threads: int = MAX_THREADS,
        head_timeout: float = HEAD_TIMEOUT,
        idle_timeout: float = IDLE_TIMEOUT,
    ) -> None:
        super().__init__(host, port, app, handler=handler)
        self.max_connections = max_connections
        self.per_client = per_client  # 0: no bound per client address
        self.open = 0  # connections of ours: at the gate or in a request
        self.by_client: dict[str, int] = {}
        self._count = threading.Lock()
        self.refused = Refusals()
        self.pool = Pool(max_threads)
        self.gate = Gate(
            self._dispatch,
            self._release,
            head_timeout,
            idle_timeout,
            tick=self.refused.flush,
        )

    # --- accepting ---------------------------------------------------------------

    def process_request(self, request: Any, client_address: Any) -> None:
        client = _client(client_address)
        with self._count:
            full = self.open >= self.max_connections
            crowded = bool(self.per_client) and self.by_client.get(client, 0) >= self.per_client
            if not full and not crowded:
                self.open += 1
                self.by_client[client] = self.by_client.get(client, 0) + 1
        if full or crowded:
            held = (
                f"the server holds {self.max_connections} connections already"
                if full
                else f"this address holds {self.per_client} connections already"
            )
            refuse(request, 503, "Service Unavailable", f"{held}; try again", log=self.refused.note)
            return
        self.gate.admit(request, client_address)

    def _release(self, client_address: Any) -> None:
        client = _client(client_address)
        with self._count:
            self.open -= 1
            left = self.by_client.get(client, 1) - 1
            if left > 0:
                self.by_client[client] = left
            else:
                self.by_client.pop(client, None)

    # --- serving -----------------------------------------------------------------

    def _dispatch(self, sock: socket.socket, address: Any, head: bytes) -> None:
        self.pool.submit(lambda: self._serve(sock, address, head))

    def _serve(self, sock: socket.socket, address: Any, head: bytes) -> None:
        handler_class: Any = self.RequestHandlerClass
        handler = handler_class.__new__(handler_class)
        handler.prefix = head
        try:
            handler_class.__init__(handler, sock, address, self)  # setup, handle, finish
        except Exception:
            self.handle_error(sock, address)
        finally:
            if sock.fileno() >= 0:  # not handed to the stream writer (detached)
                self.shutdown_request(sock)
            self._release(address)

    def server_close(self) -> None:
        self.gate.stop()
        super().server_close()
