"""Which departures may be offered during a chain reaction (R9, R18, R19).

A departure is offered unless (a) it repeats a departure already made this turn
from the same board, or (b) no sequence of the active player's later choices
can end the chain. Only routes that come back to their own island over tiles
already on the table (directly, or by turning back at a royal island, R15) can
fail (b); for those a search over the island's possible boat arrangements
decides. The search is finite: no tile is drawn, and every arrangement is
visited at most once. It is also bounded: after ``SEARCH_LIMIT`` arrangements
generated it gives the departure the benefit of the doubt, so no decision costs
more than a fraction of a second, and says so: such a departure, once taken,
records ``search_exhausted`` in its ``EmigrationStarted`` (docs/rules.md, R19).

Every search is a function of the position alone: nothing it learns outlives
the decision (where each route goes is kept in the state's own memo), so
whether the budget was reached is the same in every process and when
verification re-runs the command. (Engine 1.1 kept "witnesses" of ends found
across decisions in the process; they could only shorten a search, but that
made whether a search reached its budget depend on what the process had judged
before. Within one decision they saved nothing.)
"""

from __future__ import annotations

from collections.abc import Iterator
from heapq import heappop, heappush

from domain.commands import Emigrate
from domain.landing import Beaches, arrangements_after
from domain.state import CAPACITIES, GameState, IslandState
from domain.tiles import island
from domain.voyage import RouteEnd, preview

# Arrangements one search may generate (landings tried, seen ones included) before
# it gives the benefit of the doubt. Offering a departure is always safe for
# termination: rule (a) forbids repeating it from the same board, so a turn can
# never run forever. Over ~7,000 simulated games (2-6 players) the largest search
# that proved a chain endless generated 3,360. A long chain on a crowded Tonga
# (4 players, seed 1187, tests/data/crowded-tonga-chain.json) has ways out 3-4
# emigrations deep that a blind search needs 50,000-550,000 arrangements to find;
# the guided search below finds each within a few thousand.
SEARCH_LIMIT = 10_000
# Arrangements the first, depth-first dive may generate. In ordinary games it finds
# an end within a handful; where it does not, the guided search takes over.
DIVE_LIMIT = 16
EXITS, SAILS = 1, 2  # a full beach's fate: a jetty leaves the loop, or all loop


def departure_options(state: GameState) -> list[Emigrate]:
    """Every departure the active player may choose now (R9 filtered by R19)."""
    memo = state.memo()
    found: list[Emigrate] | None = memo.get("departures")
    if found is None:
        found, memo["exhausted"] = _departure_options(state)
        memo["departures"] = found
    return found


def search_exhausted(state: GameState, departure: Emigrate) -> int | None:
    """R19 (b): the budget (``SEARCH_LIMIT``) the search for ``departure`` reached
    without finding an end, so that it is offered without proof; None otherwise."""
    departure_options(state)
    exhausted: dict[Emigrate, int] = state.memo()["exhausted"]
    return exhausted.get(departure)


def _departure_options(state: GameState) -> tuple[list[Emigrate], dict[Emigrate, int]]:
    options = []
    exhausted = {}
    for isl, beach in state.full_beaches():
        for jetty in island(isl.tile).beaches[beach].jetties:
            allowed = _allowed(state, isl, beach, jetty)
            if allowed is not False:
                options.append(Emigrate(isl.tile, beach, jetty))
            if allowed is None:
                exhausted[options[-1]] = SEARCH_LIMIT
    return options, exhausted


def is_repeat(state: GameState, island_id: str, beach: int, jetty: int) -> bool:
    """R19 (a): this departure was already made this turn from this very board."""
    made = state.departures  # hashing the board is the dear part: none made, no need
    return bool(made) and (island_id, beach, jetty, state.board_key()) in made


def _allowed(state: GameState, isl: IslandState, beach: int, jetty: int) -> bool | None:
    """Rules (a) and (b); None where only the search budget lets the departure through."""
    if is_repeat(state, isl.tile, beach, jetty):
        return False
    colours = len(set(isl.beaches[beach]))
    if preview(state, isl.tile, jetty, colours).end is not RouteEnd.LOOP:
        return True
    return _lands_with_no_beach_full(isl, beach) or _loop_can_end(state, isl, beach, jetty)


def _lands_with_no_beach_full(isl: IslandState, beach: int) -> bool:
    """Whether the fleet of ``beach``, back home, can land so that no beach is full.

    Only the numbers of boats matter here, not their colours, so this is answered
    by counting, without trying the landings one by one. It is the common way a
    looping chain ends, and the search would find the same landing first.
    """
    caps = CAPACITIES[isl.tile]
    fleet = caps[beach]  # the beach was full; emptied, it is open again
    free = []
    for b, boats in enumerate(isl.beaches):
        if b == beach:
            free.append(fleet)
        elif len(boats) == caps[b]:
            return False  # another full beach stays full
        else:
            free.append(caps[b] - len(boats))
    # R13: with at least as many boats as open beaches, each gets one, then any;
    # otherwise each boat goes to a different beach. None may be filled up.
    if fleet >= len(free):
        return min(free) >= 2 and fleet <= sum(f - 1 for f in free)
    return sum(1 for f in free if f >= 2) >= fleet


