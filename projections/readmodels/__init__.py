"""The read models, one module each (its tables, its ``apply``, its queries), and the
projections that keep them: the registry the catch-up engine goes through.

A projection is what has a checkpoint per game (``projections.checkpoints``);
each keeps one read model, but for the lobby's: the deadlines (``deadlines``)
are brought level under the lobby's checkpoint, as they were when the lobby
wrote them, so the stored checkpoints are the same.
"""

from __future__ import annotations

from projections.contract import Projection
from projections.readmodels import (
    audit,
    deadlines,
    leaderboard,
    lobby,
    notifications,
    profiles,
    queue,
    ratings,
    scoreboard,
    timeline,
    vacation,
)

REGISTRY = (
    Projection("scoreboard", [scoreboard.MODEL]),
    Projection("lobby", [lobby.MODEL, deadlines.MODEL]),
    Projection("leaderboard", [leaderboard.MODEL]),
    Projection("timeline", [timeline.MODEL]),
    Projection("audit", [audit.MODEL]),
    Projection("notifications", [notifications.MODEL]),
    Projection("ratings", [ratings.MODEL]),
    Projection("vacation", [vacation.MODEL]),
    Projection("profiles", [profiles.MODEL, queue.MODEL]),
)
PROJECTIONS = tuple(p.name for p in REGISTRY)
