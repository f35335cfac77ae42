"""An app on each store: SQLite in a temporary folder, PostgreSQL in a fresh schema (and,
for the tests that ask, the in-memory store)."""

from __future__ import annotations

import pytest

from service.app import create_app
from service.runtime.settings import Settings
from service.store.in_memory import InMemoryStore
from service.store.postgres import PostgresEventStore
from service.store.sqlite import SQLiteEventStore


def app_on(kind, request, tmp_path):
    """The app with its test settings on a store: ``sqlite`` (a file), ``postgres`` (a
    fresh schema) or ``memory`` (the whole service in this process's memory)."""
    settings = Settings(data_dir=tmp_path, testing=True, snapshot_every=25, rate_limits={})
    if kind == "sqlite":
        store = SQLiteEventStore(tmp_path / "t.db")
    elif kind == "memory":
        store = InMemoryStore()
    else:
        _, url = request.getfixturevalue("pg_schema")
        store = PostgresEventStore(url, max_size=4)
    return create_app(settings, store=store), store


def app_fixture(*kinds):
    """An ``app`` fixture on each of the stores ``kinds`` (see ``app_on``)."""

    @pytest.fixture(params=list(kinds))
    def app(request, tmp_path):
        application, store = app_on(request.param, request, tmp_path)
        yield application
        store.close()

    return app


app = app_fixture("sqlite", "postgres")


@pytest.fixture
def client(app):
    return app.test_client()
