"""``seasalt archive check | rebuild``: fold a whole Parquet archive of events on Dask.

The archive is what ``seasalt export --parquet`` writes (or its ``events/`` directory alone),
on a local path or any fsspec URL (``s3://``, ``gs://``, ``abfs://`` ...). Each Dask task
reads one events file and folds its games with :func:`seasalt_log.store.batch.fold_partition`, the
function ``verify`` and ``rebuild`` use; an export that keeps every game whole in one file
(its files say so in their metadata) needs nothing more. Older exports, where a game could be
split across files, go through a shuffle first: each file is split by a stable hash of the
game id into bucket parts under ``OUT/_shuffle/``, then each bucket is sorted and folded.

``OUT`` receives Parquet files, one per task, and, when it is a local directory, a DuckDB
file ``archive.duckdb`` holding the same tables, for ``seasalt query --db``::

    results/part-K.parquet        one row per game (batch.RESULT_COLUMNS)
    round_scores/part-K.parquet   one row per round scored (batch.ROUND_COLUMNS)
    games/ seats/ rounds/ round_results/ turns/ duos/   the read models (rebuild only)

Dask (``pip install 'seasalt-log[dask]'``) is imported only here, and only when a job runs.
"""

from __future__ import annotations

import os
import posixpath
import time
from typing import IO, Any, Callable, Protocol

import pyarrow as pa
import pyarrow.parquet as pq
from msgspec import Struct

from .analytics.parquet import LAYOUT_KEY, LAYOUT_WHOLE_GAMES, game_bucket
from .store.batch import describe, fold_partition, whole_games
from .errors import SeasaltError, UsageError
from .outputs import atomic_dir
from .store.arrow_rows import record_batch
from .store.projections import TABLES
from .store.sandbox import one_line
from .workers import no_gc

#: events per shuffle bucket (about): the shuffle makes at least two buckets per worker
SHUFFLE_EVENTS = 1_000_000
#: failures listed in the summary (every one is in results/)
MAX_ERRORS = 5
_COLUMNS = ["game_id", "seq", "event"]

Progress = Callable[[int, int], None]      # (events folded, events in all)


class ArchiveSummary(Struct):
    """What an archive job did."""

    source: str
    out: str
    files: int                  # events files read
    shuffled: bool              # games were regrouped by a shuffle first
    workers: int
    games: int = 0
    events: int = 0
    failed: int = 0
    errors: list[str] = []      # the first failures, 'game G, round R, turn T: RULE-ID: ...'
    rows: dict[str, int] = {}   # output table -> rows written
    seconds: float = 0.0        # the whole job, cluster start included
    fold_seconds: float = 0.0   # reading, folding and writing, once the cluster is up
    database: str | None = None  # OUT/archive.duckdb, when OUT is local

    @property
    def events_per_second(self) -> float:
        return self.events / self.fold_seconds if self.fold_seconds > 0 else 0.0


def missing_extra() -> str | None:
    """None when Dask is installed, else the one-line reason the archive commands need it."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return ("seasalt archive needs Dask, an optional extra: "
                "pip install 'seasalt-log[dask]'")
    return None


# ---------------------------------------------------------------- paths

class FileSystem(Protocol):
    """What the archive uses of an fsspec file system."""

    protocol: str | tuple[str, ...]
    sep: str

    def exists(self, path: str) -> bool: ...
    def isdir(self, path: str) -> bool: ...
    def isfile(self, path: str) -> bool: ...
    def glob(self, pattern: str) -> list[str]: ...
    def ls(self, path: str) -> list[Any]: ...
    def makedirs(self, path: str, exist_ok: bool = False) -> None: ...
    def rm(self, path: str, recursive: bool = False) -> None: ...
    def open(self, path: str, mode: str = "rb") -> IO[bytes]: ...


def _fs(url: str) -> tuple[FileSystem, str]:
    from fsspec.core import url_to_fs
    try:
        return url_to_fs(url)
    except (ImportError, ValueError) as exc:
        raise UsageError(f"{url}: {exc}") from None


def _join(fs: FileSystem, *parts: str) -> str:
    return posixpath.join(*parts) if fs.sep == "/" else os.path.join(*parts)


def _event_files(source: str) -> tuple[FileSystem, str, list[str]]:
    """The archive's file system, its root path and its events files."""
    fs, root = _fs(source)
    if not fs.exists(root):
        raise UsageError(f"archive {source}: no such file or directory")
    events = _join(fs, root, "events")
    if not fs.isdir(events):
        events = root
    files = [events] if fs.isfile(events) else sorted(fs.glob(_join(fs, events, "**", "*.parquet")))
    if not files:
        raise UsageError(f"archive {source}: no Parquet files of events found")
    return fs, root, files


