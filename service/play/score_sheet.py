"""A game's score explained (the end screen): per island who scores what and why, then
per player the total, the rank and the tie-break that placed them (R5, R16, R22, R23,
C6, D4). Counted by the domain's own ``island_scores``: nothing is scored twice."""

from __future__ import annotations

from typing import Any

from domain.events import GameEnded, PlayerScore, ResultAmended
from domain.scoring import IslandScore, current_scores, island_scores, separated_by, tie_break
from domain.state import GameState, Phase

RULES_2, RULES_1 = "rules-2", "rules-1"  # domain.revisions: how two colours score (R5)


def score_sheet(state: GameState) -> dict[str, Any]:
    """The score of a started game explained: final once it ended (the recorded
    ``GameEnded``), else as it would stand if the game ended now."""
    result = state.result if isinstance(state.result, GameEnded) else None
    scores = result.scores if result is not None else current_scores(state)
    rules, islands = _counted(state, scores)
    resigned = {p.player_id for p in state.players if p.seat in state.resigned}
    colours = {p.player_id: list(p.colours) for p in state.players}
    return {
        "final": state.phase is Phase.ENDED and result is not None,
        "rules": rules,
        "two_colours_each": any(len(p.colours) > 1 for p in state.players),
        "islands": [_island(found, colours) for found in islands],
        "players": _players(scores, resigned),
        "tie_break": result.tie_break if result is not None else tie_break(scores),
        "amended": _amended(state.amendment),
    }


def _counted(
    state: GameState, scores: tuple[PlayerScore, ...]
) -> tuple[str, tuple[IslandScore, ...]]:
    """The islands counted under the rules that gave the recorded points: today's
    (each colour a seat, R5), or rules-1's (a player's island once) for a game that
    ended under them."""
    recorded = {s.player_id: s.points for s in scores}
    for rules, as_seats in ((RULES_2, True), (RULES_1, False)):
        found = island_scores(state, as_seats)
        totals: dict[str, int] = dict.fromkeys(recorded, 0)
        for item in found:
            for player_id, points in item.points:
                totals[player_id] = totals.get(player_id, 0) + points
        if totals == recorded:
            return rules, found
    return RULES_2, island_scores(state, True)


def _island(found: IslandScore, colours: dict[str, list[str]]) -> dict[str, Any]:
    present = {c for c, _ in found.boats} | ({found.king} if found.king else set())
    return {
        "tile": found.tile,
        "value": found.value,
        "boats": [{"colour": c, "boats": n} for c, n in found.boats],
        "king": found.king,
        "scorers": [
            {
                "player_id": player_id,
                "colours": [c for c in colours.get(player_id, []) if c in present],
                "points": points,
            }
            for player_id, points in found.points
        ],
    }


def _players(scores: tuple[PlayerScore, ...], resigned: set[str]) -> list[dict[str, Any]]:
    """Every player in rank order, with what placed them ahead of the next one (R23;
    C6: who resigned ranks after everyone who did not)."""
    rows = []
    for i, s in enumerate(scores):
        ahead: str | None = None
        if i + 1 < len(scores):
            after = scores[i + 1]
            if (s.player_id in resigned) != (after.player_id in resigned):
                ahead = "resigned"
            else:
                found = separated_by(s, after)
                ahead = "points" if found == "none" else found
        rows.append(
            {
                "player_id": s.player_id,
                "colours": list(s.colours),
                "points": s.points,
                "islands": s.islands,
                "boats": s.boats,
                "rank": s.rank,
                "resigned": s.player_id in resigned,
                "ahead_of_next": ahead,
            }
        )
    return rows


def _amended(amendment: object) -> dict[str, Any] | None:
    """A ruling's amendment of the result (D4), which the breakdown does not change."""
    if not isinstance(amendment, ResultAmended):
        return None
    return {
        "dispute_id": amendment.dispute_id,
        "annulled": amendment.annulled,
        "ranking": list(amendment.ranking or ()),
        "rule": amendment.rule,
    }
