"""A league's standings (docs/leagues.md, L9), from the results read model
(``rm_results``), so they follow every ruling that amends or annuls a result.

Rank points, per game: a table of ``n`` players gives its places ``n - 1``, ``n - 2``,
…, ``0`` rank points; players tied on a rank share the points of the places they cover
(two tied first at a table of three: ``(2 + 1) / 2 = 1.5`` each). An annulled game
gives nobody anything and counts as no game played. Order: rank points, then the sum of
game points, then wins, then the member's place in the league's list."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from projections.ports import Database
from projections.readmodels.leaderboard import results_of


def rank_points(ranks: Sequence[int]) -> list[float]:
    """Each player's rank points at one table, ``ranks`` as the results give them."""
    n = len(ranks)
    tied = Counter(ranks)
    shown = []
    for rank in ranks:
        places = range(rank, rank + tied[rank])  # competition ranking: 1, 1, 3
        shown.append(sum(n - place for place in places) / tied[rank])
    return shown


def standings(db: Database, members: Sequence[str], game_ids: list[str]) -> list[dict[str, Any]]:
    """Every member's line, best first (L9)."""
    by_game: dict[str, list[tuple[str, int, int, bool]]] = defaultdict(list)
    for game_id, account_id, rank, points, won in results_of(db, game_ids):
        by_game[game_id].append((account_id, rank, points, won))
    line: dict[str, dict[str, Any]] = {
        m: {"account_id": m, "games": 0, "wins": 0, "rank_points": 0.0, "game_points": 0}
        for m in members
    }
    for results in by_game.values():
        for (account_id, _, points, won), share in zip(
            results, rank_points([r[1] for r in results]), strict=True
        ):
            if account_id not in line:
                continue
            line[account_id]["games"] += 1
            line[account_id]["wins"] += int(won)
            line[account_id]["rank_points"] += share
            line[account_id]["game_points"] += points
    order = {m: i for i, m in enumerate(members)}
    ranked = sorted(
        line.values(),
        key=lambda s: (-s["rank_points"], -s["game_points"], -s["wins"], order[s["account_id"]]),
    )
    for place, entry in enumerate(ranked, start=1):
        entry["place"] = place
    return ranked
