"""Shared test configuration.

Tests that need PostgreSQL or Redis use the ``postgres_url`` / ``redis_url``
fixtures. They skip when a service is missing, except when
``TONGIAKI_REQUIRE_SERVICES=1`` (set by ``.ci/run``): then they fail.
"""

from __future__ import annotations

import os
import socket
import uuid

import psycopg
import pytest

POSTGRES_URL = os.environ.get(
    "TONGIAKI_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test"
)
REDIS_URL = os.environ.get("TONGIAKI_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def _need(service: str, host: str, port: int) -> None:
    if _reachable(host, port):
        return
    message = f"{service} is not reachable at {host}:{port}"
    if os.environ.get("TONGIAKI_REQUIRE_SERVICES") == "1":
        pytest.fail(message + " and TONGIAKI_REQUIRE_SERVICES=1")
    pytest.skip(message)


@pytest.fixture(scope="session")
def postgres_url() -> str:
    _need("PostgreSQL", "127.0.0.1", 5432)
    return POSTGRES_URL


@pytest.fixture(scope="session")
def redis_url() -> str:
    _need("Redis", "127.0.0.1", 6379)
    return REDIS_URL


@pytest.fixture
def pg_schema(postgres_url):
    """A fresh PostgreSQL schema for one test, dropped afterwards."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    sep = "&" if "?" in postgres_url else "?"
    yield name, f"{postgres_url}{sep}options=-csearch_path%3D{name}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {name} CASCADE")


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
