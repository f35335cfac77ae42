"""The command group's behaviour: a user's mistake (a bad setting, a service out of
reach, a refused value) as one line and an exit status, never a traceback."""

from __future__ import annotations

import sys

import click


class Cli(click.Group):
    """The command group, and the one place a user's mistake becomes one line.

    A bad setting, an unreachable database or Redis, a refused value: each is
    printed as ``Error: …`` with a non-zero exit, never a traceback.
    """

    def invoke(self, ctx: click.Context) -> object:
        from redis.exceptions import RedisError

        from service.audit.transfer import TransferError
        from service.errors import ServiceError
        from service.runtime.settings import ConfigError
        from service.store.base import StoreError

        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # the reader went away (``tongiaki verify … | head``): stop quietly, as
            # ``yes | head`` does, with the status of a process ended by SIGPIPE
            import os

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # nothing more to flush at exit
            sys.exit(128 + 13)
        except ConfigError as exc:
            raise BadSetting(str(exc)) from exc
        except ServiceError as exc:
            raise click.ClickException(exc.detail) from exc
        except (StoreError, TransferError) as exc:
            raise click.ClickException(str(exc)) from exc
        except RedisError as exc:
            raise click.ClickException(f"Redis: {exc}") from exc
        except OSError as exc:  # a data directory or file the user named
            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(f"{where}{exc.strerror or exc}") from exc


class BadSetting(click.ClickException):
    """A configuration mistake: exit status 2, as for a bad option."""

    exit_code = 2
