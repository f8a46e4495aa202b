"""The options and arguments several commands share, defined once.

One name, one placeholder (an upper-case word: FILE, DIR, N, NAME, URL), one help text,
the environment variable and the default that ``--help`` shows (Typer's ``envvar=`` /
``show_envvar`` / ``show_default``, never a bracketed note in the help text). A choice is
a ``Literal`` annotation on the command's parameter (``fmt: Format = FormatOption``), so
Typer checks it (a one-line error, exit code 2) and shell completion offers it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

import typer

from seasalt_log.engine.rulings import RULESETS
from seasalt_log.events import EVENT_CODES

DEFAULT_DB = "seasalt.duckdb"
DB_ENV = "SEASALT_DB"
URL_ENV = "SEASALT_URL"
TOKEN_ENV = "SEASALT_TOKEN"

#: ``--format``: how a read command prints its result (annotate the parameter with it)
Format = Literal["table", "csv", "json", "jsonl"]
#: ``--ruleset``: the cards in play (R-X-RULESET-1): a name of RULESETS, which a type
#: checker sees as a str (a Literal made at run time is no type to it)
if TYPE_CHECKING:
    Ruleset = str
else:
    Ruleset = Literal[tuple(RULESETS)]
#: ``--events``: the event setting (R-X-RULESET-2)
EventSetting = Literal["none", "pepper"]

FormatOption = typer.Option(None, "--format",
                            help="Output format: a table, CSV, one JSON document, or JSON "
                                 "Lines (one object per line).",
                            show_default="table on a terminal, else csv")
#: ``--format`` of the commands whose table is their text (replay, log, rescore): piped too
TextFormatOption = typer.Option(None, "--format",
                                help="Output format: the text (table), CSV, one JSON document, "
                                     "or JSON Lines (one object per line).",
                                show_default="the text, on a terminal or piped")
DbOption = typer.Option(Path(DEFAULT_DB), "--db", envvar=DB_ENV, show_envvar=True,
                        metavar="FILE", help="The DuckDB store file.")
JsonOption = typer.Option(False, "--json", help="Machine-readable JSON output.")
#: ``--json`` of the commands that take ``--format``: its short form
FormatJsonOption = typer.Option(False, "--json", help="Short for --format json.")
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


RulesetOption = typer.Option("base", "--ruleset",
                             help="Cards in play: the base game or Extra Salt's 66 cards.")


def _names_of(choices, what: str):
    """A callback and a completion for values that must each be one of ``choices``: the
    callback splits NAME,NAME lists (a list of them for a repeated option) and refuses an
    unknown name as a usage error (one line, exit code 2)."""
    def check(value):
        if value is None:
            return None
        given = value if isinstance(value, list) else [value]
        names = [n.strip() for v in given for n in v.split(",") if n.strip()]
        for name in names:
            if name not in choices:
                raise typer.BadParameter(f"no {what} {name!r}; the {what}s are "
                                         f"{', '.join(choices)}")
        return names

    def complete(incomplete: str) -> list[str]:
        done, _, last = incomplete.rpartition(",")
        return [f"{done},{c}" if done else c for c in choices if c.startswith(last)]

    return check, complete


def bots_option(what: str, default: tuple[str, ...]):
    """``--bots NAME,...``: ``what`` the names are, each checked and completed."""
    from seasalt_log.sim import BOTS
    check, complete = _names_of(tuple(BOTS), "bot")
    return typer.Option(None, "--bots", "-b", metavar="NAME,...", callback=check,
                        autocompletion=complete, show_default=",".join(default),
                        help=f"{what}: {', '.join(BOTS)}.")


def event_option():
    """``--event NAME`` (repeatable): an Extra Pepper event, by its code in the log format."""
    check, complete = _names_of(EVENT_CODES, "event")
    return typer.Option([], "--event", metavar="NAME", callback=check, autocompletion=complete,
                        show_default="none",
                        help=f"An event in effect for the player (repeatable; RULES.md §14): "
                             f"{', '.join(EVENT_CODES)}.")


def _dash_is_stdout(value):
    """``--out -``: standard output (as ``-`` is standard input to ``import``), not a file
    named "-"."""
    return None if value is not None and str(value) == "-" else value


def out_option(help: str, *, required: bool = False, metavar: str = "FILE"):
    """``--out`` / ``-o``: where a command writes its result (``help`` says what); ``-``, or
    no --out, is standard output unless it is ``required``."""
    return typer.Option(... if required else None, "--out", "-o", metavar=metavar, help=help,
                        show_default=False if required else "standard output",
                        callback=None if required else _dash_is_stdout)


def url_option(help: str = "Ask a running `seasalt serve` at this URL instead of opening "
                           "the store."):
    """``--url``: a running ``seasalt serve`` to ask instead of the store."""
    return typer.Option(None, "--url", envvar=URL_ENV, show_envvar=True, metavar="URL",
                        show_default=False, help=help)


#: ``--url`` of the reading commands, which also find a running service by themselves
UrlOption = url_option("Ask a running `seasalt serve` at this URL instead of opening the store "
                       "(without it, a service that holds the store is found by itself).")
#: ``--token`` of the reading commands: the credential they read the service with
ReadTokenOption = typer.Option(None, "--token", envvar=TOKEN_ENV, show_envvar=True,
                               metavar="TOKEN", show_default=False,
                               help="The credential to read the service with: its token, or a "
                                    "game's table or seat token (without one: what a spectator "
                                    "sees).")


def on_command_line(ctx: typer.Context, name: str) -> bool:
    """Whether the option (parameter ``name``) was given on the command line, rather than
    taken from its environment variable or its default."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"
