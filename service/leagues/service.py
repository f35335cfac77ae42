"""Round-robin leagues as the service keeps them (docs/leagues.md): an account creates
a league with its players (L1, L2) or a join link (L3), starts it (L4), and the service
schedules it (L5, L6), opens its tables round by round (L7, L8) and ranks its players
from the results read model (L9)."""

from __future__ import annotations

import hmac
import json
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
from service.leagues.opening import Opening
from service.leagues.rounds import Rounds
from service.leagues.schema import LEAGUES_SCHEMA, TABLES
from service.leagues.standings import standings
from service.leagues.table import OPEN, League, LeagueTable
from service.play.accounts import players_named
from service.play.games import GameService
from service.store.base import Account, SqlStore
from service.timing.clocks import stamp

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
        """The player's account an entry names: its id, or its exact unique name (L2)."""
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
        return found

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
        if outcome == "started":
            raise Conflict("league_started", "this league has started: it takes nobody", rule="L3")
        if outcome == "member":
            raise Conflict("already_member", "you play in this league already", rule="L3")
        if outcome == "full":
            raise Conflict("league_full", f"this league has its {MOST_PLAYERS} players", rule="L2")

    def start(self, who: Account, league_id: str) -> None:
        """Start the league: schedule it and open its first round (L4–L7)."""
        league = self.league(league_id)
        if who.account_id != league.creator:
            raise Forbidden("not_league_creator", "only its creator starts a league", rule="L4")
        if league.status != OPEN:
            raise Conflict("already_started", "this league has started already", rule="L4")
        count = len(self.table.members(league_id))
        if count < 2:
            raise Conflict("too_few_players", "a league needs at least 2 players", rule="L4")
        if count < league.table_size:
            raise Conflict(
                "table_too_large",
                f"{count} players cannot fill a table of {league.table_size}",
                rule="L4",
            )

        def plan(members: list[str]) -> list[tuple[int, int, list[str], str]]:
            rounds = schedule(league_id, members, league.table_size)
            accounts = {m: self.store.account(m) for m in members}
            return [
                (
                    r,
                    t,
                    list(seats),
                    self.opening.game_id(league_id, r, t, _known(accounts[seats[0]])),
                )
                for r, tables in enumerate(rounds, start=1)
                for t, seats in enumerate(tables, start=1)
            ]

        if not self.table.start(league_id, stamp(self.games.clock()), plan):
            raise Conflict("already_started", "this league has started already", rule="L4")
        self.opening.catch_up(league_id)

    def listed(self, limit: int, offset: int) -> list[dict[str, Any]]:
        """Leagues, newest first, with their member counts (L10)."""
        found = self.table.newest(limit, offset)
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
        scheduled = self.table.tables(league_id)
        opened = [t.game_id for t in scheduled if t.round <= league.opened_round]
        statuses = self.store.versions(opened)
        rounds: dict[int, list[dict[str, Any]]] = {}
        for t in scheduled:
            shown = t.round <= league.opened_round
            rounds.setdefault(t.round, []).append(
                {
                    "table": t.table_no,
                    "players": t.seats,
                    "game_id": t.game_id if shown else None,
                    "status": _status(statuses.get(t.game_id)) if shown else "scheduled",
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


def _known(found: Account | None) -> Account:
    """A member's account (members are players' accounts, L2)."""
    assert found is not None
    return found


def _link(league: League) -> str | None:
    """The join link's path (the creator's only, while the league is open, L3)."""
    if league.token is None or league.status != OPEN:
        return None
    return f"/leagues/{league.league_id}?join={league.token}"


def _status(found: tuple[int, str] | None) -> str:
    """A table's game status as the store's index has it (open, setup, playing, ended),
    ``opening`` while its opening is under way."""
    return "opening" if found is None else found[1]
