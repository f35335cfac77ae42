"""A game's record on the command line: ``tongiaki verify`` (and its report),
``tongiaki export`` and ``tongiaki import`` (moving a game between servers)."""

from __future__ import annotations

import sys
from typing import IO, TYPE_CHECKING

import click

from service.cli import stores

if TYPE_CHECKING:
    from service.audit.verify import Verification


@click.command()
@click.argument("game_id")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (as the API).")
def verify(game_id: str, as_json: bool) -> None:
    """Check a game's hash chain, fair draws and every command; exit 1 if anything is off."""
    import json

    from service.audit.verify import verify_game
    from service.errors import ServiceError

    store = stores.event_store()
    try:
        report = verify_game(store, game_id)
    except ServiceError as exc:
        raise click.ClickException(exc.detail) from exc
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps(report.as_dict(), separators=(",", ":"), ensure_ascii=False))
        sys.exit(0 if report.ok else 1)
    click.echo(f"game {game_id}: {report.events} events")
    _echo_chain_and_draws(report)
    _echo_rerun(report)
    _echo_disputes(report)
    _echo_log(report)
    if not report.ok:
        sys.exit(1)


def _echo_chain_and_draws(report: Verification) -> None:
    """The report's hash chain and fair draws, with their problems."""
    click.echo(f"  hash chain       {'ok' if report.chain_ok else 'BROKEN'}")
    for p in report.chain_problems:
        click.echo(f"    - {p}")
    if report.deck_revealed:
        click.echo(
            f"  fair draws       {'ok' if report.deck_ok else 'MISMATCH'} "
            f"({report.draws_checked} draws against the revealed seed)"
        )
        for p in report.deck_problems:
            click.echo(f"    - {p}")
    else:
        click.echo("  fair draws       not yet revealed (the game is not over)")


def _echo_rerun(report: Verification) -> None:
    """The commands re-run, the rules they were recorded under, and the rule changes."""
    click.echo(
        f"  commands re-run  {report.commands_rerun} under the rules each was recorded with: "
        f"{'each gives its events exactly' if not report.rerun_problems else 'MISMATCH'}"
    )
    for p in report.rerun_problems:
        click.echo(f"    - {p}")
    earlier = [r for r in report.recorded_rules if r != report.rules_version]
    if earlier:
        click.echo(
            f"  rules            recorded under {', '.join(report.recorded_rules)};"
            f" today's are {report.rules_version}"
        )
    if report.rule_changes:
        click.echo(
            f"  rule changes     under {report.rules_version}, {len(report.rule_changes)}"
            " command(s) would give other events (docs/rules.md, Rule changes):"
        )
    for c in report.rule_changes:
        click.echo(
            f"    - command {c['command_id']} ({c['command']}, events"
            f" {c['versions'][0]}–{c['versions'][1]}): event {c['event_version']}:"
            f" {c['difference']} [{c['explained_by']}]"
        )


def _echo_log(report: Verification) -> None:
    """The game against the transparency log."""
    if report.log is None:
        return
    summary = report.log
    state = "ok" if not report.log_problems else "MISMATCH"
    click.echo(
        f"  log              {state}: {summary['entries']} entries, the game logged up to"
        f" v{summary['last_logged_version']}"
    )
    for p in report.log_problems:
        click.echo(f"    - {p}")


def _echo_disputes(report: Verification) -> None:
    """The game's disputes: their chains, anchors and rulings."""
    if not report.disputes:
        return
    whole = all(d["chain_ok"] and d["anchor_ok"] and d["carried_out"] for d in report.disputes)
    click.echo(
        f"  disputes         {len(report.disputes)}: "
        + (
            "each chain intact, each anchor holds, each ruling in the record"
            if whole
            else "PROBLEMS (below)"
        )
    )
    for d in report.disputes:
        click.echo(
            f"    - {d['dispute_id']} {d['status']}"
            + (f", ruled {d['ruling']}" if d["ruling"] else "")
        )


@click.command(name="export")
@click.argument("game_id")
@click.option("--output", "-o", type=click.File("w"), default="-", help="Default: stdout.")
@click.option(
    "--with-secret",
    is_flag=True,
    help="Include the deck seed (operators moving a game not yet over; keep the file private).",
)
@click.option(
    "--allow-broken",
    is_flag=True,
    help="Export a game whose hash chain is broken, as it is (evidence; no server imports it).",
)
def export_game(game_id: str, output: IO[str], with_secret: bool, allow_broken: bool) -> None:
    """Write a game as NDJSON: a header, its events with hashes, its journal."""
    from service.audit.export import export_lines

    store = stores.event_store()
    try:
        lines = list(export_lines(store, game_id, with_secret, allow_broken))
    finally:
        store.close()
    output.writelines(lines)
    if with_secret:
        click.echo("the export holds the deck seed: keep it private", err=True)


@click.command(name="import")
@click.argument("source", type=click.File("rb"))
def import_game(source: IO[bytes]) -> None:
    """Load an exported game, after checking it through, and build its read models."""
    from datetime import UTC, datetime

    from projections.store import ReadModels
    from service.audit.imports import import_game as load

    store = stores.event_store(existing_only=False)  # a new service's first game may come this way
    try:
        done = load(store, source, datetime.now(UTC).isoformat())
        rm = ReadModels(store, store)
        rm.upgrade()
        applied = rm.catch_up_game(done.game_id)
    finally:
        store.close()
    click.echo(
        f"imported game {done.game_id}: {done.events} events, {done.journal} journal entries,"
        f" {done.status}; read models built ({sum(applied.values())} items)"
    )
