"""A league's round-robin schedule (docs/leagues.md, L5, L6): rounds of tables, a pure
and deterministic function of the league's id, its players and its table size.

Table size 2: the circle method. Every pair plays exactly once, in ``N - 1`` rounds
(``N`` rounds for an odd ``N``, each player sitting out one), and the first seat
alternates.

Table size ``k > 2``: rounds of tables of exactly ``k`` players, built greedily until
every pair of players has met at a table at least once.

- Byes: ``N mod k`` players sit out each round: those with the most games so far
  (then those with the fewest opponents still to meet). So after every round the
  players' games differ by at most one.
- Tables: each is begun by the free player with the most opponents still to meet
  among the free players, and filled one player at a time with the free player who
  has met the table's members least often (a player not yet met counts 0). Ties are
  broken by a hash of the league's id, the round and the player, never by chance.
- Seats: at each table the player who has had the first seat least often sits first.

Guarantees (tested with hypothesis for every ``N`` up to 30 and every table size):
no player at two tables of a round; games per player equal within one; every pair
meets at least once (exactly once at table size 2); at most ``MAX_MEETINGS`` times.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Sequence

Round = list[tuple[str, ...]]  # the round's tables, each its players in seat order
MAX_MEETINGS = 7  # at table size > 2 no pair meets more often (L6; 6 is the worst seen)


def _tiebreak(league_id: str, round_no: int, player: str) -> str:
    """A fixed, fair-looking order among equals (no randomness: a replay agrees)."""
    return hashlib.sha256(f"{league_id}:{round_no}:{player}".encode()).hexdigest()


def schedule(league_id: str, players: Sequence[str], table_size: int) -> list[Round]:
    """The league's rounds (L5, L6). ``players``: distinct, at least ``table_size``."""
    if table_size < 2 or len(set(players)) != len(players) or len(players) < table_size:
        raise ValueError("a schedule needs distinct players, at least a table's worth")
    if table_size == 2:
        return _circle(league_id, players)
    return _greedy(league_id, list(players), table_size)


def _circle(league_id: str, players: Sequence[str]) -> list[Round]:
    """The circle method: one player fixed, the others turning one place a round."""
    ordered: list[str] = sorted(players, key=lambda p: _tiebreak(league_id, 0, p))
    ring: list[str | None] = list(ordered)
    if len(ring) % 2:
        ring.append(None)  # a bye
    n = len(ring)
    rounds: list[Round] = []
    for r in range(n - 1):
        tables: Round = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is None or b is None:
                continue
            tables.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append(tables)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


class _Tally:
    """What the greedy schedule has so far: games, meetings, first seats."""

    def __init__(self, players: Sequence[str]) -> None:
        self.players = list(players)
        self.games: Counter[str] = Counter()
        self.firsts: Counter[str] = Counter()
        self.met: Counter[frozenset[str]] = Counter()
        self.strangers = {p: set(players) - {p} for p in players}  # not met yet
        self.pairs_left = len(players) * (len(players) - 1) // 2

    def unmet(self, player: str, among: set[str]) -> int:
        return len(self.strangers[player] & among)

    def all_met(self) -> bool:
        return self.pairs_left == 0

    def seat(self, table: Sequence[str]) -> None:
        for p in table:
            self.games[p] += 1
        self.firsts[table[0]] += 1
        for a, b in itertools.combinations(table, 2):
            if not self.met[frozenset((a, b))]:
                self.pairs_left -= 1
                self.strangers[a].discard(b)
                self.strangers[b].discard(a)
            self.met[frozenset((a, b))] += 1


def _greedy(league_id: str, players: list[str], k: int) -> list[Round]:
    """Greedy rounds of ``k``-player tables until every pair has met (L6)."""
    tally = _Tally(players)
    rounds: list[Round] = []
    # a bound that the greedy never reaches (tested); it only makes termination plain
    most_rounds = 4 * len(players) * len(players)
    while not tally.all_met() and len(rounds) < most_rounds:
        rounds.append(_round(league_id, len(rounds) + 1, tally, k))
    return rounds


def _cost(tally: _Tally, q: str, table: Sequence[str]) -> tuple[int, int]:
    """How much seating ``q`` at ``table`` repeats: its most-met member, then all."""
    met = [tally.met[frozenset((q, m))] for m in table]
    return max(met), sum(met)


def _round(league_id: str, round_no: int, tally: _Tally, k: int) -> Round:
    """One round: who plays (L6's byes), then its tables, each in seat order."""

    def tie(p: str) -> str:
        return _tiebreak(league_id, round_no, p)

    everyone = tally.players
    seated = (len(everyone) // k) * k
    ranked = sorted(everyone, key=lambda p: (tally.games[p], -len(tally.strangers[p]), tie(p)))
    free = set(ranked[:seated])
    tables: Round = []
    while free:
        first = min(free, key=lambda p: (-tally.unmet(p, free), tie(p)))
        table = [first]
        free.discard(first)
        while len(table) < k:
            nxt = min(
                free,
                key=lambda q: (_cost(tally, q, table), tie(q)),
            )
            table.append(nxt)
            free.discard(nxt)
        ordered = tuple(sorted(table, key=lambda p: (tally.firsts[p], tie(p))))
        tally.seat(ordered)
        tables.append(ordered)
    return tables
