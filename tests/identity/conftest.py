"""Accounts people keep: an app on each store with its sign-in mails caught."""

from __future__ import annotations

import re
import threading
from email.message import EmailMessage

import pytest

from tests.service.conftest import app_on


class Inbox:
    """The sign-in mails an app sent, by address."""

    def __init__(self) -> None:
        self.mails: list[EmailMessage] = []
        self.lock = threading.Lock()

    def send(self, _url: str, message: EmailMessage) -> tuple[bool, str]:
        with self.lock:
            self.mails.append(message)
        return True, "sent"

    def last(self, address: str) -> str:
        with self.lock:
            found = [m for m in self.mails if m["To"] == address]
        assert found, f"no mail to {address}"
        return found[-1].get_content()

    def link(self, address: str) -> str:
        """The secret of the last link mailed to ``address``."""
        match = re.search(r"/sign-in/link#([A-Za-z0-9_-]+)", self.last(address))
        assert match, self.last(address)
        return match[1]


def catch_mail(app) -> Inbox:
    inbox = Inbox()
    mailer = app.extensions["tongiaki.identity"].mailer
    mailer.console = False
    mailer.smtp_url = "smtp://inbox.test"
    mailer._send = inbox.send
    inbox.flush = mailer.flush  # type: ignore[attr-defined]
    return inbox


@pytest.fixture(params=["sqlite", "postgres"])
def app(request, tmp_path):
    """The app on SQLite and PostgreSQL (test_sessions.py adds the in-memory store)."""
    application, store = app_on(request.param, request, tmp_path)
    yield application
    store.close()


@pytest.fixture
def inbox(app) -> Inbox:
    return catch_mail(app)


@pytest.fixture
def client(app):
    return app.test_client()
