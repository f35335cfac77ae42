"""Analysis forks as the service keeps them (docs/forks.md, F1–F7).

- F1: anyone signed in opens a fork of any version of any game they may see (under way
  or finished, from its first decision on); a version inside a command's events stands
  for the end of that command; the fork is anchored to the original's game, version
  and hash there.
- F2: one person, its owner, plays every seat; anyone with its link sees it.
- F3: its moves are undone freely, and it branches into a new fork at any of its moves.
- F4: its tiles: a finished game's fork may deal the true remaining order (the seed is
  public then); else, and always for a game under way, a fresh shuffle of the tiles
  the original had not drawn at that version, so a fork tells nothing of the real order.
- F5: forks are never rated, never in the lobby, and never change the original: they
  are not games of the event store.
- F6: an account keeps at most ``MOST_FORKS``; a fork holds at most ``MOST_MOVES``
  moves; one untouched for ``EXPIRE_DAYS`` days is deleted.
- F7: the bot appraises every legal command of a fork's position within a bounded
  budget.
"""

from __future__ import annotations

import json
import random
import secrets
import time
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from domain import commands as cmd
from domain.deck import Deck
from domain.errors import DeckRequired, MalformedPayload, RuleViolation
from domain.events import Event
from domain.forced import apply_forced
from domain.judge import apply
from domain.mcts import Appraisal, Budget, MctsBot, remaining
from domain.notation import Unwritable, write
from domain.notation.game import with_variation
from domain.play import UNDER_WAY, deck_of
from domain.serialization import decode_command, encode
from domain.state import GameState, Phase
from service.audit.notation import game_record
from service.errors import BadRequest, Conflict, Forbidden, NotFound
from service.forks.schema import FORKS_SCHEMA, TABLES
from service.forks.table import ForkRow, ForkTable
from service.play.games import GameService
from service.store.base import Account, SqlStore
from service.timing.clocks import stamp

MOST_FORKS = 20  # forks one account keeps (F6)
MOST_MOVES = 2000  # moves one fork holds (F6)
EXPIRE_DAYS = 30  # a fork untouched this long is deleted (F6)
MOST_PLAYOUTS = 2000  # the bot's iterations for one appraisal (F7)
APPRAISAL_SECONDS = 2.0  # and at most this long
SHUFFLE, TRUE = "shuffle", "true"


@dataclass(frozen=True)
class Fork:
    """A fork played out: its row, its position now, and each move with its events."""

    row: ForkRow
    base: GameState  # the original at the anchor
    state: GameState
    moves: list[tuple[cmd.Command, GameState, list[Event]]]  # command, state before, events


