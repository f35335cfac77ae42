"""A Monte Carlo tree search bot with chance nodes over the tiles still in the pile.

Tongiaki hides one thing, from every player alike: the order of the pile. What is
left in it is public (a multiset anyone can count: ``GameState.drawn`` against
``tiles.PILE``). So the search treats a draw as chance, never as knowledge: each
iteration deals the tiles not yet drawn in a fresh random order (``sampled_deck``),
which draws every tile uniformly from what is left at each draw, and a command whose
result depends on the draws has one child per sequence of tiles it drew (a chance
node). The real order and the game's seed are never looked at: the search is given
a state, never a deck.

Each player maximises their own result (max^n): a node keeps, for every command,
the summed reward of every player, and chooses by UCB1 on the reward of the player
to move. A finished game rewards its winners (a shared win is shared); an unfinished
one is judged by ``values``, each player's standing against the best of the others
through a logistic curve, so the rewards of every kind of leaf are on one scale.
Commands are widened progressively: a node considers its commands in the order of
``prior`` (the visible one-ply result, as the greedy bot sees it), more of them as
it is visited more, so a turn with 250 possible expansions is still searched deeper
than one ply.

The budget is a number of iterations (``Budget.playouts``), and so deterministic for
a given seed, or a time limit on a clock the caller gives (``Budget.seconds`` with
``clock``): the domain reads no clock of its own.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from domain import commands as cmd
from domain.deck import Deck
from domain.errors import DeckRequired
from domain.forced import apply_forced
from domain.judge import apply
from domain.legal import legal_commands
from domain.scoring import current_scores
from domain.state import GameState, Phase
from domain.tiles import PILE

SAMPLED = "sampled"  # the algorithm name of a deck the search deals itself
EXPLORATION = 0.6  # UCB1's constant, for rewards in [0, 1]
WIDEN = 2.0  # a node considers about WIDEN * sqrt(visits) of its commands
SCALE = 3.0  # points of lead that make a standing of about 0.73 (logistic)
RANK_AFTER = 8  # visits before a node (not the root) orders its commands by prior
MAX_PLAYOUTS = 100_000  # the most iterations a decision may be given
MAX_SECONDS = 30.0  # the longest a decision may be given


@dataclass(frozen=True)
class Budget:
    """How long one decision may search: ``playouts`` iterations, and at most
    ``seconds`` of the caller's clock when one is given."""

    playouts: int = 400
    seconds: float | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.playouts <= MAX_PLAYOUTS:
            raise ValueError(f"playouts must be 1 to {MAX_PLAYOUTS}, not {self.playouts}")
        if self.seconds is not None and not 0 < self.seconds <= MAX_SECONDS:
            raise ValueError(f"seconds must be above 0 and at most {MAX_SECONDS}")


def remaining(state: GameState) -> list[str]:
    """The tiles still in the pile, in canonical order (public: R2 and what was drawn)."""
    seen = set(state.drawn)
    return [t for t in PILE if t not in seen]


def sampled_deck(state: GameState, rng: random.Random) -> Deck:
    """A deck whose next tiles are the pile's rest in a fresh random order: never the
    game's own order, which the search is never given."""
    rest = remaining(state)
    rng.shuffle(rest)
    return Deck(SAMPLED, (*state.drawn, *rest))


def mover(state: GameState) -> int:
    """The index in ``state.players`` of the player whose decision is pending."""
    colour = state.active_colour
    assert colour is not None
    owner = state.owner(colour).player_id
    return next(i for i, p in enumerate(state.players) if p.player_id == owner)


def values(state: GameState) -> list[float]:
    """Every player's reward for ``state``, in ``[0, 1]``, by seat index.

    Ended: the winners share 1 (R22, R23). Otherwise each player's standing (points,
    half a point an island, a little for boats in supply) against the best other's,
    through a logistic curve of ``SCALE`` points."""
    memo = state.memo()
    found: list[float] | None = memo.get("mcts_values")
    if found is None:
        found = memo["mcts_values"] = _values(state)
    return found


def _values(state: GameState) -> list[float]:
    players = state.players
    if state.phase is Phase.ENDED:
        scores = current_scores(state)
        winners = [s.player_id for s in scores if s.rank == 1]
        return [1.0 / len(winners) if p.player_id in winners else 0.0 for p in players]
    standing = {s.player_id: s.points + 0.5 * s.islands for s in current_scores(state)}
    worth = [
        standing[p.player_id] + 0.05 * sum(state.supply.get(c, 0) for c in p.colours)
        for p in players
    ]
    rewards = []
    for i, mine in enumerate(worth):
        best_other = max(w for j, w in enumerate(worth) if j != i)
        rewards.append(1.0 / (1.0 + math.exp(-(mine - best_other) / SCALE)))
    return rewards


def prior(state: GameState, command: cmd.Command, seat: int) -> float:
    """The visible one-ply worth of ``command`` for player ``seat``: its result judged by
    ``values`` when it draws nothing, else the state before it (a draw is unseen)."""
    if isinstance(command, cmd.NewColonisation):
        alone = state.boats_on_board(state.active_colour or "", kings=False) == 0
        return values(state)[seat] - (0.02 if alone else 0.3)
    try:
        _, after = apply(state, command)
    except DeckRequired:
        return values(state)[seat] + 0.01  # a draw: an unseen chance, a little hoped for
    return values(after)[seat]


