"""The ratings read model (docs/ratings.md): rated games in the order they ended, and
every account's rating before and after each of its games.

Per rated game that ended (``rm_rating_games``): when its end was recorded and
its ranking as the record stands (NULL once annulled, G4). Per game and
account (``rm_rating_history``): the skill before and after (G2). Per account
(``rm_ratings``): its latest skill, for the leaderboard (G7, G8).

A game's result appearing, changing or going away at position p = (ended_at,
game_id) deletes the history from p on and folds every rated game from p
forward again, from each account's last skill before p (G5). So the rows are
the same whatever order games are caught up in, as a rebuild needs. The
cross-game part runs under one lock row (``FOR UPDATE`` on PostgreSQL; SQLite
has one writer), so two games caught up at once cannot interleave.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypedDict

from domain import events as ev
from projections.contract import Batch, ReadModel, rows
from projections.ports import Database, Recorded, Tx
from projections.skill import (
    INITIAL,
    PROVISIONAL_GAMES,
    Ranking,
    Skill,
    rate,
    rated_ranking,
)
from projections.writes import Writes

# 6: the ratings' tables (G1-G8) and their lock row
MIGRATIONS = {
    6: [
        """CREATE TABLE IF NOT EXISTS rm_rating_games (
            game_id TEXT PRIMARY KEY,
            ended_at TEXT NOT NULL,
            ranking TEXT)""",
        "CREATE INDEX IF NOT EXISTS rm_rating_games_order ON rm_rating_games (ended_at, game_id)",
        """CREATE TABLE IF NOT EXISTS rm_rating_history (
            account_id TEXT NOT NULL,
            ended_at TEXT NOT NULL,
            game_id TEXT NOT NULL,
            players INTEGER NOT NULL,
            rank INTEGER NOT NULL,
            mu_before DOUBLE PRECISION NOT NULL,
            sigma_before DOUBLE PRECISION NOT NULL,
            mu DOUBLE PRECISION NOT NULL,
            sigma DOUBLE PRECISION NOT NULL,
            ordinal DOUBLE PRECISION NOT NULL,
            games INTEGER NOT NULL,
            PRIMARY KEY (account_id, ended_at, game_id))""",
        "CREATE INDEX IF NOT EXISTS rm_rating_history_order"
        " ON rm_rating_history (ended_at, game_id)",
        """CREATE TABLE IF NOT EXISTS rm_ratings (
            account_id TEXT PRIMARY KEY,
            mu DOUBLE PRECISION NOT NULL,
            sigma DOUBLE PRECISION NOT NULL,
            ordinal DOUBLE PRECISION NOT NULL,
            games INTEGER NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS rm_ratings_by_ordinal ON rm_ratings (ordinal DESC, account_id)",
        "CREATE TABLE IF NOT EXISTS rm_rating_lock (id INTEGER PRIMARY KEY)",
        "INSERT INTO rm_rating_lock (id) VALUES (1) ON CONFLICT DO NOTHING",
    ],
    # 10: the earliest place a rebuild's deferred games left to refold (G5): one row, or
    # none when nothing is left
    10: [
        """CREATE TABLE IF NOT EXISTS rm_rating_pending (
            id INTEGER PRIMARY KEY,
            ended_at TEXT NOT NULL,
            game_id TEXT NOT NULL)""",
    ],
}
HISTORY = (
    "account_id", "ended_at", "game_id", "players", "rank", "mu_before", "sigma_before",
    "mu", "sigma", "ordinal", "games",
)  # fmt: skip
AFTER = "(ended_at > %s OR (ended_at = %s AND game_id >= %s))"  # at or after a position
BEFORE = "(ended_at < %s OR (ended_at = %s AND game_id < %s))"


@dataclass(frozen=True, slots=True)
class Ended:
    """A rated game's row: when its end was recorded, its ranking (None: annulled)."""

    game_id: str
    ended_at: str
    ranking: Ranking | None

    @property
    def position(self) -> tuple[str, str]:
        return (self.ended_at, self.game_id)


def apply(tx: Tx, writes: Writes, batch: Batch) -> None:
    """Refold the ratings from this game's position when its rated result changed (G4).

    A deferred batch (a rebuild) only keeps the earliest such position (``rm_rating_pending``):
    ``settle`` refolds once from there after the run's last game, and any batch that is
    not deferred refolds from there too (G5: the same rows either way)."""
    if not _rated(batch):
        return
    stored = _stored(tx, batch.game_id)
    now = _ended(batch, stored)
    if now == stored:
        return
    pending = _pending(tx, writes)
    if now is None:
        writes.execute("DELETE FROM rm_rating_games WHERE game_id = %s", (batch.game_id,))
    else:
        ranking = json.dumps(now.ranking) if now.ranking is not None else None
        writes.upsert(
            "rm_rating_games",
            ("game_id", "ended_at", "ranking"),
            (now.game_id, now.ended_at, ranking),
        )
    moved = [e.position for e in (stored, now) if e is not None and e.ranking is not None]
    if batch.deferred:
        if moved and (pending is None or min(moved) < pending):
            writes.upsert("rm_rating_pending", ("id", "ended_at", "game_id"), (1, *min(moved)))
        return
    if pending is not None:
        moved.append(pending)
        _clear_pending(writes)
    if moved:
        _refold(tx, writes, min(moved), batch.game_id, now)


