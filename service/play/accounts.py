"""Accounts and bearer tokens: random, shown once, stored only as SHA-256."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import datetime

from service.errors import BadRequest
from service.play.text import has_visible, text_problem
from service.store.base import Account, EventStore

MAX_NAME = 64


def token_hash(token: str) -> str:
    """What the store keeps of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_account(
    store: EventStore, name: str, now: datetime, kind: str = "player"
) -> tuple[Account, str]:
    """A new account and its token (the only time the token is ever seen)."""
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise BadRequest("bad_name", f"a name has 1 to {MAX_NAME} characters, not only spaces")
    problem = text_problem(name)
    if problem:
        raise BadRequest("bad_name", f"a name {problem}")
    if not has_visible(name):
        raise BadRequest("bad_name", "a name has at least one visible character")
    token = secrets.token_urlsafe(32)
    account = Account(uuid.uuid4().hex[:12], name, kind, token_hash(token), now.isoformat())
    store.add_account(account)
    return account, token
