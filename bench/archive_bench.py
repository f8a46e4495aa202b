"""Archive benchmark: ``seasalt archive check | rebuild`` on a local Dask cluster.

    python bench/archive_bench.py [--games 10000] [--workers 2]

Simulated games (a third each of 2, 3 and 4 players, default bots) are imported once into
``bench/.data/archive-<games>.duckdb`` (``$SEASALT_BENCH_DATA/`` when set) and exported with
``seasalt export --parquet`` (each game whole in one file). Then:

- the per-core rate: :func:`seasalt_log.store.batch.fold_partition` over the events of one
  export file in this process, events per CPU-second (check only), and where that CPU
  goes per event (reading the file, decoding, the engine, the results, writing them);
- ``archive check`` on the export (no shuffle), and on the same events split the way an
  older export could leave them (every game over several files: a shuffle first);
- ``archive rebuild`` on the export (the read models written too);

each on a fresh ``LocalCluster`` of ``--workers`` processes: events per second of wall clock
once the cluster is up (its start is shown apart), and events per CPU-second of the worker
processes (their CPU time, read on each worker before and after, once the workers have
imported seasalt), the figure that holds on a loaded machine: ``workers`` times it is what
as many free cores would do.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench_data import DATA  # noqa: E402  (a run's files: $SEASALT_BENCH_DATA, else bench/.data)


def build(games: int) -> tuple[Path, Path]:
    """The store and its export (made once)."""
    from seasalt_log import events as ev
    from seasalt_log.analytics.parquet import export_parquet
    from seasalt_log.service import import_logs
    from seasalt_log.sim import simulate
    from seasalt_log.store import Store
    db, export = DATA / f"archive-{games}.duckdb", DATA / f"archive-{games}-export"
    if not db.exists():
        log = DATA / f"archive-{games}.jsonl"
        with open(log, "wb") as fh:
            for n in (2, 3, 4):
                for game in simulate(games // 3 + (n - 2 < games % 3), n, seed=700 + n):
                    fh.write(ev.encode_lines(game))
        with Store.open(db) as store:
            import_logs(store, [log])
        log.unlink()
    if not export.exists():
        with Store.open(db, read_only=True) as store:
            export_parquet(store, export)
    return db, export


def older(export: Path, target: Path, files: int = 8) -> None:
    """The events with every game spread over ``files`` files, as an older export could."""
    import duckdb
    import pyarrow.parquet as pq
    target.mkdir()
    src = duckdb.sql(f"SELECT * FROM read_parquet('{export}/events/*/*.parquet')")  # noqa: F841
    for k in range(files):
        part = duckdb.sql(f"SELECT * FROM src WHERE seq % {files} = {k}")
        pq.write_table(part.to_arrow_table(), target / f"data_{k}.parquet")


def per_core(export: Path) -> None:
    import gc

    import pyarrow.parquet as pq

    from seasalt_log.store.batch import fold_partition
    f = sorted((export / "events").glob("*/*.parquet"))[0]
    table = pq.read_table(f, columns=["game_id", "seq", "event"])
    gc.disable()
    t0 = time.process_time()
    batch = fold_partition(table, strict=False)           # as the archive jobs fold
    cpu = time.process_time() - t0
    gc.enable()
    print(f"per core: {batch.games} games, {batch.events} events folded in {cpu:.2f} s of CPU: "
          f"{batch.events / cpu:,.0f} events per CPU-second")


def _warm() -> None:
    import seasalt_log.archive  # noqa: F401


def phases(export: Path) -> None:
    """Where a task's CPU goes, per event, for one export file: the steps of
    ``archive._fold_file`` timed apart (the engine's share is the fold less the rest)."""
    import gc
    import io

    import pyarrow.parquet as pq

    from seasalt_log.store import batch
    f = sorted((export / "events").glob("*/*.parquet"))[0]
    gc.disable()
    clock = time.process_time
    t0 = clock()
    table = pq.read_table(f, columns=["game_id", "seq", "event"])
    t1 = clock()
    events = batch.decode_column(table.column("event"))
    t2 = clock()
    starts = batch.game_starts(table.column("game_id"))
    last = [batch._engine_states(events[a:b], every=False) for a, b in zip(starts, starts[1:])]
    t3 = clock()
    out = batch.Batch()
    for k, (a, b) in enumerate(zip(starts, starts[1:])):
        out.add(str(k), b - a, events[a:b], last[k][-1], None)
    tables = out.tables()
    t4 = clock()
    for rows in tables:
        pq.write_table(rows, io.BytesIO())
    t5 = clock()
    gc.enable()
    n = table.num_rows
    print("per event (µs of CPU): " + ", ".join(
        f"{name} {1e6 * dt / n:.2f}" for name, dt in (
            ("read Parquet", t1 - t0), ("decode", t2 - t1), ("engine check + apply", t3 - t2),
            ("results", t4 - t3), ("write results", t5 - t4))))


def job(what: str, source: Path, workers: int, **kw) -> None:
    import dask
    from distributed import Client, LocalCluster

    from seasalt_log.archive import LOCAL_CONFIG, run
    out = Path(tempfile.mkdtemp(prefix="archive-bench-")) / "out"
    t0 = time.perf_counter()
    with dask.config.set(LOCAL_CONFIG):          # as seasalt archive's own local cluster
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=":0",
                               silence_logs=50)
    client = Client(cluster)
    start = time.perf_counter() - t0
    try:
        # the workers import the engine before the clock starts: a one-off cost per worker
        # process (about a second of CPU), not a cost per event
        client.run(_warm)
        before = client.run(time.process_time)
        s = run(str(source), str(out), client=client, **kw)
        after = client.run(time.process_time)
    finally:
        client.close()
        cluster.close()
        shutil.rmtree(out.parent, ignore_errors=True)
    cpu = sum(after[w] - before[w] for w in after)
    print(f"{what}: {s.games} games, {s.events} events, {s.failed} failed, {s.files} files, "
          f"shuffled={s.shuffled}: {s.fold_seconds:.1f} s -> {s.events_per_second:,.0f} events/s "
          f"on {s.workers} workers (cluster start {start:.1f} s); workers' CPU {cpu:.1f} s -> "
          f"{s.events / cpu:,.0f} events per CPU-second, x{workers} = "
          f"{workers * s.events / cpu:,.0f} events/s on {workers} free cores")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--check-only", action="store_true", help="only the per-core rate and the "
                    "check of whole games")
    args = ap.parse_args()
    _, export = build(args.games)
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    per_core(export)
    phases(export)
    job("check, whole games", export, args.workers)
    if args.check_only:
        return
    split = Path(tempfile.mkdtemp(prefix="archive-bench-old-")) / "events"
    try:
        older(export, split)
        job("check, older export (shuffle)", split, args.workers)
    finally:
        shutil.rmtree(split.parent, ignore_errors=True)
    job("rebuild, whole games", export, args.workers, rebuild=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
