"""The web app: ``web_app(services)`` over the services ``service.bootstrap`` builds;
``create_app(settings)`` does what one serving process does (build, start the embedded
default's background work, make the app)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from flask import Flask

from service.bootstrap import EMBEDDED_STREAMS, Services, build, start_embedded_background
from service.http.api import MAX_BODY, GameIdConverter, VersionConverter, register_errors
from service.http.api.accounts import bp as accounts_bp
from service.http.api.bots import bp as bots_bp
from service.http.api.chat import bp as chat_bp
from service.http.api.credentials import bp as credentials_bp
from service.http.api.disputes import DisputeIdConverter
from service.http.api.disputes import bp as disputes_bp
from service.http.api.forks import ForkIdConverter
from service.http.api.forks import bp as forks_bp
from service.http.api.games import bp as games_bp
from service.http.api.invitations import bp as invitations_bp
from service.http.api.languages import bp as languages_bp
from service.http.api.leagues import bp as leagues_bp
from service.http.api.meta import bp as meta_bp
from service.http.api.notation import bp as notation_bp
from service.http.api.notes import bp as notes_bp
from service.http.api.profiles import bp as profiles_bp
from service.http.api.proofs import bp as proofs_bp
from service.http.api.queue import bp as queue_bp
from service.http.api.ratings import bp as ratings_bp
from service.http.api.rematch import bp as rematch_bp
from service.http.api.scores import bp as scores_bp
from service.http.api.signin import bp as signin_bp
from service.http.api.streams import bp as streams_bp
from service.http.api.vacation import bp as vacation_bp
from service.http.api.views import bp as views_bp
from service.http.cookies import set_new_binding
from service.http.headers import install as install_headers
from service.http.health import bp as health_bp
from service.http.jsonprovider import OrjsonProvider
from service.http.language import install as install_language
from service.http.limits import RateLimits
from service.http.metrics import bp as metrics_bp
from service.http.metrics import track
from service.http.transparency import bp as transparency_bp
from service.http.web import bp as web_bp
from service.live.revocations import RevocationWatch
from service.runtime.logs import install as install_logs
from service.runtime.settings import Settings
from service.store.base import SqlStore

# the API's blueprints, each under /api/v1
API_BLUEPRINTS = (
    accounts_bp,
    languages_bp,
    signin_bp,
    credentials_bp,
    games_bp,
    bots_bp,
    streams_bp,
    views_bp,
    disputes_bp,
    chat_bp,
    proofs_bp,
    meta_bp,
    notes_bp,
    scores_bp,
    notation_bp,
    forks_bp,
    ratings_bp,
    vacation_bp,
    invitations_bp,
    rematch_bp,
    profiles_bp,
    queue_bp,
    leagues_bp,
)


def create_app(
    settings: Settings | None = None,
    *,
    store: SqlStore | None = None,
    clock: Callable[[], datetime] | None = None,
    sweep: bool = True,
    streams: int = EMBEDDED_STREAMS,
) -> Flask:
    """Build the services (``service.bootstrap``), start the embedded default's own
    background work unless ``sweep`` is off (a command that only reads, a test), and
    make the web app over them: what one serving process does."""
    services = build(settings or Settings.from_env(), store=store, clock=clock, streams=streams)
    if sweep:
        start_embedded_background(services)
    return web_app(services)


def web_app(services: Services) -> Flask:
    """The Flask app over built services: blueprints, error handling, logs, headers and
    metrics. It starts no thread and opens nothing."""
    settings, feed = services.settings, services.feed
    app = Flask(__name__, static_folder=None)  # the pages serve their own (service/http/web)
    app.json = OrjsonProvider(app)
    # a chunked body is read no further than one byte past the limit (then 413)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY + 1
    # '/games//stream' is no route (404 problem+json), not a redirect with an HTML page
    app.url_map.merge_slashes = False
    app.url_map.converters["game"] = GameIdConverter
    app.url_map.converters["dispute"] = DisputeIdConverter
    app.url_map.converters["fork"] = ForkIdConverter
    app.url_map.converters["version"] = VersionConverter
    app.extensions["tongiaki.services"] = services
    app.extensions["tongiaki.settings"] = settings
    app.extensions["tongiaki.readmodels"] = services.readmodels
    app.extensions["tongiaki.limits"] = RateLimits(settings)
    app.extensions["tongiaki.feed"] = feed
    app.extensions["tongiaki.games"] = services.games
    app.extensions["tongiaki.notify"] = services.notifier
    app.extensions["tongiaki.disputes"] = services.disputes
    app.extensions["tongiaki.identity"] = services.identity
    app.extensions["tongiaki.chat"] = services.chat
    app.extensions["tongiaki.notes"] = services.notes
    app.extensions["tongiaki.forks"] = services.forks
    app.extensions["tongiaki.vacations"] = services.vacations
    app.extensions["tongiaki.profiles"] = services.profiles
    app.extensions["tongiaki.languages"] = services.languages
    if feed is not None:  # live streams end with the credential they were opened with
        watch = RevocationWatch(feed, services.identity.sessions.ended_among)
        services.identity.when_revoked(watch.end)
        app.extensions["tongiaki.revocations"] = watch
    if services.clocks is not None:
        app.extensions["tongiaki.clocks"] = services.clocks

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
    for bp in API_BLUEPRINTS:
        app.register_blueprint(bp, url_prefix="/api/v1")
    app.after_request(set_new_binding)  # a browser bound to a sign-in it asked for

    app.register_blueprint(web_bp)
    install_language(app)
    app.register_blueprint(health_bp)
    app.register_blueprint(metrics_bp)
    app.register_blueprint(transparency_bp)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    return app
