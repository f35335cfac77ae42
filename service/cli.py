"""The ``tongiaki`` command line."""

from __future__ import annotations

import logging
import statistics
import sys
import time
from collections import Counter
from typing import IO, TYPE_CHECKING

import click

from domain.disputes import REASONS as REASON_CHOICES
from domain.simulation import GameDidNotEnd, play

if TYPE_CHECKING:
    from projections.store import ReadModels
    from service.audit.disputes import DisputeService
    from service.runtime.settings import Settings
    from service.store.base import Account, SqlStore


class Cli(click.Group):
    """The command group, and the one place a user's mistake becomes one line.

    A bad setting, an unreachable database or Redis, a refused value: each is
    printed as ``Error: …`` with a non-zero exit, never a traceback.
    """

    def invoke(self, ctx: click.Context) -> object:
        from redis.exceptions import RedisError

        from service.audit.transfer import TransferError
        from service.errors import ServiceError
        from service.runtime.settings import ConfigError
        from service.store.base import StoreError

        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # the reader went away (``tongiaki verify … | head``): stop quietly, as
            # ``yes | head`` does, with the status of a process ended by SIGPIPE
            import os

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # nothing more to flush at exit
            sys.exit(128 + 13)
        except ConfigError as exc:
            raise BadSetting(str(exc)) from exc
        except ServiceError as exc:
            raise click.ClickException(exc.detail) from exc
        except (StoreError, TransferError) as exc:
            raise click.ClickException(str(exc)) from exc
        except RedisError as exc:
            raise click.ClickException(f"Redis: {exc}") from exc
        except OSError as exc:  # a data directory or file the user named
            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(f"{where}{exc.strerror or exc}") from exc