def settle(tx: Tx, writes: Writes) -> None:
    """Refold once from the earliest position deferred batches left, if any (G5)."""
    pending = _pending(tx, writes)
    if pending is not None:
        _clear_pending(writes)
        _refold(tx, writes, pending, None, None)


def _pending(tx: Tx, writes: Writes) -> tuple[str, str] | None:
    """The lock row, locked, and the earliest position left to refold, if any."""
    tx.execute("SELECT id FROM rm_rating_lock WHERE id = 1" + _lock(writes))
    found = tx.execute("SELECT ended_at, game_id FROM rm_rating_pending WHERE id = 1").fetchone()
    if found is None:
        return None
    return (str(found[0]), str(found[1]))


def _clear_pending(writes: Writes) -> None:
    writes.execute("DELETE FROM rm_rating_pending WHERE id = %s", (1,))


def _rated(batch: Batch) -> bool:
    """Whether the game was opened rated (G1): its options are fixed at creation."""
    if batch.base_version > 0:
        return batch.before.options.rated
    return any(isinstance(e, ev.GameCreated) and e.options.rated for _, e in batch.events)


def _ended(batch: Batch, stored: Ended | None) -> Ended | None:
    """The game's row after the batch: while it has a result, when that end was recorded
    (an amendment keeps it, a rewind drops it, G4) and its rated ranking."""
    state = batch.after
    if not isinstance(state.result, ev.GameEnded):
        return None
    ends = [s for s, e in batch.events if isinstance(e, ev.GameEnded)]
    ended_at = recorded_at(ends[-1]) if ends else (stored.ended_at if stored else "")
    return Ended(batch.game_id, ended_at, rated_ranking(state))


def recorded_at(stored: Recorded) -> str:
    """When an event was recorded, ISO 8601 in UTC ("" when the record does not say)."""
    recorded = stored.meta().get("recorded_at")
    try:
        moment = datetime.fromisoformat(recorded) if isinstance(recorded, str) else None
    except ValueError:
        moment = None
    if moment is None:
        return ""
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def _stored(tx: Tx, game_id: str) -> Ended | None:
    found = tx.execute(
        "SELECT ended_at, ranking FROM rm_rating_games WHERE game_id = %s", (game_id,)
    ).fetchone()
    return None if found is None else Ended(game_id, found[0], _ranking(found[1]))


def _ranking(text: str | None) -> Ranking | None:
    return None if text is None else tuple((p, int(r)) for p, r in json.loads(text))


def _lock(writes: Writes) -> str:
    return " FOR UPDATE" if writes.postgres else ""


def _refold(
    tx: Tx, writes: Writes, start: tuple[str, str], game_id: str | None, now: Ended | None
) -> None:
    """Delete the history at or after ``start`` and fold every rated game from there on
    again, ``game_id`` (if any) as it stands now (G5)."""
    found = tx.execute(
        "SELECT game_id, ended_at, ranking FROM rm_rating_games"
        f" WHERE ranking IS NOT NULL AND {AFTER}",
        (start[0], start[0], start[1]),
    ).fetchall()
    later = [Ended(g, at, _ranking(text)) for g, at, text in found if g != game_id]
    if now is not None and now.ranking is not None:
        later.append(now)
    later.sort(key=lambda e: e.position)
    touched = {
        row[0]
        for row in tx.execute(
            f"SELECT DISTINCT account_id FROM rm_rating_history WHERE {AFTER}",
            (start[0], start[0], start[1]),
        ).fetchall()
    }
    touched |= {player for e in later for player, _ in e.ranking or ()}
    skills = _skills_before(tx, sorted(touched), start)
    history = []
    for game in later:
        ranking = game.ranking or ()
        after = rate(skills, ranking)
        history += [
            _history_row(game, player, rank, skills.get(player), after[player])
            for player, rank in ranking
        ]
        skills.update(after)
    writes.execute(f"DELETE FROM rm_rating_history WHERE {AFTER}", (start[0], start[0], start[1]))
    writes.many("rm_rating_history", HISTORY, history)
    _write_current(writes, sorted(touched), skills)


