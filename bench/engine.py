"""Engine benchmark: fold speed and whole random games per second (issue: engine).

    python bench/engine.py [--games 200] [--players 4] [--profile] [--json FILE]

Prints figures (and writes them for bench/compare.py with ``--json``); it is not a
pass/fail test. Single process, one core.
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # python bench/engine.py

from bench.figures import Figures
from domain.fold import replay
from domain.simulation import play


def fold_rate(games: list[Any], rounds: int) -> tuple[float, int]:
    """Events folded per second by ``replay`` over the given games' logs."""
    logs = [g.events for g in games]
    total = sum(len(log) for log in logs) * rounds
    started = time.perf_counter()
    for _ in range(rounds):
        for log in logs:
            replay(log)
    return total / (time.perf_counter() - started), total


def game_rate(seeds: range, players: int) -> tuple[float, list[Any], list[tuple[float, int]]]:
    """Whole random games per second: decide + legal_commands + evolve, forced choices too.

    Also each game's time and seed, so an outlier is seen rather than averaged away.
    """
    games, times = [], []
    started = time.perf_counter()
    for s in seeds:
        t = time.perf_counter()
        games.append(play(s, players))
        times.append((time.perf_counter() - t, s))
    return len(games) / (time.perf_counter() - started), games, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print the top cost centres")
    parser.add_argument("--json", help="write the figures to this file (bench/figures.py)")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, one process")
    play(0, args.players)  # warm caches
    rates = []
    every: list[tuple[float, int]] = []
    for r in range(args.rounds):
        # fresh seeds every round, so no round profits from caches warmed by another
        first = args.seed + r * args.games
        rate, games, times = game_rate(range(first, first + args.games), args.players)
        rates.append(rate)
        every += times
    events = sum(len(g.events) for g in games)
    commands = sum(g.commands for g in games)
    print(
        f"random {args.players}-player games: median {statistics.median(rates):,.1f} games/s, "
        f"best {max(rates):,.1f} over {args.rounds} rounds "
        f"(rounds: {', '.join(f'{r:,.1f}' for r in rates)}; {args.games} games each, "
        f"{events / args.games:.0f} events and {commands / args.games:.0f} bot commands per game)"
    )
    total = sum(t for t, _ in every)
    slowest = sorted(every, reverse=True)[:3]
    print(
        f"  all {len(every)} games together: {len(every) / total:,.1f} games/s; median game "
        f"{statistics.median(t for t, _ in every) * 1000:.1f} ms; slowest: "
        + ", ".join(f"seed {s} {t:.2f} s" for t, s in slowest)
    )
    folds = [fold_rate(games, rounds=1)[0] for _ in range(args.rounds)]
    print(
        f"fold (replay): median {statistics.median(folds):,.0f} events/s, "
        f"best {max(folds):,.0f} ({events:,} events per round)"
    )
    figures = Figures("engine")
    figures.add(f"games_per_s_{args.players}p", rates, "games/s")
    figures.add("fold_events_per_s", folds, "events/s")
    figures.write(args.json)
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for s in range(args.seed, args.seed + min(args.games, 50)):
            play(s, args.players)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
