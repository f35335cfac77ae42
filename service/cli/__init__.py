"""The ``tongiaki`` command line: the group, with each module's commands added to it."""

from __future__ import annotations

import click

from service.cli import (
    chat,
    check_install,
    db,
    disputes,
    notation,
    projections,
    records,
    serve,
    simulate,
    transparency,
    witness,
    worker,
)
from service.cli.group import Cli


@click.group(cls=Cli)
def main() -> None:
    """Tongiaki: play, watch and audit the island-hopping game."""


main.add_command(simulate.simulate)
main.add_command(serve.serve)
main.add_command(db.db)
main.add_command(check_install.check_install)
main.add_command(records.verify)
main.add_command(records.export_game)
main.add_command(records.import_game)
main.add_command(notation.notation)
main.add_command(disputes.auditor)
main.add_command(disputes.disputes)
main.add_command(chat.chat)
main.add_command(worker.worker)
main.add_command(projections.projections)
main.add_command(transparency.log)
main.add_command(transparency.proof)
main.add_command(transparency.promise)
main.add_command(witness.witness)
