"""A player's profile as the API answers it (docs/profiles.md, P1, P2): name, games by
heading with their results, clocks used, and the disputes the player opened, shown
to the player and to auditors only (docs/disputes.md, "Who sees what")."""

from __future__ import annotations

from typing import Any

from projections.store import ReadModels
from service.errors import NotFound
from service.store.base import DELETED, Account, EventStore

MOST_DISPUTES = 100  # the disputes a profile lists, the newest last (P1)


def profile(
    store: EventStore,
    readmodels: ReadModels,
    account_id: str,
    viewer: Account | None,
    page: tuple[str, int, int],
) -> dict[str, Any]:
    """The profile of ``account_id`` as ``viewer`` (None: anyone) sees it; ``page``: the
    heading of games shown (open, running, finished), their limit and offset."""
    found = store.account(account_id)
    if found is None or found.kind not in ("player", DELETED):
        raise NotFound("unknown_player", "no player has this id", rule="P1")
    group, limit, offset = page
    own = viewer is not None and viewer.account_id == account_id
    entitled = own or (viewer is not None and viewer.kind == "auditor")
    # others see no private table of the player's (docs/invitations.md, I1)
    games = readmodels.profile_games(account_id, group, limit + 1, offset, private=entitled)
    counts, clocks = readmodels.profile_totals(account_id)
    shown: dict[str, Any] = {
        "account_id": found.account_id,
        "name": found.name,
        "deleted": found.kind == DELETED,
        "since": found.created_at[:10] if found.kind != DELETED else None,
        "counts": counts,
        "games": {
            "status": group,
            "items": games[:limit],
            "has_more": len(games) > limit,
            "offset": offset,
        },
        "clocks": clocks,
        "own": own,
    }
    if entitled:
        shown["disputes"] = [
            {
                "dispute_id": d.dispute_id,
                "game_id": d.game_id,
                "status": d.status,
                "reason": d.reason,
                "opened_at": d.created_at,
            }
            for d in store.disputes(opened_by=account_id, limit=MOST_DISPUTES)
        ]
    return shown
