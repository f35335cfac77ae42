"""``tongiaki simulate``: whole games played by bots, and a summary of them."""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter

import click

from domain.bots import budget_of
from domain.simulation import GameDidNotEnd, play


def _bot(value: str) -> str:
    """``--bots``: a bot's name, refused with the names there are."""
    try:
        budget_of(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    return value


@click.command()
@click.option(
    "--games",
    "-n",
    default=100,
    show_default=True,
    type=click.IntRange(1, 10_000_000),
    help="Games to play.",
)
@click.option("--players", "-p", default=4, show_default=True, type=click.IntRange(2, 6))
@click.option("--seed", "-s", default=0, show_default=True, help="Seed of the first game.")
@click.option(
    "--bots",
    default="random",
    show_default=True,
    callback=lambda _ctx, _param, value: _bot(value),
    help="random, greedy, mcts-easy, mcts, mcts-strong (50, 200, 800 iterations a"
    " decision), or mcts:N.",
)
@click.option("--two-colours-each", is_flag=True, help="Two-player variant (R5).")
@click.option("--free-orientation", is_flag=True, help="Rody variant (R11).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def simulate(
    games: int,
    players: int,
    seed: int,
    bots: str,
    two_colours_each: bool,
    free_orientation: bool,
    quiet: bool,
) -> None:
    """Play whole games with bots and print a summary (games N..N+games-1 by seed)."""
    if two_colours_each and players != 2:
        raise click.UsageError("--two-colours-each is the two-player variant: use --players 2")
    results = []
    started = time.perf_counter()
    with click.progressbar(
        range(seed, seed + games),
        label=f"{games} games, {players} players, {bots} bots",
        file=sys.stderr,
        hidden=quiet,
        show_pos=True,
        show_eta=True,
    ) as seeds:
        for s in seeds:
            try:
                results.append(
                    play(
                        s,
                        players,
                        bots=bots,
                        two_colours_each=two_colours_each,
                        free_orientation_after_first=free_orientation,
                    )
                )
            except GameDidNotEnd as exc:
                raise click.ClickException(
                    f"{exc}: the bots keep playing the same moves (one-ply bots and small"
                    " searches can send fleets that royal islands turn back for ever, R15);"
                    " try --bots random, a larger search (--bots mcts) or other seeds"
                ) from exc
    elapsed = time.perf_counter() - started
    turns = [g.state.turn for g in results]
    events = [len(g.events) for g in results]
    commands = [g.commands for g in results]
    winners = [g.outcome.scores[0].points for g in results]
    reasons = Counter(g.outcome.reason.value for g in results)
    ties = Counter(g.outcome.tie_break for g in results)
    click.echo(
        f"games          {games} ({players} players, {bots} bots, seeds {seed}..{seed + games - 1})"
    )
    click.echo(
        f"turns          mean {statistics.mean(turns):.1f}  min {min(turns)}  max {max(turns)}"
    )
    click.echo(
        f"events/game    mean {statistics.mean(events):.1f}  min {min(events)}  max {max(events)}"
    )
    click.echo(f"commands/game  mean {statistics.mean(commands):.1f}")
    click.echo(f"winning score  mean {statistics.mean(winners):.1f}  max {max(winners)}")
    click.echo("end reasons    " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    click.echo("tie-breaks     " + ", ".join(f"{k} {v}" for k, v in sorted(ties.items())))
    click.echo(f"speed          {games / elapsed:.1f} games/s ({elapsed:.2f} s)")
