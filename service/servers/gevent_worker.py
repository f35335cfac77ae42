"""gunicorn's gevent worker, ending every live stream on SIGTERM.

A stream that has caught up is handed to the feed's writer (``service.live.writer``):
the worker lets go of its connection, so a viewer holds no greenlet while it
waits. On SIGTERM the worker stops accepting (as gunicorn does) and ends every
stream of the process at once (``service.live.feed.close_all``); viewers reconnect to
another process and resume after their ``Last-Event-ID``, and the worker exits
within seconds. Imported only by gunicorn (it monkey-patches the standard
library).
"""

from __future__ import annotations

import warnings
from typing import Any

import gevent
from gunicorn.workers.ggevent import GeventWorker

# gunicorn's worker patches again what ``tongiaki serve`` patched before importing
# anything; gevent then warns about modules imported since (redis.asyncio, unused)
warnings.filterwarnings("ignore", message="Monkey-patching ssl after ssl")


class Worker(GeventWorker):  # type: ignore[misc]
    """gunicorn's gevent worker: live streams handed to the writer, a connection's first
    request head awaited as long as the embedded server awaits it, streams ended on
    SIGTERM."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._first_head: set[Any] = set()  # greenlets still to read their connection's first head

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        """One connection. Its first request head may take ``HEAD_TIMEOUT`` to arrive (the
        embedded server's bound): gunicorn gives every head, the first included, its
        keep-alive time (2 s), counted from when the greenlet first reads, and closes a
        connection past it without a word. Under load a greenlet can start reading later
        than that after a request was sent whole: a crowd of viewers opening at once on a
        busy machine had hundreds of requests dropped unanswered (reset by the server)."""
        me = gevent.getcurrent()
        self._first_head.add(me)
        try:
            super().handle(listener, client, addr)
        finally:
            self._first_head.discard(me)

    def timeout_ctx(self) -> Any:
        """The time to read the next request head: ``HEAD_TIMEOUT`` for a connection's
        first, gunicorn's keep-alive time for the ones after it."""
        from service.servers.gate import HEAD_TIMEOUT

        me = gevent.getcurrent()
        if me in self._first_head:
            self._first_head.discard(me)
            return gevent.Timeout(HEAD_TIMEOUT, False)
        return super().timeout_ctx()

    def patch(self) -> None:
        super().patch()
        # psycopg picks gevent's select() when it sees the patching, and that select()
        # first asks the real one, which refuses file descriptors past 1023: with a
        # thousand viewers connected, every query would fail. gevent's poll() has no
        # such limit.
        import psycopg.waiting

        psycopg.waiting.wait = psycopg.waiting.wait_poll
        from service.servers.deadlines import WATCHDOG

        WATCHDOG.after_patch()

    def is_already_handled(self, respiter: Any) -> bool:
        """A live stream that caught up hands its connection to the feed's writer
        (``service.live.writer``): the worker lets go of it and its greenlet ends."""
        from service.live.writer import Handoff

        if isinstance(respiter, Handoff):
            respiter.park()
            raise StopIteration  # gunicorn closes its socket object: the connection lives on
        return bool(super().is_already_handled(respiter))

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        """A request gunicorn refuses itself (400, 414, 431…): its log line and its
        access line (``service.servers.serving._write_problem``) carry one request id."""
        import uuid

        from service.runtime.logs import REQUEST_ID

        token = REQUEST_ID.set(uuid.uuid4().hex)
        try:
            super().handle_error(req, client, addr, exc)
        finally:
            REQUEST_ID.reset(token)

    def handle_exit(self, sig: int, frame: Any) -> None:
        from service.live.feed import close_all

        gevent.spawn(close_all)  # not in the signal handler itself: it takes locks
        super().handle_exit(sig, frame)
