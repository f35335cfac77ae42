"""The notes on SQL (``player_notes``): written (last writer wins), read, listed, deleted,
and an account's notes page by page for its export. Every statement names the author:
no query here reads another account's notes (N1)."""

from __future__ import annotations

from dataclasses import dataclass

from service.store.base import SqlStore
from service.store.rows import Row, value


@dataclass(frozen=True)
class Note:
    """One note as stored: its game, the version it is on (0: the game), its text."""

    game_id: str
    version: int
    text: str
    created_at: str
    updated_at: str


NOTE = Row(Note, "game_id", "version", "text", "created_at", "updated_at")


class NoteTable:
    """The notes table of one store."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    def put(
        self, account_id: str, game_id: str, version: int, text: str, now: str, most: int
    ) -> Note | None:
        """Write the note (its first writing time kept); None when the account already
        holds ``most`` notes on the game and this would be another (N4). One statement,
        so two writers racing cannot both pass the count."""
        with self.store.transaction() as tx:
            done = tx.execute(
                "INSERT INTO player_notes"
                " (account_id, game_id, version, text, created_at, updated_at)"
                " SELECT %s, %s, %s, %s, %s, %s"
                " WHERE (SELECT COUNT(*) FROM player_notes"
                "        WHERE account_id = %s AND game_id = %s) < %s"
                " OR EXISTS (SELECT 1 FROM player_notes"
                "            WHERE account_id = %s AND game_id = %s AND version = %s)"
                " ON CONFLICT (account_id, game_id, version)"
                " DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at"
                " RETURNING created_at",
                (
                    *(account_id, game_id, version, text, now, now),
                    *(account_id, game_id, most),
                    *(account_id, game_id, version),
                ),
            )
            created = value(done)
        if created is None:
            return None
        return Note(game_id, version, text, str(created), now)

    def get(self, account_id: str, game_id: str, version: int) -> Note | None:
        """The account's note on the game (``version`` 0) or on one of its versions."""
        with self.store.reading() as tx:
            return NOTE.one(
                tx.execute(
                    f"SELECT {NOTE.select} FROM player_notes"
                    " WHERE account_id = %s AND game_id = %s AND version = %s",
                    (account_id, game_id, version),
                )
            )

    def listed(self, account_id: str, game_id: str, most: int) -> list[Note]:
        """The account's notes on the game, the game's first, then by version."""
        with self.store.reading() as tx:
            return NOTE.all(
                tx.execute(
                    f"SELECT {NOTE.select} FROM player_notes"
                    " WHERE account_id = %s AND game_id = %s ORDER BY version LIMIT %s",
                    (account_id, game_id, most),
                )
            )

    def delete(self, account_id: str, game_id: str, version: int) -> bool:
        """Delete the note; whether there was one."""
        with self.store.transaction() as tx:
            done = tx.execute(
                "DELETE FROM player_notes"
                " WHERE account_id = %s AND game_id = %s AND version = %s RETURNING version",
                (account_id, game_id, version),
            )
            return value(done) is not None

    def page(self, account_id: str, after: tuple[str, int] | None, most: int) -> list[Note]:
        """The account's notes on every game, by game then version, after ``after``
        (a game id and a version), at most ``most``."""
        game_id, version = after if after is not None else ("", -1)
        with self.store.reading() as tx:
            return NOTE.all(
                tx.execute(
                    f"SELECT {NOTE.select} FROM player_notes WHERE account_id = %s"
                    " AND (game_id > %s OR (game_id = %s AND version > %s))"
                    " ORDER BY game_id, version LIMIT %s",
                    (account_id, game_id, game_id, version, most),
                )
            )