def _inside(path: str, parent: str) -> bool:
    """Whether ``path`` is ``parent`` or lies under it (paths as the file system spells them)."""
    norm = posixpath.normpath
    return (norm(path) + "/").startswith(norm(parent).rstrip("/") + "/")


def _prepare_out(out: str, source_root: str, source_files: list[str]) -> tuple[FileSystem, str]:
    fs, root = _fs(out)
    if fs.exists(root):
        if not fs.isdir(root):
            raise UsageError(f"--out {out}: a file is there (a store?); give a new or empty "
                             "directory")
        if fs.ls(root):
            raise UsageError(f"--out {out}: the directory is not empty; give a new or empty "
                             "directory")
    if _inside(root, source_root) or any(_inside(f, root) for f in source_files):
        raise UsageError(f"--out {out}: inside the archive, or the archive inside it; give a "
                         "directory outside it")
    return fs, root


def _layout(fs, files: list[str]) -> tuple[bool, int]:
    """(every file marked whole-games, rows in all), from the files' footers."""
    whole, rows = True, 0
    for f in files:
        try:
            with fs.open(f, "rb") as fh:
                meta = pq.ParquetFile(fh).metadata
        except (OSError, pa.ArrowException) as exc:     # not Parquet: a log, a damaged file
            raise SeasaltError(f"{f}: cannot read the events ({one_line(str(exc))})") from None
        rows += meta.num_rows
        kv = meta.metadata or {}
        whole = whole and kv.get(LAYOUT_KEY) == LAYOUT_WHOLE_GAMES
    return whole, rows


# ---------------------------------------------------------------- the tasks (on workers)

def _read(fs, path: str) -> pa.Table:
    try:
        with fs.open(path, "rb") as fh:
            return pq.read_table(fh, columns=_COLUMNS)
    except (OSError, pa.ArrowException, KeyError) as exc:
        raise SeasaltError(f"{path}: cannot read the events ({one_line(str(exc))})") from None


def _write(fs, root: str, table: str, part: str, rows: pa.Table) -> None:
    fs.makedirs(_join(fs, root, table), exist_ok=True)
    with fs.open(_join(fs, root, table, f"part-{part}.parquet"), "wb") as fh:
        pq.write_table(rows, fh)


def _fold(fs, out: str, part: str, table: pa.Table, rebuild: bool, sort: bool) -> dict:
    """Fold one partition of whole games and write its results; a small summary back."""
    read_models: dict[str, list[tuple]] | None = {t: [] for t in TABLES} if rebuild else None

    def keep(rows: dict[str, list[tuple]]) -> None:
        assert read_models is not None, "kept only when rebuilding"
        for t, r in rows.items():
            read_models[t].extend(r)

    with no_gc():      # as in rebuild's workers: the fold makes many small acyclic objects
        batch = fold_partition(table, read_models=keep if rebuild else None, sort=sort,
                               strict=False)
    results, rounds = batch.tables()
    written = {"results": results.num_rows, "round_scores": rounds.num_rows}
    _write(fs, out, "results", part, results)
    _write(fs, out, "round_scores", part, rounds)
    for t, r in (read_models or {}).items():
        _write(fs, out, t, part, pa.Table.from_batches([record_batch(t, r)]) if r else
               record_batch(t, []).schema.empty_table())
        written[t] = len(r)
    errors = [(r[0], describe(r[0], r[10], r[11], r[12])) for r in batch.failures()[:MAX_ERRORS]]
    return {"games": batch.games, "events": batch.events, "failed": batch.failed,
            "errors": errors, "rows": written}


