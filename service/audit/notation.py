"""A recorded game as TGN (docs/notation.md): its accepted commands, in the order they
were appended, and its events, from the event store only (no cache)."""

from __future__ import annotations

import threading
from collections import OrderedDict

from domain.errors import MalformedPayload
from domain.events import PlayerJoined
from domain.notation import Unwritable, write
from domain.notation.game import record_of
from domain.notation.text import Record
from domain.serialization import decode_command, decode_event
from service.errors import Conflict, NotFound
from service.store.base import EventStore

CACHED = 64  # texts one process keeps, each keyed by the head it was written from
_texts: OrderedDict[tuple[str, int, str, str], str] = OrderedDict()
_lock = threading.Lock()


def notation_of(store: EventStore, game_id: str) -> str:
    """The game's TGN text. ``NotFound`` for no such game; ``Conflict``
    (``not_in_notation``) for a game TGN cannot hold (its history holds a takeback, a
    rewind, a ruling, or a game not started).

    A text is kept (at most ``CACHED``) under the game's head version and hash, which
    every accepted command moves: a cache that can only miss, never answer for a head
    it was not written from. Verification never reads it."""
    head = store.head(game_id)
    key: tuple[str, int, str, str] | None = None
    if head is not None:
        # the players' names are said too: a renamed player is a new text
        names = repr(sorted(store.account_names(_seated(store, game_id)).items()))
        key = (game_id, head.version, head.hash, names)
    if key is not None:
        with _lock:
            found = _texts.get(key)
            if found is not None:
                _texts.move_to_end(key)
                return found
    text = write(game_record(store, game_id)[0])
    if key is not None:
        with _lock:
            _texts[key] = text
            while len(_texts) > CACHED:
                _texts.popitem(last=False)
    return text


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
        record, ends = record_of(commands, events)
    except (Unwritable, MalformedPayload) as exc:
        raise Conflict("not_in_notation", f"this game cannot be written in TGN: {exc}") from exc
    names = store.account_names([e.player_id for e in events if isinstance(e, PlayerJoined)])
    tags: dict[str, str] = {}
    for tag, value in record.tags.items():
        tags[tag] = value
        if tag.startswith("Seat") and tag[4:].isdigit() and names.get(value):
            tags[f"Name{tag[4:]}"] = str(names[value])  # what the pages call the player
    record.tags = tags
    return record, ends


def _seated(store: EventStore, game_id: str) -> list[str]:
    """The players of the game, from its PlayerJoined events (every seat is taken before
    the game starts, so within its first events)."""
    return [
        str(e.body()["player_id"]) for e in store.read(game_id, 0, 64) if e.type == "PlayerJoined"
    ]
