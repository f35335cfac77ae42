"""Disputes on the command line (docs/disputes.md): ``tongiaki auditor create``, and
``tongiaki disputes`` (the auditors' queue, one dispute with its evidence, rulings)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from domain.disputes import REASONS as REASON_CHOICES
from service.cli import stores

if TYPE_CHECKING:
    from service.audit.disputes import DisputeService
    from service.store.base import Account


@click.group()
def auditor() -> None:
    """Auditor accounts (read every game's journal)."""


@auditor.command(name="create")
@click.argument("name")
def auditor_create(name: str) -> None:
    """Create an auditor account and print its token (shown once)."""
    from datetime import UTC, datetime

    from service.play.accounts import create_account

    store = stores.event_store(existing_only=False)  # a new service's first auditor
    try:
        account, token = create_account(store, name, datetime.now(UTC), kind="auditor")
    finally:
        store.close()  # its pool closed here, not by the garbage collector at exit
    click.echo(f"auditor {account.name} ({account.account_id})")
    click.echo(f"token: {token}")


@auditor.command(name="revoke")
@click.argument("account_id")
def auditor_revoke(account_id: str) -> None:
    """Revoke an auditor: every session and token it holds ends (its live views within
    seconds), its passkeys and address are forgotten, and it can sign in no more."""
    import logging
    from datetime import UTC, datetime

    from service.identity.service import Identity

    # the security log's line (docs/accounts.md) on this command's standard error
    shown = logging.StreamHandler()
    shown.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    security = logging.getLogger("tongiaki.security")
    security.addHandler(shown)
    security.setLevel(logging.INFO)
    settings = stores.kept(stores.from_env())
    store = stores.event_store()
    try:
        found = store.account(account_id)
        if found is None or found.kind != "auditor":
            raise click.ClickException(f"no auditor has the id {account_id!r}")
        identity = Identity(store, settings, lambda: datetime.now(UTC))
        identity.upgrade()
        ended = identity.sessions.disable(found, by="operator")
    finally:
        store.close()
    click.echo(
        f"auditor {found.name} ({found.account_id}) revoked: {len(ended)} credential(s) ended"
    )


@click.group()
def disputes() -> None:
    """Disputes: the auditors' queue, one dispute with its evidence, rulings."""


def _disputes_app() -> DisputeService:
    """The disputes service, built as every process builds it (``service.bootstrap``),
    its commits ringing the read models' doorbell; no change feed and no background
    work (this command serves nothing)."""
    from service.bootstrap import build

    return build(stores.existing(stores.from_env()), streams=None, signed=False).disputes


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
    store = stores.event_store()
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
