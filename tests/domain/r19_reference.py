"""R19 (b) as docs/rules.md states it, the slow and plain way: the oracle for tests.

"A departure is offered only if … (b) some sequence of the active player's later
choices can end the chain." Only routes that lead back to their own island need a
search: the fleet lands home again (R13), full beaches emigrate again (R9), and
so on. This module shares nothing with the engine's search (``domain.endless``):
it follows routes with ``domain.voyage.preview`` (the geometry of R11/R12/R15),
tries every way to put each boat of a fleet on a beach or home and keeps the
ones R13's own check accepts (``domain.landing.validate_landing``), and walks
breadth-first over every arrangement of the island, without a bound.

Rule (a) is the same as the engine's: a departure already made this turn from
the same board (same island, beach and jetty, every beach holding the same
boats) is not offered. A shortest way to an end never visits an arrangement
twice, so the departures made along it never repeat one another: only those
made before the search (and the one being judged) can be repeats.
"""

from __future__ import annotations

from collections import deque
from functools import cache
from itertools import combinations_with_replacement, product

from domain.errors import RuleViolation
from domain.landing import validate_landing
from domain.state import GameState, IslandState
from domain.tiles import island as tile_of
from domain.voyage import RouteEnd, preview

Beaches = tuple[tuple[str, ...], ...]


def can_end(state: GameState, island: str, beach: int, jetty: int) -> bool:
    """Whether some sequence of later choices ends the chain after this departure."""
    isl = state.islands[island]
    made = _made_before(state, isl) | {(beach, jetty, isl.beaches)}
    start = isl.beaches
    fleet = start[beach]
    seen: set[Beaches] = set()
    queue = deque(_landings(isl, _emptied(start, beach), fleet))
    while queue:
        arrangement = queue.popleft()
        if arrangement in seen:
            continue
        seen.add(arrangement)
        full = [b for b, boats in enumerate(arrangement) if len(boats) == _caps(island)[b]]
        if not full:
            return True  # no beach is full: the chain is over
        for b in full:
            colours = len(set(arrangement[b]))
            for j in tile_of(island).beaches[b].jetties:
                if (b, j, arrangement) in made:
                    continue  # rule (a)
                if preview(state, island, j, colours).end is not RouteEnd.LOOP:
                    return True  # this fleet leaves the loop: a new tile, a failure, an island
                queue.extend(_landings(isl, _emptied(arrangement, b), arrangement[b]))
    return False


def _made_before(state: GameState, isl: IslandState) -> set[tuple[int, int, Beaches]]:
    """Departures made this turn from this island while every other island held what it
    holds now (only these could be repeated from an arrangement of this island)."""
    others = {k: v.beaches for k, v in state.islands.items() if k != isl.tile}
    made = set()
    for name, b, j, board in state.departures:
        boards = dict(board)
        if name == isl.tile and {k: v for k, v in boards.items() if k != isl.tile} == others:
            made.add((b, j, boards[isl.tile]))
    return made


def _emptied(arrangement: Beaches, beach: int) -> Beaches:
    return (*arrangement[:beach], (), *arrangement[beach + 1 :])


@cache
def _caps(island: str) -> tuple[int, ...]:
    return tuple(b.capacity for b in tile_of(island).beaches)


def _landings(isl: IslandState, arrangement: Beaches, fleet: tuple[str, ...]) -> list[Beaches]:
    """Every arrangement R13 allows after ``fleet`` lands on ``arrangement``."""
    return list(_all_landings(isl.tile, isl.cell, isl.rotation, arrangement, tuple(sorted(fleet))))


@cache
def _all_landings(
    tile: str, cell: tuple[int, int], rotation: int, arrangement: Beaches, fleet: tuple[str, ...]
) -> frozenset[Beaches]:
    here = IslandState(tile, cell, rotation, arrangement)
    places = range(-1, len(arrangement))  # -1: the boat goes home
    # boats of one colour are alike: where each colour's boats go is a multiset of places
    groups = [(c, fleet.count(c)) for c in sorted(set(fleet))]
    found = set()
    for choice in product(*(combinations_with_replacement(places, n) for _, n in groups)):
        put: list[list[str]] = [[] for _ in arrangement]
        for (colour, _), wheres in zip(groups, choice, strict=True):
            for where in wheres:
                if where >= 0:
                    put[where].append(colour)
        try:
            validate_landing(here, fleet, put)
        except RuleViolation:
            continue
        found.add(tuple(tuple(sorted(a + tuple(p))) for a, p in zip(arrangement, put, strict=True)))
    return frozenset(found)
