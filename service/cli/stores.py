"""What the commands open: the settings from the environment, the database they name
(one that must be there already, for the commands that read), its event store."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from service.runtime.settings import Settings
    from service.store.base import SqlStore


def from_env() -> Settings:
    from service.runtime.settings import Settings

    return Settings.from_env()


def kept(settings: Settings) -> Settings:
    """The settings of a database that outlives this command: ``memory:`` is the serving
    process's own, so a command (import, auditor create, db upgrade, verify…) would
    read or write a memory that ends with it."""
    if settings.in_memory:
        raise click.ClickException(
            "DATABASE_URL=memory: holds nothing outside the service's own process: point"
            " this command at the service's SQLite folder (TONGIAKI_DATA_DIR) or PostgreSQL"
        )
    return settings


def existing(settings: Settings) -> Settings:
    """The settings of a database that is already there: a command that reads (verify,
    export, disputes, projections) never makes an empty one where there was none."""
    kept(settings)
    if not settings.uses_postgres and not settings.sqlite_path.exists():
        raise click.ClickException(
            f"there is no database at {settings.sqlite_path}: run this where the service"
            " keeps its data, or point at it with TONGIAKI_DATA_DIR (the folder holding"
            " tongiaki.db) or DATABASE_URL"
        )
    return settings


def event_store(existing_only: bool = True) -> SqlStore:
    """The event store the settings name (``existing_only``: it must be there already)."""
    from service.bootstrap import open_store

    settings = kept(from_env())
    store = open_store(existing(settings) if existing_only else settings)
    store.upgrade()
    return store
