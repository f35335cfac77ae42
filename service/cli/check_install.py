"""``tongiaki check-install``: this environment against a lock (packages missing, at
another version, or not in it)."""

from __future__ import annotations

import sys

import click


@click.command(name="check-install")
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