def can_listen(host: str, port: int) -> None:
    """Bind the address once, so a taken port or a host not ours is one clear line."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        with socket.socket(infos[0][0], socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(infos[0][4])
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise click.ClickException(
            f"cannot listen on {host}:{port} (TONGIAKI_HOST / TONGIAKI_PORT, --host / --port):"
            f" {reason}"
        ) from exc


class BadSetting(click.ClickException):
    """A configuration mistake: exit status 2, as for a bad option."""

    exit_code = 2


@click.group(cls=Cli)
def main() -> None:
    """Tongiaki: play, watch and audit the island-hopping game."""


@main.command()
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
    "--bots", type=click.Choice(["random", "greedy"]), default="random", show_default=True
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
                    f"{exc}: the bots keep playing the same moves (greedy bots can send"
                    " fleets that royal islands turn back for ever, R15); try --bots random"
                    " or other seeds"
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


# --- the service ---------------------------------------------------------------


def _settings() -> Settings:
    from service.runtime.settings import Settings

    return Settings.from_env()


def _existing(settings: Settings) -> Settings:
    """The settings of a database that is already there: a command that reads (verify,
    export, disputes, projections) never makes an empty one where there was none."""
    if not settings.uses_postgres and not settings.sqlite_path.exists():
        raise click.ClickException(
            f"there is no database at {settings.sqlite_path}: run this where the service"
            " keeps its data, or point at it with TONGIAKI_DATA_DIR (the folder holding"
            " tongiaki.db) or DATABASE_URL"
        )
    return settings


def _store(existing: bool = True) -> SqlStore:
    """The event store the settings name (``existing``: it must be there already)."""
    from service.bootstrap import open_store

    settings = _settings()
    store = open_store(_existing(settings) if existing else settings)
    store.upgrade()
    return store


@main.command()
@click.option("--host", default=None, help="Default: TONGIAKI_HOST or 127.0.0.1.")
@click.option("--port", default=None, type=int, help="Default: TONGIAKI_PORT or 8000.")
@click.option(
    "--workers",
    default=0,
    type=click.IntRange(0, 64),
    help="gunicorn workers, each a gevent worker (0: one threaded process).",
)
@click.option(
    "--threads",
    default=0,
    type=click.IntRange(0, 256),
    hidden=True,  # the workers were gthread workers once; gevent workers have no threads
    help="Ignored (accepted so that older Procfiles still start).",
)
def serve(host: str | None, port: int | None, workers: int, threads: int) -> None:
    """Run the HTTP service (SQLite under ./var unless DATABASE_URL is set)."""
    if workers > 0:
        # gunicorn's workers are gevent workers: patch the standard library first, before
        # anything (psycopg_pool, redis, ssl) takes a lock or a socket of the real kind,
        # which would block a whole worker while one greenlet waits on it
        import warnings

        from gevent import monkey

        # ssl may be imported already (by click's environment); nothing here has used it
        warnings.filterwarnings("ignore", message="Monkey-patching ssl after ssl")
        monkey.patch_all()
    from service.bootstrap import check_services
    from service.servers.serving import run_embedded, run_gunicorn

    settings = _settings()
    host = host or settings.host
    port = port or settings.port
    if not 1 <= port <= 65_535:
        raise click.BadParameter("a port is from 1 to 65535", param_hint="--port")
    check_services(settings)  # here, once, with the cause: not in every worker's traceback
    can_listen(host, port)
    where = "PostgreSQL" if settings.uses_postgres else f"SQLite at {settings.sqlite_path}"
    from service.runtime.logs import configure as configure_logs

    configure_logs(settings.log_format or ("json" if workers > 0 else "text"))
    logging.getLogger("tongiaki.serve").info(
        "tongiaki: serving on http://%s:%s/ (%s)", host, port, where
    )
    if workers <= 0:
        try:
            run_embedded(settings, host, port)
        except OSError as exc:  # the port is taken, the address is not ours
            raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
        return
    run_gunicorn(settings, host, port, workers)


@main.group()
def db() -> None:
    """Database schema."""


@db.command()
def upgrade() -> None:
    """Create or migrate the schema (idempotent; also done on start)."""
    from service.bootstrap import open_store

    store = open_store(_settings())
    version = store.upgrade()
    store.close()
    click.echo(f"schema at version {version}")


@main.command(name="check-install")
@click.option(
    "--lock",
    "lock_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="The lock to compare with [default: requirements/service.lock of this checkout].",
)
@click.option(
    "--allow-extra", is_flag=True, help="Name packages the lock does not, but do not fail."
)
def check_install(lock_path: str | None, allow_extra: bool) -> None:
    """Compare this environment with a lock: packages missing, at another version, or not
    in it (exit 1 if any). pip installs a lock but never removes what it does not name."""
    import os
    from pathlib import Path

    from service.runtime import installs

    lock = Path(lock_path) if lock_path else installs.SERVICE_LOCK
    try:
        diff = installs.check(lock)
        count = len(installs.applying(installs.read(lock)))
    except installs.LockError as exc:
        raise click.ClickException(str(exc)) from exc
    where = f"{sys.prefix} (Python {sys.version.split()[0]})"
    shown = os.path.relpath(lock) if lock.is_absolute() else str(lock)
    for line in diff.lines():
        click.echo(line)
    failed = diff.lines(extra=not allow_extra)
    if failed:
        fix = []
        if diff.missing or diff.different:
            fix.append(
                f"install it: {sys.executable} -m pip install --require-hashes"
                f" --only-binary :all: -r {shown}"
            )
        if diff.extra and not allow_extra:
            fix.append("pip never removes a package: make a fresh environment for it")
        raise click.ClickException(
            f"{where} is not {shown}: {len(failed)} difference(s); " + "; ".join(fix)
        )
    extra = f", and {len(diff.extra)} package(s) it does not name" if diff.extra else ""
    click.echo(f"{where} is {shown}: {count} package(s) as locked{extra}")


@main.command()
@click.argument("game_id")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (as the API).")
def verify(game_id: str, as_json: bool) -> None:
    """Check a game's hash chain, fair draws and every command; exit 1 if anything is off."""
    import json

    from service.audit.verify import verify_game
    from service.errors import ServiceError

    store = _store()
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
    if report.disputes:
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
    if not report.ok:
        sys.exit(1)


