"""Shared test configuration: where the tests find PostgreSQL and Redis.

- ``TONGIAKI_TEST_DATABASE_URL`` (default ``postgresql://postgres@127.0.0.1:5432/test``):
  every test that needs PostgreSQL works in a schema of its own there, dropped
  afterwards. The database is created if the server lacks it. Under pytest-xdist
  (``-n N``, as the README's test command runs), worker ``gwK`` works in the database
  of that name with ``_gwK`` appended (``test_gw0``, ...), created likewise.
- ``TONGIAKI_TEST_REDIS_URL`` (default ``redis://127.0.0.1:6379/12``): the tests use
  that one Redis database (never another, never a server-wide command) and empty
  it when they finish; under ``-n N``, worker ``gwK`` uses the K-th database after it
  (12, 13, 14, 15 for ``-n 4`` by default).
- A few tests start a Redis of their own (to stop or hang it): they need the
  ``redis-server`` program.
- ``TONGIAKI_REQUIRE_SERVICES=1`` (set by ``.ci/run``): a missing service fails the
  tests that need it, with one line saying what is missing; otherwise they skip.
- The transparency log's key: a process on PostgreSQL refuses to start without one, so
  the tests write one (``TONGIAKI_LOG_KEY``, for this process and every process it
  starts); a test of the refusal removes it.
- Every JSON answer the app makes in a test is dumped twice, by the response plan and by
  marshmallow, and must come out the same (``service.http.api.replies.CROSS_CHECK``).
"""

from __future__ import annotations

import os
import uuid

import psycopg
import pytest
from psycopg import sql

from service.http.api import replies

replies.CROSS_CHECK = True


def _test_log_key() -> str:
    """A log signer key in a file of this test run (made once per process)."""
    import atexit
    import shutil
    import tempfile

    from service.transparency.notes import Signer

    folder = tempfile.mkdtemp(prefix="tongiaki-test-key-")
    atexit.register(shutil.rmtree, folder, True)
    path = os.path.join(folder, "log.key")
    with open(path, "w", encoding="ascii") as handle:
        handle.write(Signer.generate("test.tongiaki/log").text + "\n")
    os.chmod(path, 0o600)
    return path


os.environ.setdefault("TONGIAKI_LOG_KEY", _test_log_key())

# pytest-xdist's worker ("gw0", "gw1", ...; empty in a run without -n): each worker works
# in a PostgreSQL database and a Redis database of its own, so that tests that watch a
# whole database (NOTIFY, a flush at the session's end, Redis keys without a test's
# prefix) never see another worker's.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
BASE_POSTGRES_URL = os.environ.get(
    "TONGIAKI_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test"
)
BASE_REDIS_URL = os.environ.get("TONGIAKI_TEST_REDIS_URL", "redis://127.0.0.1:6379/12")


def worker_number(worker: str) -> int:
    """0 for "gw0" (and for a run without workers), 1 for "gw1", ..."""
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0


def worker_database_url(url: str, worker: str) -> str:
    """The database of a worker: the URL's database name with ``_gwN`` appended (the
    URL itself without workers)."""
    from urllib.parse import urlsplit, urlunsplit

    if not worker:
        return url
    parts = urlsplit(url)
    name = parts.path.lstrip("/") or "test"
    return urlunsplit(parts._replace(path=f"/{name}_{worker}"))


