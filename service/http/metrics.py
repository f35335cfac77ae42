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
  ``..._halted_games``: the read models' lag, read from the database at each scrape;
  ``tongiaki_log_pending`` and ``tongiaki_log_size``: the transparency log's.

Under gunicorn with several workers, every worker writes its counters to files in
one directory (prometheus_client's multiprocess mode, ``PROMETHEUS_MULTIPROC_DIR``,
set by ``tongiaki serve`` before the workers start) and a scrape of any worker
adds them all up.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, request

from projections.store import ReadModels
from service.runtime.counters import MULTIPROCESS, count_safely, made_metrics
from service.store.base import StoreError
from service.transparency.log import TransparencyLog

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
            count_safely(
                lambda: (
                    made_metrics()
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

    def __init__(self, rm: ReadModels, log: TransparencyLog | None = None) -> None:
        self.rm = rm
        self.log = log

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
        return [events, games, halted, *self._log()]

    def _log(self) -> list[Any]:
        """The transparency log: commits waiting for their index, the tree's size."""
        from prometheus_client.core import GaugeMetricFamily

        if self.log is None:
            return []
        pending = GaugeMetricFamily(
            "tongiaki_log_pending", "Commits waiting for their index in the transparency log"
        )
        pending.add_metric([], self.log.store.log_pending())
        size = GaugeMetricFamily(
            "tongiaki_log_size", "Entries in the transparency log's newest checkpoint"
        )
        size.add_metric([], self.log.store.log_head().size)
        return [pending, size]


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

    made_metrics()  # named even before their first sample
    if os.environ.get(MULTIPROCESS):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        text = generate_latest(registry)
    else:
        text = generate_latest(REGISTRY)
    lag = CollectorRegistry()
    services = current_app.extensions["tongiaki.services"]
    lag.register(_Lag(current_app.extensions["tongiaki.readmodels"], services.log))
    # the database away: /readyz says so; the counters are still worth having
    with contextlib.suppress(StoreError):
        text += generate_latest(lag)
    return Response(text, headers={"Content-Type": CONTENT_TYPE_LATEST})
