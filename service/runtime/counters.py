"""The service's counters and the request histogram (Prometheus), made once per
process on first use; counting never fails what is counted. Served at ``GET /metrics``
by ``service.http.metrics``; counted by command handling (``service.play.games``) and
the live streams (``service.live.feed``).

Under gunicorn with several workers, every worker writes its counters to files in
one directory (prometheus_client's multiprocess mode, ``PROMETHEUS_MULTIPROC_DIR``,
set by ``tongiaki serve`` before the workers start) and a scrape of any worker
adds them all up.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

MULTIPROCESS = "PROMETHEUS_MULTIPROC_DIR"


_MAKING = threading.Lock()
_MADE: list[Any] = []  # the metrics, once made


def made_metrics() -> Any:
    """The metrics, made once, on first use, whichever thread comes first (a worker's
    clock thread and its job raced here: the second registered every name again, and
    prometheus_client refused it with a traceback). Made, they are read without the
    lock: every request counts."""
    if not _MADE:
        with _MAKING:
            if not _MADE:
                _MADE.append(_make())
    return _MADE[0]


_FAILED: list[str] = []  # why counting failed, once logged


def count_safely(what: Callable[[], None]) -> None:
    """Count, or if the metrics cannot be kept (their directory removed under a worker
    that is stopping, say) say so once and go on: counting never fails a request."""
    try:
        what()
    except Exception as exc:
        if not _FAILED:
            _FAILED.append(repr(exc))
            logging.getLogger("tongiaki.metrics").warning("metrics not counted: %s", exc)


def _make() -> Any:
    """prometheus_client chooses how to keep values when it is imported: in a gunicorn
    worker that is after ``tongiaki serve`` set the multiprocess directory, so nothing
    here imports it before."""
    from prometheus_client import REGISTRY, Counter, Gauge, Histogram

    before = set(REGISTRY._collector_to_names)
    try:
        return _made(Counter, Gauge, Histogram)
    except Exception:  # made whole or not at all: a later try must not find half of it
        for collector in set(REGISTRY._collector_to_names) - before:
            REGISTRY.unregister(collector)
        raise


def _made(Counter: Any, Gauge: Any, Histogram: Any) -> Any:
    made = SimpleNamespace(
        requests=Histogram(
            "tongiaki_requests_seconds",
            "HTTP requests by method, route and status",
            ["method", "route", "status"],
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
        ),
        commands=Counter("tongiaki_commands", "Commands judged, by outcome", ["outcome"]),
        rejections=Counter("tongiaki_rejections", "Journalled refusals, by code", ["code"]),
        replica=Counter(
            "tongiaki_replica_reads",
            "Read-side reads by where they were served: the replica, or the primary (the"
            " replica lacked the versions asked for, or was away)",
            ["served_by"],
        ),
        streams=Gauge(
            "tongiaki_open_streams",
            "Server-sent-event streams open",
            multiprocess_mode="livesum",
        ),
    )
    for outcome in OUTCOMES:  # at 0 from the start: a rate needs a first sample
        made.commands.labels(outcome)
    for served_by in ("replica", "primary"):
        made.replica.labels(served_by)
    return made


OUTCOMES = ("accepted", "rejected", "replayed")


def command(outcome: str) -> None:
    """A command judged: ``accepted``, ``rejected`` or ``replayed``."""
    count_safely(lambda: made_metrics().commands.labels(outcome).inc())


def rejection(code: str) -> None:
    """A refusal journalled, by its code."""
    count_safely(lambda: made_metrics().rejections.labels(code).inc())


def streams(delta: int) -> None:
    """A stream opened (+1) or closed (-1)."""
    count_safely(lambda: made_metrics().streams.inc(delta))


def replica_read(served_by: str) -> None:
    """A read-side read with ``DATABASE_REPLICA_URL``: ``replica`` or ``primary``."""
    count_safely(lambda: made_metrics().replica.labels(served_by).inc())
