"""``tongiaki notation``: a game as TGN, the notation a person reads (docs/notation.md):
``export`` from this service's store, ``import`` plays a TGN file through the rules."""

from __future__ import annotations

import json
from typing import IO

import click

from service.cli import stores


@click.group()
def notation() -> None:
    """Write a game as TGN, or read one back into its events."""


@notation.command(name="export")
@click.argument("game_id")
@click.option(
    "--output", "-o", type=click.File("w", encoding="utf-8"), default="-", help="Default: stdout."
)
def export_notation(game_id: str, output: IO[str]) -> None:
    """Write GAME_ID's decisions as TGN: tags, one line a decision with its draws."""
    from service.audit.notation import notation_of
    from service.errors import ServiceError

    store = stores.event_store()
    try:
        text = notation_of(store, game_id)
    except ServiceError as exc:
        raise click.ClickException(exc.detail) from exc
    finally:
        store.close()
    output.write(text)


@notation.command(name="import")
@click.argument("source", type=click.File("rb"))
@click.option(
    "--events",
    "events_out",
    type=click.File("w", encoding="utf-8"),
    help="Write the events as NDJSON here.",
)
def import_notation(source: IO[bytes], events_out: IO[str] | None) -> None:
    """Play a TGN file through the rules: its events, checked line by line (a mistake
    names its line and column). It does not add the game to a store: a game comes in
    with its whole journal (``tongiaki import``)."""
    from domain.notation import NotationError, load
    from domain.notation.game import result_of
    from domain.serialization import encode

    raw = source.read(8_000_001)  # at most 2,000,000 characters of UTF-8
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        raise click.ClickException(
            f"{source.name}: line {line}, column {column}: TGN is UTF-8 text, and this byte"
            f" ({raw[exc.start]:#04x}) is not UTF-8"
        ) from exc
    try:
        loaded = load(text)
    except NotationError as exc:
        raise click.ClickException(f"{source.name}: {exc}") from exc
    if events_out is not None:
        for event in loaded.events:
            events_out.write(
                json.dumps(encode(event), ensure_ascii=False, separators=(",", ":")) + "\n"
            )
    state, record = loaded.state, loaded.record
    ended = f"; {result_of(state)}" if state.phase.value == "ended" else ""
    click.echo(
        f"{record.tags['Game']}: {len(record.moves)} decisions, {len(loaded.events)} events,"
        f" {state.phase.value}{ended}"
    )
