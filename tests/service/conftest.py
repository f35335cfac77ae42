"""An app on each store: SQLite in a temporary folder, PostgreSQL in a fresh schema."""

from __future__ import annotations

import pytest

from service.app import create_app
from service.runtime.settings import Settings
from service.store.postgres import PostgresEventStore
from service.store.sqlite import SQLiteEventStore


@pytest.fixture(params=["sqlite", "postgres"])
def app(request, tmp_path):
    settings = Settings(data_dir=tmp_path, testing=True, snapshot_every=25, rate_limits={})
    if request.param == "sqlite":
        store = SQLiteEventStore(tmp_path / "t.db")
    else:
        _, url = request.getfixturevalue("pg_schema")
        store = PostgresEventStore(url, max_size=4)
    application = create_app(settings, store=store)
    yield application
    store.close()


@pytest.fixture
def client(app):
    return app.test_client()