@dataclass
class Node:
    """A decision (or the end): its state, and what each of its commands led to."""

    state: GameState
    seat: int = -1  # who decides here (-1: the game is over)
    commands: list[cmd.Command] = field(default_factory=list)
    order: list[int] = field(default_factory=list)  # commands by prior, best first
    ranked: bool = False  # whether ``order`` is by prior yet (else a shuffle)
    visits: int = 0
    tried: list[int] = field(default_factory=list)  # iterations through each command
    reward: list[list[float]] = field(default_factory=list)  # summed rewards per command
    outcomes: list[dict[tuple[str, ...], Node]] = field(default_factory=list)
    drawless: list[bool] = field(default_factory=list)  # a command seen to draw nothing
    ended: list[float] | None = None

    @classmethod
    def of(cls, state: GameState) -> Node:
        """A node for ``state`` (forced single choices already applied)."""
        if state.phase is Phase.ENDED or state.pending is None:
            return cls(state, ended=values(state))
        commands = legal_commands(state)
        seat = mover(state)
        n = len(commands)
        return cls(
            state,
            seat,
            commands,
            tried=[0] * n,
            reward=[[0.0] * len(state.players) for _ in range(n)],
            outcomes=[{} for _ in range(n)],
            drawless=[False] * n,
        )

    def rank(self) -> None:
        """Order the commands by ``prior`` (a one-ply look at each: worth it once the
        node has been visited a few times, or at the root)."""
        seat = self.seat
        worth = [prior(self.state, c, seat) for c in self.commands]
        self.order = sorted(range(len(self.commands)), key=lambda i: -worth[i])
        self.ranked = True

    def select(self, rng: random.Random, root: bool = False) -> int:
        """The command to follow: UCB1 among the ones widening admits."""
        if len(self.commands) == 1:
            return 0
        if not self.ranked and (root or self.visits >= RANK_AFTER):
            self.rank()
        elif not self.order:
            self.order = list(range(len(self.commands)))
            rng.shuffle(self.order)
        width = min(len(self.order), 1 + int(WIDEN * math.sqrt(self.visits)))
        log_n = math.log(self.visits + 1)
        best, best_score = self.order[0], -1.0
        for i in self.order[:width]:
            n = self.tried[i]
            if n == 0:
                return i  # the next best by prior that was never tried
            score = self.reward[i][self.seat] / n + EXPLORATION * math.sqrt(log_n / n)
            if score > best_score:
                best, best_score = i, score
        return best

    def follow(self, i: int, deck: Deck) -> tuple[Node, bool]:
        """The node command ``i`` leads to with ``deck``, and whether it is new."""
        outcomes = self.outcomes[i]
        if self.drawless[i]:
            return next(iter(outcomes.values())), False
        _, after = apply(self.state, self.commands[i], deck)
        _, after = apply_forced(after, deck)
        key = after.drawn[len(self.state.drawn) :]
        if not outcomes and not key:
            self.drawless[i] = True
        child = outcomes.get(key)
        if child is not None:
            return child, False
        child = outcomes[key] = Node.of(after)
        return child, True


@dataclass(frozen=True)
class Appraisal:
    """What the search thought of one legal command: its iterations and the mover's
    mean reward (``value``, 0 to 1) over them."""

    command: cmd.Command
    visits: int
    value: float


class MctsBot:
    """Chooses by Monte Carlo tree search within a ``Budget`` (see the module)."""

    name = "mcts"

    def __init__(
        self,
        rng: random.Random,
        budget: Budget | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.rng = rng
        self.budget = budget or Budget()
        self.clock = clock
        self.playouts = 0  # iterations run, over every decision (for playouts per second)

    def choose(self, state: GameState) -> cmd.Command:
        """The most searched legal command (ties: the better valued)."""
        options = legal_commands(state)
        if len(options) == 1:
            return options[0]
        best = max(self.appraise(state), key=lambda a: (a.visits, a.value))
        return best.command

    def appraise(self, state: GameState) -> list[Appraisal]:
        """Search from ``state`` and say what became of every legal command."""
        root = Node.of(state)
        if root.ended is not None:
            return []
        clock = self.clock if self.budget.seconds is not None else None
        deadline = clock() + (self.budget.seconds or 0.0) if clock is not None else None
        for done in range(self.budget.playouts):
            if clock is not None and deadline is not None and done % 8 == 0 and clock() >= deadline:
                break
            iterate(root, self.rng)
            self.playouts += 1
        seat = root.seat
        return [
            Appraisal(c, n, r[seat] / n if n else 0.0)
            for c, n, r in zip(root.commands, root.tried, root.reward, strict=True)
        ]


def iterate(root: Node, rng: random.Random) -> None:
    """One iteration: a fresh deal of the pile's rest, down the tree to a new node or
    the end, and every reward back up the path."""
    deck = sampled_deck(root.state, rng)
    path: list[tuple[Node, int]] = []
    node = root
    while node.ended is None:
        i = node.select(rng, node is root)
        path.append((node, i))
        node, new = node.follow(i, deck)
        if new:
            break
    leaf = node.ended if node.ended is not None else values(node.state)
    for parent, i in path:
        parent.visits += 1
        parent.tried[i] += 1
        total = parent.reward[i]
        for k, v in enumerate(leaf):
            total[k] += v


def evaluations(appraisals: Sequence[Appraisal]) -> list[Appraisal]:
    """The appraisals best first (most searched, then best valued)."""
    return sorted(appraisals, key=lambda a: (-a.visits, -a.value))
