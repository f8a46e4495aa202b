"""The Typer application and the shared plumbing every command uses."""

from __future__ import annotations

import functools
from contextlib import contextmanager
import os
import sys
from pathlib import Path

import duckdb
import msgspec
import typer
from rich.console import Console

from seasalt_log.errors import SeasaltError

app = typer.Typer(
    name="seasalt",
    help="Record, check, replay and analyse games of Sea Salt & Paper. The rule an error "
         "names: seasalt rules ID (the rules: docs/RULES.md; the log format: docs/LOG_FORMAT.md).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

DEFAULT_DB = "seasalt.duckdb"
DbOption = typer.Option(None, "--db", help="DuckDB store file [env SEASALT_DB; default ./seasalt.duckdb]",
                        show_default=False)
JsonOption = typer.Option(False, "--json", help="Machine-readable JSON output.")
JobsOption = typer.Option(None, "--jobs", "-j", min=1,
                          help="Worker processes [default: one per CPU when the work is large]",
                          show_default=False)


def db_path(db: Path | None) -> Path:
    """The store path: --db, else $SEASALT_DB, else ./seasalt.duckdb."""
    return db or Path(os.environ.get("SEASALT_DB") or DEFAULT_DB)


def fail(message: str, code: int = 1) -> None:
    """Print a one-line error on stderr and exit with ``code``."""
    err.print(f"error: {message}", markup=False)
    raise typer.Exit(code)


@contextmanager
def progress_bar(what: str, *, unit: str = "items", enabled: bool = True, total: int | None = None):
    """A transient progress bar on stderr when it is a terminal, else nothing; yields a
    callback ``(done, total=total)``, or None when there is no bar. ``unit`` "bytes" shows
    sizes, anything else counts."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import (BarColumn, DownloadColumn, MofNCompleteColumn, Progress,
                               TimeRemainingColumn)
    count = DownloadColumn() if unit == "bytes" else MofNCompleteColumn()
    with Progress("[progress.description]{task.description}", BarColumn(), count,
                  TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task(what, total=total)
        yield lambda done, of=total: bar.update(task, completed=done, total=of)


def handles_errors(fn):
    """Turn library errors into a one-line message and a non-zero exit code."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except SeasaltError as exc:
            fail(str(exc), 1)
        except duckdb.Error as exc:     # the store failed under a command: damaged, most likely
            from seasalt_log.store.store import store_failure
            fail(str(store_failure(db_path(kwargs.get("db")), exc)), 1)
        except BrokenPipeError:  # e.g. `seasalt export --all | head`
            sys.stderr.close()
            raise typer.Exit(0)
    return wrapper


def print_json(data) -> None:
    """Write ``data`` (msgspec-encodable) as indented JSON on stdout."""
    sys.stdout.write(msgspec.json.format(msgspec.json.encode(data), indent=2).decode() + "\n")


@app.callback()
def _root() -> None:
    """Record, check, replay and analyse games of Sea Salt & Paper."""
