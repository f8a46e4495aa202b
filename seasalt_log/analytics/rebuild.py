"""``seasalt rebuild``: drop every read model and recompute it from the events table alone.

Each game's stored events are decoded in seq order and folded by the engine
(:func:`seasalt_log.engine.apply`); :func:`seasalt_log.store.projections.project` turns the
events and states into rows, which go in as Arrow batches. Everything happens in
one transaction: a failure leaves the read models as they were.

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
import msgspec
from msgspec import Struct

from .. import events as ev
from .. import workers
from ..engine import State, apply
from ..errors import SeasaltError, UsageError
from ..store.projections import (DROP_DDL, PROJECTIONS_DDL, TABLES, project,
                                 set_version)
from ..store.arrow_rows import RowSink, insert, read_file
from ..store.schema import sql_literal
from ..workers import no_gc

#: below this many events a rebuild runs in this process (starting workers costs more)
PARALLEL_FROM = 300_000
FETCH = 50_000                 # rows fetched from DuckDB at a time

Progress = Callable[[int, int], None]      # (events done, events in all)

_decode_game = msgspec.json.Decoder(list[ev.AnyEvent]).decode


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
    total = con.execute("SELECT count(*) FROM events").fetchone()[0]
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


# ---------------------------------------------------------------- folding games

def iter_games(cursor) -> Iterator[tuple[str, list[str]]]:
    """(game_id, [event JSON, ...]) from a cursor over (game_id, event) rows ordered by
    game_id, seq."""
    gid, events = None, []
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


def fold_game(game_id: str, events_json: list[str]) -> dict[str, list[tuple]]:
    """Decode one stored game, fold it with the engine, and project it."""
    try:
        events = _decode_game("[" + ",".join(events_json) + "]")
    except msgspec.ValidationError as exc:
        raise SeasaltError(f"game {game_id}: a stored event does not decode: {exc}") from None
    states = []
    s = State()
    try:
        for e in events:
            s = apply(s, e)
            states.append(s)
    except SeasaltError as exc:
        if hasattr(exc, "locate"):
            exc.locate(game_id=game_id)
        raise
    return project(game_id, events, states)


def _rebuild_serial(con, total: int, progress: Progress | None) -> tuple[int, dict[str, int]]:
    cur = con.cursor()
    cur.execute("SELECT game_id, event FROM events ORDER BY game_id, seq")
    sink = RowSink(con=con)
    games = done = 0
    try:
        for gid, events_json in iter_games(cur):
            sink.add(fold_game(gid, events_json))
            games += 1
            done += len(events_json)
            if progress is not None and games % 200 == 0:
                progress(done, total)
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
    games = events = 0
    cur = con.cursor()
    cur.execute(f"SELECT game_id, event FROM read_parquet({sql_literal(src / '*.parquet')}) "
                "ORDER BY game_id, seq")
    for gid, events_json in iter_games(cur):
        sink.add(fold_game(gid, events_json))
        games += 1
        events += len(events_json)
    cur.close()
    return games, events


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
