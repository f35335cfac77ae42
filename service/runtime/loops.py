"""Background loops: a daemon thread that runs one step every few seconds until it is
stopped, a step that fails logged and the loop going on (the embedded default's
deliveries, the worker's sweeper, its schedule)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable


def repeat(
    step: Callable[[], object],
    every: float,
    stop: threading.Event,
    *,
    name: str,
    log: logging.Logger,
    what: str,
    skipped: tuple[type[Exception], ...] = (),
    until: Callable[[], bool] = lambda: False,
    at_once: bool = True,
) -> threading.Thread:
    """Start a daemon thread ``name`` that runs ``step`` now (or first after ``every``
    seconds, unless ``at_once``) and every ``every`` seconds after, until ``stop`` is set
    or ``until()`` says so. A step that raises one of ``skipped`` (a dependency away: the
    next step tries again) is logged as "``what`` skipped", any other error with its
    traceback as "``what`` failed"; neither ends the loop. The started thread."""

    def loop() -> None:
        if not at_once and stop.wait(every):
            return
        while not stop.is_set() and not until():
            try:
                step()
            except skipped as exc:
                log.warning("%s skipped: %s", what, exc)
            except Exception:
                log.exception("%s failed", what)
            if stop.wait(every):
                return

    thread = threading.Thread(target=loop, name=name, daemon=True)
    thread.start()
    return thread
