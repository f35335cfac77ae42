"""Landing a fleet on an island (R13).

How a client builds a ``Land`` command: take the island's beaches and their free
slots; ``placed = min(len(fleet), total free slots)`` boats must be put down.
If the fleet has at least as many boats as there are beaches with a free slot,
every such beach gets at least one boat; otherwise every boat goes to a
different beach. No beach may get more boats than it has free slots. List, per
beach, the colours put there; the fleet's other boats go home (the player
chooses which by leaving them out). ``legal_commands`` lists every distinct
distribution (boats of one colour and slots of one beach are interchangeable).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from domain.errors import RuleViolation
from domain.frozen import quick_init
from domain.state import CAPACITIES, IslandState

Beaches = tuple[tuple[str, ...], ...]


@quick_init
@dataclass(frozen=True, slots=True)
class LandingRule:
    """What R13 demands of a landing of ``fleet`` on an island."""

    free: tuple[int, ...]
    placed: int
    spread: bool  # every beach with a free slot gets at least one boat

    def bounds(self, beach: int) -> tuple[int, int]:
        """Least and most boats ``beach`` may receive."""
        free = self.free[beach]
        if free == 0:
            return 0, 0
        if self.spread:
            return 1, free
        return 0, 1


def landing_rule(isl: IslandState, fleet_size: int) -> LandingRule:
    """The R13 constraints for ``fleet_size`` boats landing on ``isl``."""
    return _rule(isl.tile, isl.beaches, fleet_size)


def _rule(tile: str, beaches: Beaches, fleet_size: int) -> LandingRule:
    caps = CAPACITIES[tile]
    free = tuple(caps[i] - len(b) for i, b in enumerate(beaches))
    open_beaches = sum(1 for f in free if f > 0)
    placed = min(fleet_size, sum(free))
    return LandingRule(free, placed, fleet_size >= open_beaches)


def validate_landing(
    isl: IslandState, fleet: Sequence[str], beaches: Sequence[Sequence[str]]
) -> tuple[str, ...]:
    """Check a distribution against R13; return the boats that go home."""
    if len(beaches) != len(isl.beaches):
        raise RuleViolation(
            "landing_shape",
            "R13",
            f"{isl.tile} has {len(isl.beaches)} beaches; give one list of colours per beach",
        )
    rest: dict[str, int] = {}
    for c in fleet:
        rest[c] = rest.get(c, 0) + 1
    for boats in beaches:
        for c in boats:
            n = rest.get(c, 0)
            if n == 0:
                raise RuleViolation(
                    "landing_not_in_fleet",
                    "R13",
                    f"the fleet is {sorted(fleet)}; it has no such boats",
                )
            rest[c] = n - 1
    rule = landing_rule(isl, len(fleet))
    total = 0
    for i, boats in enumerate(beaches):
        lo, hi = rule.bounds(i)
        if len(boats) > rule.free[i]:
            raise RuleViolation(
                "landing_beach_overfilled", "R13", f"beach {i} has only {rule.free[i]} free slots"
            )
        if not lo <= len(boats) <= hi:
            why = (
                "every beach with a free slot gets a boat first"
                if rule.spread
                else "a fleet smaller than the free beaches sends each boat to a different beach"
            )
            raise RuleViolation("landing_not_spread", "R13", f"beach {i}: {why}")
        total += len(boats)
    if total != rule.placed:
        raise RuleViolation(
            "landing_boats_left_behind",
            "R13",
            f"{rule.placed} boats must land (only boats without a free slot go home), got {total}",
        )
    return tuple(sorted(c for c, n in rest.items() for _ in range(n)))


@cache
def _takes(counts: tuple[int, ...], k: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """Every way to take ``k`` boats from per-colour ``counts``: (taken, left) vectors."""
    if k == 0:
        return ((tuple(0 for _ in counts), counts),)
    if not counts:
        return ()
    head, rest = counts[0], counts[1:]
    out = []
    for take in range(min(head, k), -1, -1):
        if k - take > sum(rest):
            break
        for taken, left in _takes(rest, k - take):
            out.append(((take, *taken), (head - take, *left)))
    return tuple(out)


@cache
def _named_takes(
    colours: tuple[str, ...], counts: tuple[int, ...], k: int
) -> tuple[tuple[tuple[str, ...], tuple[int, ...]], ...]:
    """``_takes`` with the taken boats spelled out as sorted colours."""
    return tuple(
        (tuple(c for c, m in zip(colours, taken, strict=True) for _ in range(m)), left)
        for taken, left in _takes(counts, k)
    )


def _plan(
    tile: str, beaches: Beaches, fleet: tuple[str, ...]
) -> tuple[LandingRule, tuple[str, ...], tuple[int, ...], list[tuple[int, int, int, int]]]:
    """What enumerating the landings of ``fleet`` needs: the rule, the fleet's colours
    and their counts, and per beach the least and most boats it takes and the
    least and most the beaches after it take together."""
    rule = _rule(tile, beaches, len(fleet))
    colours = tuple(sorted(set(fleet)))
    counts = tuple(fleet.count(c) for c in colours)
    n = len(beaches)
    bounds = [rule.bounds(i) for i in range(n)]
    limits = []
    low_after = high_after = 0
    for i in range(n - 1, -1, -1):
        limits.append((*bounds[i], low_after, high_after))
        low_after += bounds[i][0]
        high_after += bounds[i][1]
    limits.reverse()
    return rule, colours, counts, limits


@lru_cache(maxsize=8192)
def distributions_on(tile: str, beaches: Beaches, fleet: tuple[str, ...]) -> tuple[Beaches, ...]:
    """Distributions of a sorted ``fleet`` on island ``tile`` holding ``beaches`` (cached)."""
    rule, colours, counts, limits = _plan(tile, beaches, fleet)
    # Beach by beach, every way to fill the beaches so far, in the order a
    # depth-first enumeration would give (each partial's extensions in turn). The
    # bounds keep every partial completable, so none is built in vain.
    partials: list[tuple[Beaches, tuple[int, ...], int]] = [((), counts, rule.placed)]
    for lo, hi, low_after, high_after in limits[:-1]:
        grown = []
        for prefix, rest, left in partials:
            for k in range(max(lo, left - high_after), min(hi, left - low_after) + 1):
                for boats, remaining in _named_takes(colours, rest, k):
                    grown.append(((*prefix, boats), remaining, left - k))
        partials = grown
    # the last beach takes exactly the boats still to place
    lo, hi, _, _ = limits[-1]
    return tuple(
        (*prefix, boats)
        for prefix, rest, left in partials
        if lo <= left <= hi
        for boats, _ in _named_takes(colours, rest, left)
    )


def arrangements_after(tile: str, beaches: Beaches, fleet: tuple[str, ...]) -> Iterator[Beaches]:
    """Every arrangement of the island after a landing of ``fleet``, lazily, in the
    order of ``distributions_on``: ``landed(beaches, d)`` for each distribution d,
    without building the ones a search that stops early never looks at."""
    rule, colours, counts, limits = _plan(tile, beaches, fleet)
    last = len(beaches) - 1
    merged: dict[tuple[int, tuple[str, ...]], tuple[str, ...]] = {}
    stack: list[tuple[Beaches, tuple[int, ...], int]] = [((), counts, rule.placed)]
    while stack:
        prefix, rest, left = stack.pop()
        i = len(prefix)
        lo, hi, low_after, high_after = limits[i]
        old = beaches[i]
        children = []
        for k in range(max(lo, left - high_after), min(hi, left - low_after) + 1):
            for boats, remaining in _named_takes(colours, rest, k):
                new = merged.get((i, boats))
                if new is None:
                    new = merged[(i, boats)] = tuple(sorted((*old, *boats))) if boats else old
                if i == last:
                    yield (*prefix, new)  # a whole arrangement: in order, at once
                else:
                    children.append(((*prefix, new), remaining, left - k))
        stack.extend(reversed(children))


def landed(beaches: Beaches, distribution: Beaches) -> Beaches:
    """``beaches`` with ``distribution[i]`` added to beach ``i``."""
    return tuple(
        tuple(sorted((*old, *new))) if new else old
        for old, new in zip(beaches, distribution, strict=True)
    )
