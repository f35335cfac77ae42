"""The URLs of the stores the service connects to, checked as settings read them
(``DATABASE_URL``, ``DATABASE_REPLICA_URL``, ``REDIS_URL``): what libpq or redis would
refuse only when connecting, or read otherwise than written, is a ``ConfigError`` at
once."""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

MEMORY = "memory:"  # DATABASE_URL of a service kept in its process's memory


class ConfigError(ValueError):
    """A setting that cannot be used; the message is one line for the operator."""


def redacted(url: str) -> str:
    """A URL without its password (in the user part or a password= argument)."""
    url = re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", url)
    return re.sub(r"(?i)(password=)[^&\s]*", r"\1***", url)


def database_url(raw: str) -> str:
    url = raw.strip()
    if not raw:
        return ""
    if not url:
        raise ConfigError("DATABASE_URL is blank: leave it unset for SQLite, or give a URL")
    if url != raw:
        raise ConfigError("DATABASE_URL has spaces around it: give the URL alone")
    if url == MEMORY:
        return url
    return _postgres_url(
        url,
        "DATABASE_URL",
        "DATABASE_URL must be empty (the embedded SQLite file), memory: (nothing kept) or a"
        f" PostgreSQL URL such as postgresql://user@host:5432/db, not {redacted(url)!r}",
    )


def replica_url(raw: str, primary: str) -> str:
    """``DATABASE_REPLICA_URL``: a PostgreSQL standby the read side reads from, beside a
    PostgreSQL ``DATABASE_URL`` (docs/replication.md)."""
    url = raw.strip()
    if not raw:
        return ""
    if not url:
        raise ConfigError(
            "DATABASE_REPLICA_URL is blank: leave it unset to read from DATABASE_URL alone,"
            " or give a standby's URL"
        )
    if url != raw:
        raise ConfigError("DATABASE_REPLICA_URL has spaces around it: give the URL alone")
    if not primary.startswith(("postgresql://", "postgres://")):
        raise ConfigError(
            "DATABASE_REPLICA_URL is a standby of a PostgreSQL DATABASE_URL: set DATABASE_URL"
            " to the primary first (the embedded SQLite file has no replicas)"
        )
    return _postgres_url(
        url,
        "DATABASE_REPLICA_URL",
        "DATABASE_REPLICA_URL must be a PostgreSQL URL such as"
        f" postgresql://user@standby:5432/db, not {redacted(url)!r}",
    )


def _postgres_url(url: str, name: str, wanted: str) -> str:
    from psycopg.conninfo import conninfo_to_dict

    try:
        readable = urlsplit(url).scheme in ("postgresql", "postgres") and conninfo_to_dict(url)
    except Exception:  # psycopg names its own parse errors; the line below says what is wanted
        readable = False
    if not readable:
        raise ConfigError(wanted)
    problem = _conninfo_problem(readable, writes=name == "DATABASE_URL")
    if any(c.isspace() for c in url):
        problem = "a URL holds no spaces"
    elif not readable.get("dbname"):
        problem = "it names no database (postgresql://user@host:5432/DATABASE)"
    if problem:
        raise ConfigError(f"{name}: {problem}, in {redacted(url)!r}")
    return url


SSLMODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
SESSION_ATTRS = ("any", "read-write", "read-only", "primary", "standby", "prefer-standby")


def _conninfo_problem(info: Mapping[str, object], writes: bool) -> str | None:
    """What libpq would refuse only when connecting: ports, sslmode, timeouts; and for
    the URL commands are written to (``writes``), several hosts without a way to find
    the primary among them."""
    ports = str(info.get("port") or "5432").split(",")
    for port in ports:
        if port and not (port.isdigit() and 1 <= int(port) <= 65_535):
            return f"port {port!r} is not a port number (1 to 65535)"
    hosts = str(info.get("host") or "").split(",")
    if len(ports) > 1 and len(ports) != len(hosts):  # libpq: one port for all, or one each
        return f"{len(hosts)} hosts and {len(ports)} ports: give one port, or one per host"
    attrs = info.get("target_session_attrs")
    if attrs is not None and attrs not in SESSION_ATTRS:
        return f"target_session_attrs {attrs!r} is not one of {', '.join(SESSION_ATTRS)}"
    if writes and len(hosts) > 1 and attrs not in ("read-write", "primary"):
        # libpq would take the first host that answers: after a failover, the standby
        return (
            f"{len(hosts)} hosts need target_session_attrs=read-write, so that the one that"
            " takes writes is found (docs/replication.md)"
        )
    sslmode = info.get("sslmode")
    if sslmode is not None and sslmode not in SSLMODES:
        return f"sslmode {sslmode!r} is not one of {', '.join(SSLMODES)}"
    timeout = info.get("connect_timeout")
    if timeout is not None and not str(timeout).isdigit():
        return f"connect_timeout {timeout!r} is not a whole number of seconds"
    return None


def redis_url(raw: str) -> str:
    url = raw.strip()
    if not raw:
        return ""
    if not url:
        raise ConfigError(
            "REDIS_URL is blank: leave it unset for inline projections, or give a URL"
        )
    wanted = (
        "REDIS_URL must be empty (projections inline) or a Redis URL such as"
        f" redis://host:6379/0, not {redacted(url)!r}"
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
            f"REDIS_URL: port 0 is not a port number (1 to 65535), in {redacted(url)!r}"
        )
    from redis import Redis
    from redis.connection import parse_url

    try:
        options = parse_url(url)  # the query arguments redis reads, with their types
        # a connection object is made, never connected: unknown arguments are refused
        Redis.from_url(url).connection_pool.make_connection()
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"REDIS_URL: {exc}, in {redacted(url)!r}") from exc
    problem = _redis_problem(options, path) or _redis_booleans(parts.query)
    if problem:
        raise ConfigError(f"REDIS_URL: {problem}, in {redacted(url)!r}")
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
