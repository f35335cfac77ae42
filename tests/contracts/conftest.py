"""The contract suite runs on every adapter: in memory, SQLite, PostgreSQL."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request, tmp_path):
    """An upgraded, empty event store of each kind (PostgreSQL in a fresh schema)."""
    from service.store.memory import MemoryEventStore
    from service.store.postgres import PostgresEventStore
    from service.store.sqlite import SQLiteEventStore

    if request.param == "memory":
        s = MemoryEventStore()
    elif request.param == "sqlite":
        s = SQLiteEventStore(tmp_path / "events.db")
    else:
        _, url = request.getfixturevalue("pg_schema")
        s = PostgresEventStore(url, max_size=12)  # the race test runs 8 writers
    s.upgrade()
    yield s
    s.close()
