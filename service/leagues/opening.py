"""Opening a league's tables (docs/leagues.md, L7, L8): each table of a round is a
private table (docs/invitations.md) opened in the name of its first seat's player for
the others, every player seated in their own name with a colour by seat order, and
started in the first player's name. Every step carries an Idempotency-Key of the
league, round and table, so a second run (a retry, a crash's next look, another
process at the same moment) finds what the first did: one game per table."""

from __future__ import annotations

import json
import logging
from contextlib import suppress

from domain import commands as cmd
from domain.state import COLOURS, Phase
from service.errors import NotFound, ServiceError
from service.invitations.service import Invitations
from service.leagues.table import LeagueTable, Scheduled
from service.play.games import GameService
from service.play.receipts import game_id_for
from service.store.base import Account, SqlStore

log = logging.getLogger("tongiaki.leagues")


def table_key(league_id: str, round_no: int, table_no: int) -> str:
    """The Idempotency-Key of a league's table (L8); its steps add a suffix."""
    return f"league:{league_id}:{round_no}:{table_no}"


def options_of(encoded: str) -> cmd.GameOptions:
    """A league's game options as stored (every field of ``GameOptions``)."""
    return cmd.GameOptions(**json.loads(encoded))


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
        short), and the next round once every game of this one has ended (L7, L8)."""
        for _ in range(2):
            league = self.table.get(league_id)
            if league is None or league.opened_round == 0:
                return
            current = [t for t in self.table.tables(league_id) if t.round == league.opened_round]
            phases = [self._tried(league.options, t) for t in current]
            if any(p is not Phase.ENDED for p in phases):
                return
            if not self.table.advance(league_id, league.opened_round):
                return

    def _tried(self, options: str, scheduled: Scheduled) -> Phase | None:
        """``_opened``, a refusal logged rather than answered: a look at the league shows
        the table still opening, and the next look tries again."""
        try:
            return self._opened(options, scheduled)
        except ServiceError as exc:
            log.warning("league table %s not opened: %s", scheduled.game_id, exc.code)
            return None

    def _opened(self, options: str, scheduled: Scheduled) -> Phase:
        """The table's game, opened, seated and started if it was not (L8): its phase."""
        phase = self._phase(scheduled.game_id)
        if phase is not None and phase not in (Phase.NEW, Phase.OPEN):
            return phase
        key = table_key(scheduled.league_id, scheduled.round, scheduled.table_no)
        seats = scheduled.seats
        accounts = [self.store.account(a) for a in seats]
        players = [a for a in accounts if a is not None]
        game = options_of(options)
        self.invitations.open(players[0], game, seats[1:], False, idempotency_key=f"{key}:game")
        for seat, account in enumerate(players):
            colours = colours_of(seat, game.two_colours_each)
            self.games.join(scheduled.game_id, account, colours, "", f"{key}:seat")
        self._start(scheduled.game_id, players[0], key)
        return self._phase(scheduled.game_id) or Phase.NEW

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
