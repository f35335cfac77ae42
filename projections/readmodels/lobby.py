"""The lobby read model: every game as the lobby lists it, and who sits where.

One row per game (``rm_lobby``: the entry as JSON, with the columns the
lobby's filters and order need) and one per seated account
(``rm_lobby_seats``: an account's own games). Entries are answered as the
stored JSON with their ``version``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from projections.contract import Batch, ReadModel, rows
from projections.models import lobby_entry, status
from projections.ports import Database, Tx
from projections.writes import Writes

TABLES = [
    """CREATE TABLE IF NOT EXISTS rm_lobby (
        game_id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        status TEXT NOT NULL,
        active_player TEXT,
        last_activity TEXT NOT NULL,
        data TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS rm_lobby_by_status ON rm_lobby (status, last_activity)",
    """CREATE TABLE IF NOT EXISTS rm_lobby_seats (
        game_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        PRIMARY KEY (account_id, game_id))""",
]
# 5: the lobby's filters as columns (players, seats taken, variant, clock); the lobby is
# projected again for every game (its checkpoints dropped: the sweeper refills it)
MIGRATIONS = {
    5: [
        "ALTER TABLE rm_lobby ADD COLUMN players INTEGER",
        "ALTER TABLE rm_lobby ADD COLUMN seated INTEGER",
        "ALTER TABLE rm_lobby ADD COLUMN two_colours INTEGER",
        "ALTER TABLE rm_lobby ADD COLUMN free_orientation INTEGER",
        "ALTER TABLE rm_lobby ADD COLUMN clock TEXT",
        "DELETE FROM projection_checkpoints WHERE projection = 'lobby'",
    ],
    # 8: private tables (docs/invitations.md, I1) are left out of the public listing; a
    # row written before is public (no private table existed)
    8: ["ALTER TABLE rm_lobby ADD COLUMN private INTEGER NOT NULL DEFAULT 0"],
    # 9: the unfiltered lobby's order read from an index, not sorted whole (bench/profiles.py)
    9: [
        "CREATE INDEX IF NOT EXISTS rm_lobby_by_activity ON rm_lobby (last_activity DESC, game_id)"
    ],
}
VARIANTS = ("standard", "two_colours", "free_orientation")
CLOCKS = ("none", "move", "fischer")
VARIANT_WHERE = {  # what each variant filters on
    "two_colours": ["two_colours = 1"],
    "free_orientation": ["free_orientation = 1"],
    "standard": ["two_colours = 0 AND free_orientation = 0"],
}
COLUMNS = (
    "game_id", "version", "status", "active_player", "last_activity", "data",
    "players", "seated", "two_colours", "free_orientation", "clock", "private",
)  # fmt: skip


def apply(tx: Tx, writes: Writes, batch: Batch) -> None:
    state = batch.after
    entry = lobby_entry(state, batch.last_activity, batch.clock)
    options = state.options
    row = (
        batch.game_id,
        batch.events[-1][0].version,
        status(state),
        entry["active_player"],
        entry["last_activity"],
        json.dumps(entry, sort_keys=True),
        options.max_players,
        len(state.players),
        int(options.two_colours_each),
        int(options.free_orientation_after_first),
        options.time_control,
        int(options.private),
    )
    writes.upsert("rm_lobby", COLUMNS, row)
    writes.execute("DELETE FROM rm_lobby_seats WHERE game_id = %s", (batch.game_id,))
    seats = [(batch.game_id, p.player_id) for p in state.players]
    writes.many("rm_lobby_seats", ("game_id", "account_id"), seats)


MODEL = ReadModel(
    tables=TABLES, owned=["rm_lobby", "rm_lobby_seats"], apply=apply, migrations=MIGRATIONS
)


def entries(
    db: Database,
    status: str | None,
    limit: int,
    offset: int = 0,
    *,
    before: tuple[str, str] | None = None,
    players: int | None = None,
    variant: str | None = None,
    clock: str | None = None,
    free_seat: bool = False,
    among: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Lobby entries by last activity, newest first: ``limit`` rows after the cursor
    ``before`` (the last activity and game id of the last row seen) or from
    ``offset``; only games of ``players`` seats, of a ``variant`` (``VARIANTS``), a
    ``clock`` (``CLOCKS``), with a free seat, or with one of the accounts ``among``
    seated, when asked. A private table is never listed (docs/invitations.md, I1)."""
    if among is not None and not among:
        return []
    where: list[str] = ["private = 0"]
    params: list[Any] = []
    if status:
        where.append("status = %s")
        params.append(status)
    if before is not None:
        where.append("(last_activity < %s OR (last_activity = %s AND game_id > %s))")
        params += [before[0], before[0], before[1]]
    if players is not None:
        where.append("players = %s")
        params.append(players)
    where += VARIANT_WHERE.get(variant or "", [])
    if clock is not None:
        where.append("clock = %s")
        params.append(clock)
    if free_seat:
        where.append("status = 'open' AND seated < players")
    if among:
        marks = ", ".join(["%s"] * len(among))
        where.append(
            f"game_id IN (SELECT game_id FROM rm_lobby_seats WHERE account_id IN ({marks}))"
        )
        params += list(among)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    return _entries(
        rows(
            db,
            f"SELECT version, data FROM rm_lobby {clause}"
            " ORDER BY last_activity DESC, game_id LIMIT %s OFFSET %s",
            (*params, limit, offset),
        )
    )


def my_games(db: Database, account_id: str, limit: int, offset: int) -> list[dict[str, Any]]:
    """An account's games, the ones waiting for its move first, each with ``my_move``."""
    games = _entries(
        rows(
            db,
            "SELECT l.version, l.data FROM rm_lobby l"
            " JOIN rm_lobby_seats s ON s.game_id = l.game_id WHERE s.account_id = %s"
            " ORDER BY CASE WHEN l.active_player = %s THEN 0 ELSE 1 END,"
            " l.last_activity DESC, l.game_id LIMIT %s OFFSET %s",
            (account_id, account_id, limit, offset),
        )
    )
    for game in games:
        game["my_move"] = game["active_player"] == account_id
    return games


def _entries(found: Sequence[Any]) -> list[dict[str, Any]]:
    """Entries as stored (their keys sorted), after their version."""
    return [{"version": version, **json.loads(data)} for version, data in found]
