"""An outage of a service we depend on (Redis), logged once when it starts and once
when it ends, with how many operations it affected.

A doorbell rung per command logged a warning per command while Redis was away (326
lines in 40 s); an operator needs two: "Redis is away since …, what it means", and
"Redis is back after … s; N … were affected, and what catches them up".
"""

from __future__ import annotations

import logging
import threading
import time


class Outage:
    """The state of one dependency as its users see it: up, or away since when."""

    def __init__(
        self,
        what: str,
        log: logging.Logger,
        affected: str,
        remedy: str,
        back_note: str | None = None,
    ) -> None:
        self.what = what  # "Redis"
        self.log = log
        self.affected = affected  # what one failure is, plural: "doorbells not rung"
        self.remedy = remedy  # what makes up for them: "the sweeper catches those games up"
        self.back_note = back_note or remedy  # said when it is over
        self._lock = threading.Lock()
        self._since: float | None = None
        self._count = 0

    @property
    def away(self) -> bool:
        return self._since is not None

    def failed(self, error: BaseException | str) -> None:
        """One operation failed because the dependency is away: the first says so."""
        with self._lock:
            self._count += 1
            first = self._since is None
            if first:
                self._since = time.monotonic()
        if first:
            cause = " ".join(str(error).split())[:300]
            self.log.warning(
                "%s is away (%s): %s until it is back; %s",
                self.what,
                cause,
                self.affected,
                self.remedy,
                extra={"outage": self.what, "state": "away"},
            )

    def count(self) -> None:
        """One more operation affected while the dependency is away (no line)."""
        if self._since is None:
            return
        with self._lock:
            if self._since is not None:
                self._count += 1

    def ok(self) -> None:
        """An operation worked: if the dependency was away, say it is back, once."""
        if self._since is None:  # the common case: no lock
            return
        with self._lock:
            if self._since is None:
                return
            lasted = time.monotonic() - self._since
            count, self._since, self._count = self._count, None, 0
        self.log.warning(
            "%s is back after %.1f s: %d %s while it was away; %s",
            self.what,
            lasted,
            count,
            self.affected,
            self.back_note,
            extra={
                "outage": self.what,
                "state": "back",
                "lasted_s": round(lasted, 1),
                "affected": count,
            },
        )