def _history_row(
    game: Ended, player: str, rank: int, before: Skill | None, after: Skill
) -> tuple[object, ...]:
    start = before or INITIAL
    return (
        player, game.ended_at, game.game_id, len(game.ranking or ()), rank,
        start.mu, start.sigma, after.mu, after.sigma, after.ordinal, after.games,
    )  # fmt: skip


def _skills_before(tx: Tx, accounts: Sequence[str], start: tuple[str, str]) -> dict[str, Skill]:
    """Each account's skill after its last rated game before ``start`` (none: unrated)."""
    skills: dict[str, Skill] = {}
    for account in accounts:
        found = tx.execute(
            "SELECT mu, sigma, games FROM rm_rating_history"
            f" WHERE account_id = %s AND {BEFORE}"
            " ORDER BY ended_at DESC, game_id DESC LIMIT 1",
            (account, start[0], start[0], start[1]),
        ).fetchone()
        if found is not None:
            skills[account] = Skill(float(found[0]), float(found[1]), int(found[2]))
    return skills


def _write_current(writes: Writes, accounts: Iterable[str], skills: dict[str, Skill]) -> None:
    """The touched accounts' latest skills (an account left with no rated game has none)."""
    accounts = list(accounts)
    if not accounts:
        return
    marks = ", ".join(["%s"] * len(accounts))
    writes.execute(f"DELETE FROM rm_ratings WHERE account_id IN ({marks})", accounts)
    writes.many(
        "rm_ratings",
        ("account_id", "mu", "sigma", "ordinal", "games"),
        [
            (a, skills[a].mu, skills[a].sigma, skills[a].ordinal, skills[a].games)
            for a in accounts
            if a in skills
        ],
    )


MODEL = ReadModel(tables=[], owned=[], apply=apply, migrations=MIGRATIONS, settle=settle)


class Rating(TypedDict):
    """An account on the rating leaderboard (G7, G8)."""

    account_id: str
    rating: float
    mu: float
    sigma: float
    games: int
    provisional: bool


class RatedGame(TypedDict):
    """One rated game of an account, its rating before and after (G2, G9)."""

    game_id: str | None  # None: a private table, to others than its player (I1)
    private: bool
    ended_at: str
    players: int
    rank: int
    before: dict[str, float]
    after: dict[str, float]
    games: int
    provisional: bool


def leaderboard(db: Database, min_games: int, limit: int, offset: int = 0) -> list[Rating]:
    """Accounts with at least ``min_games`` rated games by rating, best first (G7)."""
    found = rows(
        db,
        "SELECT account_id, ordinal, mu, sigma, games FROM rm_ratings WHERE games >= %s"
        " ORDER BY ordinal DESC, account_id LIMIT %s OFFSET %s",
        (min_games, limit, offset),
    )
    return [
        {
            "account_id": r[0],
            "rating": float(r[1]),
            "mu": float(r[2]),
            "sigma": float(r[3]),
            "games": int(r[4]),
            "provisional": int(r[4]) < PROVISIONAL_GAMES,
        }
        for r in found
    ]


def current(db: Database, account_id: str) -> Rating | None:
    """An account's rating now, or None before its first rated game."""
    found = rows(
        db,
        "SELECT account_id, ordinal, mu, sigma, games FROM rm_ratings WHERE account_id = %s",
        (account_id,),
    )
    return next(
        (
            Rating(
                account_id=r[0],
                rating=float(r[1]),
                mu=float(r[2]),
                sigma=float(r[3]),
                games=int(r[4]),
                provisional=int(r[4]) < PROVISIONAL_GAMES,
            )
            for r in found
        ),
        None,
    )


def history(db: Database, account_id: str, limit: int, offset: int = 0) -> list[RatedGame]:
    """An account's rated games, the latest first, each with its rating before and after
    (G9)."""
    found = rows(
        db,
        "SELECT h.game_id, h.ended_at, h.players, h.rank, h.mu_before, h.sigma_before, h.mu,"
        " h.sigma, h.games, l.private FROM rm_rating_history h"
        " LEFT JOIN rm_lobby l ON l.game_id = h.game_id WHERE h.account_id = %s"
        " ORDER BY h.ended_at DESC, h.game_id DESC LIMIT %s OFFSET %s",
        (account_id, limit, offset),
    )
    return [
        {
            "game_id": r[0],
            "private": bool(r[9]),
            "ended_at": r[1],
            "players": int(r[2]),
            "rank": int(r[3]),
            "before": _shown(Skill(float(r[4]), float(r[5]))),
            "after": _shown(Skill(float(r[6]), float(r[7]))),
            "games": int(r[8]),
            "provisional": int(r[8]) < PROVISIONAL_GAMES,
        }
        for r in found
    ]


def _shown(skill: Skill) -> dict[str, float]:
    return {"rating": skill.ordinal, "mu": skill.mu, "sigma": skill.sigma}
