"""``tongiaki worker``: the rq worker on the projection queue, with its sweeper; the one
command that imports ``workers`` (inside the command: the layer rule's one exception)."""

from __future__ import annotations

import logging

import click

from service.cli import stores
from service.cli.group import BadSetting


@click.command()
@click.option("--burst", is_flag=True, help="Work until the queue is empty, then stop.")
def worker(burst: bool) -> None:
    """Run an rq worker on the projection queue (needs REDIS_URL), with the sweeper."""
    from service.runtime.logs import configure as configure_logs
    from workers.jobs import run_worker

    settings = stores.from_env()
    if not settings.redis_url:
        raise BadSetting(
            "REDIS_URL is not set: without Redis the projections run inline in the service"
        )
    from service.bootstrap import check_services

    check_services(settings)
    configure_logs(settings.log_format or "json")
    logging.getLogger("tongiaki.workers").info("tongiaki worker on queue %r", settings.queue)
    from service.transparency.keys import log_signer

    logging.getLogger("tongiaki.log").info(
        "the transparency log's verifier key: %s", log_signer(settings).verifier.text
    )
    run_worker(settings, burst=burst)
