"""Live streams end with the credential they were opened with: a stream sent with a
bearer token or a page's session cookie is tracked by that credential's id, and closed
when the credential is revoked or ends — at once for a revocation made in this process,
within ``EVERY`` seconds for one made in another (each process asks the store which of
its streams' credentials are no longer live)."""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterable

from service.live.feed import Feed, Subscription
from service.runtime.loops import repeat
from service.store.base import StoreUnavailable

log = logging.getLogger("tongiaki.feed")
EVERY = 2.0  # seconds between two looks at the store
MAX_ASKED = 500  # credential ids asked about in one query


class RevocationWatch:
    """The streams of this process by credential, and the look that ends revoked ones."""

    def __init__(
        self, feed: Feed, ended_among: Callable[[list[str]], set[str]], every: float = EVERY
    ) -> None:
        self.feed = feed
        self.ended_among = ended_among
        self.every = every
        self._lock = threading.Lock()
        self._subs: dict[str, weakref.WeakSet[Subscription]] = {}
        self._pid = 0
        self._stop = threading.Event()

    def track(self, sub: Subscription, credential_id: str) -> None:
        """Follow ``sub``, opened with ``credential_id``."""
        self._start()
        with self._lock:
            self._subs.setdefault(credential_id, weakref.WeakSet()).add(sub)

    def end(self, credential_ids: Iterable[str]) -> None:
        """End every open stream of these credentials."""
        self._end(credential_ids)

    def _end(self, credential_ids: Iterable[str]) -> int:
        ended = 0
        for credential_id in credential_ids:
            with self._lock:
                subs = list(self._subs.pop(credential_id, ()))
            for sub in subs:
                if sub.closed:
                    continue
                sub.revoked = True
                self.feed.writer.end(sub)  # a parked stream: closed now
                sub.hub.publish(sub.hub.view)  # a request waiting in a generator: woken
                ended += 1
        return ended

    def _open(self) -> list[str]:
        with self._lock:
            for credential_id in [c for c, subs in self._subs.items() if not _live(subs)]:
                del self._subs[credential_id]
            return list(self._subs)

    def step(self) -> None:
        """Ask the store about the credentials of the open streams, end the revoked."""
        open_ids = self._open()
        for start in range(0, len(open_ids), MAX_ASKED):
            gone = self.ended_among(open_ids[start : start + MAX_ASKED])
            if gone and self._end(gone):
                log.info("streams ended: %d credential(s) revoked or ended", len(gone))

    def _start(self) -> None:
        if self._pid == os.getpid():
            return
        with self._lock:
            if self._pid == os.getpid():
                return
            self._pid = os.getpid()
        repeat(
            self.step,
            self.every,
            self._stop,
            name="stream-revocations",
            log=log,
            what="the streams' revocation check",
            skipped=(StoreUnavailable,),
            until=lambda: self.feed.closing,
            at_once=False,
        )


def _live(subs: weakref.WeakSet[Subscription]) -> bool:
    return any(not s.closed for s in subs)
