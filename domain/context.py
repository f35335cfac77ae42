"""The working context of one ``decide`` call: events so far and the state they make.

``decide`` builds its events one at a time, folding each into a working state so
that the next rule sees the board as it now is. Nothing outside the context is
changed; the caller receives the events (and, through ``apply``, the state).
"""

from __future__ import annotations

from domain.deck import Deck
from domain.errors import DeckRequired, RuleViolation
from domain.events import Event, TileDrawn
from domain.fold import evolve, evolve_in_place
from domain.hexgrid import Cell
from domain.revisions import RuleSet
from domain.state import GameState, Pending
from domain.tiles import is_island


class Context:
    """Events produced so far by one command, and the state they lead to."""

    __slots__ = ("automatic", "deck", "events", "rules", "state")

    def __init__(
        self, state: GameState, deck: Deck | None, automatic: bool, rules: RuleSet
    ) -> None:
        self.state = state
        self.deck = deck
        self.automatic = automatic
        self.rules = rules  # which rules version decides (domain.revisions)
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        """Record ``event`` and fold it into the working state.

        The first event folds into a copy; later ones update that copy in place,
        as ``replay`` does. That copy is the context's own until ``decide`` returns;
        rules read the board through ``self.state`` after each event, never through
        a state they kept from before it."""
        if self.events:
            evolve_in_place(self.state, event)
        else:
            self.state = evolve(self.state, event)
        self.events.append(event)

    def draw(self, placement: str, cell: Cell | None, rule: str) -> str:
        """Draw the top tile of the pile (event ``TileDrawn``) and return its id."""
        if self.deck is None:
            raise DeckRequired("this command draws a tile; pass the game's deck to decide()")
        s = self.state
        tile = self.deck.tile_at(len(s.drawn))
        island = is_island(tile)
        islands_left = s.islands_left() - (1 if island else 0)
        oceans_left = s.oceans_left() - (0 if island else 1)
        last = islands_left == 0 if island else oceans_left == 0
        self.emit(
            TileDrawn(
                tile, len(s.drawn) + 1, islands_left, oceans_left, last, placement, cell, rule
            )
        )
        return tile

    def expect(self, kind: type[Pending], what: str) -> Pending:
        """The pending decision, which must be of ``kind`` (R25), else a violation."""
        pending = self.state.pending
        if not isinstance(pending, kind):
            raise not_expected(self.state, what)
        return pending


def not_expected(state: GameState, what: str) -> RuleViolation:
    """The violation for a command that does not answer the pending decision."""
    if state.phase.value == "ended":
        return RuleViolation("game_over", "R21", "the game is over")
    pending = state.pending.kind if state.pending is not None else state.phase.value
    return RuleViolation(
        "unexpected_command", "R25", f"{what} is not possible now: the game awaits {pending}"
    )
