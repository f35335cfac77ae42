"""Bot against bot: the search's win rate against the greedy bot, and A/B tests (issue 32).

    python -m bench.bots --players 2 --deals 200 --bot mcts --opponent greedy
    python -m bench.bots --players 4 --deals 50 --bot mcts
    python -m bench.bots --vs mcts:400 mcts:200 --deals 500      # SPRT, stops early

A deal is one seed (its deck, entropy and colours). Every deal is played once with
``--bot`` in each seat and ``--opponent`` in every other, so no seat's advantage and no
deal's luck favours either side: 2 players, both seatings; 4 players, the four.
The figures: games, the bot's score (a win 1, a shared win its share), its 95 %
confidence interval (normal, from the scores' own variance), the Elo difference of a
heads-up score, the time a decision took, and the search's iterations a second. A game
past ``--cap`` commands (one-ply bots can send fleets a royal island turns back for
ever, R15) is scored as it stands (R22, R23) and counted.

``--vs A B`` plays A against B heads-up, deal after deal, and runs a sequential
probability ratio test (H0: A is no better, Elo 0; H1: A is ``--elo1`` better;
alpha = beta = 0.05) after every pair of games, stopping at the first bound crossed.

Prints figures (and writes them as JSON with ``--json``); it is not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import platform
import random
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

from domain.bots import Bot, budget_of, make_bot
from domain.forced import apply_forced
from domain.judge import apply
from domain.mcts import MctsBot
from domain.scoring import current_scores
from domain.simulation import setup_game
from domain.state import Phase


@dataclass(frozen=True)
class Game:
    """One game's result for the bot under test, and what its decisions cost."""

    seed: int
    seat: int
    score: float  # the bot's share of the win
    commands: int
    capped: bool
    decisions: int  # the bot's own decisions (more than one legal command)
    thinking: float  # seconds the bot spent choosing
    slowest: float  # the bot's longest decision, seconds
    playouts: int  # the search's iterations, over the game


def play_one(job: tuple[int, int, int, str, str, int]) -> Game:
    """Deal ``seed`` for ``players``, ``bot`` in seat ``seat``, ``opponent`` elsewhere."""
    seed, players, seat, bot_name, opponent, cap = job
    _, state, deck = setup_game(seed, players)
    bots: dict[str, Bot] = {}
    for p in state.players:
        name = bot_name if p.seat == seat else opponent
        bots[p.player_id] = make_bot(name, random.Random(seed * 31 + p.seat))
    mine = next(p.player_id for p in state.players if p.seat == seat)
    commands = decisions = 0
    thinking = slowest = 0.0
    while commands < cap:
        _, state = apply_forced(state, deck)
        if state.phase is Phase.ENDED:
            break
        colour = state.active_colour
        assert colour is not None
        who = state.owner(colour).player_id
        started = time.perf_counter()
        command = bots[who].choose(state)
        took = time.perf_counter() - started
        if who == mine:
            decisions += 1
            thinking += took
            slowest = max(slowest, took)
        _, state = apply(state, command, deck)
        commands += 1
    winners = [s.player_id for s in current_scores(state) if s.rank == 1]
    score = 1 / len(winners) if mine in winners else 0.0
    search = bots[mine]
    playouts = search.playouts if isinstance(search, MctsBot) else 0
    capped = state.phase is not Phase.ENDED
    return Game(seed, seat, score, commands, capped, decisions, thinking, slowest, playouts)


def jobs(
    args: argparse.Namespace, bot: str, opponent: str
) -> list[tuple[int, int, int, str, str, int]]:
    """Every (deal, seating) of a match."""
    return [
        (seed, args.players, seat, bot, opponent, args.cap)
        for seed in range(args.seed, args.seed + args.deals)
        for seat in range(1, args.players + 1)
    ]


def results(todo: list[tuple[int, int, int, str, str, int]], workers: int) -> Iterator[Game]:
    """The games of ``todo``, in order, on ``workers`` processes."""
    if workers <= 1:
        yield from map(play_one, todo)
        return
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        yield from pool.imap(play_one, todo)


