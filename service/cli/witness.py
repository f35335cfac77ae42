"""``tongiaki witness``: a witness of transparency logs (issue 28) — its own key, its own
state, a process of its own: ``keygen`` makes its cosigning key, ``serve`` answers C2SP
tlog-witness ``add-checkpoint`` for the logs it is told to trust."""

from __future__ import annotations

import logging
from pathlib import Path

import click

from service.cli.transparency import write_secret


@click.group()
def witness() -> None:
    """A witness: cosigns only checkpoints consistent with the last it cosigned."""


@witness.command()
@click.option("--name", required=True, help="The witness's name (its cosignatures').")
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the cosigning key (readable by its owner only; never replaced).",
)
def keygen(name: str, out: Path) -> None:
    """Make the witness's cosigning key; print its verifier key (for logs' readers)."""
    from service.transparency.cosignatures import Cosigner
    from service.transparency.notes import NoteError

    try:
        cosigner = Cosigner.generate(name)
    except NoteError as exc:
        raise click.BadParameter(str(exc), param_hint="--name") from exc
    write_secret(out, cosigner.text, "a witness's key")
    click.echo(cosigner.verifier.text)


@witness.command()
@click.option(
    "--key",
    "key_file",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The witness's cosigning key (tongiaki witness keygen).",
)
@click.option(
    "--log", "logs", required=True, multiple=True, help="A log's verifier key: a log it trusts."
)
@click.option(
    "--state",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where it keeps the trees it cosigned and the evidence (JSON, made if missing).",
)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8700, show_default=True, type=click.IntRange(1, 65_535))
def serve(key_file: Path, logs: tuple[str, ...], state: Path, host: str, port: int) -> None:
    """Answer POST /add-checkpoint (C2SP tlog-witness) until stopped."""
    from service.runtime.logs import configure as configure_logs
    from service.servers.witness import serve_witness
    from service.transparency.cosignatures import Cosigner
    from service.transparency.notes import KeyCheck, NoteError, Verifier
    from service.transparency.witness import Witness, WitnessState

    try:
        cosigner = Cosigner.parse(key_file.read_text(encoding="ascii", errors="replace"))
    except NoteError as exc:
        raise click.BadParameter(f"{key_file}: {exc}", param_hint="--key") from exc
    trusted: dict[str, tuple[KeyCheck, ...]] = {}
    for text in logs:
        try:
            verifier = Verifier.parse(text)
        except NoteError as exc:
            raise click.BadParameter(f"{text!r}: {exc}", param_hint="--log") from exc
        trusted[verifier.name] = (*trusted.get(verifier.name, ()), verifier)
    try:
        kept = WitnessState(state)
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"cannot read the witness's state {state}: {exc}") from exc
    configure_logs("text")
    logging.getLogger("tongiaki.witness").info("witness key %s", cosigner.verifier.text)
    try:
        serve_witness(Witness(cosigner, trusted, kept), host, port)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    except KeyboardInterrupt:
        pass
