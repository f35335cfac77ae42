"""Prometheus metrics at ``GET /metrics`` (text exposition format).

- ``tongiaki_requests_seconds{method,route,status}``: a histogram of HTTP request
  durations (``route`` is the URL rule, ``/api/v1/games/<game:game_id>/commands``, never
  the raw path: bounded labels);
- ``tongiaki_commands_total{outcome}``: commands judged — ``accepted``, ``rejected``
  (journalled refusals), ``replayed`` (an ``Idempotency-Key`` retry answered from the
  journal);
- ``tongiaki_rejections_total{code}``: journalled refusals by code;
- ``tongiaki_open_streams``: server-sent-event streams open now;
- ``tongiaki_projection_events_behind{projection}``, ``..._games_behind``,
  ``..._halted_games``: the read models' lag, read from the database at each scrape.

Under gunicorn with several workers, every worker writes its counters to files in
one directory (prometheus_client's multiprocess mode, ``PROMETHEUS_MULTIPROC_DIR``,
set by ``tongiaki serve`` before the workers start) and a scrape of any worker
adds them all up.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, request

from projections.store import ReadModels
from service.store.base import StoreError

MULTIPROCESS = "PROMETHEUS_MULTIPROC_DIR"


_MAKING = threading.Lock()
_MADE: list[Any] = []  # the metrics, once made


def _metrics() -> Any:
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


def _count(what: Callable[[], None]) -> None:
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
        streams=Gauge(
            "tongiaki_open_streams",
            "Server-sent-event streams open",
            multiprocess_mode="livesum",
        ),
    )
    for outcome in OUTCOMES:  # at 0 from the start: a rate needs a first sample
        made.commands.labels(outcome)
    return made


OUTCOMES = ("accepted", "rejected", "replayed")


def command(outcome: str) -> None:
    """A command judged: ``accepted``, ``rejected`` or ``replayed``."""
    _count(lambda: _metrics().commands.labels(outcome).inc())


def rejection(code: str) -> None:
    """A refusal journalled, by its code."""
    _count(lambda: _metrics().rejections.labels(code).inc())


def streams(delta: int) -> None:
    """A stream opened (+1) or closed (-1)."""
    _count(lambda: _metrics().streams.inc(delta))


bp = Blueprint("metrics", __name__)


METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def track(app: Flask) -> None:
    """Time every request of ``app`` by method, route and status."""

    @app.before_request
    def started() -> None:
        g.tongiaki_started = time.perf_counter()

    @app.after_request
    def finished(response: Response) -> Response:
        began = g.get("tongiaki_started")
        if began is not None:
            rule = request.url_rule.rule if request.url_rule is not None else "unmatched"
            method = request.method if request.method in METHODS else "other"  # bounded labels
            took = time.perf_counter() - began
            _count(
                lambda: (
                    _metrics()
                    .requests.labels(method, rule, str(response.status_code))
                    .observe(took)
                )
            )
        return response


class _Lag:
    """The read models' lag as gauge families of this scrape only. Families, not
    ``Gauge`` objects: in multiprocess mode a ``Gauge`` writes its value to this
    worker's file, whatever registry it is in, and the stale per-pid copies were
    exported beside the live values at every later scrape."""

    def __init__(self, rm: ReadModels) -> None:
        self.rm = rm

    def collect(self) -> Any:
        from prometheus_client.core import GaugeMetricFamily

        events = GaugeMetricFamily(
            "tongiaki_projection_events_behind",
            "Events a read model has not applied yet (all games)",
            labels=["projection"],
        )
        games = GaugeMetricFamily(
            "tongiaki_projection_games_behind",
            "Games a read model is behind on",
            labels=["projection"],
        )
        halted = GaugeMetricFamily(
            "tongiaki_projection_halted_games",
            "Games a read model is halted for",
            labels=["projection"],
        )
        for lag in self.rm.status():
            events.add_metric([lag.projection], lag.events_behind)
            games.add_metric([lag.projection], lag.behind)
            halted.add_metric([lag.projection], len(lag.halted))
        return [events, games, halted]


@bp.get("/metrics")
def metrics() -> Response:
    """Every worker's counters (multiprocess mode) or this process's, and the lag."""
    from prometheus_client import (
        CONTENT_TYPE_LATEST,
        REGISTRY,
        CollectorRegistry,
        generate_latest,
        multiprocess,
    )

    _metrics()  # named even before their first sample
    if os.environ.get(MULTIPROCESS):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        text = generate_latest(registry)
    else:
        text = generate_latest(REGISTRY)
    lag = CollectorRegistry()
    lag.register(_Lag(current_app.extensions["tongiaki.readmodels"]))
    # the database away: /readyz says so; the counters are still worth having
    with contextlib.suppress(StoreError):
        text += generate_latest(lag)
    return Response(text, headers={"Content-Type": CONTENT_TYPE_LATEST})
