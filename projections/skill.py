"""The rating model (docs/ratings.md): OpenSkill's Plackett-Luce over a game's ranking.

Pure functions: what a rated game's result is to the ratings (``rated_ranking``,
G1, G4, G6) and how one game moves its players' skills (``rate``, G2). The
read model (``projections.readmodels.ratings``) folds them over the games in the
order they ended (G5). Floats go in and out unchanged, so the same games in the
same order give the same numbers, bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from domain import events as ev
from domain.state import GameState
from projections.models import final_ranking

# OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300): G2
MODEL = PlackettLuce()
PROVISIONAL_GAMES = 10  # G8: a rating is provisional until this many rated games
Ranking = tuple[tuple[str, int], ...]  # (account id, rank) best first; ties share a rank


@dataclass(frozen=True, slots=True)
class Skill:
    """An account's rating after some rated games: the model's mu and sigma (G2)."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The rating shown and ranked by: mu - 3 sigma (G2)."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        """Fewer than ``PROVISIONAL_GAMES`` rated games (G8)."""
        return self.games < PROVISIONAL_GAMES


INITIAL = Skill(MODEL.mu, MODEL.sigma, 0)


def rated_ranking(state: GameState) -> Ranking | None:
    """A finished rated game's ranking as the record stands (G1, G4, G6): the end's own,
    or the one a ruling stated (D4); None for a casual game, a game under way, an
    annulled one, or one that does not rank two or more distinct accounts once each."""
    if not state.options.rated or not isinstance(state.result, ev.GameEnded):
        return None
    ranking = final_ranking(state) or []
    players = {player for player, _, _ in ranking}
    if len(players) < 2 or len(players) != len(ranking):
        return None
    return tuple((player, rank) for player, rank, _ in ranking)


def rate(before: Mapping[str, Skill], ranking: Sequence[tuple[str, int]]) -> dict[str, Skill]:
    """Every ranked account's skill after one game (G2): each player a team of one, the
    ranks as given (a shared rank is a tie)."""
    players = [player for player, _ in ranking]
    start = [before.get(player, INITIAL) for player in players]
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in start]
    after = MODEL.rate(teams, ranks=[float(rank) for _, rank in ranking])
    return {
        player: Skill(float(team[0].mu), float(team[0].sigma), s.games + 1)
        for player, s, team in zip(players, start, after, strict=True)
    }
