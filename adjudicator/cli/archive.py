"""``adjudicate archive build``: write the static round archive from the database.

Mounted on the main command as ``app.add_typer(archive_app, name="archive")``; the main
command's ``--config`` reaches it through :mod:`adjudicator.cli.support`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from adjudicator.archive.build import BuildReport, build_archive, update_game
from adjudicator.cli.support import config_from_state, schema_ready
from adjudicator.games import KINDS
from adjudicator.mail.compose import Identity
from adjudicator.readmodel.read import ArchiveError
from adjudicator.service.solutions import load_all
from adjudicator.storage.db import make_engine

EXIT_NO_GAME = 3  # as ServiceError's "no game called ..."

app = typer.Typer(help="The static round archive (a website built from the database).")


@app.command("build")
def build(
    out: Annotated[
        Path | None,
        typer.Option(help="Folder to write the site into (default: the configured archive_dir)."),
    ] = None,
    game: Annotated[
        str | None, typer.Option(help="Only this game's pages (and the index of all games).")
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            help="Where the site is served, e.g. https://pbem.example.org/archive/ "
            "(default: the configured archive_url)."
        ),
    ] = None,
) -> None:
    """Write the archive: an index of games, a page per game and per round, records, feeds."""
    config = config_from_state()
    out_dir = out if out is not None else config.archive_path
    base_url = base_url or config.service.archive_url or None
    engine = make_engine(config.database_url)
    # The solutions made on this machine (a memory map each): the pages' hints are exact.
    load_all(config.solutions_path, KINDS)
    try:
        schema_ready(engine, config.secret_key_path)
        authority = Identity(config.service.address).domain
        try:
            if game is None:
                report = build_archive(engine, out_dir, base_url=base_url, authority=authority)
            else:
                report = update_game(engine, game, out_dir, base_url=base_url, authority=authority)
        except ArchiveError as error:
            typer.echo(f"adjudicate: {error}", err=True)
            raise typer.Exit(EXIT_NO_GAME) from None
    finally:
        engine.dispose()
    typer.echo(_summary(report))


def _summary(report: BuildReport) -> str:
    games = len(report.games)
    return (
        f"archive written to {report.out_dir}: {games} game{'' if games == 1 else 's'}, "
        f"{len(report.written)} files changed, {report.unchanged} unchanged"
    )