def _fold_file(source_url: str, path: str, out_url: str, part: str, rebuild: bool) -> dict:
    fs, _ = _fs(source_url)
    ofs, out = _fs(out_url)
    table = _read(fs, path)
    if not whole_games(table):
        raise SeasaltError(f"{path}: marked whole-games but a game's rows are split or out of "
                           "order; run again with --shuffle")
    return _fold(ofs, out, part, table, rebuild, sort=False)


def _split_file(source_url: str, path: str, out_url: str, index: int, buckets: int) -> int:
    """Shuffle, first half: one file's rows to their buckets' parts under OUT/_shuffle."""
    import pyarrow.compute as pc
    fs, _ = _fs(source_url)
    ofs, out = _fs(out_url)
    table = _read(fs, path)
    ids = table.column("game_id")
    unique = pc.unique(ids)
    of_unique = pa.array([game_bucket(g, buckets) for g in unique.to_pylist()], pa.int32())
    bucket = pc.take(of_unique, pc.index_in(ids, value_set=unique))
    for b in pc.unique(bucket).to_pylist():
        _write(ofs, _join(ofs, out, "_shuffle"), f"bucket={b}", str(index),
               table.filter(pc.equal(bucket, b)))
    return table.num_rows


def _fold_bucket(out_url: str, bucket: int, rebuild: bool) -> dict:
    """Shuffle, second half: every part of one bucket, sorted by game and seq, folded."""
    ofs, out = _fs(out_url)
    d = _join(ofs, out, "_shuffle", f"bucket={bucket}")
    parts = sorted(ofs.glob(_join(ofs, d, "*.parquet"))) if ofs.exists(d) else []
    if parts:       # files of two export versions may differ in a column marked required
        table = pa.concat_tables([_read(ofs, p) for p in parts], promote_options="default")
    else:
        table = pa.schema([("game_id", pa.string()), ("seq", pa.int32()),
                           ("event", pa.string())]).empty_table()
    return _fold(ofs, out, f"{bucket:05d}", table, rebuild, sort=True)


# ---------------------------------------------------------------- the job

def run(source: str, out: str, *, rebuild: bool = False, workers: int | None = None,
        scheduler: str | None = None, client=None, shuffle: bool | None = None,
        progress: Progress | None = None) -> ArchiveSummary:
    """Check (``rebuild=False``) or rebuild the read models of the Parquet archive at
    ``source`` on Dask, writing the results under ``out`` (a new or empty directory).

    Runs on ``client`` (a ``distributed.Client``) if given, else on the scheduler at
    ``scheduler``, else on a ``LocalCluster`` of ``workers`` processes (default one per CPU).
    ``shuffle``: regroup games by a shuffle first (default: only when a file is not marked
    as holding whole games)."""
    reason = missing_extra()
    if reason:
        raise UsageError(reason)
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, not {workers}")
    t0 = time.perf_counter()
    fs, source_root, files = _event_files(source)
    whole, total = _layout(fs, files)
    if shuffle is None:
        shuffle = not whole
    ofs, out_root = _prepare_out(out, source_root, files)
    protocols = ofs.protocol if isinstance(ofs.protocol, tuple) else (ofs.protocol,)
    jobs = dict(rebuild=rebuild, workers=workers, scheduler=scheduler, client=client,
                shuffle=shuffle, total=total, progress=progress)
    if "file" in protocols:
        # a local OUT is filled beside it and renamed into place when complete: a failed
        # job leaves no partial output (seasalt_log.outputs)
        with atomic_dir(out_root, what="--out") as tmp:
            summary = _run_jobs(source, files, str(tmp), **jobs)
            _database(str(tmp), summary.rows)
        summary.out = out
        summary.database = os.path.join(out_root, "archive.duckdb")
    else:
        ofs.makedirs(out_root, exist_ok=True)
        summary = _run_jobs(source, files, out, **jobs)
    summary.seconds = time.perf_counter() - t0
    return summary


