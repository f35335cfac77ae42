"""Settings: the only reader of ``os.environ`` (style.md §9).

Every value is checked when read: a mistake is a ``ConfigError`` naming the
variable and what it accepts, so a service never starts on a setting it
misread (a bad ``DATABASE_URL`` used to fall back to SQLite in silence).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from domain.bots import budget_of
from service.runtime.urls import MEMORY
from service.runtime.urls import ConfigError as ConfigError
from service.runtime.urls import database_url as _database_url
from service.runtime.urls import redacted as _redacted
from service.runtime.urls import redis_url as _redis_url
from service.runtime.urls import replica_url as _replica_url

# what the rate limits guard, and their defaults (``limits`` notation, "; " between)
RATE_LIMITS: dict[str, str] = {
    "accounts": "10/minute; 100/day",  # sign-ups per client address
    "games": "30/hour",  # games opened per account
    "leagues": "5/hour; 20/day",  # leagues created per account (each opens many games)
    "commands": "20/second; 600/minute",  # commands, seats and starts per account
    "unauthorised": "30/second",  # requests with a bad token, per client address
    "sign_in": "20/minute; 200/day",  # links asked, links used, passkey prompts, per client address
    "sign_in_address": "3/10minutes; 20/day",  # sign-in links mailed per address
}
OFF = "off"
SEAT_PLAYOUTS = 2000  # the most iterations a decision of the seat's bot (TONGIAKI_SEAT_BOT)


def _integer(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name, "") or str(default)
    if not re.fullmatch(r"-?\d{1,10}", raw) or not low <= int(raw) <= high:
        raise ConfigError(f"{name} must be a whole number from {low} to {high}, not {raw!r}")
    return int(raw)


NUMBER = re.compile(r"\d{1,6}(\.\d{1,6})?")  # seconds as settings write them: no sign, no spaces


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name, "") or str(default)
    value = float(raw) if NUMBER.fullmatch(raw) else -1.0
    if not 0 < value <= 86_400:
        raise ConfigError(f"{name} must be a number of seconds above 0, not {raw!r}")
    return value


def _log_format(raw: str) -> str:
    value = raw.strip().lower()
    if value not in ("", "json", "text"):
        raise ConfigError(f"TONGIAKI_LOG_FORMAT must be json or text, not {raw!r}")
    return value


def memory_requested(env: Mapping[str, str] | None = None) -> bool:
    """Whether ``DATABASE_URL`` asks for the service in memory: read before anything
    else (``tongiaki serve --workers`` refuses it before it patches the standard library
    for gevent)."""
    return (os.environ if env is None else env).get("DATABASE_URL", "").strip() == MEMORY


def parse_rate_limits(raw: str) -> dict[str, str]:
    """``TONGIAKI_RATE_LIMITS``: "off", or overrides such as "commands=5/second;
    games=10/hour" (several limits of one kind joined by ``,``). Checked here."""
    from limits import parse_many

    text = raw.strip()
    if text.lower() == OFF:
        return {}
    chosen = dict(RATE_LIMITS)
    for part in filter(None, (p.strip() for p in text.split(";"))):
        kind, _, spec = part.partition("=")
        kind = kind.strip()
        if kind not in RATE_LIMITS or not spec.strip():
            raise ConfigError(
                f"TONGIAKI_RATE_LIMITS: {part!r} is not KIND=LIMITS with KIND one of"
                f" {', '.join(RATE_LIMITS)} (or the whole value 'off')"
            )
        spec = "; ".join(s.strip() for s in spec.split(","))
        try:
            parsed = parse_many(spec)
        except ValueError as exc:
            raise ConfigError(f"TONGIAKI_RATE_LIMITS: {spec!r} is not a rate limit") from exc
        for limit in parsed:
            if not 1 <= limit.amount <= 1_000_000 or not 1 <= limit.multiples <= 1_000_000:
                raise ConfigError(
                    f"TONGIAKI_RATE_LIMITS: {spec!r}: each limit allows 1 to 1,000,000 requests"
                    " per 1 to 1,000,000 periods (use 'off' for no limits)"
                )
        chosen[kind] = spec
    return chosen


def _smtp_url(raw: str) -> str:
    url = raw.strip()
    if not url:
        return ""
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        parts = urlsplit("bad://")
    if parts.query not in ("", "starttls=0", "starttls=1") or parts.fragment:
        raise ConfigError(
            f"SMTP_URL takes no arguments but ?starttls=1 (or 0), not {parts.query!r}"
        )
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ConfigError(
            f"SMTP_URL must be smtp://[user:password@]host[:port] or smtps://…,"
            f" not {_redacted(url)!r}"
        )
    return url


