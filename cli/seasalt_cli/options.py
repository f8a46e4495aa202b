"""The options and arguments several commands share, defined once.

One name, one placeholder (an upper-case word: FILE, DIR, N, NAME, URL), one help text,
the environment variable and the default that ``--help`` shows (Typer's ``envvar=`` /
``show_envvar`` / ``show_default``, never a bracketed note in the help text). A choice is
a ``Literal`` annotation on the command's parameter (``fmt: Format = FormatOption``), so
Typer checks it (a one-line error, exit code 2) and shell completion offers it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import typer

DEFAULT_DB = "seasalt.duckdb"
DB_ENV = "SEASALT_DB"
URL_ENV = "SEASALT_URL"
TOKEN_ENV = "SEASALT_TOKEN"

#: ``--format``: how a read command prints its result (annotate the parameter with it)
Format = Literal["table", "csv", "json", "jsonl"]

FormatOption = typer.Option(None, "--format",
                            help="Output format: a table, CSV, one JSON document, or JSON "
                                 "Lines (one object per line).",
                            show_default="table on a terminal, else csv")
DbOption = typer.Option(Path(DEFAULT_DB), "--db", envvar=DB_ENV, show_envvar=True,
                        metavar="FILE", help="The DuckDB store file.")
JsonOption = typer.Option(False, "--json", help="Machine-readable JSON output.")
JobsOption = typer.Option(None, "--jobs", "-j", min=1, metavar="N",
                          help="Worker processes.",
                          show_default="one per CPU when the work is large")
ProgressOption = typer.Option(True, "--progress/--no-progress",
                              help="A progress bar on stderr when it is a terminal.")
GameArg = typer.Argument(..., metavar="GAME", help="A game id.", show_default=False)
TokenOption = typer.Option(None, "--token", envvar=TOKEN_ENV, show_envvar=True,
                           metavar="TOKEN", show_default=False,
                           help="The service's token (sent as 'Authorization: Bearer TOKEN').")
PlayerOption = typer.Option(None, "--player", metavar="NAME", show_default=False,
                            help="Only games with a player of this name.")
PlayersOption = typer.Option(None, "--players", "-p", metavar="N", min=2, max=4,
                             show_default=False, help="Only games of N players.")


def out_option(help: str, *, required: bool = False, metavar: str = "FILE"):
    """``--out`` / ``-o``: where a command writes its result (``help`` says what)."""
    return typer.Option(... if required else None, "--out", "-o", metavar=metavar, help=help,
                        show_default=False if required else "standard output")


def url_option(help: str = "Ask a running `seasalt serve` at this URL instead of opening "
                           "the store."):
    """``--url``: a running ``seasalt serve`` to ask instead of the store."""
    return typer.Option(None, "--url", envvar=URL_ENV, show_envvar=True, metavar="URL",
                        show_default=False, help=help)


def on_command_line(ctx: typer.Context, name: str) -> bool:
    """Whether the option (parameter ``name``) was given on the command line, rather than
    taken from its environment variable or its default."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"
