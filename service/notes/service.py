"""Private notes as the service keeps them (docs/notes.md): only a game's seated
players write and read notes on it (N1), on the game or on a version it has (N2),
of bounded text (N3), at most ``MOST_PER_GAME`` per game (N4), last writer wins (N5);
an account's export holds all of its notes (N6)."""

from __future__ import annotations

import re

from service.errors import BadRequest, Forbidden, NotFound
from service.notes.schema import NOTES_SCHEMA, TABLES
from service.notes.table import Note, NoteTable
from service.play.games import GameService
from service.store.base import Account, SqlStore
from service.timing.clocks import stamp

MAX_TEXT = 4000  # characters of one note (N3)
MOST_PER_GAME = 500  # notes one account keeps on one game (N4)
GAME = 0  # the version a note on the game itself is kept under
# printable text and line breaks: no other control character (C0, DEL, C1) (N3)
TEXT = re.compile(r"[^\x00-\x09\x0b-\x1f\x7f-\x9f]*")


def text_problem(text: str) -> str | None:
    """What is wrong with a note's text (N3), or None."""
    if not text.strip(" \n"):
        return "a note has some text (to remove one, delete it)"
    if len(text) > MAX_TEXT:
        return f"a note has at most {MAX_TEXT} characters"
    if not TEXT.fullmatch(text):
        return "a note holds no control characters but line breaks"
    return None


class Notes:
    """Private notes, the one object the app holds for them."""

    def __init__(self, store: SqlStore, games: GameService) -> None:
        self.store = store
        self.games = games
        self.table = NoteTable(store)

    def upgrade(self) -> None:
        """Create the notes table (idempotent)."""
        self.store.ensure_tables(TABLES, "notes_schema", NOTES_SCHEMA)

    def seated(self, who: Account, game_id: str) -> int:
        """The game's version, if ``who`` sits at it (N1: 403 otherwise; 404 no game)."""
        version, state = self.games.load(game_id)
        if all(p.player_id != who.account_id for p in state.players):
            raise Forbidden(
                "not_seated", "notes on a game are for its seated players only", rule="N1"
            )
        return version

    def _on(self, who: Account, game_id: str, version: int) -> None:
        """A note may be on the game (0) or on a version the game has (N1, N2)."""
        head = self.seated(who, game_id)
        if not 0 <= version <= head:
            raise NotFound(
                "unknown_version", f"the game has versions 1 to {head}, not {version}", rule="N2"
            )

    def write(self, who: Account, game_id: str, version: int, text: str) -> Note:
        """Write the caller's note (N1–N5): last writer wins."""
        problem = text_problem(text)
        if problem is not None:
            raise BadRequest("bad_note", problem, rule="N3")
        self._on(who, game_id, version)
        now = stamp(self.games.clock())
        found = self.table.put(who.account_id, game_id, version, text, now, MOST_PER_GAME)
        if found is None:
            raise Forbidden(
                "too_many_notes",
                f"an account keeps at most {MOST_PER_GAME} notes on one game",
                rule="N4",
            )
        return found

    def read(self, who: Account, game_id: str, version: int) -> Note:
        """The caller's note (404 ``no_note`` when there is none)."""
        self._on(who, game_id, version)
        found = self.table.get(who.account_id, game_id, version)
        if found is None:
            raise NotFound("no_note", "you have no note there", rule="N1")
        return found

    def delete(self, who: Account, game_id: str, version: int) -> None:
        """Delete the caller's note (404 ``no_note`` when there is none)."""
        self._on(who, game_id, version)
        if not self.table.delete(who.account_id, game_id, version):
            raise NotFound("no_note", "you have no note there", rule="N1")

    def on_game(self, who: Account, game_id: str) -> list[Note]:
        """The caller's notes on the game (N1)."""
        self.seated(who, game_id)
        return self.table.listed(who.account_id, game_id, MOST_PER_GAME)

    def export(
        self, who: Account, after: tuple[str, int] | None, most: int
    ) -> tuple[list[Note], bool]:
        """A page of the caller's notes on every game, and whether more follow (N6)."""
        rows = self.table.page(who.account_id, after, most + 1)
        return rows[:most], len(rows) > most
