"""Composition root: ``create_app(settings)`` wires store, services and blueprints."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from flask import Flask

from projections.store import ReadModels
from service.audit.disputes import DisputeService
from service.http.api import MAX_BODY, GameIdConverter, register_errors
from service.http.api.accounts import bp as accounts_bp
from service.http.api.disputes import DisputeIdConverter
from service.http.api.disputes import bp as disputes_bp
from service.http.api.games import bp as games_bp
from service.http.api.meta import bp as meta_bp
from service.http.api.views import bp as views_bp
from service.http.headers import install as install_headers
from service.http.health import bp as health_bp
from service.http.jsonprovider import OrjsonProvider
from service.http.limits import RateLimits
from service.http.metrics import bp as metrics_bp
from service.http.metrics import track
from service.http.web import bp as web_bp
from service.live.doorbells import BackgroundDoorbell, InlineDoorbell, RqDoorbell, sweep_inline
from service.live.feed import FD_RESERVE, Feed, FeedDoorbell, fd_budget, listener_for
from service.notifications.notify import NOTIFY_EVERY, Notifier, run_deliveries
from service.play.games import Doorbell, GameService
from service.play.timekeeper import ClockBell, LocalScheduler, Timekeeper
from service.runtime.logs import install as install_logs
from service.runtime.settings import Settings
from service.store.base import SqlStore


def open_store(settings: Settings) -> SqlStore:
    """The event store the settings name: PostgreSQL, or the embedded SQLite file."""
    if settings.uses_postgres:
        from service.store.postgres import PostgresEventStore

        return PostgresEventStore(settings.database_url)
    from service.runtime.settings import ConfigError
    from service.store.sqlite import SQLiteEventStore

    try:
        return SQLiteEventStore(settings.sqlite_path)
    except OSError as exc:  # the data directory cannot be made
        raise ConfigError(
            f"TONGIAKI_DATA_DIR: cannot use {settings.data_dir}: {exc.strerror or exc}"
        ) from exc


REDIS_CHECK_TIMEOUT = 2.0  # seconds


def check_services(settings: Settings) -> None:
    """Reach the database and Redis once, within seconds, or raise with the cause."""
    store = open_store(settings)  # PostgreSQL: StoreUnavailable after at most 5 s
    try:
        store.upgrade()
    finally:
        store.close()
    if settings.redis_url:
        from redis import Redis
        from redis.exceptions import RedisError

        from service.store.base import StoreUnavailable

        client = Redis.from_url(
            settings.redis_url,
            socket_timeout=REDIS_CHECK_TIMEOUT,
            socket_connect_timeout=REDIS_CHECK_TIMEOUT,
        )
        try:
            client.ping()
        except RedisError as exc:
            where = settings.redis_url.split("@")[-1]
            raise StoreUnavailable(f"cannot reach Redis at {where}: {exc}") from exc
        finally:
            client.close()


# live streams one process holds at once (service.live.feed) unless TONGIAKI_MAX_STREAMS says:
# the embedded server gives each connection a thread of its own (~30 KB each, waiting);
# a gevent worker a greenlet (service.servers.serving)
EMBEDDED_STREAMS = 2000


def create_app(
    settings: Settings | None = None,
    *,
    store: SqlStore | None = None,
    clock: Callable[[], datetime] | None = None,
    sweep: bool = True,
    streams: int = EMBEDDED_STREAMS,
) -> Flask:
    """The Flask app. Nothing connects at import time; the schema is upgraded here."""
    settings = settings or Settings.from_env()
    store = store or open_store(settings)
    store.upgrade()
    readmodels = ReadModels(store, store)
    readmodels.upgrade()
    max_streams = settings.max_streams or streams
    budget = fd_budget()
    if budget < max_streams:  # past the open-file limit the whole process stops answering
        logging.getLogger("tongiaki.feed").warning(
            "at most %d live streams (not %d): the open-file limit is %d; raise it (ulimit -n)",
            budget,
            max_streams,
            budget + FD_RESERVE,
        )
        max_streams = budget
    feed = Feed(
        store,
        max_streams=max_streams,
        per_client=settings.streams_per_client,
        poll_every=settings.feed_poll,
        heartbeat=settings.stream_heartbeat,
        listener=listener_for(settings.database_url) if settings.uses_postgres else None,
    )
    doorbell: Doorbell
    if settings.redis_url:
        # rung from a thread of its own: a slow or hung Redis never delays a command
        doorbell = BackgroundDoorbell(RqDoorbell(settings.redis_url, settings.queue, timeout=1.0))
    else:
        doorbell = InlineDoorbell(readmodels)
        if sweep:  # projections left behind by a crash or a failed catch-up
            sweep_inline(readmodels, settings.sweep_every, lambda: store.closed)
    app = Flask(__name__, static_folder=None)  # the pages serve their own (service/http/web)
    app.json = OrjsonProvider(app)
    # a chunked body is read no further than one byte past the limit (then 413)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY + 1
    # '/games//stream' is no route (404 problem+json), not a redirect with an HTML page
    app.url_map.merge_slashes = False
    app.url_map.converters["game"] = GameIdConverter
    app.url_map.converters["dispute"] = DisputeIdConverter
    app.extensions["tongiaki.settings"] = settings
    app.extensions["tongiaki.readmodels"] = readmodels
    app.extensions["tongiaki.limits"] = RateLimits(settings)
    app.extensions["tongiaki.feed"] = feed
    games = app.extensions["tongiaki.games"] = GameService(
        store,
        clock=clock or (lambda: datetime.now(UTC)),
        doorbell=FeedDoorbell(feed, doorbell),  # streams hear of a commit first
        testing=settings.testing,
        snapshot_every=settings.snapshot_every,
        keyframes=readmodels.keyframe,
    )
    notifier = app.extensions["tongiaki.notify"] = Notifier(store, settings, games.clock)
    notifier.upgrade()
    if not settings.redis_url and sweep:  # the embedded default delivers its own reminders
        run_deliveries(notifier, NOTIFY_EVERY, lambda: store.closed)
    app.extensions["tongiaki.disputes"] = DisputeService(
        store,
        games,
        clock=clock or (lambda: datetime.now(UTC)),
        window=timedelta(seconds=settings.dispute_window),
        announce=notifier.announce,
    )
    if not settings.redis_url and sweep:  # the embedded default keeps its own deadlines
        scheduler = LocalScheduler(
            Timekeeper(games), readmodels, settings.sweep_every, lambda: store.closed
        )
        games.doorbell = FeedDoorbell(feed, ClockBell(doorbell, readmodels, scheduler))
        app.extensions["tongiaki.clocks"] = scheduler.start()

    # first: a request refused by a check of register_errors (413 before the body) has
    # its client's request id and an access line with its duration too
    install_logs(app)
    install_headers(app)
    track(app)
    register_errors(app)
    if settings.proxies:  # the client's address from the proxies' X-Forwarded-For (limits)
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=settings.proxies, x_proto=settings.proxies
        )
    for bp in (accounts_bp, games_bp, views_bp, disputes_bp, meta_bp):
        app.register_blueprint(bp, url_prefix="/api/v1")

    app.register_blueprint(web_bp)
    app.register_blueprint(health_bp)
    app.register_blueprint(metrics_bp)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    return app
