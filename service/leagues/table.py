"""Leagues on SQL. Joining and starting a league both begin with a conditional UPDATE
of the league's row, so they are put in a line (a row lock on PostgreSQL, the writer's
lock on SQLite): a join either lands before the start, and is scheduled, or finds the
league started (L3, L4) or cancelled (L11). Opening the next round (L7), finishing the
league (L12) and cancelling it (L11) are one conditional UPDATE each too."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from service.store.base import SqlStore
from service.store.rows import Row, value

OPEN, STARTED, FINISHED, CANCELLED = "open", "started", "finished", "cancelled"


@dataclass(frozen=True)
class League:
    """A league as it stands."""

    league_id: str
    name: str
    creator: str
    table_size: int
    options: str  # the games' options, as JSON
    token: str | None
    status: str
    opened_round: int
    rounds: int
    created_at: str
    started_at: str | None


@dataclass(frozen=True)
class Member:
    league_id: str
    account_id: str
    position: int
    joined_at: str


@dataclass(frozen=True)
class Scheduled:
    """One table of the schedule and its game's id (opened or not yet)."""

    league_id: str
    round: int
    table_no: int
    players: str  # account ids in seat order, as JSON
    game_id: str

    @property
    def seats(self) -> list[str]:
        found: list[str] = json.loads(self.players)
        return found


LEAGUE = Row(
    League,
    "league_id", "name", "creator", "table_size", "options", "token", "status",
    "opened_round", "rounds", "created_at", "started_at",
)  # fmt: skip
MEMBER = Row(Member, "league_id", "account_id", "position", "joined_at")
SCHEDULED = Row(Scheduled, "league_id", "round", "table_no", "players", "game_id")
Rows = list[tuple[int, int, list[str], str]]  # round, table, seats, game id
Plan = Callable[[list[str]], tuple[list[str], Rows]]  # members: those who play, tables


