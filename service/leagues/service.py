"""Round-robin leagues as the service keeps them (docs/leagues.md): an account creates
a league with its players (L1, L2) or a join link (L3), starts it (L4), and the service
schedules it (L5, L6), opens its tables round by round (L7, L8), finishes it (L12) and
ranks its players from the results read model (L9). A deleted account plays nothing more
(L11): it is left out of a league that starts, its later tables open without it, and a
league its creator deleted before starting it is cancelled."""

from __future__ import annotations

import hmac
import json
import logging
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import asdict, replace
from typing import Any

from domain import commands as cmd
from domain.errors import RuleViolation
from domain.league_schedule import schedule
from domain.setup import validate_options
from service.errors import Conflict, Forbidden, NotFound
from service.invitations.service import Invitations
from service.leagues.opening import NOT_PLAYED, Opening, plays
from service.leagues.rounds import Rounds
from service.leagues.schema import LEAGUES_SCHEMA, TABLES
from service.leagues.standings import standings
from service.leagues.table import CANCELLED, OPEN, League, LeagueTable, Scheduled
from service.play.accounts import players_named
from service.play.games import GameService
from service.store.base import Account, SqlStore
from service.timing.clocks import stamp

log = logging.getLogger("tongiaki.leagues")

MOST_PLAYERS = 30  # members of one league (L2)
MAX_ENTRY = 64  # characters of one player entry (an account id or a name)


