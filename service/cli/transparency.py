"""``tongiaki log keygen`` and ``tongiaki proof verify``: the transparency log's key, and
an entry's proof checked with nothing but public files (issue 28)."""

from __future__ import annotations

from pathlib import Path
from typing import IO

import click


def write_secret(out: Path, text: str, what: str) -> None:
    """A new key file (0600, never replaced), or one ``Error:`` line saying why not."""
    from service.transparency.keys import write_key_file

    try:
        write_key_file(out, text)
    except FileExistsError as exc:
        raise click.ClickException(f"{out} exists: {what} is never replaced") from exc
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc.strerror}") from exc


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
    write_secret(out, signer.text, "a log's key")
    click.echo(signer.verifier.text)


@log.command(name="verify")
@click.argument("where")
@click.option("--key", "log_key", required=True, help="The log's verifier key.")
@click.option(
    "--state",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The checkpoint kept from the last check: the new one must extend it (then it"
    " replaces it).",
)
@click.option("--witness", "witnesses", multiple=True, help="A witness's verifier key (0x04).")
@click.option("--quorum", default=0, type=click.IntRange(0, 100), help="Witnesses required.")
@click.option("--entries", is_flag=True, help="Read every entry back and recompute the tree.")
def verify_log(
    where: str,
    log_key: str,
    state: Path | None,
    witnesses: tuple[str, ...],
    quorum: int,
    entries: bool,
) -> None:
    """Check a log from its public files (WHERE: its URL, http://host/log, or a directory
    mirroring it): the checkpoint's signature, its consistency with the one kept in
    --state, and with --entries every entry. Exit status 1 and the reason otherwise; an
    inconsistent log leaves both checkpoints as evidence beside the state file."""
    from service.transparency.cosignatures import CosignatureVerifier
    from service.transparency.follow import FollowError, Inconsistent, Kept, PublicFiles, check
    from service.transparency.notes import NoteError, Verifier

    try:
        key = Verifier.parse(log_key)
        cosigners = tuple(CosignatureVerifier.parse(w) for w in witnesses)
    except NoteError as exc:
        raise click.BadParameter(str(exc), param_hint="--key / --witness") from exc
    try:
        kept = Kept.load(state, key) if state is not None else None
        files = PublicFiles(where)
        report = check(files, key, kept, cosigners, entries, _progress)
    except Inconsistent as exc:
        assert state is not None
        evidence = state.with_name(f"{state.name}.evidence")
        evidence.write_text(
            f"# {exc}\n# kept:\n{exc.kept}\n# served:\n{exc.served}", encoding="utf-8"
        )
        raise click.ClickException(f"INCONSISTENT: {exc} (both checkpoints in {evidence})") from exc
    except FollowError as exc:
        raise click.ClickException(f"the log does not check: {exc}") from exc
    if report.cosigned < quorum:
        raise click.ClickException(f"{report.cosigned} witness cosignature(s), {quorum} required")
    if state is not None:
        Kept(report.note, report.origin, report.size, report.root).save(state)
    since = "" if report.since is None else f", consistent with the {report.since} kept"
    read = (
        f"; {report.entries} entries of {len(report.streams)} streams read back" if entries else ""
    )
    click.echo(
        f"ok: {report.origin} at {report.size} entries{since}"
        f" ({report.cosigned} witness cosignature(s)){read}"
    )


def _progress(done: int, total: int) -> None:
    """Entries read so far, on standard error when it is a terminal (not in pipes, logs)."""
    import sys

    if sys.stderr.isatty():
        end = "\n" if done >= total else ""
        click.echo(
            f"\rentries read back: {done:,} of {total:,} ({done * 100 // max(total, 1)} %)",
            err=True,
            nl=False,
        )
        click.echo(end, err=True, nl=False)


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