def worker_redis_url(url: str, worker: str) -> str:
    """The Redis database of a worker: the URL's number plus the worker's (``gw0`` the
    URL's own, ``gw1`` the next, ...)."""
    from urllib.parse import urlsplit, urlunsplit

    if not worker:
        return url
    parts = urlsplit(url)
    first = int(parts.path.lstrip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{first + worker_number(worker)}"))


POSTGRES_URL = worker_database_url(BASE_POSTGRES_URL, WORKER)
REDIS_URL = worker_redis_url(BASE_REDIS_URL, WORKER)


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _missing(message: str) -> None:
    message = _one_line(message)
    if os.environ.get("TONGIAKI_REQUIRE_SERVICES") == "1":
        pytest.fail(message + " (TONGIAKI_REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(message)


def _ensure_database(url: str) -> str | None:
    """Connect to the test database, creating it if the server lacks it; the problem, if any."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    try:
        psycopg.connect(url, connect_timeout=3).close()
        return None
    except psycopg.OperationalError as exc:
        if "does not exist" not in str(exc):
            return f"PostgreSQL is not reachable at {url}: {_one_line(exc)}"
    name = conninfo_to_dict(url).get("dbname", "test")
    try:
        with psycopg.connect(
            make_conninfo(url, dbname="postgres"), autocommit=True, connect_timeout=3
        ) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.Error as exc:
        return f"the test database {name!r} does not exist and cannot be created: {exc}"
    return None


def pytest_report_header(config: pytest.Config) -> list[str]:
    """One line on what the service tests will find (they skip or fail without it)."""
    from redis import Redis
    from redis.exceptions import RedisError

    found = []
    problem = _ensure_database(POSTGRES_URL)
    found.append(f"PostgreSQL {'ok' if not problem else 'MISSING'} ({POSTGRES_URL})")
    if config.getoption("numprocesses", None):
        found.append("each pytest-xdist worker gwK in database <name>_gwK, Redis db + K")
    try:
        Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
        found.append(f"Redis ok ({REDIS_URL})")
    except RedisError:
        found.append(f"Redis MISSING ({REDIS_URL})")
    chromium = os.environ.get("TONGIAKI_CHROMIUM", "/usr/bin/chromium")
    found.append(f"Chromium {'ok' if os.path.exists(chromium) else 'MISSING'} ({chromium})")
    return ["services: " + "; ".join(found)]


# Folders whose tests wait on real servers, clocks and browsers (a few long tests a
# module): under pytest-xdist their modules are handed out first (pyproject.toml's
# ``--no-loadscope-reorder`` keeps this order), so that the run does not end on one of
# them started last while the other workers idle.
WAITING_FIRST = ("tests/system/", "tests/e2e/")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist, the modules of ``WAITING_FIRST`` first (each worker collects
    alike, so the order is the same on all); a run without workers keeps its order."""
    if WORKER:
        items.sort(key=lambda item: not item.nodeid.startswith(WAITING_FIRST))


@pytest.fixture(scope="session")
def postgres_url() -> str:
    problem = _ensure_database(POSTGRES_URL)
    if problem:
        _missing(problem + "; set TONGIAKI_TEST_DATABASE_URL")
    return POSTGRES_URL


@pytest.fixture(scope="session")
def redis_url() -> str:
    from redis import Redis
    from redis.exceptions import RedisError

    client = Redis.from_url(REDIS_URL, socket_connect_timeout=3, socket_timeout=3)
    try:
        client.ping()
    except RedisError as exc:
        _missing(
            f"Redis is not reachable at {REDIS_URL}: {exc}; set TONGIAKI_TEST_REDIS_URL"
            " (with pytest -n N, its database and the N - 1 after it are used)"
        )
    yield REDIS_URL
    client.flushdb()  # this database only: the tests' own, nothing else on the server
    client.close()


@pytest.fixture(scope="session")
def redis_server() -> str:
    """The ``redis-server`` program, for tests that start (and stop, or hang) a Redis of
    their own (Debian: ``apt install redis-server``)."""
    import shutil

    found = shutil.which("redis-server")
    if found is None:
        _missing("the redis-server program is not installed (apt install redis-server)")
    return str(found)


@pytest.fixture
def pg_schema(postgres_url):
    """A fresh PostgreSQL schema for one test, dropped afterwards."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    sep = "&" if "?" in postgres_url else "?"
    yield name, f"{postgres_url}{sep}options=-csearch_path%3D{name}"
    drop_schema(postgres_url, name)


def drop_schema(postgres_url: str, name: str) -> None:
    """Drop a test's schema. A background thread of the test's app may still be in a
    transaction on its tables as the test ends (a deliverer's round, a sweep): the drop
    may then deadlock with it, once; it is tried again."""
    import time

    for attempt in range(10):
        try:
            with psycopg.connect(postgres_url, autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
            return
        except (psycopg.errors.DeadlockDetected, psycopg.errors.LockNotAvailable):
            if attempt == 9:
                raise
            time.sleep(0.2)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request, tmp_path):
    """An upgraded, empty event store of each kind (PostgreSQL in a fresh schema)."""
    from service.store.postgres import PostgresEventStore
    from service.store.sqlite import SQLiteEventStore

    if request.param == "sqlite":
        s = SQLiteEventStore(tmp_path / "events.db")
    else:
        _, url = request.getfixturevalue("pg_schema")
        s = PostgresEventStore(url, max_size=12)  # the race test runs 8 writers
    s.upgrade()
    yield s
    s.close()
