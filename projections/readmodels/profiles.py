"""The profiles read model: each account's games as its profile lists them
(docs/profiles.md, P1, P2).

One row per seated account and game (``rm_profile_games``): the game's status and
last activity, the seat, its time control, the result once the game is over (as
the record stands: a ruling may amend it, D4) and the time the account's decisions
used (the clock's ``used_ms``, docs/clocks.md C2). The index by account, status
and last activity answers a profile's page of games and its clocks without
reading any game's events.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from domain.state import GameState
from projections.contract import Batch, ReadModel, rows
from projections.models import final_ranking, status, time_control, winners
from projections.ports import Database, Tx
from projections.writes import Writes

TABLES = [
    """CREATE TABLE IF NOT EXISTS rm_profile_games (
        account_id TEXT NOT NULL,
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        status TEXT NOT NULL,
        last_activity TEXT NOT NULL,
        seat INTEGER NOT NULL,
        colours TEXT NOT NULL,
        players INTEGER NOT NULL,
        time_control TEXT NOT NULL,
        rank INTEGER,
        points INTEGER,
        won INTEGER,
        resigned INTEGER NOT NULL,
        annulled INTEGER NOT NULL,
        used_ms BIGINT NOT NULL,
        decisions INTEGER NOT NULL,
        PRIMARY KEY (account_id, game_id))""",
    "CREATE INDEX IF NOT EXISTS rm_profile_games_by_status"
    " ON rm_profile_games (account_id, status, last_activity)",
    "CREATE INDEX IF NOT EXISTS rm_profile_games_by_game ON rm_profile_games (game_id)",
    # a profile's counts and clocks read from the index alone: a player of thousands of
    # games costs no lookup per game (bench/profiles.py)
    "CREATE INDEX IF NOT EXISTS rm_profile_games_totals ON rm_profile_games"
    " (account_id, status, time_control, won, decisions, used_ms)",
]
# the games a profile lists under each heading (P1)
GROUPS = {
    "open": ("open",),
    "running": ("setup", "playing"),
    "finished": ("ended",),
}
COLUMNS = (
    "account_id", "game_id", "version", "status", "last_activity", "seat", "colours",
    "players", "time_control", "rank", "points", "won", "resigned", "annulled",
    "used_ms", "decisions",
)  # fmt: skip


def _transactions(batch: Batch) -> Iterator[tuple[GameState, dict[str, Any]]]:
    """Each transaction of the batch: the state before its first event, and the clock
    its last event recorded (``{}`` without one)."""
    start: GameState | None = None
    command: object = None
    clock: dict[str, Any] = {}
    for stored, _, before, _ in batch.folded():
        meta = stored.meta()
        if meta.get("command_id") != command or start is None:
            if start is not None:
                yield start, clock
            start, command, clock = before, meta.get("command_id"), {}
        found = meta.get("clock")
        if isinstance(found, dict):
            clock = found
    if start is not None:
        yield start, clock


def _time_used(batch: Batch) -> dict[str, tuple[int, int]]:
    """Per account, the time its decisions of this batch used and how many were timed
    (C2: a transaction that took a decision records ``used_ms``; the decision was the
    one pending when it began)."""
    used: dict[str, tuple[int, int]] = {}
    for before, clock in _transactions(batch):
        spent = clock.get("used_ms")
        if not isinstance(spent, int) or before.pending is None:
            continue
        owner = before.owner(before.pending.colour).player_id
        total, count = used.get(owner, (0, 0))
        used[owner] = (total + max(0, spent), count + 1)
    return used


def _earlier(tx: Tx, batch: Batch) -> dict[str, tuple[int, int]]:
    """The time used before this batch, as this read model's rows hold it (nothing when
    the batch starts the game: a rebuild deletes the rows in the same transaction)."""
    if batch.base_version == 0:
        return {}
    found = tx.execute(
        "SELECT account_id, used_ms, decisions FROM rm_profile_games WHERE game_id = %s",
        (batch.game_id,),
    ).fetchall()
    return {str(r[0]): (int(r[1]), int(r[2])) for r in found}


def apply(tx: Tx, writes: Writes, batch: Batch) -> None:
    state = batch.after
    earlier = _earlier(tx, batch)
    used = _time_used(batch)
    ranking = {p: (rank, points) for p, rank, points in final_ranking(state) or []}
    won = set(winners(state))
    ended = status(state) == "ended"
    control = json.dumps(time_control(state.options), sort_keys=True)
    version = batch.events[-1][0].version
    found = []
    for p in state.players:
        if p.bot:
            continue  # a bot's seat has no account, so no profile (docs/bots.md, B3)
        before_ms, before_n = earlier.get(p.player_id, (0, 0))
        add_ms, add_n = used.get(p.player_id, (0, 0))
        rank, points = ranking.get(p.player_id, (None, None))
        row = (
            p.player_id, batch.game_id, version, status(state), batch.last_activity, p.seat,
            ",".join(p.colours), len(state.players), control, rank, points,
            int(p.player_id in won) if ended else None, int(p.seat in state.resigned),
            int(ended and not ranking), before_ms + add_ms, before_n + add_n,
        )  # fmt: skip
        found.append(row)
    writes.execute("DELETE FROM rm_profile_games WHERE game_id = %s", (batch.game_id,))
    writes.many("rm_profile_games", COLUMNS, found)


MODEL = ReadModel(tables=TABLES, owned=["rm_profile_games"], apply=apply, migrations={9: TABLES})


# a private table (docs/invitations.md, I1) as the lobby's row marks it
PRIVATE = "EXISTS (SELECT 1 FROM rm_lobby l WHERE l.game_id = {}.game_id AND l.private = 1)"


def games(
    db: Database, account_id: str, group: str, limit: int, offset: int, private: bool = True
) -> list[dict[str, Any]]:
    """An account's games under one heading (``GROUPS``), the latest activity first;
    ``private=False``: without its private tables (I1: a profile others see lists none)."""
    statuses = GROUPS[group]
    marks = ", ".join(["%s"] * len(statuses))
    unlisted = "" if private else f" AND NOT {PRIVATE.format('rm_profile_games')}"
    found = rows(
        db,
        f"SELECT {', '.join(COLUMNS[1:])} FROM rm_profile_games"
        f" WHERE account_id = %s AND status IN ({marks}){unlisted}"
        " ORDER BY last_activity DESC, game_id LIMIT %s OFFSET %s",
        (account_id, *statuses, limit, offset),
    )
    return [_game(r) for r in found]


def _game(r: Any) -> dict[str, Any]:
    (game_id, version, state, last, seat, colours, players, control, rank, points, won,
     resigned, annulled, used_ms, _decisions) = r  # fmt: skip
    result = None
    if state == "ended":
        result = {
            "rank": rank,
            "points": points,
            "won": bool(won),
            "resigned": bool(resigned),
            "annulled": bool(annulled),
        }
    return {
        "game_id": game_id,
        "version": int(version),
        "status": state,
        "last_activity": last,
        "seat": int(seat),
        "colours": colours.split(","),
        "players": int(players),
        "time_control": json.loads(control),
        "result": result,
        "time_used_ms": int(used_ms),
    }


def totals(db: Database, account_id: str) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """How many games an account has under each heading and how many it won (P1), and
    the time controls it plays with the time its decisions used (P2), most played
    first: one query, on the covering index."""
    found = rows(
        db,
        "SELECT status, time_control, COUNT(*), SUM(COALESCE(won, 0)), SUM(decisions),"
        " SUM(used_ms) FROM rm_profile_games WHERE account_id = %s"
        " GROUP BY status, time_control",
        (account_id,),
    )
    by_status: dict[str, int] = {}
    won = 0
    clocks: dict[str, list[int]] = {}
    for state, control, count, wins, decisions, used in found:
        by_status[state] = by_status.get(state, 0) + int(count)
        won += int(wins or 0) if state == "ended" else 0
        if state != "open":
            sums = clocks.setdefault(str(control), [0, 0, 0])
            sums[0] += int(count)
            sums[1] += int(decisions or 0)
            sums[2] += int(used or 0)
    counts = {g: sum(by_status.get(s, 0) for s in ss) for g, ss in GROUPS.items()}
    counts["won"] = won
    shown = [
        {
            "time_control": json.loads(control),
            "games": games,
            "decisions": decisions,
            "used_ms": used,
            "average_ms": used // decisions if decisions else None,
        }
        for control, (games, decisions, used) in clocks.items()
    ]
    return counts, sorted(shown, key=lambda c: (-c["games"], json.dumps(c["time_control"])))
