"""``seasalt query | stats | rebuild``: SQL over the store, named reports, read-model rebuild."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import typer

from seasalt_log.analytics.output import Result
from seasalt_log.analytics.limits import (DEFAULT_MEMORY_LIMIT, DEFAULT_TIMEOUT, MEMORY_ENV,
                                          TIMEOUT_ENV, QueryInterrupted, limits_from)
from seasalt_log.analytics.query import run_query
from seasalt_log.store.rebuild import rebuild as rebuild_store
from seasalt_log.analytics.reports import list_reports, run_report
from seasalt_log.errors import UsageError
from seasalt_log.outputs import check_target
from seasalt_log.store import Store

from .app import (app, db_path, fail, handles_errors, log, print_json, progress_bar,
                  usage)
from .formats import LimitOption, save_or_emit
from .options import (DbOption, Format, FormatJsonOption, FormatOption, JobsOption, JsonOption,
                      PlayersOption, ReadTokenOption, UrlOption, on_command_line, out_option)
from .remote import local_or_remote

OutputOption = out_option("Write the result to FILE: .parquet, .csv, .json or .jsonl (the "
                          "suffix chooses the format).")
TimeoutOption = typer.Option(DEFAULT_TIMEOUT, "--timeout", metavar="DURATION", envvar=TIMEOUT_ENV,
                             show_envvar=True,
                             help="Stop the query after DURATION (60s, 5m, 500ms; 0: no limit).")
MemoryOption = typer.Option(DEFAULT_MEMORY_LIMIT, "--memory-limit", metavar="SIZE",
                            envvar=MEMORY_ENV, show_envvar=True,
                            help="Most memory the query may use (2GB, 512MB; 0: DuckDB's "
                                 "default, 80% of the RAM).")
def _utf8(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{where}: the SQL is not UTF-8 text (byte 0x{data[exc.start]:02x} "
                         f"at offset {exc.start})") from None


def _read_sql(sql: str | None, file: Path | None) -> str:
    if sql is not None and file is not None:
        usage("give the SQL as an argument or with --file, not both")
    if file is not None:
        try:
            return _utf8(file.read_bytes(), f"--file {file}")
        except OSError as exc:
            raise UsageError(f"--file {file}: {exc.strerror or exc}") from None
    if sql is None:
        usage("give the SQL as an argument, with --file FILE, or - to read it from stdin")
    if sql == "-":
        return _utf8(sys.stdin.buffer.read(), "standard input")
    return sql


def _limits(ctx: typer.Context, timeout: str, memory_limit: str):
    """The query limits; a value from the environment is left for :func:`limits_from` to
    read, so that its errors name the variable rather than the option. A value of the
    wrong form is a usage error either way."""
    try:
        return limits_from(timeout if on_command_line(ctx, "timeout") else None,
                           memory_limit if on_command_line(ctx, "memory_limit") else None)
    except UsageError as exc:
        usage(str(exc))


@contextmanager
def _stoppable():
    """A query stopped by Ctrl-C: one line and exit code 130 (128 + SIGINT)."""
    try:
        yield
    except QueryInterrupted as exc:
        fail(str(exc), exc.exit_code)


@app.command()
@handles_errors
def query(
    ctx: typer.Context,
    sql: str = typer.Argument(None, metavar="SQL",
                              help="One SQL statement, or - to read it from stdin; SQL that "
                                   "starts with - (a -- comment) goes after --: query -- SQL."),
    file: Path = typer.Option(None, "--file", metavar="FILE", help="Read the SQL from FILE."),
    db: Path = DbOption,
    fmt: Format = FormatOption,
    as_json: bool = FormatJsonOption,
    output: Path = OutputOption,
    limit: int = LimitOption,
    timeout: str = TimeoutOption,
    memory_limit: str = MemoryOption,
    url: str = UrlOption,
    token: str = ReadTokenOption,
):
    """Run one read-only SQL statement over the store (events, read models, views).

    The store is opened read-only with file access disabled: statements that change data,
    settings or files (INSERT, CREATE, COPY, ATTACH, INSTALL, read_csv(...), ...) are
    refused. A query runs under a time and a memory limit; Ctrl-C stops it at once.
    Tables and columns: docs/SQL.md, or `seasalt query "SHOW TABLES"`. While `seasalt serve`
    holds the store, the query asks it (POST /query, with the service's own limits; it
    needs the service's token): found by itself, or at --url."""
    text = _read_sql(sql, file)
    store = db_path(db)
    if output is not None:      # refused before the query runs, not after
        check_target(output, [store], what="--out")
    limits = _limits(ctx, timeout, memory_limit)

    def local(path):
        with _stoppable():     # rows kept as Arrow: a table converts only those it shows
            return run_query(path, text, limits=limits, arrow=True)

    def remote(u):
        from seasalt_log.http.client import remote_query
        return remote_query(u, token, text)
    result = local_or_remote(db, url, local, remote)
    save_or_emit(result, fmt, output, store, limit, as_json)


@app.command()
@handles_errors
def stats(
    ctx: typer.Context,
    report: str = typer.Argument(None, metavar="REPORT", help="Report name (see --list)."),
    list_: bool = typer.Option(False, "--list", help="List the reports and what they show."),
    player: str = typer.Option(None, "--player", metavar="NAME", show_default=False,
                               help="Only NAME's games (and in reports about players, calls, "
                                    "duos or points, only NAME's own rows)."),
    players: int = PlayersOption,
    db: Path = DbOption,
    fmt: Format = FormatOption,
    as_json: bool = FormatJsonOption,
    output: Path = OutputOption,
    limit: int = LimitOption,
    timeout: str = TimeoutOption,
    memory_limit: str = MemoryOption,
    url: str = UrlOption,
    token: str = ReadTokenOption,
):
    """Run a named report over the store; without REPORT, list the reports.

    A report runs under the same time and memory limits as `seasalt query`. While `seasalt
    serve` holds the store, the report is run by the service (with its own limits): found by
    itself, or at --url."""
    if list_ and report is not None:
        raise typer.BadParameter(f"--list lists every report: give {report} or --list, not both")
    if list_ or report is None:
        for given, option in ((player, "--player"), (players, "--players")):
            if given is not None:       # a filter with no report to filter: never dropped
                raise typer.BadParameter(f"{option} filters a report: give a REPORT with it "
                                         "(seasalt stats --list lists them)")
        rows = [(r.name, r.description) for r in list_reports()]
        save_or_emit(Result(columns=["report", "description"], types=["VARCHAR", "VARCHAR"], rows=rows),
             fmt, output, db_path(db), limit, as_json)
        return
    if output is not None:
        check_target(output, [db_path(db)], what="--out")
    limits = _limits(ctx, timeout, memory_limit)

    def local(path):
        with _stoppable():
            return run_report(path, report, player=player, players=players, limits=limits)

    def remote(u):
        from seasalt_log.http.client import remote_report
        return remote_report(u, token, report, player=player, players=players)
    result = local_or_remote(db, url, local, remote)
    save_or_emit(result, fmt, output, db_path(db), limit, as_json)


@app.command()
@handles_errors
def rebuild(
    db: Path = DbOption,
    jobs: int = JobsOption,
    as_json: bool = JsonOption,
):
    """Drop every read model and recompute it from the events table alone (one transaction).

    Each game's events are folded again by the rules engine; the result is the same as the
    rows the imports wrote."""
    with (Store.open(db_path(db), create=False) as store,
          progress_bar("rebuilding (events)") as cb):
        summary = rebuild_store(store, jobs=jobs, progress=cb)
    if as_json:
        print_json({**{f: getattr(summary, f) for f in summary.__struct_fields__},
                    "events_per_second": round(summary.events_per_second)})
        return
    rows = ", ".join(f"{t} {n}" for t, n in summary.rows.items())
    log.info(f"rebuilt {summary.games} game(s), {summary.events} events in "
              f"{summary.seconds:.2f} s ({summary.events_per_second:,.0f} events/s, "
              f"{summary.jobs} process(es)); rows: {rows}")


def export_parquet_cmd(db: Path, directory: Path, games, all_: bool, output: Path | None) -> None:
    """``seasalt export --parquet DIR``: the whole store as Parquet files."""
    from seasalt_log.analytics.parquet import export_parquet
    if games or all_ or output is not None:
        usage("--parquet exports the whole store: give no GAME, --all or --out with it")
    with Store.open(db, read_only=True) as store:
        done = export_parquet(store, directory)
    log.info(f"wrote {len(done.files)} Parquet file(s) to {done.directory}: "
              + ", ".join(f"{t} {n}" for t, n in done.rows.items()) + " rows")
