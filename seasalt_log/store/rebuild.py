"""``seasalt rebuild``: drop every read model and recompute it from the events table alone.

Each game's stored events are decoded in seq order and folded by the engine with
:func:`seasalt_log.store.batch.fold_games` (the fold of ``verify`` and ``archive`` too), which gives
the read-model rows of :func:`seasalt_log.store.projections.project`; they go in as Arrow
batches. Everything happens in one transaction: a failure leaves the read models as they were.

Large stores are rebuilt by several worker processes: the events are exported (inside the
transaction, so from the same snapshot) to Parquet partitions by a hash of the game id; each
worker projects its partitions into Arrow files that the store then loads.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Callable, Iterator

import duckdb
from msgspec import Struct

from .. import workers
from ..errors import SeasaltError, UsageError
from ..workers import no_gc
from .arrow_rows import RowSink, insert, read_file
from .batch import fold_games, split_games
from .literals import sql_literal
from .projections import DROP_DDL, PROJECTIONS_DDL, PROJECTIONS_VERSION, TABLES, set_version
from .fetch import first_row, one_value

#: below this many events a rebuild runs in this process (starting workers costs more)
PARALLEL_FROM = 300_000
FETCH = 50_000                 # rows fetched from DuckDB at a time

Progress = Callable[[int, int], None]      # (events done, events in all)


class RebuildSummary(Struct):
    """What a rebuild did."""

    games: int
    events: int
    rows: dict[str, int]       # projection table -> rows written
    seconds: float
    jobs: int                  # processes that folded the games

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else 0.0


def rebuild(store, *, jobs: int | None = None, progress: Progress | None = None,
            workdir: str | Path | None = None) -> RebuildSummary:
    """Drop and recompute every read model of ``store`` (opened for writing), in one
    transaction. ``jobs``: worker processes (default: one per CPU for a large store, else
    none); ``workdir``: where the parallel rebuild keeps its temporary files."""
    if store.read_only:
        raise UsageError("rebuild needs the store opened for writing")
    t0 = time.perf_counter()
    store.begin()
    try:
        summary = rebuild_in(store.con, jobs=jobs, progress=progress, workdir=workdir)
        set_version(store.con)
        store.commit()
    except BaseException:
        store.rollback()
        raise
    summary.seconds = time.perf_counter() - t0
    return summary


def rebuild_in(con, *, jobs: int | None = None, progress: Progress | None = None,
               workdir: str | Path | None = None) -> RebuildSummary:
    """The rebuild inside the caller's transaction on ``con`` (see :func:`rebuild`)."""
    t0 = time.perf_counter()
    total = one_value(con, "SELECT count(*) FROM events")
    if jobs is None:
        jobs = 1 if total < PARALLEL_FROM else max(1, os.cpu_count() or 1)
    if jobs < 1:
        raise UsageError(f"jobs must be at least 1, not {jobs}")
    con.execute("SET enable_progress_bar = false")
    con.execute(DROP_DDL)
    con.execute(PROJECTIONS_DDL)
    with no_gc():
        if jobs == 1:
            games, rows = _rebuild_serial(con, total, progress)
        else:
            games, rows = _rebuild_parallel(con, jobs, total, progress, workdir)
    return RebuildSummary(games=games, events=total, rows=rows,
                          seconds=time.perf_counter() - t0, jobs=jobs)


# ---------------------------------------------------------------- migration

def migrate_projections(con) -> None:
    """Create the read models, inside the caller's transaction (the store's migration).

    A store whose read models were made by another :data:`PROJECTIONS_VERSION` has them
    dropped and recomputed from its events (:func:`rebuild_in`).
    """
    row = first_row(con, "SELECT value FROM store_meta WHERE key = 'projections_version'")
    if row is not None and row[0] == str(PROJECTIONS_VERSION):
        return                  # made by this version: nothing to write
    if one_value(con, "SELECT count(*) FROM (SELECT 1 FROM events LIMIT 1)"):
        rebuild_in(con)
    else:
        con.execute(DROP_DDL)
        con.execute(PROJECTIONS_DDL)
    set_version(con)


# ---------------------------------------------------------------- folding games

