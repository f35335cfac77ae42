"""Scores, ties and the outcome of a game (R5, R21, R22, R23)."""

from __future__ import annotations

from dataclasses import dataclass

from domain.events import GameEnded, PlayerScore
from domain.state import EndReason, GameState, Phase
from domain.tiles import island


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended: reason, scores in rank order, winners, tie-break."""

    reason: EndReason
    scores: tuple[PlayerScore, ...]
    winners: tuple[str, ...]
    tie_break: str


@dataclass(frozen=True, slots=True)
class IslandScore:
    """What one island gives each player (R22; R5 with two colours each).

    ``boats``: the boats of each colour on its beaches; ``king``: the colour whose
    king sits on it (R16), if royal; ``points``: each player present and what the
    island gives them (its value once per colour present, or once under rules-1).
    """

    tile: str
    value: int
    boats: tuple[tuple[str, int], ...]
    king: str | None
    points: tuple[tuple[str, int], ...]


def island_scores(state: GameState, colours_score_as_seats: bool = True) -> tuple[IslandScore, ...]:
    """Every island on the table with a boat or a king, and who scores what on it (R22, R5).

    The one place points are counted: ``current_scores`` sums these, so an explanation
    of the score (the end screen) and the score itself cannot disagree.
    """
    found = []
    for isl in state.islands.values():
        counts = isl.counts
        present = {c for c, n in counts.items() if n} | ({isl.king} if isl.king else set())
        if not present:
            continue
        value = island(isl.tile).value
        points = []
        for p in state.players:
            mine = sum(1 for c in p.colours if c in present)
            if mine:
                points.append((p.player_id, value * (mine if colours_score_as_seats else 1)))
        boats = tuple(sorted((c, n) for c, n in counts.items() if n))
        found.append(IslandScore(isl.tile, value, boats, isl.king, tuple(points)))
    return tuple(found)


def _presence(state: GameState, colours: tuple[str, ...]) -> list[str]:
    """Islands on which any of ``colours`` has a boat or king (R22; R5 for two colours)."""
    present = []
    for isl in state.islands.values():
        if isl.king in colours or any(c in colours for b in isl.beaches for c in b):
            present.append(isl.tile)
    return present


def colour_points(state: GameState, colour: str) -> int:
    """What one colour scores as a seat of its own (R22): each island it is on."""
    return sum(island(t).value for t in _presence(state, (colour,)))


def current_scores(
    state: GameState, colours_score_as_seats: bool = True
) -> tuple[PlayerScore, ...]:
    """Every player's score if the game ended now, best first, with ranks (R22, R23).

    With two colours each (R5), each colour scores as a seat and the player's
    points are the sum, so an island holding both colours counts twice; for the
    tie-breaks the player is on an island if either colour is (counted once) and
    the boats of both colours add up. Under rules-1 (``colours_score_as_seats``
    false) a player scored each island they were on once.
    """
    rows = []
    earned: dict[str, int] = {}
    for found in island_scores(state, colours_score_as_seats):
        for player_id, points in found.points:
            earned[player_id] = earned.get(player_id, 0) + points
    for p in state.players:
        present = _presence(state, p.colours)
        points = earned.get(p.player_id, 0)
        boats = sum(state.boats_on_board(c) for c in p.colours)
        rows.append((p, points, len(present), boats))
    gave_up = state.resigned  # C6: who resigned ranks after everyone who did not
    rows.sort(key=lambda r: (r[0].seat in gave_up, -r[1], -r[2], r[3], r[0].seat))
    scores = []
    rank = 0
    previous: tuple[bool, int, int, int] | None = None
    for position, (p, points, islands, boats) in enumerate(rows, start=1):
        key = (p.seat in gave_up, points, islands, boats)
        if key != previous:
            rank, previous = position, key
        scores.append(PlayerScore(p.player_id, p.colours, points, islands, boats, rank))
    return tuple(scores)


def tie_break(scores: tuple[PlayerScore, ...]) -> str:
    """Which criterion separated the winner from the runner-up (R23).

    ``"none"`` (more points), ``"islands"`` (present on more islands),
    ``"boats"`` (fewer boats on the board) or ``"shared"`` (still tied).
    """
    if len(scores) < 2:
        return "none"
    return separated_by(scores[0], scores[1])


def separated_by(first: PlayerScore, second: PlayerScore) -> str:
    """Which criterion of R23 ranks ``first`` before ``second`` (as ``tie_break``)."""
    if first.points != second.points:
        return "none"
    if first.islands != second.islands:
        return "islands"
    if first.boats != second.boats:
        return "boats"
    return "shared"


def final_result(state: GameState, colours_score_as_seats: bool = True) -> GameEnded:
    """The ``GameEnded`` event for a game whose end was triggered (R21–R23)."""
    assert state.end_reason is not None
    scores = current_scores(state, colours_score_as_seats)
    winners = tuple(s.player_id for s in scores if s.rank == 1)
    resigned = tuple(p.player_id for p in state.players if p.seat in state.resigned)
    return GameEnded(str(state.end_reason), scores, winners, tie_break(scores), resigned=resigned)


def outcome(state: GameState) -> Outcome | None:
    """The outcome of a finished game, or None while it is not over."""
    if state.phase is not Phase.ENDED or state.result is None:
        return None
    result: GameEnded = state.result
    return Outcome(EndReason(result.reason), result.scores, result.winners, result.tie_break)
