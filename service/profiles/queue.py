"""The "my move" queue as the API answers it (docs/profiles.md, Q1–Q3): the games
waiting for the caller's decision, the one waiting longest first, with the time
left where the game is timed; read from the queue read model alone."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from projections.models import epoch_ms
from projections.store import ReadModels

MOST_SHOWN = 100  # games listed at most (Q1); ``count`` says how many wait


def my_queue(readmodels: ReadModels, account_id: str, now: datetime, limit: int) -> dict[str, Any]:
    """The account's queue at ``now`` (Q1–Q3)."""
    games = readmodels.queue(account_id, limit)
    now_ms = int(now.timestamp() * 1000)
    for game in games:
        deadline = game["deadline"]
        game["time_left_ms"] = max(0, epoch_ms(deadline) - now_ms) if deadline else None
        game["waited_ms"] = max(0, now_ms - epoch_ms(game["waiting_since"]))
    count = len(games) if len(games) < limit else readmodels.queue_count(account_id)
    return {
        "count": count,
        "next": f"/games/{games[0]['game_id']}" if games else None,
        "games": games,
    }
