"""Store benchmark: import throughput, bytes per stored event, replay latency.

    python bench/store_bench.py [--games 10000]
    python bench/store_bench.py --games 1000 --ruleset extra-salt --events pepper

Simulated games (mixed 2/3/4 players, default bots) are generated once into
``bench/.data/`` and reused; the store is written to ``$SEASALT_BENCH_DATA`` when set, else
beside them (bench_data.py). Then, in one process:

- import: ``service.import_logs`` of the whole log into a fresh store, end to end
  (read, decode, engine checks, derived events, projections, writes; worker processes
  check and project chunks of the log, ``--jobs``), events/s of wall clock and of CPU
  (this process and its workers);
- bytes per event: the store file's size after a checkpoint, divided by the events;
- replay: for 500 random games, read the stream from the store and fold it to a
  mid-game turn (``replay.replay_stored``: only that round's events are decoded and
  folded), median and p95 in milliseconds.

``--timeline`` prints, in seconds from the import's start, when the worker processes
started, when each chunk was checked by the importing process's thread ("checked"), came
back checked ("ready") and was loaded, and the final COMMIT: where the wall clock of the
import went; and the time from the last check to the commit's end (the import's tail,
which nothing overlaps).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_data import DATA, LOGS, part  # noqa: E402,F401  (DATA: the other scripts' too)
from seasalt_log import events as ev  # noqa: E402
from seasalt_log.service import import_logs  # noqa: E402
from seasalt_log.store import Store  # noqa: E402


def corpus(games: int, ruleset: str | None = None, events: str | None = None) -> Path:
    """A log of ``games`` simulated games (a third each of 2, 3 and 4 players) of the
    ``ruleset`` and ``events`` settings (None: the base game)."""
    from seasalt_log.sim import simulate
    tag = "".join(f"-{x}" for x in (ruleset, events) if x)
    path = LOGS / f"sim{tag}-{games}.jsonl"
    if path.exists():
        return path
    LOGS.mkdir(parents=True, exist_ok=True)
    tmp = part(path)
    with open(tmp, "wb") as fh:
        for players in (2, 3, 4):
            n = games // 3 + (1 if players == 2 else 0) * (games % 3)
            for g in simulate(n, players, players, None, ruleset, events):
                fh.write(ev.encode_lines(g))
    tmp.rename(path)
    return path


def _cpu() -> float:
    """CPU seconds of this process (every thread) and of its finished worker processes."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def bench_import(log: Path, db: Path, jobs: int | None = None,
                 marks: list[tuple[float, str]] | None = None) -> tuple[int, float, float]:
    """(events, wall seconds, CPU seconds of this process and its workers); with
    ``marks``, the import's :func:`timeline` is appended to it. The time includes the
    checkpoint of what the import's last commit left in the write-ahead log (``seasalt
    import`` waits for it as it closes the store)."""
    for p in (db, db.with_suffix(".duckdb.wal")):
        p.unlink(missing_ok=True)
    with Store.open(db) as store, (timeline(marks) if marks is not None else nullcontext()):
        t, c = time.perf_counter(), _cpu()
        summary = import_logs(store, [log], jobs=jobs)
        store.con.execute("CHECKPOINT")
        elapsed, cpu = time.perf_counter() - t, _cpu() - c
    if summary.failed:
        raise SystemExit(f"import failed: {summary.games[:3]}")
    return summary.events_stored, elapsed, cpu


@contextmanager
def timeline(marks: list[tuple[float, str]]) -> Iterator[None]:
    """Record (seconds since the import started, what) while the import runs: the worker
    pool started, each chunk checked by the importing process's own thread ("checked"),
    handed to the importer ("ready") and loaded, the final COMMIT. It wraps the importer's
    functions for a while, so that it times any version of them alike."""
    from seasalt_log import service, workers
    from seasalt_log.importers import chunks as chunks_mod
    from seasalt_log.importers.writer import ImportRun
    from seasalt_log.store.store import Store as StoreClass
    start = time.perf_counter()

    def mark(what: str) -> None:
        marks.append((time.perf_counter() - start, what))

    def each_chunk(real, what):
        def wrapped(*a, **k):
            for chunk, result in real(*a, **k):
                mark(what(chunk))
                yield chunk, result
        return wrapped

    def after(real, what):
        def wrapped(self, *a, **k):
            out = real(self, *a, **k)
            mark(what(*a) if callable(what) else what)
            return out
        return wrapped

    def around(real, what):
        def wrapped(self, *a, **k):
            mark(f"{what} begins")
            return after(real, f"{what} ends")(self, *a, **k)
        return wrapped
    ready = each_chunk(service.check_chunks,
                       lambda chunk: f"ready {chunk.index} ({len(chunk.data) // 1000} kB)")
    # (in the checking thread; a worker process's checks are not seen)
    checked = each_chunk(chunks_mod._in_process, lambda chunk: f"checked {chunk.index}")
    patches = [(service, "check_chunks", ready), (chunks_mod, "_in_process", checked),
               (ImportRun, "add_chunk", after(ImportRun.add_chunk, lambda c, r: f"loaded {c.index}")),
               (ImportRun, "finish", around(ImportRun.finish, "finish")),
               (StoreClass, "commit", around(StoreClass.commit, "commit")),
               (workers.Pool, "__init__", around(workers.Pool.__init__, "pool start"))]
    saved = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
    for obj, name, fn in patches:
        setattr(obj, name, fn)
    try:
        yield
    finally:
        for obj, name, fn in saved:
            setattr(obj, name, fn)