class _IslandSearch:
    """Reachability over one island's arrangements while its fleets loop home."""

    def __init__(self, state: GameState, isl: IslandState, beach: int, jetty: int) -> None:
        """The search for the departure from ``beach`` by ``jetty``, counted as made."""
        self.state = state
        self.isl = isl
        self.jetties = [b.jetties for b in island(isl.tile).beaches]
        self.caps = [b.capacity for b in island(isl.tile).beaches]
        # where each (jetty, colour count) leads depends on the tiles, not on the
        # boats: shared by every search of this decision
        self.ends: dict[tuple[int, int], RouteEnd] = state.memo().setdefault(
            f"route-ends:{isl.tile}", {}
        )
        self._targets: list[tuple[int, int, frozenset[int], int]] | None = None
        # rule (a): the departures made this turn from this island while every other
        # island held what it holds now, and the one being judged, as (beach, jetty,
        # this island's beaches): only these can be repeated during the search
        tile, key = isl.tile, state.board_key()
        here = next(i for i, (name, _) in enumerate(key) if name == tile)
        others = key[:here] + key[here + 1 :]
        self.repeats: set[tuple[int, int, Beaches]] = {(beach, jetty, isl.beaches)}
        for made, b, j, board in state.departures:
            if (
                made == tile
                and len(board) == len(key)
                and board[here][0] == tile
                and board[:here] + board[here + 1 :] == others
            ):
                self.repeats.add((b, j, board[here][1]))
        self.repeated_from = {beaches for _, _, beaches in self.repeats}
        # for a full beach and how many colours its fleet has: whether one of its
        # jetties leaves the loop (EXITS), all of them loop (SAILS) or it has none
        self.fates: dict[tuple[int, int], int] = {}

    def forbid(self, beach: int, jetty: int, beaches: Beaches) -> None:
        """Count the departure from ``beach`` by ``jetty`` as made from ``beaches``."""
        self.repeats.add((beach, jetty, beaches))
        self.repeated_from.add(beaches)

    def fate(self, beach: int, colours: int) -> int:
        found = self.fates.get((beach, colours))
        if found is None:
            ends = [self.route_end(j, colours) for j in self.jetties[beach]]
            found = EXITS if any(e is not RouteEnd.LOOP for e in ends) else SAILS if ends else 0
            self.fates[(beach, colours)] = found
        return found

    def route_end(self, jetty: int, colours: int) -> RouteEnd:
        found = self.ends.get((jetty, colours))
        if found is None:
            found = preview(self.state, self.isl.tile, jetty, colours).end
            self.ends[(jetty, colours)] = found
        return found

    def targets(self) -> list[tuple[int, int, frozenset[int], int]]:
        """(beach, capacity, colour counts, most of them) for each beach whose fleet
        leaves the loop (fails a danger check, say) with those colour counts."""
        if self._targets is None:
            self._targets = []
            for b, cap in enumerate(self.caps):
                counts = frozenset(k for k in range(1, cap + 1) if self.fate(b, k) == EXITS)
                if counts:
                    self._targets.append((b, cap, counts, max(counts)))
        return self._targets

    def distance(self, beaches: Beaches) -> float:
        """A guess at how many emigrations the chain is from its end from ``beaches``.

        It only orders the search, so it need not be exact: the chain ends where no
        beach is full, or where a full beach's fleet leaves the loop. A beach can
        become such a target by filling up with few enough colours, or by emptying
        first when it holds too many.
        """
        caps = self.caps
        best = 0.0
        for b, boats in enumerate(beaches):
            if len(boats) == caps[b]:
                best += 1
        for b, cap, counts, most in self.targets():
            boats = beaches[b]
            if len(boats) == cap:
                if len(set(boats)) in counts:
                    return 0.0
                cost = 3.0
            elif len(set(boats)) <= most:
                cost = 1 + (cap - len(boats)) / 10
            else:
                cost = 2.5
            if cost < best:
                best = cost
        return best

    def sailing(self, beaches: Beaches) -> list[int] | None:
        """The beaches whose fleets may sail from ``beaches``, when every unrepeated
        departure from there leads back home; None when the chain can end there (no
        beach is full, or a departure leaves the loop)."""
        if beaches in self.repeated_from:
            return self._sailing_after_repeats(beaches)
        sails = []
        full = False
        caps, fates = self.caps, self.fates
        for b, boats in enumerate(beaches):
            if len(boats) != caps[b]:
                continue
            full = True
            colours = len(set(boats))
            fate = fates.get((b, colours)) or self.fate(b, colours)
            if fate == EXITS:
                return None
            if fate == SAILS:
                sails.append(b)
        return sails if full else None

    def _sailing_after_repeats(self, beaches: Beaches) -> list[int] | None:
        """``sailing`` from an arrangement some departures were made from (rule (a))."""
        sails = []
        full = False
        for b, (boats, cap) in enumerate(zip(beaches, self.caps, strict=True)):
            if len(boats) != cap:
                continue
            full = True
            colours = len(set(boats))
            may = False
            for j in self.jetties[b]:
                if (b, j, beaches) in self.repeats:
                    continue  # rule (a)
                if self.route_end(j, colours) is not RouteEnd.LOOP:
                    return None
                may = True
            if may:
                sails.append(b)
        return sails if full else None

    def landings_from(self, beaches: Beaches, sailing: list[int]) -> Iterator[Beaches]:
        """The landings of each fleet that may sail from ``beaches``, in turn."""
        for b in sailing:
            yield from self.landings(beaches, b)

    def landings(self, beaches: Beaches, beach: int) -> Iterator[Beaches]:
        """Every arrangement after the fleet of ``beach`` lands back home (lazily: a
        search cut short by its bound never builds the arrangements it does not try)."""
        emptied = (*beaches[:beach], (), *beaches[beach + 1 :])
        return arrangements_after(self.isl.tile, emptied, beaches[beach])


