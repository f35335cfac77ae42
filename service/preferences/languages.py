"""Each account's chosen language (docs/i18n.md): what its mails and webhook texts are
said in, and what a browser signing in to it is set to. An account that chose none is
told in English. The one reader and writer of ``account_languages``; a deleted
account's row goes with its other private data (``service.profiles.deletion``, P8)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from service.errors import BadRequest
from service.i18n.locales import SUPPORTED
from service.store.base import SqlStore

LANGUAGES_SCHEMA = 1
TABLES = [
    """CREATE TABLE IF NOT EXISTS account_languages (
        account_id TEXT PRIMARY KEY,
        language TEXT NOT NULL,
        updated_at TEXT NOT NULL)""",
]


class Languages:
    """The accounts' languages, in the store's SQL database."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store
        self.store.ensure_tables(TABLES, "languages_schema", LANGUAGES_SCHEMA)

    def of(self, account_id: str) -> str | None:
        """The account's chosen language, or None."""
        with self.store.reading() as cur:
            return languages_of(cur, [account_id]).get(account_id)

    def choose(self, account_id: str, language: str | None) -> str | None:
        """Keep ``language`` as the account's (None: forget its choice): 422
        ``unknown_language`` for a language the service does not speak."""
        if language is not None and language not in SUPPORTED:
            raise BadRequest(
                "unknown_language", f"language is one of {', '.join(SUPPORTED)}, or null"
            )
        with self.store.transaction() as cur:
            if language is None:
                cur.execute("DELETE FROM account_languages WHERE account_id = %s", (account_id,))
            else:
                cur.execute(
                    "INSERT INTO account_languages (account_id, language, updated_at)"
                    " VALUES (%s, %s, %s) ON CONFLICT (account_id) DO UPDATE SET"
                    " language = excluded.language, updated_at = excluded.updated_at",
                    (account_id, language, datetime.now(UTC).isoformat(timespec="milliseconds")),
                )
        return language


def languages_of(cur: Any, accounts: Sequence[str]) -> dict[str, str]:
    """The chosen languages of these accounts (those that chose one), read with the
    cursor of the caller's transaction."""
    if not accounts:
        return {}
    marks = ", ".join(["%s"] * len(accounts))
    rows = cur.execute(
        f"SELECT account_id, language FROM account_languages WHERE account_id IN ({marks})",
        tuple(accounts),
    ).fetchall()
    return {str(a): str(lang) for a, lang in rows}