@main.command(name="export")
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
    from service.audit.transfer import export_lines

    store = _store()
    try:
        lines = list(export_lines(store, game_id, with_secret, allow_broken))
    finally:
        store.close()
    output.writelines(lines)
    if with_secret:
        click.echo("the export holds the deck seed: keep it private", err=True)


@main.command(name="import")
@click.argument("source", type=click.File("rb"))
def import_game(source: IO[bytes]) -> None:
    """Load an exported game, after checking it through, and build its read models."""
    from datetime import UTC, datetime

    from projections.store import ReadModels
    from service.audit.transfer import import_game as load

    store = _store(existing=False)  # a new service's first game may come this way
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


@main.group()
def auditor() -> None:
    """Auditor accounts (read every game's journal)."""


@auditor.command(name="create")
@click.argument("name")
def auditor_create(name: str) -> None:
    """Create an auditor account and print its token (shown once)."""
    from datetime import UTC, datetime

    from service.play.accounts import create_account

    store = _store(existing=False)  # a new service's first auditor
    try:
        account, token = create_account(store, name, datetime.now(UTC), kind="auditor")
    finally:
        store.close()  # its pool closed here, not by the garbage collector at exit
    click.echo(f"auditor {account.name} ({account.account_id})")
    click.echo(f"token: {token}")


# --- disputes (docs/disputes.md) ------------------------------------------------------


@main.group()
def disputes() -> None:
    """Disputes: the auditors' queue, one dispute with its evidence, rulings."""


def _disputes_app() -> DisputeService:
    """The disputes service, built as every process builds it (``service.bootstrap``),
    its commits ringing the read models' doorbell; no change feed and no background
    work (this command serves nothing)."""
    from service.bootstrap import build

    return build(_existing(_settings()), streams=None).disputes


def _auditor(service: DisputeService, account_id: str) -> Account:
    who = service.store.account(account_id)
    if who is None or who.kind != "auditor":
        raise click.ClickException(
            f"{account_id!r} is not an auditor's account id (tongiaki auditor create NAME)"
        )
    return who


@disputes.command(name="list")
@click.option("--status", type=click.Choice(["open", "ruled", "withdrawn"]), default=None)
@click.option("--reason", type=click.Choice(list(REASON_CHOICES)), default=None)
@click.option("--game", "game_id", default=None, help="One game's disputes.")
@click.option("--limit", type=click.IntRange(1, 10_000), default=100, show_default=True)
def disputes_list(status: str | None, reason: str | None, game_id: str | None, limit: int) -> None:
    """Disputes, oldest first: id, game, status, reason, opened by, opened at."""
    store = _store()
    try:
        if game_id is not None and store.head(game_id) is None:
            raise click.ClickException(f"there is no game {game_id!r}")
        rows = store.disputes(game_id=game_id, status=status, limit=10_000)
    finally:
        store.close()
    rows = [r for r in rows if reason is None or r.reason == reason][:limit]
    for r in rows:
        click.echo(
            f"{r.dispute_id}  game {r.game_id}  {r.status:<9}  {r.reason:<21}"
            f"  by {r.opened_by}  {r.created_at}"
        )
    if not rows:
        click.echo("no disputes", err=True)


@disputes.command(name="show")
@click.argument("dispute_id")
@click.option("--evidence", is_flag=True, help="The whole evidence, as JSON (as the API).")
def disputes_show(dispute_id: str, evidence: bool) -> None:
    """One dispute: who opened it and why, notes, assignment, ruling (or its evidence)."""
    import json

    from service.store.base import Account

    service = _disputes_app()
    try:
        reader = Account("cli", "cli", "auditor", "", "")
        if evidence:
            body = service.evidence(reader, dispute_id)
            click.echo(json.dumps(body, ensure_ascii=False, indent=1))
            return
        view = service.view(service.load(dispute_id))
    finally:
        service.store.close()
    opener = view["opened_by"]
    click.echo(
        f"dispute {view['dispute_id']} on game {view['game_id']} at version {view['version']}"
        f" ({view['status']})"
    )
    click.echo(f"  opened by {opener['name']} ({opener['account']}) at {view['opened_at']}")
    click.echo(f"  reason    {view['reason']}: {view['text'] or '-'}")
    for e in view["events"][1:]:
        data = {k: v for k, v in e["data"].items() if k not in ("type", "rule")}
        click.echo(f"  {e['at']}  {e['type']}  {json.dumps(data, ensure_ascii=False)}")


