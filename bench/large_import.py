"""Large import: a ~1 GB log imported in bounded memory, with progress.

    python bench/large_import.py [--size-mb 1024] [--also-mb 100] [--base-games 400]

Generates ``bench/.data/large-<N>mb.jsonl`` once (simulated games, each written several
times under new game ids until the file has the size asked for), then imports it into a
fresh store in a child process, exactly as ``seasalt import`` does (``import_logs`` with a
progress callback that prints a line every 10 %), and reports the child's peak resident
memory (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``) and the wall time.

``--also-mb`` runs the same for a smaller file first: when memory is bounded the two peaks
are about the same, whatever the size of the log. The results are printed as Markdown
rows for bench/RESULTS.md ("Large import").
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_data import DATA, LOGS, part  # noqa: E402

CHILD = r"""
import sys, time
from seasalt_log.service import import_logs
from seasalt_log.store import Store

log, db = sys.argv[1], sys.argv[2]
step = [0]
t0 = time.monotonic()

def progress(done, total):
    pct = 100 * done // max(total, 1)
    if pct >= step[0] + 10 or done == total:
        step[0] = pct - pct % 10
        sys.stderr.write(f"  {pct:3d} %  {done / 1e6:8.0f} MB  {time.monotonic() - t0:6.0f} s\n")
        sys.stderr.flush()

with Store.open(db) as store:
    summary = import_logs(store, [log], progress=progress)
    store.con.execute("CHECKPOINT")
print()
print(summary.new, summary.failed, summary.events_stored)
"""


def make_log(size_mb: int, base_games: int) -> Path:
    """A log of about ``size_mb`` MB: ``base_games`` simulated games (2, 3 and 4 players),
    repeated under new ids (``<id>-r<k>``) until the size is reached."""
    path = LOGS / f"large-{size_mb}mb.jsonl"
    if path.exists():
        return path
    from msgspec.structs import replace

    from seasalt_log import events as ev
    from seasalt_log.sim import simulate
    LOGS.mkdir(parents=True, exist_ok=True)
    base = []
    for players in (2, 3, 4):
        for g in simulate(base_games // 3 + 1, players, seed=100 + players):
            base.append((g[0], ev.encode_lines(g[1:])))
    target = size_mb * 1_000_000
    tmp = part(path)
    written = 0
    with open(tmp, "wb") as fh:
        k = 0
        while written < target:
            for start, rest in base:
                head = ev.encode(replace(start, game_id=f"{start.game_id}-r{k}")) + b"\n"
                fh.write(head)
                fh.write(rest)
                written += len(head) + len(rest)
                if written >= target:
                    break
            k += 1
    tmp.rename(path)
    return path


def run_import(log: Path) -> dict:
    """Import ``log`` into a fresh store in a child process; its peak RSS and time."""
    db = DATA / "large.duckdb"
    for p in (db, Path(str(db) + ".wal")):
        p.unlink(missing_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, str(log), str(db)], cwd=ROOT,
                         stdout=subprocess.PIPE, check=True, text=True)
    elapsed = time.perf_counter() - t
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if peak_kb <= before:
        raise SystemExit("cannot tell the child's peak: run each size in its own process")
    new, failed, events = map(int, out.stdout.strip().splitlines()[-1].split())
    size = db.stat().st_size
    db.unlink()
    return {"log_mb": log.stat().st_size / 1e6, "games": new, "failed": failed, "events": events,
            "seconds": elapsed, "peak_mb": peak_kb / 1024, "store_mb": size / 1e6}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--also-mb", type=int, default=0, help="import a smaller log first")
    ap.add_argument("--base-games", type=int, default=400)
    args = ap.parse_args()
    sizes = ([args.also_mb] if args.also_mb else []) + [args.size_mb]
    rows = []
    for mb in sizes:
        log = make_log(mb, args.base_games)
        print(f"importing {log.name} ({log.stat().st_size / 1e6:.0f} MB)", file=sys.stderr)
        if rows:   # ru_maxrss of children is a maximum over all of them: one size per process
            r = subprocess.run([sys.executable, __file__, "--size-mb", str(mb),
                                "--base-games", str(args.base_games), "--row-only"],
                               check=True, stdout=subprocess.PIPE, text=True)
            rows.append(r.stdout.strip())
            continue
        rows.append(_row(run_import(log)))
    print(f"\n{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}\n")
    print("| log | games | events | failed | time | events/s | peak RSS | store file |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(r)


def _row(r: dict) -> str:
    return (f"| {r['log_mb']:.0f} MB | {r['games']:,} | {r['events']:,} | {r['failed']} | "
            f"{r['seconds']:.0f} s | {r['events'] / r['seconds']:,.0f} | {r['peak_mb']:.0f} MB | "
            f"{r['store_mb']:.0f} MB |")


if __name__ == "__main__":
    if "--row-only" in sys.argv:
        sys.argv.remove("--row-only")
        ap = argparse.ArgumentParser()
        ap.add_argument("--size-mb", type=int)
        ap.add_argument("--base-games", type=int, default=400)
        a = ap.parse_args()
        print(_row(run_import(make_log(a.size_mb, a.base_games))))
    else:
        main()
