"""`seasalt compact` on a store recorded live: one game's query and bytes per event, before
and after, with the same games imported for comparison.

    python bench/compact_bench.py [--games 1000] [--samples 300] [--rounds 2] [--fresh]

The live-recorded store is ``live_store_bench.py``'s (``bench/.data/live-N.duckdb``:
recorded as the service's writer stores appends, 512 games in play, 146 events a commit),
made once and reused unless ``--fresh``. The script copies it, compacts the copy with
``store.compact.compact`` (CPU and wall time), and imports the same games into a third store
(``import_games``). Then, ``--rounds`` times in turn over the three stores:

- bytes per event: the file's size (after a checkpoint) over the events;
- one game's query: ``SELECT seq, event FROM events WHERE game = ?`` (the first read of a
  read-only process, every read of ``seasalt serve``) for ``--samples`` random games, the
  CPU time of each (``time.process_time``: every thread of the process), median and p95.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import duckdb  # noqa: E402

from live_store_bench import input_games, record  # noqa: E402
from seasalt_log.service import import_games  # noqa: E402
from seasalt_log.store import Store  # noqa: E402
from seasalt_log.store.compact import compact  # noqa: E402
from store_bench import DATA, corpus  # noqa: E402


def fresh(path: Path) -> Path:
    for p in (path, path.with_name(path.name + ".wal")):
        p.unlink(missing_ok=True)
    return path


def query_cpu(db: Path, samples: int) -> list[float]:
    """CPU milliseconds of one game's query, for ``samples`` random games (seeded)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        top = con.execute("SELECT max(game) FROM events").fetchone()[0]
        rng = random.Random(7)
        times = []
        for n in (rng.randint(1, top) for _ in range(samples)):
            t = time.process_time()
            con.execute("SELECT seq, event FROM events WHERE game = ?", [n]).fetchall()
            times.append((time.process_time() - t) * 1000)
    finally:
        con.close()
    return sorted(times)


def row_groups(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('events')"
                           ).fetchone()[0]
    finally:
        con.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--fresh", action="store_true", help="record the live store again")
    args = ap.parse_args()
    games = input_games(corpus(10_000), args.games)
    live = DATA / f"live-{args.games}.duckdb"
    if args.fresh or not live.exists():
        with Store.open(fresh(live)) as store:
            commits = record(store, games, 512, 146)
        print(f"recorded {live.name}: {commits} commits")
    compacted = fresh(DATA / f"live-{args.games}-compacted.duckdb")
    shutil.copy(live, compacted)
    with Store.open(compacted) as store:
        t, c = time.perf_counter(), time.process_time()
        summary = compact(store)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    print(f"compact: {summary.events} events, {sum(summary.rows.values())} rows, "
          f"{cpu:.2f} s CPU ({wall:.2f} s wall), {summary.passes} rewrites")
    imported = fresh(DATA / f"live-{args.games}-imported.duckdb")
    with Store.open(imported) as store:
        import_games(store, games)
        store.con.execute("CHECKPOINT")
    stores = {"live": live, "compacted": compacted, "imported": imported}
    for r in range(1, args.rounds + 1):
        for name, db in stores.items():
            times = query_cpu(db, args.samples)
            size = db.stat().st_size
            print(f"round {r} {name:9}: {size / summary.events:5.1f} bytes/event, "
                  f"{row_groups(db)} row groups; one game's query CPU median "
                  f"{statistics.median(times):.2f} ms, p95 {times[int(len(times) * .95)]:.2f} ms")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
