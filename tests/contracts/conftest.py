"""The event store contract runs against every adapter: SQLite and real PostgreSQL."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from service.store.postgres import PostgresEventStore
from service.store.sqlite import SQLiteEventStore


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
    """An upgraded, empty event store of each kind."""
    if request.param == "sqlite":
        s = SQLiteEventStore(tmp_path / "events.db")
    else:
        _, url = request.getfixturevalue("pg_schema")
        s = PostgresEventStore(url, max_size=12)
    s.upgrade()
    yield s
    s.close()
