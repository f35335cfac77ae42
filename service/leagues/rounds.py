"""Leagues' rounds opened by themselves (docs/leagues.md, L7): nobody has to look at a
league for its next round to open. A keeper looks every few seconds (a thread of the
embedded default; with ``REDIS_URL``, of every worker) for the leagues that may have
something to open, and has ``Opening.catch_up`` do it, which decides from the event
store itself (the games' phases), never from the hint.

The hint is the lobby read model (the same database): a started league whose current
round has no game still running there (every game ended, or not yet opened: a first
run cut short), so a later round to open or the league to finish, or one of whose
current tables has no game yet, or a game still open for its seats (an opening refused
or cut short), unless the table was left with fewer than 2 players (L11). A
read model behind only delays the hint to the next look; a read model ahead cannot
be (it is a fold of the store). Any number of keepers may look at once: each step of
an opening carries its Idempotency-Key and the round moves by one conditional UPDATE
(L8), so two keepers open one game per table and one round.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from service.errors import ServiceError
from service.leagues.opening import Opening
from service.leagues.table import STARTED
from service.runtime.loops import repeat
from service.store.base import SqlStore, StoreUnavailable

log = logging.getLogger("tongiaki.leagues")

EVERY = 5.0  # seconds between the keeper's looks (TONGIAKI_LEAGUE_EVERY)
AT_MOST = 100  # leagues caught up in one look (the next look takes the rest)

# started leagues with something to do: their current round over (no game of it
# running in the lobby read model), so a next round to open or the league to finish,
# or a table of it not yet opened, seated and started (no game, or one still open for
# its seats: a cut-short opening) that is not left with fewer than 2 players (L11)
DUE = f"""
SELECT l.league_id FROM leagues l
WHERE l.status = '{STARTED}' AND (
  NOT EXISTS (
     SELECT 1 FROM league_tables t JOIN rm_lobby g ON g.game_id = t.game_id
     WHERE t.league_id = l.league_id AND t.round = l.opened_round AND g.status <> 'ended')
  OR EXISTS (
     SELECT 1 FROM league_tables t
     WHERE t.league_id = l.league_id AND t.round = l.opened_round
       AND NOT EXISTS (
         SELECT 1 FROM rm_lobby g WHERE g.game_id = t.game_id AND g.status <> 'open')
       AND (SELECT COUNT(*) FROM league_absent a
            WHERE a.league_id = t.league_id AND a.round = t.round
              AND a.table_no = t.table_no) <= l.table_size - 2))
ORDER BY l.started_at, l.league_id
LIMIT %s
"""


class Rounds:
    """Finds the leagues with a round or a table to open, and opens them."""

    def __init__(self, store: SqlStore, opening: Opening) -> None:
        self.store = store
        self.opening = opening

    def due(self, limit: int = AT_MOST) -> list[str]:
        """The ids of the leagues that may have a round or a table to open (the hint)."""
        with self.store.reading() as tx:
            return [str(r[0]) for r in tx.execute(DUE, (limit,)).fetchall()]

    def look(self) -> list[str]:
        """Catch up every league the hint names: the ids of those whose opened round
        moved or that finished (L7, L12). A league whose opening is refused (logged) is
        tried at the next look; the others go on."""
        moved = []
        for league_id in self.due():
            before = self.opening.table.get(league_id)
            try:
                self.opening.catch_up(league_id)
            except ServiceError as exc:
                log.warning("league %s not caught up: %s", league_id, exc.code)
                continue
            after = self.opening.table.get(league_id)
            if before and after and after.opened_round != before.opened_round:
                log.info("league %s: round %d opened", league_id, after.opened_round)
                moved.append(league_id)
            elif before and after and after.status != before.status:
                moved.append(league_id)  # finished (logged by the opening)
        return moved

    def run(self, every: float, stopped: Callable[[], bool]) -> threading.Event:
        """Look now and every ``every`` seconds in a thread of its own, until
        ``stopped()`` or the returned event is set; the store away skips a look."""
        stop = threading.Event()
        repeat(
            self.look,
            every,
            stop,
            name="league-rounds",
            log=log,
            what="the leagues' look",
            skipped=(StoreUnavailable,),
            until=stopped,
        )
        return stop