def iter_games(cursor) -> Iterator[tuple[str, list[str]]]:
    """(game_id, [event JSON, ...]) from a cursor over (game_id, event) rows ordered by
    game_id, seq."""
    gid = ""                    # the game of ``events`` ("" before the first row)
    events: list[str] = []
    while True:
        chunk = cursor.fetchmany(FETCH)
        if not chunk:
            break
        for g, e in chunk:
            if g != gid:
                if events:
                    yield gid, events
                gid, events = g, []
            events.append(e)
    if events:
        yield gid, events


def _fold_into(sink: RowSink, games) -> tuple[int, int]:
    """Fold ``games`` (see :func:`seasalt_log.store.batch.fold_games`) into ``sink``; (games,
    events). An illegal or undecodable game stops the rebuild: nothing is changed."""
    batch = fold_games(games, read_models=sink.add, strict=False)
    first = batch.first_error()
    if first is not None:
        raise SeasaltError(f"{first}; the read models were not changed")
    return batch.games, batch.events


def _rebuild_serial(con, total: int, progress: Progress | None) -> tuple[int, dict[str, int]]:
    cur = con.cursor()
    cur.execute("SELECT game_id, event FROM events ORDER BY game_id, seq")
    sink = RowSink(con=con)
    done = 0

    def each_game() -> Iterator[tuple[str, list[str], None]]:
        nonlocal done
        for k, (gid, events_json) in enumerate(iter_games(cur), 1):
            yield gid, events_json, None
            done += len(events_json)
            if progress is not None and k % 200 == 0:
                progress(done, total)
    try:
        games, _ = _fold_into(sink, each_game())
    finally:
        cur.close()
    sink.close()
    if progress is not None:
        progress(total, total)
    return games, sink.counts


# ---------------------------------------------------------------- parallel rebuild

def _work_bucket(in_dir: str, out_dir: str, bucket: int
                 ) -> tuple[int, int, int, dict[str, str], dict[str, int]]:
    """Worker: project every game of one partition into Arrow files, one per table.
    Returns (bucket, games, events, the files by table, rows per table)."""
    import duckdb
    src = Path(in_dir) / f"bucket={bucket}"
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    sink = RowSink(directory=out_dir, tag=str(bucket))
    games = events = 0
    try:
        if src.exists():
            games, events = _project_partition(con, src, sink)
    except SeasaltError as exc:     # sent back as a plain error: subclasses need their fields
        raise SeasaltError(str(exc)) from None
    files = sink.close()
    con.close()
    return bucket, games, events, files, sink.counts


def _project_partition(con, src: Path, sink: RowSink) -> tuple[int, int]:
    """Fold every game of the partition ``src`` and give its rows to ``sink``."""
    table = con.sql(f"SELECT game_id, seq, event FROM read_parquet("
                        f"{sql_literal(src / '*.parquet')}) ORDER BY game_id, seq").to_arrow_table()
    return _fold_into(sink, split_games(table))


def _rebuild_parallel(con, jobs: int, total: int, progress: Progress | None,
                      workdir: str | Path | None) -> tuple[int, dict[str, int]]:
    buckets = jobs * 4
    try:
        tmp = Path(tempfile.mkdtemp(prefix="seasalt-rebuild-", dir=workdir))
    except OSError as exc:
        raise workers.scratch_failure(exc, str(workdir) if workdir else None) from None
    try:
        in_dir, out_dir = tmp / "in", tmp / "out"
        try:
            out_dir.mkdir()
            con.execute(f"COPY (SELECT game_id, seq, event, hash(game_id) % {buckets} AS bucket "
                        f"FROM events) TO {sql_literal(in_dir)} (FORMAT parquet, PARTITION_BY (bucket))")
        except (OSError, duckdb.IOException) as exc:     # not the store's fault: TMPDIR's
            raise workers.scratch_failure(exc, str(tmp.parent)) from None
        games = done = 0
        counts = {t: 0 for t in TABLES}
        with workers.Pool(jobs) as pool:
            for _, (bucket, g, e, files, rows) in pool.map(
                    partial(_work_bucket, str(in_dir), str(out_dir)), range(buckets)):
                for t, f in files.items():
                    insert(con, t, read_file(f))
                    counts[t] += rows[t]
                    os.unlink(f)
                games += g
                done += e
                if progress is not None:
                    progress(done, total)
        if done != total:
            raise SeasaltError(f"rebuild read {done} events of {total}; nothing was changed")
        return games, counts
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
