"""Accounts and bearer tokens: random, shown once, stored only as SHA-256."""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
import uuid
from datetime import datetime

from service.errors import BadRequest
from service.play.text import has_visible, text_problem
from service.store.base import Account, EventStore

MAX_NAME = 64


def token_hash(token: str) -> str:
    """What the store keeps of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def valid_name(name: str, **rule: str) -> str:
    """A display name as given, trimmed: 1 to ``MAX_NAME`` characters that show what they
    say (``service.play.text``), else 422 ``bad_name`` (citing ``rule`` if given)."""
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise BadRequest(
            "bad_name", f"a name has 1 to {MAX_NAME} characters, not only spaces", **rule
        )
    problem = text_problem(name)
    if problem:
        raise BadRequest("bad_name", f"a name {problem}", **rule)
    if not has_visible(name):
        raise BadRequest("bad_name", "a name has at least one visible character", **rule)
    return name


MOST_NAMESAKES = 50  # accounts of one name looked at (more are as ambiguous as two)


def players_named(store: EventStore, entry: str) -> list[str]:
    """The player accounts an entry names: the one whose id it is; else every player
    named exactly ``entry``; else, when nobody is, every player so named in another case
    ("ann" names Ann when no account is called "ann"). A name is the same however its
    accents were typed ("é" as one character or as "e" and a combining accent: Unicode
    NFC and NFD). The caller decides what none or several mean (invitations I2,
    leagues L2)."""
    by_id = store.account(entry)
    if by_id is not None and by_id.kind == "player":
        return [by_id.account_id]
    forms = dict.fromkeys([entry, *(unicodedata.normalize(f, entry) for f in ("NFC", "NFD"))])
    found = list(
        dict.fromkeys(a for form in forms for a in store.players_with_name(form, MOST_NAMESAKES))
    )
    names = store.account_names(found)
    typed = unicodedata.normalize("NFC", entry)
    exact = [a for a in found if unicodedata.normalize("NFC", names.get(a, "")) == typed]
    return exact or found


def create_account(
    store: EventStore, name: str, now: datetime, kind: str = "player"
) -> tuple[Account, str]:
    """A new account and its token (the only time the token is ever seen)."""
    name = valid_name(name)
    token = secrets.token_urlsafe(32)
    account = Account(uuid.uuid4().hex[:12], name, kind, token_hash(token), now.isoformat())
    store.add_account(account)
    return account, token
