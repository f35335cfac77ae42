"""``tongiaki projections``: the read models rebuilt, their lag shown, a halted one
resumed (the worker's code is not needed)."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import click

from service.cli import rebuild_jobs, stores
from service.cli.rebuild_jobs import MAX_JOBS

if TYPE_CHECKING:
    from projections.store import ReadModels
    from service.store.base import SqlStore


@click.group()
def projections() -> None:
    """Read models: rebuild them, or see how far behind they are."""


def _readmodels() -> tuple[SqlStore, ReadModels]:
    """The event store and its read models (the worker's code is not needed)."""
    from projections.store import ReadModels
    from service.bootstrap import open_store

    store = open_store(stores.existing(stores.from_env()))
    store.upgrade()
    rm = ReadModels(store, store)
    rm.upgrade()
    return store, rm


@projections.command()
@click.argument("name", required=False)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(1, MAX_JOBS),
    default=1,
    show_default=True,
    help="Processes rebuilding games side by side (PostgreSQL; about one per core).",
)
def rebuild(name: str | None, quiet: bool, jobs: int) -> None:
    """Rebuild NAME (or every projection) from the event store, one game at a time.

    Each game's rows are replaced in one transaction, so readers see the old rows
    or the new ones, never a half-built game.
    """
    from projections.store import PROJECTIONS

    if name is not None and name not in PROJECTIONS:
        raise click.BadParameter(f"one of {', '.join(PROJECTIONS)}", param_hint="NAME")
    settings = stores.from_env()
    if jobs > 1 and not settings.uses_postgres:
        raise click.BadParameter(
            "SQLite takes one writer at a time: --jobs above 1 needs PostgreSQL",
            param_hint="--jobs",
        )
    _, rm = _readmodels()
    games = rm.all_games()
    names = (name,) if name else PROJECTIONS
    started = time.perf_counter()
    with click.progressbar(
        length=len(games),
        label=f"rebuilding {', '.join(names)}",
        file=sys.stderr,
        hidden=quiet,
        show_pos=True,
        show_eta=True,
    ) as bar:
        if jobs > 1:
            applied = rebuild_jobs.rebuild(
                rm, settings.database_url, names, games, jobs, bar.update
            )
        else:
            applied = rm.rebuild(names, progress=bar.update)
    elapsed = time.perf_counter() - started
    click.echo(
        f"rebuilt {', '.join(names)}: {len(games)} games, {applied} items in {elapsed:.2f} s"
        + (f" ({jobs} processes)" if jobs > 1 else "")
    )


@projections.command()
def status() -> None:
    """Lag per projection: games behind, events behind, halted games and their errors."""
    _, rm = _readmodels()
    click.echo(f"{'projection':<12} {'games':>6} {'behind':>7} {'events behind':>14}  halted")
    worst = 0
    for lag in rm.status():
        click.echo(
            f"{lag.projection:<12} {lag.games:>6} {lag.behind:>7} {lag.events_behind:>14}"
            f"  {len(lag.halted)}"
        )
        for game_id, error in lag.halted:
            click.echo(f"  halted on {game_id}: {error}")
        worst = max(worst, len(lag.halted))
    if worst:
        sys.exit(1)


@projections.command()
@click.argument("name")
@click.argument("game")
def resume(name: str, game: str) -> None:
    """Clear a halted projection's error for GAME and catch it up again."""
    from projections.store import PROJECTIONS

    if name not in PROJECTIONS:
        raise click.BadParameter(f"one of {', '.join(PROJECTIONS)}", param_hint="NAME")
    store, rm = _readmodels()
    if store.head(game) is None:
        raise click.ClickException(f"there is no game {game!r}")
    rm.resume(name, game)
    applied = rm.catch_up(name, game)
    click.echo(f"{name} of {game}: {applied} items applied")
