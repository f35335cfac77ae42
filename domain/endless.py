"""Which departures may be offered during a chain reaction (R9, R18, R19).

A departure is offered unless (a) it repeats a departure already made this turn
from the same board, or (b) no sequence of the active player's later choices
can end the chain. Only routes that come back to their own island over tiles
already on the table (directly, or by turning back at a royal island, R15) can
fail (b); for those a search over the island's possible boat arrangements
decides. The search is finite: no tile is drawn, and every arrangement is
visited at most once. It is also bounded: after ``SEARCH_LIMIT`` arrangements
generated it gives the departure the benefit of the doubt, so no decision costs
more than a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Iterator

from domain.commands import Emigrate
from domain.landing import Beaches, distributions_on, landed
from domain.state import Departure, GameState, IslandState
from domain.tiles import island
from domain.voyage import RouteEnd, preview

# Arrangements one search may generate (landings tried, seen ones included) before
# it gives the benefit of the doubt. Offering a departure is always safe for
# termination: rule (a) forbids repeating it from the same board, so a turn can
# never run forever. Over ~7,000 simulated games (2-6 players) the largest search
# that proved a chain endless generated 3,360; one game with a long chain on a
# crowded Tonga (4 players, seed 1187) ran searches of 10,000+ that all ended in
# "can end", and took minutes when the bound counted only distinct arrangements.
SEARCH_LIMIT = 10_000


def departure_options(state: GameState) -> list[Emigrate]:
    """Every departure the active player may choose now (R9 filtered by R19)."""
    memo = state.memo()
    found: list[Emigrate] | None = memo.get("departures")
    if found is None:
        found = memo["departures"] = _departure_options(state)
    return found


def _departure_options(state: GameState) -> list[Emigrate]:
    options = []
    key = state.board_key()
    for isl, beach in state.full_beaches():
        for jetty in island(isl.tile).beaches[beach].jetties:
            if _allowed(state, isl, beach, jetty, key):
                options.append(Emigrate(isl.tile, beach, jetty))
    return options


def is_repeat(state: GameState, island_id: str, beach: int, jetty: int) -> bool:
    """R19 (a): this departure was already made this turn from this very board."""
    return (island_id, beach, jetty, state.board_key()) in state.departures


def _allowed(state: GameState, isl: IslandState, beach: int, jetty: int, key: object) -> bool:
    if (isl.tile, beach, jetty, key) in state.departures:
        return False
    colours = len(set(isl.beaches[beach]))
    if preview(state, isl.tile, jetty, colours).end is not RouteEnd.LOOP:
        return True
    return _loop_can_end(state, isl, beach, jetty)


class _IslandSearch:
    """Reachability over one island's arrangements while its fleets loop home."""

    def __init__(self, state: GameState, isl: IslandState, beach: int, jetty: int) -> None:
        """The search for the departure from ``beach`` by ``jetty``, counted as made."""
        self.state = state
        self.isl = isl
        self.jetties = [b.jetties for b in island(isl.tile).beaches]
        self.caps = [b.capacity for b in island(isl.tile).beaches]
        self.ends: dict[tuple[int, int], RouteEnd] = {}
        key = state.board_key()
        self.index = next(i for i, (name, _) in enumerate(key) if name == isl.tile)
        self.key = key
        # rule (a): departures made this turn, and the one being judged
        self.used = {*state.departures, self.signature(isl.beaches, beach, jetty)}
        # (beach, jetty) of those from this island: only these can be repeats
        self.made = {(b, j) for i, b, j, _ in self.used if i == isl.tile}

    def signature(self, beaches: Beaches, beach: int, jetty: int) -> Departure:
        key = list(self.key)
        key[self.index] = (self.isl.tile, beaches)
        return (self.isl.tile, beach, jetty, tuple(key))

    def route_end(self, jetty: int, colours: int) -> RouteEnd:
        found = self.ends.get((jetty, colours))
        if found is None:
            found = preview(self.state, self.isl.tile, jetty, colours).end
            self.ends[(jetty, colours)] = found
        return found

    def full(self, beaches: Beaches) -> list[int]:
        return [i for i, b in enumerate(beaches) if len(b) == self.caps[i]]

    def moves(self, beaches: Beaches) -> Iterator[tuple[int, int, bool]]:
        """(beach, jetty, loops) for every unrepeated departure from ``beaches``."""
        for b in self.full(beaches):
            colours = len(set(beaches[b]))
            for j in self.jetties[b]:
                if (b, j) not in self.made or self.signature(beaches, b, j) not in self.used:
                    yield b, j, self.route_end(j, colours) is RouteEnd.LOOP

    def landings(self, beaches: Beaches, beach: int) -> Iterator[Beaches]:
        """Every arrangement after the fleet of ``beach`` lands back home (lazily: a
        search cut short by its bound never builds the arrangements it does not try)."""
        emptied = (*beaches[:beach], (), *beaches[beach + 1 :])
        for dist in distributions_on(self.isl.tile, emptied, beaches[beach]):
            yield landed(emptied, dist)


def _loop_can_end(state: GameState, isl: IslandState, beach: int, jetty: int) -> bool:
    """R19 (b) for a departure whose route leads back to its own island (depth-first).

    Arrangements from which the chain was shown to end are remembered for the
    other departures of the same decision (same board, same departures made this
    turn), and reaching one ends the search at once. Only arrangements whose way
    to the end does not pass through the starting one are remembered: the
    departure each search rules out (rule (a)) is a departure from that one.
    """
    search = _IslandSearch(state, isl, beach, jetty)
    start = isl.beaches
    ending: set[Beaches] = state.memo().setdefault(f"chain-ends:{isl.tile}", set())
    seen: set[Beaches] = set()
    # (arrangement, the landings of one of its departures): the parents on the
    # stack are exactly the arrangements on the way from the start to here
    stack = [(start, search.landings(start, beach))]
    generated = 0
    while stack:
        beaches = next(stack[-1][1], None)
        if beaches is None:
            stack.pop()
            continue
        generated += 1
        if generated > SEARCH_LIMIT:
            return True
        if beaches in seen:
            continue
        seen.add(beaches)
        if beaches not in ending and search.full(beaches):
            moves = list(search.moves(beaches))
            if all(loops for _, _, loops in moves):
                stack.extend(
                    (beaches, search.landings(beaches, b)) for b in {b for b, _, _ in moves}
                )
                continue
        way = [parent for parent, _ in stack] + [beaches]  # way[0] is the start
        ending.update(way[len(way) - way[::-1].index(start) :])  # after its last visit
        return True
    return False
