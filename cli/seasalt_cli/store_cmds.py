"""``seasalt import | validate | games | show | export``: logs in and out of the store."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from typing import Iterator, Literal

import duckdb
import msgspec
import typer

from seasalt_log import queries
from seasalt_log.analytics.output import (TABLE_LIMIT, Result, arrow_result, reencoded_json,
                                          rows_result, structs_result)
from seasalt_log.errors import SeasaltError, StoreBusyError
from seasalt_log.outputs import atomic_file, check_target
from seasalt_log.service import ImportSummary, export_blocks, import_logs, log_files
from seasalt_log.store import Store
from seasalt_log.store.store import wal_path

from .app import (app, db_path, err, handles_errors, log, print_json, progress_bar,
                  usage)
from .formats import chosen, emit
from .options import (DbOption, Format, FormatJsonOption, FormatOption, GameArg, JobsOption,
                      JsonOption, PlayerOption, PlayersOption, ProgressOption, ReadTokenOption,
                      UrlOption, out_option)
from .remote import local_or_remote

PathsArg = typer.Argument(..., metavar="PATH", show_default=False,
                          help="Log files (JSON Lines), directories (searched for *.jsonl), or - "
                               "for stdin.")


def events_key(validated: bool) -> str:
    """The name of a summary's count of new events (``events_stored``): what an import
    stored, or what an import would store for a validate (which stores nothing)."""
    return "events_to_store" if validated else "events_stored"


def summary_document(summary: ImportSummary, validated: bool) -> dict:
    """The ``--json`` document of an import or a validate: the summary's fields, its count
    of new events named by :func:`events_key`."""
    return {(events_key(validated) if key == "events_stored" else key): value
            for key, value in msgspec.to_builtins(summary).items()}


def report_import(summary: ImportSummary, as_json: bool, validated: bool = False) -> None:
    """Print an import's or a validate's summary (failed games first, one line each);
    exit 1 if any failed."""
    if as_json:
        print_json(summary_document(summary, validated))
    else:
        for g in summary.games:
            if g.status == "failed":
                err.print(f"error: {g.error}", markup=False)
        parts = [f"{summary.new} new", f"{summary.extended} extended",
                 f"{summary.unchanged} unchanged", f"{summary.failed} failed"]
        tail = f"; {summary.events_stored} {events_key(validated).replace('_', ' ')}"
        if not summary.written and summary.failed and not validated:
            tail = "; nothing stored (--strict)"
        log.info("games: " + ", ".join(parts) + tail)
    if summary.failed:
        raise typer.Exit(1)


@app.command("import")
@handles_errors
def import_(paths: list[str] = PathsArg, db: Path = DbOption,
            strict: bool = typer.Option(False, "--strict", help="Store nothing unless every game is good."),
            as_json: bool = JsonOption,
            progress: bool = ProgressOption,
            jobs: int = JobsOption):
    """Check logs with the engine and store their games (new, or extending a stored game).

    Each game is stored whole or not at all; importing the same log again changes nothing.
    Large logs are checked in parallel (--jobs: worker processes, and for a log of a few
    chunks a thread of this process beside them), a few megabytes of games each.
    Exit code 1 when any game failed (the good ones are stored unless --strict); a store
    this import created is removed again when it fails having stored no game."""
    files = log_files(paths)     # a mistyped path fails here, before a store is made
    with first_write(db_path(db)) as outcome:
        with (Store.open(db_path(db)) as store,
              progress_bar("checking", unit="bytes", enabled=progress) as cb):
            summary = import_logs(store, files, strict=strict, progress=cb, jobs=jobs)
        outcome.failed = bool(summary.failed)
    report_import(summary, as_json)


class WriteOutcome:
    """Whether a write into a store failed (see :func:`first_write`)."""

    failed = True       # until the write says otherwise


@contextlib.contextmanager
def first_write(path: Path) -> Iterator[WriteOutcome]:
    """Around a command's write into store ``path`` (the store opened and closed inside):
    when there was no store there before and the write fails (an exception, or
    ``outcome.failed`` left true) having stored no game, the store it made is removed
    again (:func:`_remove_if_empty`); a store there before is never touched."""
    made = not path.exists() and not wal_path(path).exists()
    outcome = WriteOutcome()
    try:
        yield outcome
    finally:
        if made and outcome.failed:
            _remove_if_empty(path)


def _remove_if_empty(path: Path) -> None:
    """Remove the store a failed import made (its file and write-ahead log) unless it holds
    a game: the good games of an import without --strict are kept, as are those committed
    before a Ctrl-C (importing again resumes)."""
    try:
        with Store.open(path, read_only=True) as store:
            if store.heads():
                return
    except StoreBusyError:
        return      # another process has opened it since: its writes are not ours to drop
    except (SeasaltError, duckdb.Error):
        pass        # nothing readable in it: nothing to keep
    for p in (path, wal_path(path)):
        p.unlink(missing_ok=True)


@app.command()
@handles_errors
def validate(paths: list[str] = PathsArg, as_json: bool = JsonOption,
             progress: bool = ProgressOption,
             jobs: int = JobsOption,
             db: Path = typer.Option(None, "--db", metavar="FILE", show_default=False,
                                     help="Also compare with the games of this store, as "
                                          "an import into it would (opened read-only).")):
    """Every check of `import` (format, rules, derived events; with --db, conflicts with
    the stored games), writing nothing."""
    with contextlib.ExitStack() as stack:
        against = stack.enter_context(Store.open(db, read_only=True)) if db is not None else None
        cb = stack.enter_context(progress_bar("checking", unit="bytes", enabled=progress))
        summary = import_logs(None, paths, progress=cb, jobs=jobs, against=against)
    report_import(summary, as_json, validated=True)


#: the columns of ``seasalt games`` (a table leaves ``meta`` out)
GAME_COLUMNS = ["game_id", "players", "n_players", "target", "ruleset", "event_setting",
                "status", "rounds_played", "events", "end_reason", "winners", "totals", "meta"]
GameSort = Literal["game", "players", "rounds", "events", "status"]


@app.command()
@handles_errors
def games(db: Path = DbOption,
          player: str = PlayerOption,
          players: int = PlayersOption,
          sort: GameSort = typer.Option("game", "--sort", metavar="KEY",
                                        help="Order by game (id, numbers by value), players, "
                                             "rounds, events or status; ties by game id."),
          desc: bool = typer.Option(False, "--desc", help="Largest first."),
          limit: int = typer.Option(None, "--limit", min=0, metavar="N",
                                    show_default=f"a table {TABLE_LIMIT}, other formats all",
                                    help="At most N games (0: all); a table counts the rest."),
          offset: int = typer.Option(0, "--offset", min=0, metavar="N",
                                     help="Skip the first N games (in --sort order)."),
          fmt: Format = FormatOption,
          as_json: bool = FormatJsonOption,
          url: str = UrlOption, token: str = ReadTokenOption):
    """List stored games: id, players, ruleset and events, rounds played, state, winners
    (seats), totals."""
    out_fmt = chosen(fmt, as_json)
    page = limit or (TABLE_LIMIT if out_fmt == "table" and limit is None else None)

    def local(path):
        with Store.open(path, read_only=True) as store:
            if out_fmt != "table":          # every row written in bulk, from Arrow
                ids = queries.page_ids(store, player=player, players=players, sort=sort,
                                       descending=desc, limit=page, offset=offset)
                return _games_arrow(queries.games_relation(store, ids), out_fmt), len(ids)
            return (queries.list_games(store, player=player, players=players, sort=sort,
                                       descending=desc, limit=page, offset=offset),
                    queries.count_games(store, player=player, players=players))

    def remote(u):
        from seasalt_log.http.client import remote_games
        every = remote_games(u, token, player=player, players=players)
        field = queries.SORTS[sort]
        order = queries.sort_keys([(getattr(g, field), g.game_id) for g in every], sort, desc)
        by_id = {g.game_id: g for g in every}
        return ([by_id[gid] for _, gid in order[offset:None if page is None else offset + page]],
                len(every))
    rows, total = local_or_remote(db, url, local, remote)
    if isinstance(rows, Result):
        emit(rows, out_fmt, limit=None)
        return
    if out_fmt == "json":
        print_json(rows)
        return
    columns = GAME_COLUMNS[:-1] if out_fmt == "table" else GAME_COLUMNS
    result = structs_result(rows, columns)
    emit(result, out_fmt, limit=None)
    if out_fmt == "table":
        left = total - offset - len(rows)
        log.info(f"{len(rows)} game(s)" + (f" of {total}, from {offset + 1}" if offset else
                                            f" of {total}" if left > 0 else "")
                  + (f"; {left} more after them (--offset {offset + len(rows)}, or --limit 0 "
                     "for all)" if left > 0 else ""))


def _games_arrow(relation, fmt: str) -> Result:
    """The rows of :func:`queries.games_relation` as :func:`games` writes them: ``meta``
    embedded as stored in JSON (the listing's structs), re-encoded in CSV and JSON Lines
    (their structs go through :func:`structs_result`)."""
    result = arrow_result(relation)
    if fmt == "json":
        types = list(result.types)
        types[GAME_COLUMNS.index("meta")] = "JSON"
        return Result(columns=result.columns, types=types, rows=[], arrow=result.arrow)
    return reencoded_json(result, "meta")


@app.command()
@handles_errors
def show(game: str = GameArg, db: Path = DbOption, as_json: bool = FormatJsonOption,
         fmt: Format = FormatOption, url: str = UrlOption, token: str = ReadTokenOption):
    """Sum one game up round by round: ending, caller, outcome, and each player's points
    and total (--format json: the whole summary as one document)."""
    out_fmt = chosen(fmt, as_json)

    def local(path):
        with Store.open(path, read_only=True) as store:
            return queries.game_summary(store, game)

    def remote(u):
        from seasalt_log.http.client import remote_summary
        return remote_summary(u, token, game)
    summary = local_or_remote(db, url, local, remote)
    g = summary.game
    columns = ["round", "ending", "caller", "outcome"]
    for name in g.players:
        columns += [f"{name} points", f"{name} total"]
    rows = []
    for r in summary.rounds:
        cells: list = [r.round, r.ending or "in play",
                       g.players[r.caller] if r.caller is not None else None, r.outcome]
        for p, t in zip(r.points, r.totals):
            cells += [p, t]
        rows.append(tuple(cells))

    def head() -> str:
        return (f"{g.game_id}  {', '.join(g.players)}  {g.rules_words()}  target {g.target}  "
                f"{g.status}"
                + (f" ({g.end_reason}) winners: {', '.join(g.players[w] for w in g.winners)}"
                   if g.winners else "") + "\n")
    emit(rows_result(columns, rows), out_fmt, limit=None, document=summary, head=head)


@app.command()
@handles_errors
def export(games: list[str] = typer.Argument(None, metavar="GAME", show_default=False,
                                             help="The ids of the games to export."),
           all_: bool = typer.Option(False, "--all", help="Export every stored game."),
           output: Path = out_option("Write the log to FILE."),
           parquet: Path = typer.Option(None, "--parquet", metavar="DIR",
                                        help="Instead: write the events and every read model as "
                                             "Parquet files in DIR (see docs/SQL.md)."),
           html: Path = typer.Option(None, "--html", metavar="FILE",
                                     help="Instead: write one game as a self-contained HTML "
                                          "file (replay viewer and score sheet, no network "
                                          "needed)."),
           db: Path = DbOption):
    """Write games as LOG_FORMAT.md JSON Lines (derived events included), or with --parquet
    the whole store as Parquet files."""
    if parquet is not None and html is not None:
        usage("--parquet and --html are two exports: give one of them")
    if parquet is not None:
        from .analytics_cmds import export_parquet_cmd
        return export_parquet_cmd(db_path(db), parquet, games, all_, output)
    if html is not None:
        return export_html_cmd(db_path(db), games, all_, output, html)
    if not games and not all_:
        usage("name the games to export, or pass --all")
    if games and all_:      # the names would be ignored, an unknown one unnoticed
        usage("name the games to export or pass --all, not both")
    store_path = db_path(db)
    if output is not None:
        check_target(output, [store_path], what="--out")
    with Store.open(store_path, read_only=True) as store:
        ids = store.game_ids() if all_ else games
        blocks = export_blocks(store, ids)
        first = next(blocks, b"")           # an unknown game fails here, before any output
        with (atomic_file(output, [store_path], what="--out") if output
              else contextlib.nullcontext(sys.stdout.buffer)) as sink:
            sink.write(first)
            for block in blocks:
                sink.write(block)


def export_html_cmd(db: Path, games: list[str] | None, all_: bool, output: Path | None,
                    html: Path) -> None:
    """``export GAME --html FILE``: the game page as one file, written atomically
    (:func:`~seasalt_log.outputs.atomic_file`: FILE is replaced only once complete)."""
    from seasalt_log.web import export_html
    if output is not None:
        usage("--html FILE is where the page goes: give no --out with it")
    if all_ or not games or len(games) != 1:
        usage("--html writes one game: seasalt export GAME --html FILE")
    gid = games[0]
    check_target(html, [db], what="--html")
    with Store.open(db, read_only=True) as store:
        if not store.exists(gid):
            raise store.unknown_game(gid)
        page = export_html(store.read_events(gid), queries.game_summary(store, gid))
    with atomic_file(html, [db], what="--html", text=True) as fh:
        fh.write(page)
    log.info(f"wrote {html} (game {gid}, {len(page.encode()) // 1024} KB)")
