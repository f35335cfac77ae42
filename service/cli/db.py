"""``tongiaki db``: the database schema (``db upgrade``)."""

from __future__ import annotations

import click

from service.cli import stores


@click.group()
def db() -> None:
    """Database schema."""


@db.command()
def upgrade() -> None:
    """Create or migrate the schema (idempotent; also done on start)."""
    from service.bootstrap import open_store

    store = open_store(stores.kept(stores.from_env()))
    version = store.upgrade()
    store.close()
    click.echo(f"schema at version {version}")
