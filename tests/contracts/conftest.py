"""The event store contract runs against every adapter: SQLite and real PostgreSQL."""

from __future__ import annotations

import pytest

from service.store.postgres import PostgresEventStore
from service.store.sqlite import SQLiteEventStore


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