def _loop_can_end(state: GameState, isl: IslandState, beach: int, jetty: int) -> bool | None:
    """R19 (b) for a departure whose route leads back to its own island: True if the
    chain can end, False if it cannot, None if the search reached its budget first.

    Two searches, each judging every arrangement as soon as a landing makes it.
    First a short depth-first dive (``DIVE_LIMIT``): most chains end within an
    emigration or two, and the dive finds such an end after a handful of landings.
    If it neither finds an end nor runs out of arrangements, a guided search
    (``_guided``) starts afresh with the whole ``SEARCH_LIMIT``; past that, the
    departure gets the benefit of the doubt (None), which its event records.

    Neither the dive nor the order of the guided search can change the answer,
    only its cost: a search that finds no end generates the same arrangements in
    any order, so it reaches the same bound or the same proof; an end found is an
    end. Whether the bound is reached depends on the order, which is fixed, so it
    is a function of the position.
    """
    search = _IslandSearch(state, isl, beach, jetty)
    found = _dive(search, beach, DIVE_LIMIT)
    if found is None:
        found = _guided(search, beach, SEARCH_LIMIT)
    return found


class _Visits:
    """The landings one search has tried, up to its bound, and the arrangements seen."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.generated = 0
        self.seen: set[Beaches] = set()

    def count(self, beaches: Beaches) -> bool | None:
        """Count one landing tried: None past the bound, else whether it is new."""
        self.generated += 1
        if self.generated > self.limit:
            return None
        if beaches in self.seen:
            return False
        self.seen.add(beaches)
        return True


def _dive(search: _IslandSearch, beach: int, limit: int) -> bool | None:
    """Depth-first from the start; None after ``limit`` arrangements generated."""
    start = search.isl.beaches
    visits = _Visits(limit)
    # the landings still to try, of each fleet on the way from the start to here
    stack = [search.landings(start, beach)]
    while stack:
        beaches = next(stack[-1], None)
        if beaches is None:
            stack.pop()
            continue
        new = visits.count(beaches)
        if new is None:
            return None
        if not new:
            continue
        sails = search.sailing(beaches)
        if sails is None:
            return True
        stack.extend(search.landings(beaches, b) for b in reversed(sails))
    return False


def _guided(search: _IslandSearch, beach: int, limit: int) -> bool | None:
    """Best-first: on from the arrangement that looks closest to an end.

    Chains on a crowded island can have few ways out, a few emigrations deep,
    among hundreds of landings per emigration: a blind search tries tens of
    thousands of arrangements before it finds one. This one goes on from the
    arrangement with the least ``distance`` (among equals, the newest), after
    trying every landing from the one before. None after ``limit`` generated.
    """
    start = search.isl.beaches
    visits = _Visits(limit)
    # arrangements to expand, each with the beaches whose fleets may sail, closest
    # to an end first, then newest first (the order number counts down)
    heap: list[tuple[float, int, Beaches, list[int]]] = [(0.0, 0, start, [beach])]
    order = 0
    while heap:
        _, _, node, sailing = heappop(heap)
        for beaches in search.landings_from(node, sailing):
            new = visits.count(beaches)
            if new is None:
                return None
            if not new:
                continue
            sails = search.sailing(beaches)
            if sails is None:
                return True
            order -= 1
            heappush(heap, (search.distance(beaches), order, beaches, sails))
    return False