def _run_jobs(source: str, files: list[str], out: str, *, rebuild: bool, workers, scheduler,
              client, shuffle: bool, total: int, progress) -> ArchiveSummary:
    """Fold ``files`` on Dask, writing the results under ``out`` (which exists)."""
    ofs, out_root = _fs(out)
    ofs.makedirs(out_root, exist_ok=True)
    own = None
    try:
        if client is None:
            own = _connect(workers, scheduler)
            client = own
        n_workers = max(1, len(client.scheduler_info().get("workers", {})) or (workers or 1))
        summary = ArchiveSummary(source=source, out=out, files=len(files), shuffled=shuffle,
                                 workers=n_workers)
        t1 = time.perf_counter()
        parts = _submit(client, source, files, out, rebuild, shuffle, total, n_workers, progress)
        _gather(summary, parts, total, progress)
        if shuffle:
            ofs.rm(_join(ofs, out_root, "_shuffle"), recursive=True)
        summary.fold_seconds = time.perf_counter() - t1
    finally:
        if own is not None:
            _close(own)
    return summary


#: Dask settings of the local cluster: the workers' statistical profiler (a thread sampling
#: every task's stack) costs the fold CPU time under the GIL, and nothing here reads it; the
#: event loop's tick, memory and system monitors, polled less often, take an idle worker
#: from about 1.6 % of a CPU to 0.3 % (the memory limit is still checked every second)
LOCAL_CONFIG = {"distributed.worker.profile.enabled": False,
                "distributed.admin.tick.interval": "1s",
                "distributed.worker.memory.monitor-interval": "1s",
                "distributed.admin.system-monitor.interval": "5s"}


def _connect(workers: int | None, scheduler: str | None):
    import dask
    from distributed import Client, LocalCluster
    try:
        if scheduler:
            return Client(scheduler, timeout="30s")
        with dask.config.set(LOCAL_CONFIG):
            cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1,
                                   threads_per_worker=1, dashboard_address=":0",
                                   silence_logs=50)
        return Client(cluster)
    except (OSError, TimeoutError) as exc:
        where = scheduler or "a local cluster"
        raise SeasaltError(f"cannot start Dask on {where}: {str(exc).splitlines()[0]}") from None


def _close(client) -> None:
    cluster = client.cluster
    client.close()
    if cluster is not None:
        cluster.close()


def _submit(client, source, files, out, rebuild, shuffle, total, n_workers, progress):
    if not shuffle:
        return client.map(_fold_file, [source] * len(files), files, [out] * len(files),
                          [f"{i:05d}" for i in range(len(files))], [rebuild] * len(files),
                          pure=False)
    buckets = max(2 * n_workers, -(-total // SHUFFLE_EVENTS))
    split = client.map(_split_file, [source] * len(files), files, [out] * len(files),
                       range(len(files)), [buckets] * len(files), pure=False)
    client.gather(split)           # every part written before any bucket is read
    if progress is not None:
        progress(0, total)
    return client.map(_fold_bucket, [out] * buckets, range(buckets), [rebuild] * buckets,
                      pure=False)


def _gather(summary: ArchiveSummary, futures, total: int, progress: Progress | None) -> None:
    from distributed import as_completed
    errors: list[tuple[str, str]] = []
    rows: dict[str, int] = {}
    try:
        for fut in as_completed(futures):
            part = fut.result()
            summary.games += part["games"]
            summary.events += part["events"]
            summary.failed += part["failed"]
            errors.extend(part["errors"])
            for t, n in part["rows"].items():
                rows[t] = rows.get(t, 0) + n
            if progress is not None:
                progress(summary.events, total)
    except SeasaltError:
        raise
    except Exception as exc:      # a task's failure, as Dask re-raises it
        text = str(exc).strip().splitlines()
        raise SeasaltError(f"an archive task failed: {type(exc).__name__}: "
                           f"{text[0] if text else ''}") from None
    summary.errors = [e for _, e in sorted(errors)[:MAX_ERRORS]]
    summary.rows = rows


def _database(root: str, tables: dict[str, int]) -> str:
    """OUT/archive.duckdb: the output tables loaded from their Parquet files."""
    import duckdb
    from .store.literals import sql_literal
    path = os.path.join(root, "archive.duckdb")
    con = duckdb.connect(path)
    try:
        con.execute("SET enable_progress_bar = false")
        for t in tables:
            files = sql_literal(os.path.join(root, t, "*.parquet"))
            con.execute(f"CREATE TABLE {t} AS SELECT * FROM read_parquet({files})")
    finally:
        con.close()
    return path
