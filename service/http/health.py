"""``/healthz`` (the process answers) and ``/readyz`` (it can serve: database, Redis,
read models), for load balancers and orchestrators.

``/readyz`` answers 200 with each check, or 503 problem+json ``not_ready`` whose
``detail`` names every reason (and ``checks`` holds them all). A read model is not
ready when it is halted for a game or more than ``TONGIAKI_READY_MAX_LAG`` events
behind the event store (all games together); the transparency log, when more than as
many commits wait for their index (no integrator runs).
"""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, current_app, jsonify
from flask.typing import ResponseReturnValue

from projections.store import ReadModels
from service.http.api import problem
from service.runtime.settings import Settings
from service.store.base import StoreError

bp = Blueprint("health", __name__)

REDIS_TIMEOUT = 1.0  # seconds: a hung Redis makes the check fail, not hang
DATABASE_TIMEOUT = 1.0  # seconds to wait for a pooled connection (requests wait 5)


@bp.get("/healthz")
def healthz() -> ResponseReturnValue:
    """The process is alive and answering (nothing else is checked)."""
    return jsonify(status="ok")


def _database(store: Any, rm: ReadModels, max_lag: int) -> tuple[dict[str, Any], list[str]]:
    started = time.monotonic()
    try:
        store.ping(DATABASE_TIMEOUT)  # unreachable: said within a second, not the pool's 5
        lags = rm.status()
    except StoreError as exc:
        said = " ".join(str(exc).split())  # the driver's message spans lines
        return {"ok": False, "error": said}, [f"the database cannot be reached ({said})"]
    checks: dict[str, Any] = {"ok": True, "ms": round(1000 * (time.monotonic() - started), 1)}
    reasons = []
    projections = {}
    for lag in lags:
        halted = [game for game, _ in lag.halted]
        ok = not halted and lag.events_behind <= max_lag
        projections[lag.projection] = {
            "ok": ok,
            "games_behind": lag.behind,
            "events_behind": lag.events_behind,
            "halted": halted,
        }
        if halted:
            reasons.append(f"read model {lag.projection} is halted for {len(halted)} game(s)")
        elif lag.events_behind > max_lag:
            reasons.append(
                f"read model {lag.projection} is {lag.events_behind} events behind"
                f" (more than {max_lag})"
            )
    return {**checks, "projections": projections}, reasons


def _log(store: Any, max_lag: int) -> tuple[dict[str, Any], list[str]]:
    """The transparency log: commits waiting for their index (none integrate them when
    no worker runs: players' promises would go unkept)."""
    try:
        pending = int(store.log.log_pending())
    except StoreError as exc:
        return {"ok": False, "error": str(exc)}, [f"the log cannot be read ({exc})"]
    ok = pending <= max_lag
    found = {"ok": ok, "pending": pending}
    if ok:
        return found, []
    return found, [
        f"the transparency log has {pending} commits waiting for their index (more than"
        f" {max_lag}): is an integrator running (tongiaki worker)?"
    ]


def _redis(url: str) -> tuple[dict[str, Any], list[str]]:
    from redis import Redis
    from redis.exceptions import RedisError

    client = Redis.from_url(url, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT)
    started = time.monotonic()
    try:
        client.ping()
    except RedisError as exc:
        return {"ok": False, "error": str(exc)}, [f"Redis cannot be reached ({exc})"]
    finally:
        client.close()
    return {"ok": True, "ms": round(1000 * (time.monotonic() - started), 1)}, []


@bp.get("/readyz")
def readyz() -> ResponseReturnValue:
    """Ready to serve: the database answers, Redis too when configured (the doorbell),
    no read model is halted or too far behind, and the transparency log is integrated."""
    settings: Settings = current_app.extensions["tongiaki.settings"]
    rm: ReadModels = current_app.extensions["tongiaki.readmodels"]
    store = current_app.extensions["tongiaki.games"].store
    database, reasons = _database(store, rm, settings.ready_max_lag)
    checks: dict[str, Any] = {"database": database}
    if database["ok"]:
        checks["log"], more = _log(store, settings.ready_max_lag)
        reasons += more
    if settings.redis_url:
        checks["redis"], more = _redis(settings.redis_url)
        reasons += more
    if not reasons:
        return jsonify(ready=True, checks=checks)
    response = problem(503, "not_ready", "Service unavailable", "; ".join(reasons), checks=checks)
    response.headers["Retry-After"] = "5"
    return response
