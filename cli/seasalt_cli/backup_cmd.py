"""``seasalt backup``: a consistent copy of the store, directly or through the service."""

from __future__ import annotations

from pathlib import Path

import typer

from seasalt_log.store.backup import backup_from_service, backup_store

from .app import app, db_path, handles_errors, log
from .options import DbOption, TokenOption, url_option


@app.command()
@handles_errors
def backup(dest: Path = typer.Argument(..., metavar="DEST", show_default=False,
                                       help="The file to write the copy to."),
           db: Path = DbOption,
           service: str = url_option("Back up through the running `seasalt serve` at this URL "
                                     "(POST URL/backup) instead of opening the store."),
           token: str = TokenOption):
    """Copy the store to DEST: every committed event, the WAL's included.

    The copy is a store every command opens. While `seasalt serve` runs,
    pass --url URL. DEST may not be the store, its WAL, a link to
    either, or a file that is not a DuckDB database (an earlier backup is replaced).
    The copy is written beside DEST, checked, then renamed."""
    if service is not None:
        result = backup_from_service(service, dest, token=token)
        source = service
    else:
        result = backup_store(db_path(db), dest)
        source = str(db_path(db))
    log.info(f"backed up {source} to {result.path}: {result.games} game(s), {result.events} "
              f"event(s), {result.size:,} bytes")
