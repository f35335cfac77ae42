"""Read models on each store, and games to fold: golden logs and simulated games."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.serialization import decode_event, encode
from domain.simulation import play
from projections.store import ReadModels
from service.store.base import CommandRecord, NewEvent

DATA = Path(__file__).parent.parent / "data"
GOLDEN = sorted(DATA.glob("golden-*.ndjson"))


def golden_events(path: Path) -> list:
    return [decode_event(json.loads(line)) for line in path.read_text().splitlines() if line]


@pytest.fixture
def readmodels(store):
    rm = ReadModels(store, store, clock=lambda: "2026-11-22T12:00:00+00:00")
    rm.upgrade()
    return rm


def append_game(store, events, game_id=None, per_command=3, after_each=None):
    """Append a game's events, a few per command (as the service would), with journal rows.

    The game id inside the events is kept; ``after_each(game_id)`` runs after each commit.
    """
    game_id = game_id or events[0].game_id
    version = 0
    for start in range(0, len(events), per_command):
        chunk = events[start : start + per_command]
        new = []
        for i, e in enumerate(chunk):
            body = encode(e)
            kind = body.pop("type")
            meta = {
                "actor": {"account": "tester"},
                "recorded_at": f"2026-11-22T10:{start % 60:02d}:00",
            }
            new.append(NewEvent(kind, body, {**meta, "index": i}))
        record = CommandRecord(
            game_id,
            f"c{start}",
            {"account": "tester"},
            "2026-11-22T10:00:00",
            {"n": start},
            version,
        )
        version = store.append(record, version, new, "playing").version
        if after_each is not None:
            after_each(game_id)
    return game_id


def simulated(seed, players=3):
    return play(seed, players)
