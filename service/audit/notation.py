"""A recorded game as TGN (docs/notation.md): its accepted commands, in the order they
were appended, and its events, from the event store only (no cache)."""

from __future__ import annotations

from domain.errors import MalformedPayload
from domain.notation import Unwritable, write
from domain.notation.game import record_of
from domain.notation.text import Record
from domain.serialization import decode_command, decode_event
from service.errors import Conflict, NotFound
from service.store.base import EventStore


def notation_of(store: EventStore, game_id: str) -> str:
    """The game's TGN text. ``NotFound`` for no such game; ``Conflict``
    (``not_in_notation``) for a game TGN cannot hold (its history holds a takeback, a
    rewind, a ruling, or a game not started)."""
    return write(game_record(store, game_id)[0])


def game_record(store: EventStore, game_id: str) -> tuple[Record, list[int]]:
    """The game's TGN record and the version each decision ends at (``record_of``)."""
    head = store.head(game_id)
    if head is None or head.version == 0:
        raise NotFound("unknown_game", f"there is no game {game_id!r}")
    try:
        events = [decode_event(e.body()) for e in store.read(game_id)]
        accepted = sorted(
            (e for e in store.journal(game_id) if e.outcome == "accepted"),
            key=lambda e: e.first_version or 0,
        )
        commands = [decode_command(e.payload) for e in accepted]
        return record_of(commands, events)
    except (Unwritable, MalformedPayload) as exc:
        raise Conflict("not_in_notation", f"this game cannot be written in TGN: {exc}") from exc
