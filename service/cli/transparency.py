"""``tongiaki log keygen`` and ``tongiaki proof verify``: the transparency log's key, and
an entry's proof checked with nothing but public files (issue 28)."""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING

import click

if TYPE_CHECKING:
    from service.transparency.follow import PublicFiles, Report
    from service.transparency.notes import Verifier
    from service.transparency.promises import Promise


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
    """The transparency log: its key (keygen), following it from its public files (verify)."""


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


UNREACHABLE = 3  # log verify's exit status when the log cannot be read (or not cosigned yet)


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
@click.option(
    "--previous-key",
    "previous_keys",
    multiple=True,
    help="An earlier verifier key of the log (after a rotation): the state it signed is read.",
)
@click.option("--witness", "witnesses", multiple=True, help="A witness's verifier key (0x04).")
@click.option("--quorum", default=0, type=click.IntRange(0, 100), help="Witnesses required.")
@click.option("--entries", is_flag=True, help="Read every entry back and recompute the tree.")
def verify_log(
    where: str,
    log_key: str,
    state: Path | None,
    previous_keys: tuple[str, ...],
    witnesses: tuple[str, ...],
    quorum: int,
    entries: bool,
) -> None:
    """Check a log from its public files (WHERE: its URL, http://host/log, or a directory
    mirroring it): the checkpoint's signature, its consistency with the one kept in
    --state, and with --entries every entry. Exit status 0: it checks; 1: it does not
    (an inconsistent log leaves both checkpoints as evidence beside the state file);
    3: it cannot be read now, or fewer witnesses than --quorum cosigned yet."""
    from service.transparency.cosignatures import CosignatureVerifier
    from service.transparency.follow import (
        FollowError,
        Inconsistent,
        Kept,
        Unreachable,
        check,
    )
    from service.transparency.notes import NoteError, Verifier

    try:
        key = Verifier.parse(log_key)
        previous = tuple(Verifier.parse(k) for k in previous_keys)
        cosigners = tuple(CosignatureVerifier.parse(w) for w in witnesses)
    except NoteError as exc:
        raise click.BadParameter(str(exc), param_hint="--key / --previous-key / --witness") from exc
    if quorum and not cosigners:
        raise click.BadParameter("name the witnesses' keys (--witness) a quorum counts")
    if state is not None and not state.parent.is_dir():
        raise click.BadParameter(f"{state.parent} is not a folder", param_hint="--state")
    files = _public_files(where)
    try:
        kept = Kept.load(state, key, previous) if state is not None else None
        names = tuple(k.name for k in previous)
        report = check(files, key, kept, cosigners, entries, _progress, names)
    except Inconsistent as exc:
        assert state is not None
        evidence = state.with_name(f"{state.name}.evidence")
        evidence.write_text(
            f"# {exc}\n# kept:\n{exc.kept}\n# served:\n{exc.served}", encoding="utf-8"
        )
        raise click.ClickException(f"INCONSISTENT: {exc} (both checkpoints in {evidence})") from exc
    except Unreachable as exc:
        click.echo(f"Error: the log cannot be read now: {exc}", err=True)
        raise SystemExit(UNREACHABLE) from exc
    except FollowError as exc:
        raise click.ClickException(f"the log does not check: {exc}") from exc
    _report(report, quorum, state, entries)


def _report(report: Report, quorum: int, state: Path | None, entries: bool) -> None:
    """A check's outcome: its quorum, the state kept, the one line said."""
    from service.transparency.follow import Kept

    if report.cosigned < quorum:
        click.echo(
            f"Error: {report.cosigned} witness cosignature(s), {quorum} required (the newest"
            " checkpoint may not be cosigned yet: try again in a few seconds)",
            err=True,
        )
        raise SystemExit(UNREACHABLE)
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


