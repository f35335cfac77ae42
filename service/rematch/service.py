"""Rematches as the service keeps them (docs/invitations.md): a player of a finished
game (RM1, RM2) proposes the same table (RM4), one proposal at a time (RM3); every other
player accepts or declines, once (RM5); the last acceptance opens the new game with
everyone seated as rotated (RM6), and the two games link to each other (RM7). Answers to
one proposal are put in a line by its row (RM8, ``service.rematch.table``). A rematch needs
every player: once one's account is deleted, none is proposed and none opens (RM9)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from domain.state import GameState, Phase, Player
from service.errors import BadRequest, Conflict, Forbidden, NotFound, ServiceError
from service.play.bot_seats import reseat_bot
from service.play.games import GameService
from service.play.receipts import game_id_for
from service.play.text import text_problem
from service.rematch.schema import REMATCH_SCHEMA, TABLES
from service.rematch.table import ACCEPTED, DECLINED, OPEN, Proposal, RematchTable
from service.store.base import SqlStore
from service.timing.clocks import parse_time, stamp

MAX_ENTROPY = 256  # characters of a player's entropy, as at a join
# an agreed rematch without its game this long after its last acceptance was cut short
# (a crash): the next look finishes it (sooner, it may be the opening still under way)
STALLED = timedelta(seconds=30)


def rotated(state: GameState) -> list[Player]:
    """The players in their new seat order: each moves up one seat, the first goes
    last (RM4), so the player at the first seat changes."""
    players = sorted(state.players, key=lambda p: p.seat)
    return players[1:] + players[:1]


def people(state: GameState) -> list[Player]:
    """The game's people: the players who answer a rematch (a bot's seat does not, B4)."""
    return [p for p in state.players if not p.bot]


def checked_entropy(entropy: str) -> str:
    """A player's entropy for the new deck, as a join takes it (RM5)."""
    problem = text_problem(entropy)
    if len(entropy) > MAX_ENTROPY or problem is not None:
        raise BadRequest(
            "bad_entropy",
            f"entropy is text shown as it is, at most {MAX_ENTROPY} characters",
            rule="RM5",
        )
    return entropy