def _mail_from(raw: str) -> str:
    value = raw.strip() or "tongiaki@localhost"
    if not re.fullmatch(r"[^@\s<>]{1,64}@[A-Za-z0-9.-]{1,190}", value):
        raise ConfigError(f"TONGIAKI_MAIL_FROM must be an address like a@b.c, not {raw!r}")
    return value


def _public_url(raw: str) -> str:
    """Where players reach the service (links in reminders): http(s)://host[:port][/path]."""
    if not raw:
        return ""
    parts = urlsplit(raw)
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        parts = urlsplit("bad://")
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.query
        or parts.fragment
        or parts.username
        or any(c.isspace() for c in raw)
    ):
        raise ConfigError(
            f"TONGIAKI_PUBLIC_URL must be where players reach the service, like"
            f" https://tongiaki.example.org, not {raw!r}"
        )
    return raw.rstrip("/")


def _seat_bot(raw: str) -> str:
    """``TONGIAKI_SEAT_BOT`` (docs/clocks.md): greedy (the default), random, or the search
    at a level or ``mcts:N`` (at most ``SEAT_PLAYOUTS`` iterations and a second a move)."""
    if raw != raw.strip():
        raise ConfigError(f"TONGIAKI_SEAT_BOT: {raw!r} has spaces around it")
    name = raw or "greedy"
    try:
        playouts = budget_of(name)
    except ValueError as exc:
        raise ConfigError(
            f"TONGIAKI_SEAT_BOT: {name[:40]!r} is not greedy, random, mcts-easy, mcts,"
            f" mcts-strong or mcts:N (N at most {SEAT_PLAYOUTS:,})"
        ) from exc
    if playouts is not None and playouts > SEAT_PLAYOUTS:
        raise ConfigError(
            f"TONGIAKI_SEAT_BOT: {name} searches {playouts:,} iterations a decision; a seat's"
            f" bot searches at most {SEAT_PLAYOUTS:,}"
        )
    return name


def _flag(env: Mapping[str, str], name: str) -> bool:
    raw = env.get(name, "").strip()
    if raw not in ("", "0", "1"):
        raise ConfigError(f"{name} must be 1 (on) or 0 (off), not {raw!r}")
    return raw == "1"


def _log_name(raw: str) -> str:
    name = raw.strip()
    if name and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/:-]{0,99}", name):
        raise ConfigError(
            "TONGIAKI_LOG_NAME must be 1 to 100 letters, digits or ._/:- (the log's origin,"
            f" e.g. games.example.org/log), not {name!r}"
        )
    return name


def _log_settings(e: Mapping[str, str], database_url: str) -> dict[str, Any]:
    """The transparency log's settings (service.transparency)."""
    key = e.get("TONGIAKI_LOG_KEY", "").strip()
    if database_url == MEMORY and key:
        raise ConfigError(
            "DATABASE_URL=memory: keeps nothing: it makes a log key of its own, and a real"
            " log's key (TONGIAKI_LOG_KEY) would sign a second history under that log's"
            " name (unset one of the two)"
        )
    return {
        "log_key": key,
        "log_name": _log_name(e.get("TONGIAKI_LOG_NAME", "")),
        "log_every": _seconds(e, "TONGIAKI_LOG_EVERY", 0.25),
        "witnesses": _witnesses(e.get("TONGIAKI_WITNESSES", "")),
    }


def _witnesses(raw: str) -> tuple[str, ...]:
    from urllib.parse import urlsplit

    if raw != raw.strip():
        raise ConfigError("TONGIAKI_WITNESSES has spaces around it: remove them")
    urls = tuple(u.rstrip("/") for u in raw.split(",") if u)
    if len(urls) > 16:
        raise ConfigError(f"TONGIAKI_WITNESSES names at most 16 witnesses, not {len(urls)}")
    for url in urls:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as exc:
            raise ConfigError(f"TONGIAKI_WITNESSES: {url!r} is not a URL: {exc}") from exc
        if (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.username is not None
            or parts.query
            or parts.fragment
            or url != url.strip()
            or port == 0
        ):
            raise ConfigError(
                f"TONGIAKI_WITNESSES: {url!r} is not a witness's URL (http:// or https://, a host,"
                " a port from 1 to 65535 and a path if any; no user, query or fragment), e.g."
                " http://witness.example:8700"
            )
    return urls


