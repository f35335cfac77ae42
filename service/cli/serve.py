"""``tongiaki serve``: the HTTP service in this process (embedded) or in gunicorn's
gevent workers, after its address and its services were checked."""

from __future__ import annotations

import logging

import click

from service.cli import stores


@click.command()
@click.option("--host", default=None, help="Default: TONGIAKI_HOST or 127.0.0.1.")
@click.option("--port", default=None, type=int, help="Default: TONGIAKI_PORT or 8000.")
@click.option(
    "--workers",
    default=0,
    type=click.IntRange(0, 64),
    help="gunicorn workers, each a gevent worker (0: one threaded process).",
)
@click.option(
    "--threads",
    default=0,
    type=click.IntRange(0, 256),
    hidden=True,  # the workers were gthread workers once; gevent workers have no threads
    help="Ignored (accepted so that older Procfiles still start).",
)
def serve(host: str | None, port: int | None, workers: int, threads: int) -> None:
    """Run the HTTP service (SQLite under ./var unless DATABASE_URL is set)."""
    from service.runtime.settings import memory_requested  # the standard library only

    if workers > 0 and memory_requested():
        raise click.UsageError(
            "DATABASE_URL=memory: keeps everything in one process: serve it without --workers"
        )
    if workers > 0:
        # gunicorn's workers are gevent workers: patch the standard library first, before
        # anything (psycopg_pool, redis, ssl) takes a lock or a socket of the real kind,
        # which would block a whole worker while one greenlet waits on it
        import warnings

        from gevent import monkey

        # ssl may be imported already (by click's environment); nothing here has used it
        warnings.filterwarnings("ignore", message="Monkey-patching ssl after ssl")
        monkey.patch_all()
    from service.bootstrap import check_services
    from service.servers.serving import run_embedded, run_gunicorn

    settings = stores.from_env()
    host = host or settings.host
    port = port or settings.port
    if not 1 <= port <= 65_535:
        raise click.BadParameter("a port is from 1 to 65535", param_hint="--port")
    check_services(settings)  # here, once, with the cause: not in every worker's traceback
    can_listen(host, port)
    where = "PostgreSQL" if settings.uses_postgres else f"SQLite at {settings.sqlite_path}"
    if settings.in_memory:
        where = "in memory: nothing is kept when it stops"
    from service.runtime.logs import configure as configure_logs

    configure_logs(settings.log_format or ("json" if workers > 0 else "text"))
    logging.getLogger("tongiaki.serve").info(
        "tongiaki: serving on http://%s:%s/ (%s)", host, port, where
    )
    if host in ("127.0.0.1", "::1"):  # passkeys need a host name (docs/accounts.md)
        logging.getLogger("tongiaki.serve").info(
            "open http://localhost:%s/ in a browser (passkeys work by that name)", port
        )
    from service.transparency.keys import log_signer

    logging.getLogger("tongiaki.log").info(
        "the transparency log's verifier key: %s", log_signer(settings).verifier.text
    )
    if workers <= 0:
        try:
            run_embedded(settings, host, port)
        except OSError as exc:  # the port is taken, the address is not ours
            raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
        return
    run_gunicorn(settings, host, port, workers)


def can_listen(host: str, port: int) -> None:
    """Bind the address once, so a taken port or a host not ours is one clear line."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        with socket.socket(infos[0][0], socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(infos[0][4])
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise click.ClickException(
            f"cannot listen on {host}:{port} (TONGIAKI_HOST / TONGIAKI_PORT, --host / --port):"
            f" {reason}"
        ) from exc