class Leagues:
    """Leagues, the one object the app holds for them."""

    def __init__(self, store: SqlStore, games: GameService, invitations: Invitations) -> None:
        self.store = store
        self.games = games
        self.table = LeagueTable(store)
        self.opening = Opening(store, games, invitations)
        self.rounds = Rounds(store, self.opening)  # rounds opened by themselves (L7)

    def upgrade(self) -> None:
        """Create the leagues' tables (idempotent)."""
        self.store.ensure_tables(TABLES, "leagues_schema", LEAGUES_SCHEMA)

    def create(
        self,
        who: Account,
        name: str,
        table_size: int,
        options: cmd.GameOptions,
        entries: Sequence[str],
        link: bool,
    ) -> League:
        """A new league of its creator and ``entries`` (L1, L2), with a link (L3)."""
        if who.kind != "player":
            raise Forbidden("not_a_player", "auditor accounts cannot create leagues", rule="L1")
        options = replace(options, max_players=table_size, private=True)
        try:
            validate_options(options)
        except RuleViolation as v:
            raise Conflict(v.code, v.message, rule=v.rule) from v
        members = [who.account_id, *self._players(who, entries)]
        if len(members) < 2 and not link:
            raise Conflict(
                "too_few_players", "a league needs at least 2 players (or a link)", rule="L2"
            )
        if len(members) < table_size and not link:
            raise Conflict(
                "table_too_large",
                f"{len(members)} players cannot fill a table of {table_size}",
                rule="L2",
            )
        now = stamp(self.games.clock())
        token = secrets.token_urlsafe(24) if link else None
        league = League(
            uuid.uuid4().hex[:12], name.strip(), who.account_id, table_size,
            json.dumps(asdict(options)), token, OPEN, 0, 0, now, None,
        )  # fmt: skip
        self.table.create(league, members)
        return league

    def _players(self, who: Account, entries: Sequence[str]) -> list[str]:
        """The accounts named by ``entries``, refused as a whole if one is wrong (L2)."""
        if len(entries) + 1 > MOST_PLAYERS:
            raise Conflict(
                "too_many_players", f"a league has at most {MOST_PLAYERS} players", rule="L2"
            )
        found: list[str] = []
        for entry in entries:
            account_id = self._account_of(entry.strip())
            if account_id == who.account_id or account_id in found:
                raise Conflict(
                    "duplicate_player",
                    f"{entry!r} is in the league twice (its creator plays in it)",
                    rule="L2",
                )
            found.append(account_id)
        return found

    def _account_of(self, entry: str) -> str:
        """The player's account an entry names: its id, or a name only it has (L2)."""
        unknown = Conflict("unknown_account", f"no player's account is named {entry!r}", rule="L2")
        if not entry or len(entry) > MAX_ENTRY:
            raise unknown
        exact = players_named(self.store, entry)
        if len(exact) > 1:
            raise Conflict(
                "ambiguous_player",
                f"{len(exact)} players are named {entry!r}: name them by account id",
                rule="L2",
            )
        if not exact:
            raise unknown
        return exact[0]

    def league(self, league_id: str) -> League:
        found = self.table.get(league_id)
        if found is None:
            raise NotFound("unknown_league", f"no league {league_id!r}", rule="L1")
        return self._settled(found)

    def _settled(self, league: League) -> League:
        """The league as it stands once an open league whose creator's account was
        deleted is cancelled (L11): decided from the account itself, final like the
        deletion, whoever looks first."""
        if league.status != OPEN or plays(self.store.account(league.creator)):
            return league
        if self.table.cancel(league.league_id):
            log.info("league %s cancelled: its creator's account was deleted", league.league_id)
        return self.table.get(league.league_id) or league

    def join(self, who: Account, league_id: str, token: str) -> None:
        """Join an open league with its link's token (L3)."""
        league = self.league(league_id)
        if who.kind != "player":
            raise Forbidden("not_a_player", "auditor accounts cannot play in leagues", rule="L3")
        sent, kept = token.encode(), (league.token or "").encode()
        if not kept or not hmac.compare_digest(sent, kept):
            raise Forbidden("bad_league_link", "this is not this league's join link", rule="L3")
        outcome = self.table.join(
            league_id, who.account_id, stamp(self.games.clock()), MOST_PLAYERS
        )
        if outcome == "cancelled":
            raise _cancelled()
        if outcome == "started":
            raise Conflict("league_started", "this league has started: it takes nobody", rule="L3")
        if outcome == "member":
            raise Conflict("already_member", "you play in this league already", rule="L3")
        if outcome == "full":
            raise Conflict("league_full", f"this league has its {MOST_PLAYERS} players", rule="L2")

    def start(self, who: Account, league_id: str) -> None:
        """Start the league: schedule it and open its first round (L4–L7), without the
        members whose accounts were deleted (L11)."""
        league = self.league(league_id)
        if league.status == CANCELLED:
            raise _cancelled()
        if who.account_id != league.creator:
            raise Forbidden("not_league_creator", "only its creator starts a league", rule="L4")
        if league.status != OPEN:
            raise Conflict("already_started", "this league has started already", rule="L4")
        members = [m.account_id for m in self.table.members(league_id)]
        self._playing(league, members)  # refused before the league's row is locked

        def plan(members: list[str]) -> tuple[list[str], list[tuple[int, int, list[str], str]]]:
            playing = self._playing(league, members)  # again, under the lock
            accounts = {a.account_id: a for a in playing}
            ids = list(accounts)
            rounds = schedule(league_id, ids, league.table_size)
            return ids, [
                (r, t, list(seats), self.opening.game_id(league_id, r, t, accounts[seats[0]]))
                for r, tables in enumerate(rounds, start=1)
                for t, seats in enumerate(tables, start=1)
            ]

        if not self.table.start(league_id, stamp(self.games.clock()), plan):
            raise Conflict("already_started", "this league has started already", rule="L4")
        self.opening.catch_up(league_id)

    def _playing(self, league: League, members: list[str]) -> list[Account]:
        """The members who play when the league starts, in order: those whose accounts
        are still there (L11); refused if they are too few (L4)."""
        accounts = {m: self.store.account(m) for m in members}
        playing = [a for a in accounts.values() if plays(a)]
        deleted = [m for m, a in accounts.items() if not plays(a)]
        said = f" ({len(deleted)} of its players' accounts were deleted)" if deleted else ""
        if len(playing) < 2:
            raise Conflict(
                "too_few_players",
                f"a league needs at least 2 players{said}",
                rule="L4",
                deleted=deleted,
            )
        if len(playing) < league.table_size:
            raise Conflict(
                "table_too_large",
                f"{len(playing)} players cannot fill a table of {league.table_size}{said}",
                rule="L4",
                deleted=deleted,
            )
        return playing

    def listed(self, limit: int, offset: int) -> list[dict[str, Any]]:
        """Leagues, newest first, with their member counts (L10)."""
        found = [self._settled(league) for league in self.table.newest(limit, offset)]
        names = self.store.account_names(league.creator for league in found)
        return [
            {**self._summary(league), "creator_name": names.get(league.creator)} for league in found
        ]

    @staticmethod
    def _summary(league: League) -> dict[str, Any]:
        return {
            "league_id": league.league_id,
            "name": league.name,
            "creator": league.creator,
            "table_size": league.table_size,
            "status": league.status,
            "rounds": league.rounds,
            "current_round": league.opened_round,
            "created_at": league.created_at,
        }

    def view(self, league_id: str, who: Account | None) -> dict[str, Any]:
        """The league: players, schedule by round with each table's game and status,
        standings (L9, L10). A look opens what is due first (L7, L8)."""
        self.opening.catch_up(self.league(league_id).league_id)
        league = self.league(league_id)
        members = [m.account_id for m in self.table.members(league_id)]
        if league.status == OPEN:  # a deleted account is no longer a player (L11)
            members = [m for m in members if plays(self.store.account(m))]
        scheduled = self.table.tables(league_id)
        absent = self.table.absent(league_id)

        def left(t: Scheduled) -> list[str]:  # the players a table is without (L11)
            return [a for a in t.seats if a in absent.get((t.round, t.table_no), set())]

        unplayed = {
            (t.round, t.table_no)
            for t in scheduled
            if t.round <= league.opened_round and len(t.seats) - len(left(t)) < 2
        }
        opened = [
            t.game_id
            for t in scheduled
            if t.round <= league.opened_round and (t.round, t.table_no) not in unplayed
        ]
        statuses = self.store.versions(opened)
        shown_games = set(opened)
        rounds: dict[int, list[dict[str, Any]]] = {}
        for t in scheduled:
            shown = t.game_id in shown_games
            if (t.round, t.table_no) in unplayed:
                status = NOT_PLAYED
            else:
                status = _status(statuses.get(t.game_id)) if shown else "scheduled"
            rounds.setdefault(t.round, []).append(
                {
                    "table": t.table_no,
                    "players": t.seats,
                    "absent": left(t),
                    "game_id": t.game_id if shown else None,
                    "status": status,
                }
            )
        names = self.store.account_names(members)
        options = json.loads(league.options)
        mine = who is not None and who.account_id == league.creator
        return {
            **self._summary(league),
            "options": {k: v for k, v in options.items() if k not in ("max_players", "private")},
            "players": [{"account_id": m, "name": names.get(m)} for m in members],
            "link": _link(league) if mine else None,
            "schedule": [{"round": r, "tables": tables} for r, tables in sorted(rounds.items())],
            "standings": [
                {**s, "name": names.get(s["account_id"])}
                for s in standings(self.store, members, opened)
            ],
        }


def _cancelled() -> Conflict:
    return Conflict(
        "league_cancelled",
        "this league was cancelled: its creator's account was deleted before it started",
        rule="L11",
    )


def _link(league: League) -> str | None:
    """The join link's path (the creator's only, while the league is open, L3)."""
    if league.token is None or league.status != OPEN:
        return None
    return f"/leagues/{league.league_id}?join={league.token}"


def _status(found: tuple[int, str] | None) -> str:
    """A table's game status as the store's index has it (open, setup, playing, ended),
    ``opening`` while its opening is under way."""
    return "opening" if found is None else found[1]
