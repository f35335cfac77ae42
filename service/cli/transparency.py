"""``tongiaki log keygen`` and ``tongiaki proof verify``: the transparency log's key, and
an entry's proof checked with nothing but public files (issue 28)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

import click


@click.group()
def log() -> None:
    """The transparency log: its key."""


@log.command()
@click.option("--name", required=True, help="The log's name (its checkpoints' origin).")
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the signer key (made readable by its owner only; never replaced).",
)
def keygen(name: str, out: Path) -> None:
    """Make the log's signing key; print its verifier key (for players, auditors, witnesses)."""
    from service.transparency.notes import NoteError, Signer

    try:
        signer = Signer.generate(name)
    except NoteError as exc:
        raise click.BadParameter(str(exc), param_hint="--name") from exc
    try:
        handle = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError as exc:
        raise click.ClickException(f"{out} exists: a log's key is never replaced") from exc
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc.strerror}") from exc
    with os.fdopen(handle, "w") as written:
        written.write(signer.text + "\n")
    click.echo(signer.verifier.text)


@click.group()
def proof() -> None:
    """Proofs of inclusion in the transparency log."""


@proof.command(name="verify")
@click.argument("bundle", type=click.File("r", encoding="utf-8"))
@click.option("--key", "log_key", required=True, help="The log's verifier key.")
@click.option("--witness", "witnesses", multiple=True, help="A witness's verifier key (0x04).")
@click.option("--quorum", default=0, type=click.IntRange(0, 100), help="Witnesses required.")
def verify_proof(bundle: IO[str], log_key: str, witnesses: tuple[str, ...], quorum: int) -> None:
    """Check a .tlog-proof: the log's signature, the witnesses' cosignatures, the entry's
    inclusion. Exit status 1 and the reason when it does not prove its entry."""
    from service.transparency.cosignatures import CosignatureVerifier
    from service.transparency.notes import NoteError, Verifier
    from service.transparency.proofs import BundleError, ProofBundle

    try:
        log_verifier = Verifier.parse(log_key)
        cosigners = tuple(CosignatureVerifier.parse(w) for w in witnesses)
    except NoteError as exc:
        raise click.BadParameter(str(exc), param_hint="--key / --witness") from exc
    try:
        found = ProofBundle.parse(bundle.read(1_000_000))
        point, opened = found.check((log_verifier, *cosigners))
    except BundleError as exc:
        raise click.ClickException(f"the proof does not hold: {exc}") from exc
    seen = sum(1 for s in opened.verified if s.name != log_verifier.name)
    if seen < quorum:
        raise click.ClickException(f"{seen} witness cosignature(s), {quorum} required")
    click.echo(
        f"ok: entry {found.index} is in {point.origin}'s tree of {point.size}"
        f" ({seen} witness cosignature(s))"
    )
    if found.entry is not None:
        click.echo(found.entry.decode("utf-8", "replace"), nl=False)
