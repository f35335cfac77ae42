"""Profiles and the queue through the API: an app on SQLite, PostgreSQL and the
in-memory store (``tests.service.conftest``)."""

from __future__ import annotations

import pytest

from tests.service.conftest import app_fixture

app = app_fixture("sqlite", "postgres", "memory")


@pytest.fixture
def client(app):
    return app.test_client()
