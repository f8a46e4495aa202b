"""``seasalt archive check | rebuild``: fold a whole Parquet archive on Dask (an optional
extra: ``pip install 'seasalt-log[dask]'``)."""

from __future__ import annotations

import typer

from seasalt_log.archive import missing_extra, run

from .app import app, fail, handles_errors, log, out, print_json, progress_bar, usage
from .options import JsonOption, out_option

archive_app = typer.Typer(help="Check or rebuild a whole Parquet archive of games on Dask "
                               "(pip install 'seasalt-log\\[dask]').", no_args_is_help=True)
app.add_typer(archive_app, name="archive")

SourceArg = typer.Argument(..., metavar="DIR",
                           help="The archive: a `seasalt export --parquet` directory (or its "
                                "events/), a path or an fsspec URL (s3://..., gs://...).")
OutOption = out_option("Where the results go (Parquet; a new or empty directory, path or "
                       "fsspec URL).", required=True, metavar="DIR")
WorkersOption = typer.Option(None, "--workers", min=1, metavar="N",
                             help="Worker processes of the local Dask cluster.",
                             show_default="one per CPU")
SchedulerOption = typer.Option(None, "--scheduler", metavar="ADDRESS",
                               help="Run on this Dask scheduler (tcp://host:8786) instead of a "
                                    "local cluster.", show_default=False)
ShuffleOption = typer.Option(None, "--shuffle/--no-shuffle",
                             help="Regroup the games by a shuffle first.",
                             show_default="only when a file is not marked as holding whole games")


def _run(source: str, out_dir: str, rebuild: bool, workers, scheduler, shuffle, as_json) -> None:
    reason = missing_extra()
    if reason:
        fail(reason)
    if workers is not None and scheduler is not None:
        usage("give --workers (a local cluster) or --scheduler, not both")
    with progress_bar("folding (events)") as cb:
        summary = run(source, out_dir, rebuild=rebuild, workers=workers, scheduler=scheduler,
                      shuffle=shuffle, progress=cb)
    if as_json:
        print_json({**{f: getattr(summary, f) for f in summary.__struct_fields__},
                    "events_per_second": round(summary.events_per_second)})
    else:
        for line in summary.errors:
            out.print(line, markup=False)
        more = summary.failed - len(summary.errors)
        if more > 0:
            out.print(f"... and {more} more failed game(s): see results/ (WHERE NOT ok)",
                      markup=False)
        log.info(f"{'rebuilt' if rebuild else 'checked'} {summary.games} game(s), "
                  f"{summary.events} events: {summary.failed} failed; "
                  f"{summary.events_per_second:,.0f} events/s on {summary.workers} worker(s)"
                  f"{' after a shuffle' if summary.shuffled else ''} "
                  f"({summary.fold_seconds:.1f} s, {summary.seconds:.1f} s in all); "
                  f"results in {summary.out}"
                  + (f", query with: seasalt query --db {summary.database} \"...\""
                     if summary.database else ""))
    if summary.failed:
        raise typer.Exit(1)


@archive_app.command()
@handles_errors
def check(source: str = SourceArg, out_dir: str = OutOption, workers: int = WorkersOption,
          scheduler: str = SchedulerOption, shuffle: bool = ShuffleOption,
          as_json: bool = JsonOption):
    """Re-check every game of the archive with today's engine (every event legal, every
    derived event as computed), as `seasalt verify` does for the events of a store.

    Writes one row per game (ok, or the first error with its rule id, seq, round, turn) and
    one per scored round. Exit code 1 when a game fails."""
    _run(source, out_dir, False, workers, scheduler, shuffle, as_json)


@archive_app.command()
@handles_errors
def rebuild(source: str = SourceArg, out_dir: str = OutOption, workers: int = WorkersOption,
            scheduler: str = SchedulerOption, shuffle: bool = ShuffleOption,
            as_json: bool = JsonOption):
    """Check every game as `archive check` does and also write every read model (games,
    seats, rounds, round_results, turns, duos, and the expansions' trios, face_down_shells,
    round_events, event_awards, round_extra, event_outcomes), the rows `seasalt rebuild`
    gives."""
    _run(source, out_dir, True, workers, scheduler, shuffle, as_json)
