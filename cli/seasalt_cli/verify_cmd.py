"""``seasalt verify``: re-check the stored games, the hash chain and the read models."""

from __future__ import annotations

from pathlib import Path

import typer

from seasalt_log.errors import StoreDamagedError
from seasalt_log.store import Store
from seasalt_log.verify import QUICK_SKIPS, summary_line, verify_and_record, verify_store

from .app import (app, db_path, fail, handles_errors, log, out, print_json, progress_bar,
                  usage)
from .options import DbOption, JobsOption, JsonOption, ProgressOption


@app.command()
@handles_errors
def verify(games: list[str] = typer.Argument(None, metavar="GAME",
                                             show_default="every stored game",
                                             help="The ids of the games to check."),
           db: Path = DbOption, as_json: bool = JsonOption,
           progress: bool = ProgressOption, jobs: int = JobsOption,
           quick: bool = typer.Option(
               False, "--quick", help="Check only what needs no engine: seqs, hash chain, "
               "writes, heads, game numbers, one games row per game (and no read-model row of a "
               "game without events). The events are not folded (not checked legal), their "
               "row columns and the read models' rows not compared."),
           refold: bool = typer.Option(
               False, "--refold", help="Fold every game through the engine again, also those "
               "whose import recorded the sums of the rows it stored, under the same code, and "
               "whose rows still give them (by default those get the quick check alone: see "
               "docs/RELIABILITY.md)."),
           record: bool = typer.Option(
               False, "--record", help="Then record every checked game in which nothing "
               "differs in checked_games, so that later checks need not fold it again (after "
               "an upgrade of seasalt, or for games recorded live or stored one at a time). "
               "Opens the store for writing: no other process may have it open.")):
    """Re-check the store: every game's events with today's engine (legal, derived events
    as computed, seq 1..n), the hash chain, and the read models against a recomputation.

    A game an import checked with this same code, whose rows still sum to what it
    stored, is not folded again (--refold folds it too).

    Prints one line per difference (game, event seq, what differs). Exit code 1 when
    anything differs."""
    if record and quick:
        usage("--record records what the engine checked: give --quick or --record, not both")
    path = db_path(db)
    recorded: int | None = None
    with progress_bar("verifying", enabled=progress) as cb:
        with _opened(path, record) as store:        # (for writing: a store migrated first)
            _known(store, games)
            if not record:
                report = verify_store(store, games or None, progress=cb, jobs=jobs,
                                      quick=quick, refold=refold)
        if record:
            report, recorded = verify_and_record(path, games or None, progress=cb, jobs=jobs,
                                                 refold=refold)
    if as_json:
        print_json({"ok": report.ok, "games": report.games, "events": report.events,
                    **({"quick": QUICK_SKIPS} if quick else {"vouched": report.vouched}),
                    **({"recorded": recorded} if record else {}),
                    "differences": report.differences})
    else:
        for d in report.differences:
            out.print(str(d), markup=False)
        log.info(summary_line(report))
        folded = report.games - report.vouched
        if folded and not (games or quick or refold or record):
            log.info(f"{folded} game(s) folded again: no record of this code vouches for them "
                     "(imported by another version of seasalt, written live or one at a time, "
                     "or changed since); `seasalt verify --record` records those found sound, "
                     "so that later checks need not fold them")
        if record:
            log.info(f"recorded {recorded} game(s) in checked_games: later checks take them "
                     "on that record" if recorded is not None else "recorded nothing: "
                     "something differs that is no one game's")
    if not report.ok:
        raise typer.Exit(1)


def _opened(path: Path, for_writing: bool) -> Store:
    """The store at ``path``, read-only or (``for_writing``: refused if missing) for
    writing; a damaged one is a one-line error."""
    try:
        return Store.open(path, create=False) if for_writing else Store.open(path, read_only=True)
    except StoreDamagedError as exc:
        fail(f"{exc}; nothing could be verified", 1)
        raise


def _known(store: Store, games: list[str]) -> None:
    """Refuse a game id the store does not know (by a write or a games row: one query)."""
    if not games:
        return
    known = {r[0] for r in store.con.execute(
        "SELECT game_id FROM commits WHERE game_id IN (SELECT unnest($ids)) UNION "
        "SELECT game_id FROM games WHERE game_id IN (SELECT unnest($ids))",
        {"ids": games}).fetchall()}
    for gid in games:
        if gid not in known:
            raise store.unknown_game(gid)