class LeagueTable:
    """The leagues, members and scheduled tables of one store."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    def create(self, league: League, members: Sequence[str]) -> None:
        """Record a new league and its first members, in order."""
        with self.store.transaction() as tx:
            tx.execute(
                f"INSERT INTO leagues ({LEAGUE.select}) VALUES"
                " (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                tuple(vars(league).values()),
            )
            for position, account_id in enumerate(members, start=1):
                tx.execute(
                    "INSERT INTO league_players (league_id, account_id, position, joined_at)"
                    " VALUES (%s, %s, %s, %s)",
                    (league.league_id, account_id, position, league.created_at),
                )

    def join(self, league_id: str, account_id: str, now: str, most: int) -> str:
        """Add a member while the league is open: ``joined``, ``started``, ``member``
        (already one) or ``full`` (L3)."""
        with self.store.transaction() as tx:
            locked = value(
                tx.execute(
                    "UPDATE leagues SET status = status WHERE league_id = %s AND status = %s"
                    " RETURNING league_id",
                    (league_id, OPEN),
                )
            )
            if locked is None:
                status = value(
                    tx.execute("SELECT status FROM leagues WHERE league_id = %s", (league_id,))
                )
                return "cancelled" if status == CANCELLED else "started"
            found = tx.execute(
                "SELECT account_id FROM league_players WHERE league_id = %s", (league_id,)
            ).fetchall()
            members = {str(r[0]) for r in found}
            if account_id in members:
                return "member"
            if len(members) >= most:
                return "full"
            tx.execute(
                "INSERT INTO league_players (league_id, account_id, position, joined_at)"
                " VALUES (%s, %s, %s, %s)",
                (league_id, account_id, len(members) + 1, now),
            )
            return "joined"

    def start(self, league_id: str, now: str, plan: Plan) -> bool:
        """Start an open league and write its schedule (``plan`` of its members, in
        order: the members who play, and the tables); the members it leaves out (their
        accounts deleted, L11) are no longer the league's. False when it was started
        already (L4); whatever ``plan`` raises undoes it all."""
        with self.store.transaction() as tx:
            locked = value(
                tx.execute(
                    "UPDATE leagues SET status = %s, started_at = %s, opened_round = 1"
                    " WHERE league_id = %s AND status = %s RETURNING league_id",
                    (STARTED, now, league_id, OPEN),
                )
            )
            if locked is None:
                return False
            found = tx.execute(
                "SELECT account_id FROM league_players WHERE league_id = %s ORDER BY position",
                (league_id,),
            ).fetchall()
            members = [str(r[0]) for r in found]
            playing, rows = plan(members)
            for account_id in set(members) - set(playing):
                tx.execute(
                    "DELETE FROM league_players WHERE league_id = %s AND account_id = %s",
                    (league_id, account_id),
                )
            for round_no, table_no, seats, game_id in rows:
                tx.execute(
                    "INSERT INTO league_tables (league_id, round, table_no, players, game_id)"
                    " VALUES (%s, %s, %s, %s, %s)",
                    (league_id, round_no, table_no, json.dumps(seats), game_id),
                )
            rounds = max((r[0] for r in rows), default=0)
            tx.execute("UPDATE leagues SET rounds = %s WHERE league_id = %s", (rounds, league_id))
            return True

    def advance(self, league_id: str, from_round: int) -> bool:
        """Open the round after ``from_round`` (once, whoever asks first, L7)."""
        with self.store.transaction() as tx:
            moved = value(
                tx.execute(
                    "UPDATE leagues SET opened_round = opened_round + 1"
                    " WHERE league_id = %s AND opened_round = %s AND opened_round < rounds"
                    " RETURNING opened_round",
                    (league_id, from_round),
                )
            )
            return moved is not None

    def finish(self, league_id: str) -> bool:
        """The league finished: its last round opened and over (once, L12)."""
        with self.store.transaction() as tx:
            done = value(
                tx.execute(
                    "UPDATE leagues SET status = %s WHERE league_id = %s AND status = %s"
                    " AND opened_round = rounds RETURNING league_id",
                    (FINISHED, league_id, STARTED),
                )
            )
            return done is not None

    def cancel(self, league_id: str) -> bool:
        """Cancel an open league (its creator's account deleted, L11): once, and never
        a started one (the start and a join are put in a line with it)."""
        with self.store.transaction() as tx:
            done = value(
                tx.execute(
                    "UPDATE leagues SET status = %s WHERE league_id = %s AND status = %s"
                    " RETURNING league_id",
                    (CANCELLED, league_id, OPEN),
                )
            )
            return done is not None

    def mark_absent(self, league_id: str, round_no: int, table_no: int, gone: list[str]) -> None:
        """Record that a table opens (or is not played) without these players (L11)."""
        with self.store.transaction() as tx:
            for account_id in gone:
                tx.execute(
                    "INSERT INTO league_absent (league_id, round, table_no, account_id)"
                    " VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    (league_id, round_no, table_no, account_id),
                )

    def absent(self, league_id: str) -> dict[tuple[int, int], set[str]]:
        """The players each table of the league opened (or was not played) without."""
        with self.store.reading() as tx:
            found = tx.execute(
                "SELECT round, table_no, account_id FROM league_absent WHERE league_id = %s",
                (league_id,),
            ).fetchall()
        absent: dict[tuple[int, int], set[str]] = {}
        for round_no, table_no, account_id in found:
            absent.setdefault((int(round_no), int(table_no)), set()).add(str(account_id))
        return absent

    def move_game(self, scheduled: Scheduled, game_id: str) -> bool:
        """The table's game id becomes ``game_id`` (its first player's account deleted
        before it opened, L11), if nobody moved it meanwhile."""
        with self.store.transaction() as tx:
            moved = value(
                tx.execute(
                    "UPDATE league_tables SET game_id = %s WHERE league_id = %s AND round = %s"
                    " AND table_no = %s AND game_id = %s RETURNING game_id",
                    (
                        game_id,
                        scheduled.league_id,
                        scheduled.round,
                        scheduled.table_no,
                        scheduled.game_id,
                    ),
                )
            )
            return moved is not None

    def get(self, league_id: str) -> League | None:
        with self.store.reading() as tx:
            return LEAGUE.one(
                tx.execute(
                    f"SELECT {LEAGUE.select} FROM leagues WHERE league_id = %s", (league_id,)
                )
            )

    def newest(self, limit: int, offset: int) -> list[League]:
        """Leagues, newest first."""
        with self.store.reading() as tx:
            return LEAGUE.all(
                tx.execute(
                    f"SELECT {LEAGUE.select} FROM leagues"
                    " ORDER BY created_at DESC, league_id LIMIT %s OFFSET %s",
                    (limit, offset),
                )
            )

    def members(self, league_id: str) -> list[Member]:
        with self.store.reading() as tx:
            return MEMBER.all(
                tx.execute(
                    f"SELECT {MEMBER.select} FROM league_players WHERE league_id = %s"
                    " ORDER BY position, account_id",
                    (league_id,),
                )
            )

    def tables(self, league_id: str) -> list[Scheduled]:
        """The league's schedule, by round and table."""
        with self.store.reading() as tx:
            return SCHEDULED.all(
                tx.execute(
                    f"SELECT {SCHEDULED.select} FROM league_tables WHERE league_id = %s"
                    " ORDER BY round, table_no",
                    (league_id,),
                )
            )