def _public_files(where: str) -> PublicFiles:
    """A log's public files at a URL (http:// or https://, with a host) or in a folder."""
    from urllib.parse import urlsplit

    from service.transparency.follow import PublicFiles

    if where.startswith(("http://", "https://")):
        try:
            parts = urlsplit(where)
            parts.port  # noqa: B018 - a port out of range raises here
        except ValueError as exc:
            raise click.BadParameter(f"{where!r}: {exc}", param_hint="WHERE") from exc
        if not parts.hostname:
            raise click.BadParameter(f"{where!r} names no host", param_hint="WHERE")
        return PublicFiles(where)
    if not Path(where).is_dir():
        raise click.BadParameter(
            f"{where!r} is neither a URL (http://host/log) nor a folder mirroring a log",
            param_hint="WHERE",
        )
    return PublicFiles(where)


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
@click.argument("bundle", type=click.File("rb"))
@click.option("--key", "log_key", required=True, help="The log's verifier key.")
@click.option("--witness", "witnesses", multiple=True, help="A witness's verifier key (0x04).")
@click.option("--quorum", default=0, type=click.IntRange(0, 100), help="Witnesses required.")
def verify_proof(bundle: IO[bytes], log_key: str, witnesses: tuple[str, ...], quorum: int) -> None:
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
    if quorum and not cosigners:
        raise click.BadParameter("name the witnesses' keys (--witness) a quorum counts")
    try:
        found = ProofBundle.parse(bundle.read(1_000_000).decode("utf-8"))
        point, opened = found.check((log_verifier, *cosigners))
    except UnicodeDecodeError as exc:
        raise click.ClickException("the proof is not a .tlog-proof (not UTF-8 text)") from exc
    except BundleError as exc:
        raise click.ClickException(f"the proof does not hold: {exc}") from exc
    seen = len({s.name for s in opened.verified if s.name != log_verifier.name})
    if seen < quorum:
        raise click.ClickException(f"{seen} witness cosignature(s), {quorum} required")
    click.echo(
        f"ok: entry {found.index} is in {point.origin}'s tree of {point.size}"
        f" ({seen} witness cosignature(s))"
    )
    if found.entry is not None:
        click.echo(found.entry.decode("utf-8", "replace"), nl=False)


@click.group()
def promise() -> None:
    """The signed promises that commands' receipts carry."""


@promise.command(name="verify")
@click.argument("note", type=click.File("rb"))
@click.option("--key", "log_key", required=True, help="The log's verifier key.")
@click.option(
    "--server",
    default=None,
    help="The service (http://host:8000): also check the log holds the promised head.",
)
@click.option("--token", default=None, help="A bearer token (a dispute's proof needs one).")
def verify_promise(note: IO[bytes], log_key: str, server: str | None, token: str | None) -> None:
    """Check a receipt's promise (the signed note, in a file or - for standard input): the
    log's signature, and with --server that the log holds the head it promised. Exit
    status 1 when it does not (a promise broken after the merge delay is evidence), 3
    when the service cannot be asked now."""
    from service.transparency.notes import NoteError, Verifier
    from service.transparency.promises import check_promise

    try:
        key = Verifier.parse(log_key)
    except NoteError as exc:
        raise click.BadParameter(str(exc), param_hint="--key") from exc
    try:
        made = check_promise(note.read(100_000).decode("utf-8"), key)
    except (UnicodeDecodeError, NoteError) as exc:
        raise click.ClickException(f"not a promise signed by {key.name}: {exc}") from exc
    click.echo(f"signed: {made.stream} at version {made.version}, head {made.head}, {made.time}")
    if server is not None:
        _promise_in_log(server, made, key, token)


def _promise_in_log(server: str, made: Promise, key: Verifier, token: str | None) -> None:
    import json
    import urllib.error
    import urllib.request

    from service.transparency.entries import HeadEntry
    from service.transparency.proofs import BundleError, ProofBundle

    kind, _, name = made.stream.partition("/")
    url = f"{server.rstrip('/')}/api/v1/{kind}s/{name}/proof?version={made.version}"
    request = urllib.request.Request(
        url, headers={"Authorization": f"Bearer {token}"} if token else {}
    )
    try:
        with urllib.request.urlopen(request, timeout=15) as answer:
            found = json.loads(answer.read(2_000_000))
    except urllib.error.HTTPError as exc:
        click.echo(
            f"Error: {url}: HTTP {exc.code} (not in the log yet, or not yours to see)", err=True
        )
        raise SystemExit(UNREACHABLE) from exc
    except (urllib.error.URLError, OSError, ValueError) as exc:
        click.echo(f"Error: cannot ask {url}: {exc}", err=True)
        raise SystemExit(UNREACHABLE) from exc
    try:
        bundle = ProofBundle.parse(str(found["bundle"]))
        bundle.check((key,))
        entry = HeadEntry.parse(bundle.entry or b"")
    except (BundleError, KeyError, ValueError) as exc:
        raise click.ClickException(f"the log's proof does not check: {exc}") from exc
    if entry.stream != made.stream or entry.version < made.version:
        raise click.ClickException(
            f"the log answered with another entry ({entry.stream} v{entry.version})"
        )
    if entry.version == made.version and entry.head != made.head:
        raise click.ClickException(
            f"BROKEN: the log holds head {entry.head} for {made.stream} v{made.version}, not the"
            f" promised {made.head}: the history was rewritten (keep this promise as evidence)"
        )
    click.echo(f"kept: entry {bundle.index} of the log holds {made.stream} v{entry.version}")