class Rematches:
    """Rematch proposals, the one object the app holds for them."""

    def __init__(
        self,
        store: SqlStore,
        games: GameService,
        keep_private: Callable[[str, str], None] | None = None,
    ) -> None:
        self.store = store
        self.games = games
        self.table = RematchTable(store)
        # a private table's rematch is private too (RM4): kept as one before it opens
        self.keep_private = keep_private

    def upgrade(self) -> None:
        """Create the rematches' tables (idempotent)."""
        self.store.ensure_tables(TABLES, "rematch_schema", REMATCH_SCHEMA)

    def _finished(self, game_id: str, account_id: str) -> GameState:
        """The finished game, if ``account_id`` played it (RM1, RM2)."""
        _, state = self.games.load(game_id)
        if all(p.player_id != account_id for p in state.players):
            raise Forbidden(
                "not_a_player_of_game", "only the game's players answer its rematch", rule="RM1"
            )
        if state.phase is not Phase.ENDED:
            raise Conflict(
                "game_not_finished", "a rematch is proposed once the game has ended", rule="RM2"
            )
        return state

    def _gone(self, state: GameState) -> str | None:
        """The first player of the game whose account was deleted (RM9), or None."""
        for player in sorted(people(state), key=lambda p: p.seat):
            account = self.store.account(player.player_id)
            if account is None or account.kind != "player":
                return player.player_id
        return None

    def _cancelled(self, found: Proposal, state: GameState) -> bool:
        """Decline a proposal not yet opened whose game lost a player (RM9): whether it
        was (or had been)."""
        if found.new_game_id is not None or found.status not in (OPEN, ACCEPTED):
            return False
        gone = self._gone(state)
        if gone is None:
            return False
        self.table.cancel(found.game_id, gone, stamp(self.games.clock()))
        return True

    def propose(self, game_id: str, account_id: str, entropy: str) -> dict[str, Any]:
        """Propose the same table again, accepting it oneself (RM3, RM4, RM9)."""
        entropy = checked_entropy(entropy)
        state = self._finished(game_id, account_id)
        if self._gone(state) is not None:
            raise Conflict(
                "player_gone",
                "a player of this game deleted their account: its table cannot sit again",
                rule="RM9",
            )
        now = stamp(self.games.clock())
        if self.table.propose(game_id, account_id, len(people(state)), entropy, now) is None:
            found = self.table.get(game_id)
            if found is not None and found.status == OPEN:
                raise Conflict(
                    "rematch_pending", "a rematch of this game is already proposed", rule="RM3"
                )
            raise Conflict("rematch_opened", "this game's rematch is already agreed", rule="RM3")
        agreed = self.table.get(game_id)
        if agreed is not None and agreed.status == ACCEPTED:  # the one person of the table
            self._open(agreed)
        return self.view(game_id)

    def accept(self, game_id: str, account_id: str, entropy: str) -> dict[str, Any]:
        """Accept the open proposal; the last acceptance opens the new game (RM5, RM6)."""
        entropy = checked_entropy(entropy)
        state = self._finished(game_id, account_id)
        pending = self.table.get(game_id)
        if pending is not None and self._cancelled(pending, state):
            raise Conflict(
                "rematch_declined",
                "this rematch was declined: a player of the game deleted their account",
                rule="RM9",
            )
        found = self.table.accept(game_id, account_id, entropy, stamp(self.games.clock()))
        if found is None:
            self._resume(self._not_open(game_id, account_id))
            raise Conflict("already_answered", "you answered this rematch already", rule="RM5")
        if found.status == ACCEPTED:
            self._open(found)
        return self.view(game_id)

    def decline(self, game_id: str, account_id: str) -> dict[str, Any]:
        """Decline the open proposal: no game is opened (RM5)."""
        self._finished(game_id, account_id)
        if self.table.decline(game_id, account_id, stamp(self.games.clock())) is None:
            self._not_open(game_id, account_id)
            raise Conflict("already_answered", "you answered this rematch already", rule="RM5")
        return self.view(game_id)

    def _not_open(self, game_id: str, account_id: str) -> Proposal:
        """Why the game's proposal took no answer: none, or declined (a settled one
        is the caller's to read as answered)."""
        found = self.table.get(game_id)
        if found is None:
            raise NotFound("no_rematch", "nobody proposed a rematch of this game", rule="RM3")
        if found.status == DECLINED:
            raise Conflict("rematch_declined", "this rematch was declined", rule="RM5")
        return found

    def _resume(self, found: Proposal) -> bool:
        """Finish an opening cut short (RM6): whether there was one."""
        if found.status != ACCEPTED or found.new_game_id is not None:
            return False
        if self.games.clock() - parse_time(found.updated_at) < STALLED:
            return False
        self._open(found)
        return True

    def _open(self, found: Proposal) -> str | None:
        """Open the new game in the proposer's name and seat every player in the rotated
        order, each in their own name with their entropy (RM6). Every step carries an
        Idempotency-Key of the proposal's round: run twice, it finds what it did. None:
        a player's account is gone, and the proposal was declined in its name (RM9)."""
        _, old = self.games.load(found.game_id)
        if self._cancelled(found, old):  # a player's account deleted meanwhile (RM9)
            return None
        key = f"rematch:{found.game_id}:{found.round}"
        entropy = self.table.answers(found.game_id, found.round)
        proposer = self.store.account(found.proposer)
        assert proposer is not None
        if old.options.private and self.keep_private is not None:
            self.keep_private(game_id_for(proposer, f"{key}:game"), proposer.account_id)
        new_game_id = self.games.create_game(proposer, old.options, None, f"{key}:game").game_id
        for seat, player in enumerate(rotated(old), start=1):
            if player.bot:  # a bot's seat sits again, in the proposer's name (B4)
                reseat_bot(self.games, new_game_id, proposer, player, seat)
                continue
            account = self.store.account(player.player_id)
            assert account is not None
            colours = list(player.colours)
            seat_entropy = entropy.get(account.account_id, "")
            try:
                self.games.join(new_game_id, account, colours, seat_entropy, f"{key}:seat")
            except ServiceError as exc:  # its account deleted since the check (RM9)
                if exc.code not in ("account_deleted", "not_a_player"):
                    raise
                self.table.cancel(found.game_id, player.player_id, stamp(self.games.clock()))
                return None
        self.table.opened(found.game_id, new_game_id, stamp(self.games.clock()))
        return new_game_id

    def view(self, game_id: str) -> dict[str, Any]:
        """A game's rematch links and its proposal, if any (RM7)."""
        _, state = self.games.load(game_id)
        found = self.table.get(game_id)
        if found is not None and (self._cancelled(found, state) or self._resume(found)):
            found = self.table.get(game_id)
        return {
            "game_id": game_id,
            "previous_game_id": self.table.previous(game_id),
            "proposal": None if found is None else self._shown(found, state),
        }

    def _shown(self, found: Proposal, state: GameState) -> dict[str, Any]:
        """A proposal with every player's answer (accepted, declined or waiting)."""
        accepted = self.table.answers(found.game_id, found.round)
        names = self.store.account_names(p.player_id for p in state.players)

        def answer(player_id: str) -> str:
            if player_id.startswith("bot-"):  # a bot's seat answers nothing (B4)
                return "bot"
            if player_id == found.declined_by:  # (a deleted account's acceptance too, RM9)
                return "declined"
            return "accepted" if player_id in accepted else "waiting"

        return {
            "round": found.round,
            "status": found.status,
            "proposer": found.proposer,
            "proposed_at": found.proposed_at,
            "next_game_id": found.new_game_id,
            "players": [
                {
                    # a bot's seat as the new game names it (B4): bot-N of its new seat
                    "player_id": f"bot-{seat}" if p.bot else p.player_id,
                    "name": names.get(p.player_id),
                    "colours": list(p.colours),
                    "new_seat": seat,
                    "answer": answer(p.player_id),
                    **({"level": p.bot} if p.bot else {}),
                }
                for seat, p in enumerate(rotated(state), start=1)
            ],
        }
