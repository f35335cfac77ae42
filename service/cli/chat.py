"""``tongiaki chat``: an operator's hand on the games' chats (docs/chat.md): hide a
message (M7), stop an account from chatting or let it again (M8), check a chat's
chain (M9). Each is recorded as the operator's (``by: operator``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from service.cli import stores

if TYPE_CHECKING:
    from service.chat.service import ChatService
    from service.store.base import SqlStore

T = TypeVar("T")
OPERATOR = "operator"


def _with_chat(work: Callable[[ChatService, SqlStore], T]) -> T:
    """Run ``work(service, store)`` on the chat of the configured store, then close it."""
    from datetime import UTC, datetime

    from service.chat.service import ChatService

    store = stores.event_store()
    try:

        def seats(game_id: str) -> tuple[frozenset[str], bool]:
            if store.head(game_id) is None:
                raise click.ClickException(f"there is no game {game_id!r}")
            return frozenset(), False

        service = ChatService(store, seats, lambda: datetime.now(UTC))
        service.upgrade()
        return work(service, store)
    finally:
        store.close()


def _reason(text: str) -> str:
    from service.chat.service import clean_text
    from service.errors import ServiceError

    try:
        return clean_text(text, "the reason")
    except ServiceError as exc:
        raise click.ClickException(f"{exc.detail} ({exc.extra.get('rule')})") from exc


@click.group()
def chat() -> None:
    """Games' chats: hide a message, stop an account, check a chat's record."""


@chat.command(name="hide")
@click.argument("game_id")
@click.argument("seq", type=click.IntRange(1, 2**31 - 1))
@click.option("--reason", required=True, help="What readers see instead of the text (M7).")
def chat_hide(game_id: str, seq: int, reason: str) -> None:
    """Hide message SEQ of GAME's chat: kept in the record, its text shown no more (M7)."""
    from service.errors import ServiceError

    why = _reason(reason)

    def work(service: ChatService, store: SqlStore) -> int:
        service.seats(game_id)
        try:
            return service.hide_as(OPERATOR, game_id, seq, why)
        except ServiceError as exc:
            raise click.ClickException(exc.detail) from exc

    hid = _with_chat(work)
    click.echo(f"message {seq} of game {game_id} hidden (chat event {hid})")


@chat.command(name="stop")
@click.argument("account_id")
@click.option("--reason", required=True, help="Why; the account is told (M8).")
def chat_stop(account_id: str, reason: str) -> None:
    """Stop ACCOUNT from chatting in every game (M8)."""
    why = _reason(reason)

    def work(service: ChatService, store: SqlStore) -> bool:
        if store.account(account_id) is None:
            raise click.ClickException(f"no account has the id {account_id!r}")
        return service.stop_as(OPERATOR, account_id, why, True)

    changed = _with_chat(work)
    click.echo(f"{account_id} stopped from chatting" if changed else f"{account_id} was stopped")


@chat.command(name="resume")
@click.argument("account_id")
def chat_resume(account_id: str) -> None:
    """Let ACCOUNT chat again (M8)."""
    changed = _with_chat(lambda service, store: service.stop_as(OPERATOR, account_id, "", False))
    if not changed:
        raise click.ClickException(f"{account_id!r} is not stopped from chatting")
    click.echo(f"{account_id} may chat again")


@chat.command(name="verify")
@click.argument("game_id")
def chat_verify(game_id: str) -> None:
    """Check GAME's chat chain (M9); exit status 1 if it does not hold."""

    def work(service: ChatService, store: SqlStore) -> dict[str, Any]:
        service.seats(game_id)
        return service.check(game_id)

    report = _with_chat(work)
    click.echo(
        f"chat of {game_id}: {report['events']} event(s), {'ok' if report['ok'] else 'BROKEN'}"
    )
    for problem in report["problems"]:
        click.echo(f"  {problem}")
    if not report["ok"]:
        raise SystemExit(1)
