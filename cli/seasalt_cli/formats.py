"""``--format`` and ``--limit``: how every read command prints its rows, one way for all.

A command builds a :class:`~seasalt_log.analytics.output.Result` (and, when its JSON is a
document rather than rows, that document) and hands it to :func:`emit`: an aligned table
on a terminal (at most ``--limit`` rows, never a value cut or wrapped), CSV when piped,
or the format asked for.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import typer

from seasalt_log.analytics.output import (TABLE_LIMIT, Result, format_for, save_result,
                                          write_result, write_table)
from seasalt_log.errors import UsageError

from .app import log, print_json, usage

LimitOption = typer.Option(TABLE_LIMIT, "--limit", min=0, metavar="N",
                           help="Rows a table shows (0: every row); a last line counts the "
                                "rows left out. CSV and JSON hold every row.")


def chosen(fmt: str | None, as_json: bool = False, default: str | None = None) -> str:
    """The format to print: ``--json`` (the older spelling of ``--format json``), else
    ``--format``, else ``default``, else a table on a terminal and CSV when piped."""
    if as_json:
        if fmt not in (None, "json"):
            usage(f"--json and --format {fmt} disagree: give one of them")
        return "json"
    if fmt is not None:
        return fmt
    if default is not None:
        return default
    return "table" if sys.stdout.isatty() else "csv"


def emit(result: Result, fmt: str, *, limit: int | None = TABLE_LIMIT,
         document: Any = None, head: Callable[[], str] | None = None,
         count: bool = False, null: str = "") -> None:
    """Print ``result`` as ``fmt`` on standard output. ``document``: what ``json`` prints
    instead of the rows (a command whose JSON is one object); ``head``: text a table is
    preceded by; ``count``: say on stderr how many rows a table had; ``null``: how a
    table shows a missing value (a query's tables say NULL)."""
    if fmt == "json" and document is not None:
        print_json(document)
        return
    if fmt == "table":
        if head is not None:
            sys.stdout.write(head())
        write_table(result, sys.stdout, limit, null)
        if count:
            log.info(f"{len(result)} row(s)")
        return
    write_result(result, fmt, sys.stdout)


def save_or_emit(result: Result, fmt: str | None, output: Path | None, store: Path,
                 limit: int | None, as_json: bool = False) -> None:
    """``query`` and ``stats``: save ``result`` to ``output`` (its suffix is the format;
    the store, its write-ahead log or a link to either refused), or print it (``as_json``:
    ``--json``, as :func:`chosen` reads it)."""
    if as_json:
        fmt = chosen(fmt, as_json)
    if output is not None:
        try:
            kind = format_for(output)
        except UsageError as exc:       # a suffix of no format
            usage(str(exc))
        if fmt is not None and fmt != kind:
            usage(f"--format {fmt} does not match --out {output.name} (its suffix means "
                  f"{kind}); give one of them")
        save_result(result, output, [store])
        log.info(f"wrote {len(result)} row(s) to {output} ({kind})")
        return
    emit(result, chosen(fmt), limit=limit, count=True, null="NULL")
