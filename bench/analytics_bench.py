"""Analytics benchmark: every ``seasalt stats`` report and ``seasalt rebuild`` on a store of
simulated games.

    python bench/analytics_bench.py build [--games 100000]   # once; reused afterwards
    python bench/analytics_bench.py run [--jobs N]           # time the reports and a rebuild

``build`` simulates the games in chunks (JSON Lines under ``bench/.data/logs/``, one chunk per
seed, player counts 2, 3, 4 in turn) and stores them with ``seasalt import`` into
``bench/.data/analytics.duckdb`` (``$SEASALT_BENCH_DATA/`` when set); files and games already
there are kept, so an interrupted build resumes. ``bench/.data/`` is not versioned.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_data import DATA, LOGS as SHARED, part  # noqa: E402

LOGS = SHARED / "logs"
DB = DATA / "analytics.duckdb"             # $SEASALT_BENCH_DATA/analytics.duckdb when set
CHUNK = 5_000                      # games per log file
BOTS = ("random", "greedy")


def _chunk_path(k: int) -> Path:
    return LOGS / f"chunk-{k:03d}.jsonl"


def _simulate_chunk(k: int) -> str:
    """Write chunk ``k``: CHUNK games of 2 + k % 3 players, seed 1000 + k."""
    from seasalt_log import events as ev
    from seasalt_log.sim import simulate
    path = _chunk_path(k)
    tmp = part(path)
    with open(tmp, "wb") as fh:
        for game in simulate(CHUNK, 2 + k % 3, seed=1000 + k, bots=BOTS):
            fh.write(ev.encode_lines(game))
    tmp.rename(path)
    return path.name


def build(games: int, jobs: int) -> None:
    """Simulate the missing chunks in parallel, then import every chunk into the store."""
    LOGS.mkdir(parents=True, exist_ok=True)
    chunks = range((games + CHUNK - 1) // CHUNK)
    todo = [k for k in chunks if not _chunk_path(k).exists()]
    t0 = time.perf_counter()
    if todo:
        with ProcessPoolExecutor(jobs) as pool:
            for name in pool.map(_simulate_chunk, todo):
                print(f"simulated {name} ({time.perf_counter() - t0:.0f} s)", flush=True)
    seasalt = shutil.which("seasalt", path=str(Path(sys.executable).parent)) or "seasalt"
    for k in chunks:
        t = time.perf_counter()
        subprocess.run([seasalt, "import", str(_chunk_path(k)), "--db", str(DB), "--no-progress"],
                       check=True)
        print(f"imported {_chunk_path(k).name} in {time.perf_counter() - t:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="simulate and import the games (resumable)")
    b.add_argument("--games", type=int, default=100_000)
    b.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    r = sub.add_parser("run", help="time every stats report and a rebuild")
    r.add_argument("--repeat", type=int, default=3, help="runs of each report (best is kept)")
    r.add_argument("--jobs", type=int, default=None, help="rebuild worker processes")
    r.add_argument("--skip-rebuild", action="store_true")
    args = parser.parse_args()
    if args.cmd == "build":
        build(args.games, args.jobs)
    else:
        run(args.repeat, args.jobs, args.skip_rebuild)


def _time(fn, repeat: int) -> tuple[float, float, object]:
    """(first run, best of ``repeat`` runs) in seconds, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return times[0], min(times), result


def run(repeat: int, jobs: int | None, skip_rebuild: bool) -> None:
    """Time every report (no filter, --players 4, --player NAME) and a rebuild; print a
    Markdown table for bench/RESULTS.md."""
    from seasalt_log.analytics import list_reports, run_report
    from seasalt_log.store.rebuild import rebuild
    from seasalt_log.analytics.query import run_query
    from seasalt_log.store import Store
    if not DB.exists():
        raise SystemExit(f"no store at {DB}: run `python bench/analytics_bench.py build` first")
    size = run_query(DB, "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM events), "
                         "(SELECT count(*) FROM turns)").rows[0]
    player = run_query(DB, "SELECT name FROM seats GROUP BY name ORDER BY count(*) DESC LIMIT 1").rows[0][0]
    print(f"store: {size[0]:,} games, {size[1]:,} events, {size[2]:,} turns; "
          f"file {DB.stat().st_size / 2**20:,.0f} MiB; {os.cpu_count()} CPUs\n")
    print("| report | rows | first run (s) | best (s) | --players 4 best (s) | --player best (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    worst = 0.0
    for r in list_reports():
        first, best, res = _time(lambda: run_report(DB, r.name), repeat)
        _, best4, _ = _time(lambda: run_report(DB, r.name, players=4), repeat)
        _, bestp, _ = _time(lambda: run_report(DB, r.name, player=player), repeat)
        worst = max(worst, first, best4, bestp)
        print(f"| {r.name} | {len(res.rows)} | {first:.3f} | {best:.3f} | {best4:.3f} | {bestp:.3f} |")
    print(f"\nslowest report call: {worst:.3f} s (--player {player})")
    if skip_rebuild:
        return
    import resource

    def cpu() -> float:
        me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    with Store.open(DB) as store:
        c, t = cpu(), time.perf_counter()
        s = rebuild(store, jobs=jobs)
        wall, used = time.perf_counter() - t, cpu() - c
    print(f"\nrebuild: {s.games:,} games, {s.events:,} events in {wall:.1f} s with {s.jobs} "
          f"process(es): {s.events / wall:,.0f} events/s; CPU time {used:.0f} s "
          f"({s.events / used:,.0f} events per CPU-second); rows " +
          ", ".join(f"{k} {v:,}" for k, v in s.rows.items()))


if __name__ == "__main__":
    main()
