"""Rate limits against abuse: sign-ups, games and commands (429 problem+json).

Built on ``limits`` (the library under Flask-Limiter), called explicitly from the
views that need it, so each app has its own storage: Redis when ``REDIS_URL`` is
set (every web process shares the counts), memory otherwise (the embedded
default is one process). A Redis that fails or hangs never slows a request: its
calls time out after ``REDIS_TIMEOUT`` and the counts fall back to memory for
``FALLBACK_SECONDS``, then Redis is tried again.
"""

from __future__ import annotations

import logging
import math
import threading
import time

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import FixedWindowRateLimiter

from service.errors import TooManyRequests
from service.runtime.outages import Outage
from service.runtime.settings import Settings

log = logging.getLogger("tongiaki.limits")

REDIS_TIMEOUT = 0.1  # seconds
FALLBACK_SECONDS = 5.0  # a hung Redis costs one request 0.1 s this often, at most
NAMESPACE = "tongiaki"


class RateLimits:
    """The configured limits per kind, counted per key (an account or an address)."""

    def __init__(self, settings: Settings) -> None:
        self.limits: dict[str, list[RateLimitItem]] = {
            kind: parse_many(spec) for kind, spec in settings.rate_limits.items()
        }
        self.memory = FixedWindowRateLimiter(MemoryStorage())
        self.shared: FixedWindowRateLimiter | None = None
        if settings.redis_url and self.limits:
            storage: Storage = storage_from_string(  # type: ignore[assignment]  # a redis:// URL gives the sync kind
                settings.redis_url,
                key_prefix=f"{NAMESPACE}:{settings.queue}:limits",
                socket_timeout=REDIS_TIMEOUT,
                socket_connect_timeout=REDIS_TIMEOUT,
            )
            self.shared = FixedWindowRateLimiter(storage)
        self._shared_down_until = 0.0
        self._lock = threading.Lock()
        self.outage = Outage(
            "Redis",
            log,
            "rate-limit checks counted in this process's memory",
            f"Redis is tried again every {FALLBACK_SECONDS:.0f} s",
            back_note="the limits are shared by every process again",
        )

    @property
    def enabled(self) -> bool:
        return bool(self.limits)

    def _limiter(self) -> FixedWindowRateLimiter:
        if self.shared is not None and time.monotonic() >= self._shared_down_until:
            return self.shared
        return self.memory

    def hit(self, kind: str, key: str) -> None:
        """Count one request of ``kind`` for ``key``; 429 ``rate_limited`` past a limit."""
        self._apply(kind, key, "hit", refuse=True)

    def check(self, kind: str, key: str) -> None:
        """429 ``rate_limited`` if one more of ``kind`` would pass a limit; counts nothing
        (``count`` it once it is done: for what is counted only when it succeeds)."""
        self._apply(kind, key, "test", refuse=True)

    def count(self, kind: str, key: str) -> None:
        """Count one of ``kind`` that was done (never refused: it happened)."""
        self._apply(kind, key, "hit", refuse=False)

    def _apply(self, kind: str, key: str, how: str, refuse: bool) -> None:
        items = self.limits.get(kind)
        if not items:
            return
        limiter = self._limiter()
        if limiter is self.memory and self.shared is not None:
            self.outage.count()  # counted here while Redis is away
        try:
            allowed = all(getattr(limiter, how)(item, NAMESPACE, kind, key) for item in items)
            if limiter is self.shared:
                self.outage.ok()  # Redis answers (again): said once
        except Exception as exc:  # Redis away or hung: count in memory for a while
            if limiter is self.memory:
                raise
            with self._lock:
                self._shared_down_until = time.monotonic() + FALLBACK_SECONDS
            self.outage.failed(exc)  # said once for the whole outage, not every 5 s
            limiter = self.memory
            allowed = all(getattr(limiter, how)(item, NAMESPACE, kind, key) for item in items)
        if allowed or not refuse:
            return
        wait = 1
        for item in items:
            stats = limiter.get_window_stats(item, NAMESPACE, kind, key)
            if stats.remaining <= 0:
                wait = max(wait, math.ceil(stats.reset_time - time.time()))
        raise TooManyRequests(
            "rate_limited",
            f"too many {kind} requests; retry in {wait} s",
            retry_after=wait,
            limit=kind,
        )
