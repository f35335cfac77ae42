"""Opening a league's tables (docs/leagues.md, L7, L8): each table of a round is a
private table (docs/invitations.md) opened in the name of its first seat's player for
the others, every player seated in their own name with a colour by seat order, and
started in the first player's name. Every step carries an Idempotency-Key of the
league, round and table, so a second run (a retry, a crash's next look, another
process at the same moment) finds what the first did: one game per table.

A player whose account was deleted sits at none of the tables still to open (L11): the
table opens without them (recorded in ``league_absent``), in the name of its first
player still there, and one left with fewer than 2 players is not played. Once the
last round is over, the league is finished (L12)."""

from __future__ import annotations

import json
import logging
from contextlib import suppress
from dataclasses import replace
from typing import TypeGuard

from domain import commands as cmd
from domain.state import COLOURS, Phase
from service.errors import NotFound, ServiceError
from service.invitations.service import Invitations
from service.leagues.table import STARTED, LeagueTable, Scheduled
from service.play.games import GameService
from service.play.receipts import game_id_for
from service.store.base import DELETING, Account, SqlStore

log = logging.getLogger("tongiaki.leagues")

NOT_PLAYED = "not_played"  # a table left with fewer than 2 players (L11)
OVER = (Phase.ENDED, NOT_PLAYED)  # a table the round no longer waits for


def table_key(league_id: str, round_no: int, table_no: int) -> str:
    """The Idempotency-Key of a league's table (L8); its steps add a suffix."""
    return f"league:{league_id}:{round_no}:{table_no}"


def options_of(encoded: str) -> cmd.GameOptions:
    """A league's game options as stored (every field of ``GameOptions``)."""
    return cmd.GameOptions(**json.loads(encoded))


def plays(account: Account | None) -> TypeGuard[Account]:
    """Whether the account plays on: a player's, not deleted (docs/profiles.md, P7). One
    whose deletion is under way still counts: its seat is refused meanwhile (the table
    is tried again) and, if the deletion is refused, it plays (P6)."""
    return account is not None and account.kind in ("player", DELETING)


def colours_of(seat: int, two_each: bool) -> list[str]:
    """The colours of the seat (0-based): by seat order, two each in the variant."""
    return list(COLOURS[2 * seat : 2 * seat + 2]) if two_each else [COLOURS[seat]]


class Opening:
    """Opens a league's scheduled tables, and the next round when one is over."""

    def __init__(self, store: SqlStore, games: GameService, invitations: Invitations) -> None:
        self.store = store
        self.games = games
        self.invitations = invitations
        self.table = LeagueTable(store)

    @staticmethod
    def game_id(league_id: str, round_no: int, table_no: int, opener: Account) -> str:
        """The id the table's game has once opened (derived from its key, L8)."""
        return game_id_for(opener, f"{table_key(league_id, round_no, table_no)}:game")

    def catch_up(self, league_id: str) -> None:
        """Open the current round's tables not yet opened (a first run, or one cut
        short), the next round once every game of this one has ended or was not played
        (L7, L8, L11), and finish the league once its last round is over (L12)."""
        league = self.table.get(league_id)
        for _ in range(league.rounds + 1 if league else 0):
            league = self.table.get(league_id)
            if league is None or league.status != STARTED or league.opened_round == 0:
                return
            current = [t for t in self.table.tables(league_id) if t.round == league.opened_round]
            absent = self.table.absent(league_id)
            phases = [
                self._tried(league.options, t, absent.get((t.round, t.table_no), set()))
                for t in current
            ]
            if any(p not in OVER for p in phases):
                return
            if league.opened_round >= league.rounds:
                if self.table.finish(league_id):
                    log.info("league %s finished", league_id)
                return
            if not self.table.advance(league_id, league.opened_round):
                return

    def _tried(self, options: str, scheduled: Scheduled, absent: set[str]) -> Phase | str | None:
        """``_opened``, a refusal logged rather than answered: a look at the league shows
        the table still opening, and the next look tries again."""
        try:
            return self._opened(options, scheduled, absent)
        except ServiceError as exc:
            log.warning("league table %s not opened: %s", scheduled.game_id, exc.code)
            return None

    def _opened(self, options: str, scheduled: Scheduled, absent: set[str]) -> Phase | str | None:
        """The table's game, opened, seated and started if it was not (L8): its phase;
        ``NOT_PLAYED`` when fewer than 2 of its players are left (L11); None when
        another look moved its game meanwhile (the next look goes on)."""
        phase = self._phase(scheduled.game_id)
        if phase is not None and phase not in (Phase.NEW, Phase.OPEN):
            return phase
        players = self._present(scheduled, absent)
        if len(players) < 2:
            return NOT_PLAYED
        game_id = scheduled.game_id
        key = table_key(scheduled.league_id, scheduled.round, scheduled.table_no)
        game = options_of(options)
        if len(players) < len(scheduled.seats):  # a smaller table (L11)
            seats = len(players)
            game = replace(game, max_players=seats, first_seat=min(game.first_seat, seats))
        if phase is None:
            game_id = self.game_id(
                scheduled.league_id, scheduled.round, scheduled.table_no, players[0]
            )
            if game_id != scheduled.game_id and not self.table.move_game(scheduled, game_id):
                return None
            invitees = [p.account_id for p in players[1:]]
            self.invitations.open(players[0], game, invitees, False, idempotency_key=f"{key}:game")
        for seat, account in enumerate(players):
            colours = colours_of(seat, game.two_colours_each)
            self.games.join(game_id, account, colours, "", f"{key}:seat")
        self._start(game_id, players[0], key)
        return self._phase(game_id) or Phase.NEW

    def _present(self, scheduled: Scheduled, absent: set[str]) -> list[Account]:
        """The table's players still there, in seat order; those whose account was
        deleted are recorded as absent from it, for good (L11)."""
        accounts = [(a, self.store.account(a)) for a in scheduled.seats if a not in absent]
        gone = [a for a, account in accounts if not plays(account)]
        if gone:
            self.table.mark_absent(scheduled.league_id, scheduled.round, scheduled.table_no, gone)
        return [account for _, account in accounts if plays(account)]

    def _start(self, game_id: str, opener: Account, key: str) -> None:
        """Start the game in the first player's name (refused only if it is started)."""
        with suppress(ServiceError):
            self.games.execute(game_id, opener, {"type": "StartGame"}, None, f"{key}:start")

    def _phase(self, game_id: str) -> Phase | None:
        """The game's phase, None before it is opened."""
        if not self.store.head(game_id):
            return None
        try:
            return self.games.load(game_id)[1].phase
        except NotFound:
            return None