class Forks:
    """Analysis forks, the one object the app holds for them."""

    def __init__(self, store: SqlStore, games: GameService) -> None:
        self.store = store
        self.games = games
        self.table = ForkTable(store)
        self.shuffler = secrets.SystemRandom()  # a fresh deal: never the game's seed

    def upgrade(self) -> None:
        """Create the forks table (idempotent)."""
        self.store.ensure_tables(TABLES, "forks_schema", FORKS_SCHEMA)

    def open(self, who: Account, game_id: str, version: int, deck: str = SHUFFLE) -> Fork:
        """F1, F4, F6: a new fork of ``game_id`` at ``version``, for ``who``."""
        head, _ = self.games.load(game_id)
        if not 1 <= version <= head:
            raise NotFound(
                "unknown_version", f"the game has versions 1 to {head}, not {version}", rule="F1"
            )
        version = self._decision_point(game_id, version)
        _, base = self.games.load(game_id, version)
        if base.phase not in UNDER_WAY or base.pending is None:
            raise Conflict(
                "nothing_to_play",
                f"version {version} has no decision to play from ({base.phase.value}):"
                " fork a version of the game under way",
                rule="F1",
            )
        order = self._deck(game_id, base, deck)
        now = self.games.clock()
        self.table.expire(stamp(now - timedelta(days=EXPIRE_DAYS)))
        row = ForkRow(
            "f" + secrets.token_hex(10), who.account_id, game_id, version,
            self._hash_at(game_id, version), "", int(deck == TRUE),
            _json(list(order)), "[]", 0, stamp(now), stamp(now),
        )  # fmt: skip
        return self._keep(row, base)

    def _keep(self, row: ForkRow, base: GameState) -> Fork:
        """F6: a new fork kept within its account's bound, played out from ``base``."""
        if not self.table.create(row, MOST_FORKS):
            raise Conflict(
                "too_many_forks",
                f"an account keeps at most {MOST_FORKS} forks: delete one first",
                rule="F6",
            )
        return self.played(row, base)

    def _decision_point(self, game_id: str, version: int) -> int:
        """The version that ends the command whose events hold ``version`` (F1): a fork
        starts where a decision was pending, never inside a command's events."""
        for entry in self.games.store.journal(game_id):
            first, last = entry.first_version, entry.last_version
            accepted = entry.outcome == "accepted" and first is not None and last is not None
            if accepted and first <= version <= last:  # type: ignore[operator]
                return last  # type: ignore[return-value]
        return version

    def _deck(self, game_id: str, base: GameState, deck: str) -> tuple[str, ...]:
        """F4: the fork's draw order: the original's drawn tiles, then the rest."""
        if deck not in (SHUFFLE, TRUE):
            raise BadRequest("bad_deck", "deck is 'shuffle' or 'true'", rule="F4")
        rest = remaining(base)
        if deck == SHUFFLE:
            self.shuffler.shuffle(rest)
            return (*base.drawn, *rest)
        _, final = self.games.load(game_id)
        if final.phase is not Phase.ENDED or final.seed_hex is None:
            raise Conflict(
                "deck_hidden",
                "the true order of the tiles is known only once the game is over: a fork of"
                " a game under way deals the tiles left afresh",
                rule="F4",
            )
        if final.deals:
            raise Conflict(
                "deck_redealt",
                "this game was re-dealt by a ruling: its fork deals the tiles left afresh",
                rule="F4",
            )
        return deck_of(base, bytes.fromhex(final.seed_hex)).order

    def _hash_at(self, game_id: str, version: int) -> str:
        stored = self.games.store.read(game_id, version - 1, 1)
        return stored[0].hash if stored else ""

    def get(self, fork_id: str) -> Fork:
        """F2: the fork, played out (404 ``unknown_fork``)."""
        row = self.table.get(fork_id)
        if row is None:
            raise NotFound(
                "unknown_fork", f"there is no fork {fork_id!r} (or it expired)", rule="F6"
            )
        _, base = self.games.load(row.game_id, row.version)
        return self.played(row, base)

    def played(self, row: ForkRow, base: GameState) -> Fork:
        """The fork's moves applied from ``base`` with its deck."""
        deck = Deck("fork", row.order())
        _, state = apply_forced(base, deck)
        moves: list[tuple[cmd.Command, GameState, list[Event]]] = []
        for data in row.commands():
            command = decode_command(data)
            before = state
            events, state = apply(state, command, deck)
            forced, state = apply_forced(state, deck)
            moves.append((command, before, events + forced))
        return Fork(row, base, state, moves)

    def _own(self, who: Account, fork_id: str) -> Fork:
        fork = self.get(fork_id)
        if fork.row.account_id != who.account_id:
            raise Forbidden("not_your_fork", "only the fork's owner plays it", rule="F2")
        return fork

    def play(self, who: Account, fork_id: str, payload: Any, seen: int | None) -> Fork:
        """F2: the owner plays the pending decision, whoever's seat it is."""
        fork = self._own(who, fork_id)
        if seen is not None and seen != fork.row.moves_made:
            raise Conflict(
                "stale_fork", f"the fork has {fork.row.moves_made} moves now, not {seen}", rule="F3"
            )
        if fork.row.moves_made >= MOST_MOVES:
            raise Conflict("fork_full", f"a fork holds at most {MOST_MOVES} moves", rule="F6")
        try:
            command = decode_command(payload)
        except MalformedPayload as exc:
            raise BadRequest("malformed_command", str(exc)) from exc
        if not isinstance(command, cmd.PLAY_COMMANDS):
            raise Conflict("not_a_move", "a fork takes the players' moves only", rule="F2")
        try:
            apply(fork.state, command, Deck("fork", fork.row.order()))
        except RuleViolation as v:
            raise Conflict(v.code, v.message, rule=v.rule) from v
        except DeckRequired as exc:  # never: a fork's deck holds every tile
            raise Conflict("nothing_to_draw", str(exc), rule="F4") from exc
        return self._save(fork, [*fork.row.commands(), encode(command)])

    def undo(self, who: Account, fork_id: str, steps: int) -> Fork:
        """F3: take back the last ``steps`` moves."""
        fork = self._own(who, fork_id)
        if not 1 <= steps <= fork.row.moves_made:
            raise Conflict(
                "nothing_to_undo",
                f"the fork has {fork.row.moves_made} moves: undo 1 to that many",
                rule="F3",
            )
        return self._save(fork, fork.row.commands()[: fork.row.moves_made - steps])

    def _save(self, fork: Fork, moves: list[dict[str, Any]]) -> Fork:
        now = stamp(self.games.clock())
        if not self.table.replace_moves(fork.row.fork_id, fork.row.moves_made, moves, now):
            raise Conflict("stale_fork", "the fork changed meanwhile: look at it again", rule="F3")
        row = replace(fork.row, moves=_json(moves), moves_made=len(moves), touched_at=now)
        return self.played(row, fork.base)  # what was written, from the base already loaded

    def branch(self, who: Account, fork_id: str, at: int | None) -> Fork:
        """F3: a new fork of ``who``'s, with this one's anchor, deck and first ``at`` moves
        (anyone who sees a fork may branch it)."""
        fork = self.get(fork_id)
        at = fork.row.moves_made if at is None else at
        if not 0 <= at <= fork.row.moves_made:
            raise NotFound(
                "unknown_move",
                f"the fork has moves 0 to {fork.row.moves_made}, not {at}",
                rule="F3",
            )
        now = stamp(self.games.clock())
        moves = fork.row.commands()[:at]
        row = ForkRow(
            "f" + secrets.token_hex(10), who.account_id, fork.row.game_id, fork.row.version,
            fork.row.anchor_hash, fork.row.fork_id, fork.row.revealed, fork.row.deck,
            _json(moves), len(moves), now, now,
        )  # fmt: skip
        return self._keep(row, fork.base)

    def delete(self, who: Account, fork_id: str) -> None:
        self._own(who, fork_id)
        self.table.delete(fork_id, who.account_id)

    def mine(self, who: Account) -> list[ForkRow]:
        return self.table.mine(who.account_id, MOST_FORKS)

    def notation(self, fork_id: str) -> str:
        """The original's TGN with the fork's moves as a variation of the decision that
        followed its anchor (docs/notation.md); 409 ``not_in_notation`` when there is
        none to stand beside (a fork from a game's last decision so far), or no move."""
        fork = self.get(fork_id)
        record, ends = game_record(self.games.store, fork.row.game_id)
        line = [(before, command, events) for command, before, events in fork.moves]
        comment = f"fork {fork.row.fork_id}, {fork.row.moves_made} moves"
        try:
            return write(with_variation(record, ends, fork.row.version, line, comment))
        except Unwritable as exc:
            raise Conflict("not_in_notation", f"this fork cannot be written in TGN: {exc}") from exc

    def appraise(self, fork_id: str, playouts: int) -> tuple[Fork, list[Appraisal]]:
        """F7: the bot's appraisal of every legal command of the fork's position."""
        if not 1 <= playouts <= MOST_PLAYOUTS:
            raise BadRequest(
                "bad_budget", f"playouts is 1 to {MOST_PLAYOUTS}, not {playouts}", rule="F7"
            )
        fork = self.get(fork_id)
        if fork.state.phase is Phase.ENDED or fork.state.pending is None:
            return fork, []
        rng = random.Random(f"{fork_id}:{fork.row.moves_made}")
        bot = MctsBot(rng, Budget(playouts, APPRAISAL_SECONDS), time.monotonic)
        return fork, bot.appraise(fork.state)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