@disputes.command(name="rule")
@click.argument("dispute_id")
@click.option("--as", "auditor_id", required=True, help="The ruling auditor's account id.")
@click.option(
    "--decision", type=click.Choice(["stands", "rewind", "result_amended"]), required=True
)
@click.option("--reasoning", required=True, help="Why, in words (up to 2,000 characters).")
@click.option("--rule", "rules", multiple=True, required=True, help="A rule id relied on.")
@click.option("--annul", is_flag=True, help="result_amended: the game counts for nobody.")
@click.option("--ranking", default=None, help="result_amended: player ids, best first, a,b,c.")
@click.option("--to-version", type=click.IntRange(1, 2**31 - 1), default=None)
def disputes_rule(
    dispute_id: str,
    auditor_id: str,
    decision: str,
    reasoning: str,
    rules: tuple[str, ...],
    annul: bool,
    ranking: str | None,
    to_version: int | None,
) -> None:
    """Rule on a dispute (D4) as an auditor; a game paused for it resumes (D7)."""
    from domain import disputes as d

    service = _disputes_app()
    try:
        who = _auditor(service, auditor_id)
        command = d.IssueRuling(
            decision,
            reasoning,
            tuple(rules),
            to_version,
            annul,
            tuple(x.strip() for x in ranking.split(",")) if ranking else None,
        )
        service.act(who, dispute_id, command)
    finally:
        service.store.close()
    click.echo(f"dispute {dispute_id}: ruled, {decision}")


def _readmodels() -> tuple[SqlStore, ReadModels]:
    """The event store and its read models (the worker's code is not needed)."""
    from projections.store import ReadModels
    from service.bootstrap import open_store

    store = open_store(_existing(_settings()))
    store.upgrade()
    rm = ReadModels(store, store)
    rm.upgrade()
    return store, rm


@main.command()
@click.option("--burst", is_flag=True, help="Work until the queue is empty, then stop.")
def worker(burst: bool) -> None:
    """Run an rq worker on the projection queue (needs REDIS_URL), with the sweeper."""
    from service.runtime.logs import configure as configure_logs
    from workers.jobs import run_worker

    settings = _settings()
    if not settings.redis_url:
        raise BadSetting(
            "REDIS_URL is not set: without Redis the projections run inline in the service"
        )
    from service.bootstrap import check_services

    check_services(settings)
    configure_logs(settings.log_format or "json")
    logging.getLogger("tongiaki.workers").info("tongiaki worker on queue %r", settings.queue)
    run_worker(settings, burst=burst)


@main.group()
def projections() -> None:
    """Read models: rebuild them, or see how far behind they are."""


@projections.command()
@click.argument("name", required=False)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def rebuild(name: str | None, quiet: bool) -> None:
    """Rebuild NAME (or every projection) from the event store, one game at a time.

    Each game's rows are replaced in one transaction, so readers see the old rows
    or the new ones, never a half-built game.
    """
    from projections.store import PROJECTIONS

    if name is not None and name not in PROJECTIONS:
        raise click.BadParameter(f"one of {', '.join(PROJECTIONS)}", param_hint="NAME")
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
        applied = rm.rebuild(names, progress=bar.update)
    elapsed = time.perf_counter() - started
    click.echo(
        f"rebuilt {', '.join(names)}: {len(games)} games, {applied} items in {elapsed:.2f} s"
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


if __name__ == "__main__":
    main()
