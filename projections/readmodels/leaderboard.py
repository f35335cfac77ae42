"""The leaderboard read model: each finished game's results, summed per account.

Per game and account (``rm_results``): rank, points and whether it won, once
the game is over (as the record stands: a ruling may amend it, D4).
"""

from __future__ import annotations

from typing import TypedDict

from projections.contract import Batch, ReadModel, rows
from projections.models import results
from projections.ports import Database, Tx
from projections.writes import Writes

TABLES = [
    """CREATE TABLE IF NOT EXISTS rm_results (
        game_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        rank INTEGER NOT NULL,
        points INTEGER NOT NULL,
        won INTEGER NOT NULL,
        PRIMARY KEY (game_id, account_id))""",
]


class Standing(TypedDict):
    """An account on the leaderboard."""

    account_id: str
    games: int
    wins: int
    points: int
    average_rank: float


def apply(tx: Tx, writes: Writes, batch: Batch) -> None:
    writes.execute("DELETE FROM rm_results WHERE game_id = %s", (batch.game_id,))
    writes.many(
        "rm_results",
        ("game_id", "account_id", "rank", "points", "won"),
        [(batch.game_id, r.player_id, r.rank, r.points, int(r.won)) for r in results(batch.after)],
    )


MODEL = ReadModel(tables=TABLES, owned=["rm_results"], apply=apply)


def standings(db: Database, limit: int, offset: int = 0) -> list[Standing]:
    """Accounts by wins, then points (ties by account id)."""
    found = rows(
        db,
        "SELECT account_id, COUNT(*), SUM(won), SUM(points), AVG(rank * 1.0)"
        " FROM rm_results GROUP BY account_id"
        " ORDER BY SUM(won) DESC, SUM(points) DESC, account_id LIMIT %s OFFSET %s",
        (limit, offset),
    )
    return [
        {
            "account_id": r[0],
            "games": int(r[1]),
            "wins": int(r[2]),
            "points": int(r[3]),
            "average_rank": round(float(r[4]), 3),
        }
        for r in found
    ]


def results_of(db: Database, game_ids: list[str]) -> list[tuple[str, str, int, int, bool]]:
    """``(game_id, account_id, rank, points, won)`` of these games that are over, as
    the record stands (a league's standings, docs/leagues.md L9)."""
    if not game_ids:
        return []
    marks = ", ".join(["%s"] * len(game_ids))
    found = rows(
        db,
        f"SELECT game_id, account_id, rank, points, won FROM rm_results"
        f" WHERE game_id IN ({marks}) ORDER BY game_id, rank, account_id",
        game_ids,
    )
    return [(str(r[0]), str(r[1]), int(r[2]), int(r[3]), bool(r[4])) for r in found]