def interval(scores: list[float]) -> tuple[float, float, float]:
    """The mean score and its 95 % confidence interval: normal, from the scores' own
    variance; Wilson's where they do not vary (every game won, or every one lost)."""
    mean = statistics.fmean(scores)
    n = len(scores)
    spread = statistics.stdev(scores) if n > 1 else 0.0
    if spread == 0.0:
        z = 1.96
        centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return mean, max(0.0, centre - half), min(1.0, centre + half)
    half = 1.96 * spread / math.sqrt(n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def elo(score: float) -> float:
    """The Elo difference a heads-up score stands for (±inf at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def _signed(value: float) -> str:
    """An Elo difference as said: +120, -35, 0, +inf."""
    return "0" if round(value) == 0 else f"{value:+.0f}"


def expected(elo_diff: float) -> float:
    """The heads-up score an Elo difference predicts."""
    return 1 / (1 + 10 ** (-elo_diff / 400))


def sprt_llr(scores: list[float], elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``), normal approximation
    of the scores (the generalised SPRT used by engine testers)."""
    n = len(scores)
    if n < 2:
        return 0.0
    mean = statistics.fmean(scores)
    var = statistics.fmean(x * x for x in scores) - mean * mean
    if var <= 0:
        return 0.0
    s0, s1 = expected(elo0), expected(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def summary(games: list[Game], label: str, players: int, elapsed: float) -> dict[str, object]:
    """The match's figures, printed and returned."""
    scores = [g.score for g in games]
    mean, low, high = interval(scores)
    decisions = sum(g.decisions for g in games)
    thinking = sum(g.thinking for g in games)
    playouts = sum(g.playouts for g in games)
    figures: dict[str, object] = {
        "match": label,
        "players": players,
        "games": len(games),
        "score": round(mean, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "fair_share": round(1 / players, 4),
        "wins": sum(1 for g in games if g.score == 1.0),
        "capped": sum(1 for g in games if g.capped),
        "decision_ms_mean": round(1000 * thinking / max(decisions, 1), 1),
        "decision_ms_max": round(1000 * max((g.slowest for g in games), default=0.0), 1),
        "playouts_per_s": round(playouts / thinking, 1) if playouts and thinking else 0,
        "seconds": round(elapsed, 1),
    }
    said_elo = ""
    if players == 2:
        figures["elo"] = round(elo(mean), 1) if 0 < mean < 1 else str(elo(mean))
        said_elo = f"  Elo {_signed(elo(mean))} ({_signed(elo(low))}..{_signed(elo(high))})"
    print(f"{label}: {len(games)} games, {players} players (fair share {1 / players:.0%})")
    print(f"  score {mean:.1%}  95% CI {low:.1%}..{high:.1%}  wins {figures['wins']}{said_elo}")
    print(
        f"  decision {figures['decision_ms_mean']} ms mean, {figures['decision_ms_max']} ms"
        f" slowest; {figures['playouts_per_s']} iterations/s; capped {figures['capped']};"
        f" {elapsed:.0f} s"
    )
    return figures


def match(args: argparse.Namespace) -> dict[str, object]:
    """``--bot`` against ``--opponent`` over every deal and seating."""
    todo = jobs(args, args.bot, args.opponent)
    label = f"{args.bot} vs {args.opponent}"
    games: list[Game] = []
    started = time.perf_counter()
    try:
        for i, game in enumerate(results(todo, args.workers), start=1):
            games.append(game)
            if not args.quiet and sys.stderr.isatty():
                so_far = statistics.fmean(g.score for g in games)
                print(f"\r  {i}/{len(todo)} games, score {so_far:.1%}", end="", file=sys.stderr)
    except KeyboardInterrupt:  # Ctrl-C: the figures of the games played so far
        label += f" (stopped after {len(games)} of {len(todo)} games)"
    if not args.quiet:
        print(file=sys.stderr)
    if not games:
        raise SystemExit("no game finished")
    return summary(games, label, args.players, time.perf_counter() - started)


def ab_test(args: argparse.Namespace) -> dict[str, object]:
    """A against B heads-up with the SPRT after every pair of games (both seatings)."""
    a, b = args.vs
    args.players = 2
    low, high = math.log(0.05 / 0.95), math.log(0.95 / 0.05)
    todo = jobs(args, a, b)
    games: list[Game] = []
    verdict = "no decision"
    started = time.perf_counter()
    llr = 0.0
    for game in results(todo, args.workers):
        games.append(game)
        if len(games) % 2:
            continue
        llr = sprt_llr([g.score for g in games], 0.0, args.elo1)
        if not args.quiet and sys.stderr.isatty():
            print(
                f"\r  {len(games)} games, LLR {llr:+.2f} ({low:.2f}, {high:.2f})",
                end="",
                file=sys.stderr,
            )
        if llr <= low or llr >= high:
            verdict = (
                f"H1: {a} is {args.elo1:g} Elo better" if llr >= high else f"H0: {a} is no better"
            )
            break
    if not args.quiet:
        print(file=sys.stderr)
    figures = summary(games, f"{a} vs {b}", 2, time.perf_counter() - started)
    figures.update(sprt={"elo0": 0, "elo1": args.elo1, "llr": round(llr, 3), "verdict": verdict})
    print(f"  SPRT(0, {args.elo1:g}): LLR {llr:+.2f} in ({low:.2f}, {high:.2f}): {verdict}")
    return figures


def bot_name(value: str) -> str:
    """A bot's name, for argparse (``domain.bots.make_bot``'s names)."""
    try:
        budget_of(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=2, choices=range(2, 7))
    parser.add_argument(
        "--deals", type=int, default=200, help="seeds, each played in every seating"
    )
    parser.add_argument("--seed", type=int, default=1, help="the first deal's seed")
    parser.add_argument("--bot", type=bot_name, default="mcts")
    parser.add_argument("--opponent", type=bot_name, default="greedy")
    parser.add_argument(
        "--vs", nargs=2, type=bot_name, metavar=("A", "B"), help="SPRT of A against B"
    )
    parser.add_argument("--elo1", type=float, default=30.0, help="the SPRT's H1 (Elo)")
    parser.add_argument(
        "--cap", type=int, default=3000, help="commands after which a game is scored as it stands"
    )
    parser.add_argument("--workers", type=int, default=2, help="processes")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--quiet", "-q", action="store_true")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, {args.workers} processes")
    figures = ab_test(args) if args.vs else match(args)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2)
            out.write("\n")


if __name__ == "__main__":
    main()
