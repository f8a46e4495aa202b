"""``seasalt backup``: a consistent copy of the store, directly or through the service."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from seasalt_log.store.backup import backup_from_service, backup_store

from .app import DbOption, app, db_path, err, handles_errors


@app.command()
@handles_errors
def backup(dest: Path = typer.Argument(..., metavar="DEST", help="The file to write the copy to"),
           db: Path = DbOption,
           service: str = typer.Option(None, "--service", metavar="URL",
                                       help="Back up through the running service at URL "
                                            "(POST URL/backup) instead of opening the store"),
           token: str = typer.Option(None, "--token", show_default=False,
                                     help="The service's token, with --service [env SEASALT_TOKEN]")):
    """Copy the store to DEST: every committed event, the WAL's included.

    The copy is a store every command opens. While `seasalt serve` runs,
    pass --service URL. DEST may not be the store, its WAL or a link to
    either. The copy is written beside DEST, checked, then renamed."""
    if service is not None:
        result = backup_from_service(service, dest, token=token or os.environ.get("SEASALT_TOKEN"))
        source = service
    else:
        result = backup_store(db_path(db), dest)
        source = str(db_path(db))
    err.print(f"backed up {source} to {result.path}: {result.games} game(s), {result.events} "
              f"event(s), {result.size:,} bytes", markup=False)
