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


class ConfigError(ValueError):
    """A setting that cannot be used; the message is one line for the operator."""


def _redacted(url: str) -> str:
    """A URL without its password (in the user part or a password= argument)."""
    url = re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", url)
    return re.sub(r"(?i)(password=)[^&\s]*", r"\1***", url)


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


MEMORY = "memory:"  # DATABASE_URL of a service kept in its process's memory


def memory_requested(env: Mapping[str, str] | None = None) -> bool:
    """Whether ``DATABASE_URL`` asks for the service in memory: read before anything
    else (``tongiaki serve --workers`` refuses it before it patches the standard library
    for gevent)."""
    return (os.environ if env is None else env).get("DATABASE_URL", "").strip() == MEMORY


def _database_url(raw: str) -> str:
    url = raw.strip()
    if not raw:
        return ""
    if not url:
        raise ConfigError("DATABASE_URL is blank: leave it unset for SQLite, or give a URL")
    if url != raw:
        raise ConfigError("DATABASE_URL has spaces around it: give the URL alone")
    if url == MEMORY:
        return url
    from psycopg.conninfo import conninfo_to_dict

    try:
        readable = urlsplit(url).scheme in ("postgresql", "postgres") and conninfo_to_dict(url)
    except Exception:  # psycopg names its own parse errors; the line below says what is wanted
        readable = False
    if not readable:
        raise ConfigError(
            "DATABASE_URL must be empty (the embedded SQLite file), memory: (nothing kept) or a"
            f" PostgreSQL URL such as postgresql://user@host:5432/db, not {_redacted(url)!r}"
        )
    problem = _conninfo_problem(readable)
    if any(c.isspace() for c in url):
        problem = "a URL holds no spaces"
    elif not readable.get("dbname"):
        problem = "it names no database (postgresql://user@host:5432/DATABASE)"
    if problem:
        raise ConfigError(f"DATABASE_URL: {problem}, in {_redacted(url)!r}")
    return url


SSLMODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")


def _conninfo_problem(info: Mapping[str, object]) -> str | None:
    """What libpq would refuse only when connecting: ports, sslmode, timeouts."""
    for port in str(info.get("port") or "5432").split(","):
        if not (port.isdigit() and 1 <= int(port) <= 65_535):
            return f"port {port!r} is not a port number (1 to 65535)"
    sslmode = info.get("sslmode")
    if sslmode is not None and sslmode not in SSLMODES:
        return f"sslmode {sslmode!r} is not one of {', '.join(SSLMODES)}"
    timeout = info.get("connect_timeout")
    if timeout is not None and not str(timeout).isdigit():
        return f"connect_timeout {timeout!r} is not a whole number of seconds"
    return None


def _redis_url(raw: str) -> str:
    url = raw.strip()
    if not raw:
        return ""
    if not url:
        raise ConfigError(
            "REDIS_URL is blank: leave it unset for inline projections, or give a URL"
        )
    wanted = (
        "REDIS_URL must be empty (projections inline) or a Redis URL such as"
        f" redis://host:6379/0, not {_redacted(url)!r}"
    )
    try:
        parts = urlsplit(url)
        port = parts.port  # ValueError when it is not a number from 0 to 65535
    except ValueError as exc:
        raise ConfigError(wanted) from exc
    ok = (parts.scheme in ("redis", "rediss") and parts.hostname) or parts.scheme == "unix"
    path = parts.path.strip("/")
    if not ok or (parts.scheme != "unix" and path and not path.isdigit()):
        raise ConfigError(wanted)
    if port == 0:
        raise ConfigError(
            f"REDIS_URL: port 0 is not a port number (1 to 65535), in {_redacted(url)!r}"
        )
    from redis import Redis
    from redis.connection import parse_url

    try:
        options = parse_url(url)  # the query arguments redis reads, with their types
        # a connection object is made, never connected: unknown arguments are refused
        Redis.from_url(url).connection_pool.make_connection()
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"REDIS_URL: {exc}, in {_redacted(url)!r}") from exc
    problem = _redis_problem(options, path) or _redis_booleans(parts.query)
    if problem:
        raise ConfigError(f"REDIS_URL: {problem}, in {_redacted(url)!r}")
    return url


REDIS_SECONDS = ("socket_timeout", "socket_connect_timeout", "health_check_interval")


def _redis_problem(options: Mapping[str, object], path: str) -> str | None:
    """What redis would only find out when connecting, or would read otherwise than
    written: negative timeouts, a pool of no connections, two database numbers."""
    for name in REDIS_SECONDS:
        value = options.get(name)
        if isinstance(value, int | float) and value < 0:
            return f"{name} is a number of seconds from 0, not {value}"
    pool = options.get("max_connections")
    if isinstance(pool, int) and pool < 1:
        return f"max_connections is at least 1, not {pool}"
    db = options.get("db")
    if path and db is not None and str(db) != path:
        return f"the path names database {path} and db= names {db}: name it once"
    return None


def _redis_booleans(query: str) -> str | None:
    """A yes/no argument written otherwise than true/false (redis reads "maybe" as yes)."""
    from urllib.parse import parse_qsl

    for name, value in parse_qsl(query, keep_blank_values=True):
        if name in REDIS_BOOLEANS and value.lower() not in ("true", "false", "yes", "no", "1", "0"):
            return f"{name} is true or false, not {value!r}"
    return None


REDIS_BOOLEANS = ("retry_on_timeout", "ssl_check_hostname", "socket_keepalive")


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