def _change_feed(raw: str, redis_url: str) -> str:
    value = raw or "listen"
    if value not in ("listen", "redis"):
        raise ConfigError(f"TONGIAKI_CHANGE_FEED must be listen or redis, not {raw!r}")
    if value == "redis" and not redis_url:
        raise ConfigError("TONGIAKI_CHANGE_FEED=redis needs REDIS_URL (the channel is Redis's)")
    return value


def _backoff(raw: str) -> tuple[float, ...]:
    if not raw:
        return (5.0, 30.0, 120.0, 600.0, 3600.0)
    parts = raw.split(",")
    delays = tuple(float(p) for p in parts) if all(NUMBER.fullmatch(p) for p in parts) else ()
    if not 1 <= len(delays) <= 20 or not all(0 < d <= 86_400 for d in delays):
        raise ConfigError(
            "TONGIAKI_NOTIFY_BACKOFF must be 1 to 20 delays in seconds between retries,"
            f" comma-separated (e.g. 5,30,120), not {raw!r}"
        )
    return delays


@dataclass(frozen=True)
class Settings:
    """How the service runs. Everything else receives this object."""

    database_url: str = ""  # empty: SQLite file under data_dir
    # a standby the read side reads from (docs/replication.md); empty: database_url's
    database_replica_url: str = ""
    redis_url: str = ""  # empty: projections run inline
    queue: str = "tongiaki"  # the rq queue of projection jobs
    sweep_every: float = 30.0  # seconds between sweeps for lagging games
    league_every: float = 5.0  # seconds between looks for leagues' rounds to open (L7)
    data_dir: Path = Path("var")
    testing: bool = False  # allows fixed tile orders (never in production)
    snapshot_every: int = 100
    dispute_window: int = 7 * 86_400  # seconds after its end a game can be disputed (D1)
    vacation_days: int = 30  # each account's vacation days a calendar year (V1)
    ready_max_lag: int = 1000  # events a read model may be behind while /readyz says ready
    max_streams: int = 0  # live streams per process; 0: the server's default (service.app)
    streams_per_client: int = 16  # live streams one client address holds per process; 0: any
    max_connections: int = (
        4096  # connections the embedded server holds at once (service.servers.embedded)
    )
    connections_per_client: int = 256  # of them from one client address; 0: any
    change_feed: str = "listen"  # how streams hear of commits elsewhere: listen or redis
    feed_poll: float = 2.0  # seconds between the change feed's safety polls (service.live.feed)
    stream_heartbeat: float = 15.0  # seconds of silence before a stream's heartbeat event
    proxies: int = 0  # reverse proxies in front whose X-Forwarded-For is trusted
    log_format: str = ""  # json or text; empty: json under gunicorn and workers, else text
    # smtp://[user:password@]host[:port] or smtps://…; "": no mail (kept out of reprs)
    smtp_url: str = field(default="", repr=False)
    mail_from: str = "tongiaki@localhost"  # the From of notification mails
    public_url: str = ""  # where players reach the service: links in reminders
    webhooks_private: bool = False  # let webhooks reach loopback and private addresses
    notify_backoff: tuple[float, ...] = (5.0, 30.0, 120.0, 600.0, 3600.0)  # retry delays
    remind_before: int = 3600  # seconds before a deadline that "deadline_soon" is sent
    remind_quiet: int = 15  # minutes: at most one "your move" message per quiet period
    seat_bot: str = "greedy"  # the bot that plays timed-out, absent, resigned seats (C3-C6)
    host: str = "127.0.0.1"
    port: int = 8000
    # the transparency log (service.transparency): its signer key's file; "": made under
    # data_dir by the embedded default, required on PostgreSQL
    log_key: str = ""
    log_name: str = ""  # the name a new embedded key gets; "": from public_url
    log_every: float = 0.25  # seconds between integrations (the merge delay is 1 s)
    witnesses: tuple[str, ...] = ()  # URLs of the witnesses each checkpoint is sent to
    # kind → limits; empty: no rate limits (TONGIAKI_RATE_LIMITS=off)
    rate_limits: dict[str, str] = field(default_factory=lambda: dict(RATE_LIMITS), hash=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``DATABASE_URL``, ``REDIS_URL``, ``TONGIAKI_*`` variables.

        Raises ``ConfigError`` (one line, naming the variable) for any value it
        cannot use.
        """
        e = os.environ if env is None else env
        queue = e.get("TONGIAKI_QUEUE", "").strip() or "tongiaki"
        if not re.fullmatch(r"[A-Za-z0-9_.:-]{1,64}", queue):
            raise ConfigError(
                f"TONGIAKI_QUEUE must be 1 to 64 letters, digits or _.:-, not {queue!r}"
            )
        testing = e.get("TONGIAKI_TESTING", "").strip()
        if testing not in ("", "0", "1"):
            raise ConfigError(f"TONGIAKI_TESTING must be 1 (on) or 0 (off), not {testing!r}")
        host = e.get("TONGIAKI_HOST", "").strip() or "127.0.0.1"
        database_url = _database_url(e.get("DATABASE_URL", ""))
        redis_url = _redis_url(e.get("REDIS_URL", ""))
        if database_url == MEMORY and redis_url:
            raise ConfigError(
                "DATABASE_URL=memory: keeps everything in one process: REDIS_URL would send"
                " its read models to a worker that cannot see them (unset one of the two)"
            )
        return cls(
            database_url=database_url,
            database_replica_url=_replica_url(e.get("DATABASE_REPLICA_URL", ""), database_url),
            change_feed=_change_feed(e.get("TONGIAKI_CHANGE_FEED", ""), redis_url),
            redis_url=redis_url,
            queue=queue,
            sweep_every=_seconds(e, "TONGIAKI_SWEEP_EVERY", 30.0),
            league_every=_seconds(e, "TONGIAKI_LEAGUE_EVERY", 5.0),
            data_dir=Path(e.get("TONGIAKI_DATA_DIR", "").strip() or "var"),
            testing=testing == "1",
            snapshot_every=_integer(e, "TONGIAKI_SNAPSHOT_EVERY", 100, 1, 1_000_000),
            ready_max_lag=_integer(e, "TONGIAKI_READY_MAX_LAG", 1000, 0, 1_000_000_000),
            max_streams=_integer(e, "TONGIAKI_MAX_STREAMS", 0, 0, 1_000_000),
            streams_per_client=_integer(e, "TONGIAKI_STREAMS_PER_CLIENT", 16, 0, 1_000_000),
            max_connections=_integer(e, "TONGIAKI_MAX_CONNECTIONS", 4096, 1, 1_000_000),
            connections_per_client=_integer(
                e, "TONGIAKI_CONNECTIONS_PER_CLIENT", 256, 0, 1_000_000
            ),
            feed_poll=_seconds(e, "TONGIAKI_FEED_POLL", 2.0),
            stream_heartbeat=_seconds(e, "TONGIAKI_STREAM_HEARTBEAT", 15.0),
            log_format=_log_format(e.get("TONGIAKI_LOG_FORMAT", "")),
            proxies=_integer(e, "TONGIAKI_PROXIES", 0, 0, 5),
            dispute_window=_integer(e, "TONGIAKI_DISPUTE_WINDOW", 7 * 86_400, 0, 366 * 86_400),
            vacation_days=_integer(e, "TONGIAKI_VACATION_DAYS", 30, 0, 366),
            smtp_url=_smtp_url(e.get("SMTP_URL", "")),
            mail_from=_mail_from(e.get("TONGIAKI_MAIL_FROM", "")),
            public_url=_public_url(e.get("TONGIAKI_PUBLIC_URL", "")),
            webhooks_private=_flag(e, "TONGIAKI_WEBHOOKS_PRIVATE"),
            notify_backoff=_backoff(e.get("TONGIAKI_NOTIFY_BACKOFF", "")),
            remind_before=_integer(e, "TONGIAKI_REMIND_BEFORE", 3600, 60, 7 * 86_400),
            remind_quiet=_integer(e, "TONGIAKI_REMIND_QUIET", 15, 1, 1440),
            seat_bot=_seat_bot(e.get("TONGIAKI_SEAT_BOT", "")),
            host=host,
            port=_integer(e, "TONGIAKI_PORT", 8000, 1, 65_535),
            rate_limits=parse_rate_limits(e.get("TONGIAKI_RATE_LIMITS", "")),
            **_log_settings(e, database_url),
        )

    @property
    def sqlite_path(self) -> Path:
        """The embedded database file."""
        return self.data_dir / "tongiaki.db"

    @property
    def in_memory(self) -> bool:
        """Whether everything is kept in this process's memory (``DATABASE_URL=memory:``)."""
        return self.database_url == MEMORY

    @property
    def uses_postgres(self) -> bool:
        """Whether ``database_url`` names PostgreSQL."""
        return self.database_url.startswith(("postgresql://", "postgres://"))