def tail_ms(marks: list[tuple[float, str]]) -> float:
    """Milliseconds from the importing process's last check to the end of the commit (NaN
    if either is not in ``marks``): the loads and the commit that nothing overlaps."""
    checks = [t for t, what in marks if what.startswith("checked ")]
    commits = [t for t, what in marks if what == "commit ends"]
    return 1000 * (commits[-1] - max(checks)) if checks and commits else float("nan")


def bench_replay(db: Path, samples: int = 500) -> list[float]:
    from seasalt_log.replay import replay_stored
    rng = random.Random(7)
    with Store.open(db, read_only=True) as store:
        games = store.con.execute("SELECT game_id, rounds_played FROM games").fetchall()
        picks = [rng.choice(games) for _ in range(samples)]
        times = []
        for gid, rounds in picks:
            rnd = max(1, (rounds + 1) // 2)
            turns = store.con.execute("SELECT turns FROM rounds WHERE game_id=? AND round=?",
                                      [gid, rnd]).fetchone()[0]
            t = time.perf_counter()
            replay_stored(store.read_texts(gid), round=rnd, turn=max(1, turns // 2), game_id=gid)
            times.append((time.perf_counter() - t) * 1000)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--jobs", type=int, default=None,
                    help="worker processes of the import (default: one per CPU)")
    ap.add_argument("--replay-only", action="store_true", help="reuse the store of a previous run")
    ap.add_argument("--timeline", action="store_true",
                    help="print when each chunk of the import was checked and loaded")
    ap.add_argument("--ruleset", choices=("base", "extra-salt"), default="base")
    ap.add_argument("--events", choices=("none", "pepper"), default="none")
    args = ap.parse_args()
    settings = (None if args.ruleset == "base" else args.ruleset,
                None if args.events == "none" else args.events)
    log = corpus(args.games, *settings)
    db = DATA / f"store{log.stem[3:]}.duckdb"
    if args.replay_only:
        report_replay(db)
        return
    marks: list[tuple[float, str]] | None = [] if args.timeline else None
    events, elapsed, cpu = bench_import(log, db, args.jobs, marks)
    size = db.stat().st_size
    print(f"import: {args.games} games, {events} events in {elapsed:.1f} s wall = "
          f"{events / elapsed:,.0f} events/s; {cpu:.1f} s CPU = {events / cpu:,.0f} events/s")
    if marks:
        marks.sort()
        print("  timeline (s): " + "; ".join(f"{t:.3f} {what}" for t, what in marks))
        tail = tail_ms(marks)
        if not math.isnan(tail):    # (no check in this process's thread to time it from)
            print(f"  after the last check: {tail:.0f} ms (loads and the commit)")
    print(f"store: {size / 1e6:.1f} MB = {size / events:.1f} bytes/event (whole file)")
    with Store.open(db, read_only=True) as store:
        tables = [t for (t,) in store.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        # a segment's own block and its extra ones (zstd-compressed strings have many)
        blocks = {t: store.con.execute(
            "SELECT count(DISTINCT b) FROM (SELECT block_id AS b FROM pragma_storage_info(?) "
            "UNION ALL SELECT unnest(additional_block_ids) FROM pragma_storage_info(?)) "
            "WHERE b >= 0", [t, t]).fetchone()[0] for t in tables}
        block = store.con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
    print(f"  per table (blocks of {block // 1024} KiB, bytes/event): " + ", ".join(
        f"{t} {n * block / events:.1f}" for t, n in sorted(blocks.items(), key=lambda x: -x[1]) if n))
    report_replay(db)


def report_replay(db: Path) -> None:
    times = bench_replay(db)
    times.sort()
    print(f"replay to a mid-game turn (read + fold), {len(times)} games: median "
          f"{statistics.median(times):.2f} ms, p95 {times[int(len(times) * .95)]:.2f} ms")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
