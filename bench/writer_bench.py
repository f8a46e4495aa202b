"""The service's writer without HTTP: CPU per one-event append of planning (engine check,
event rows, read-model changes: ``plan_append`` + ``prepare_write``) and of committing
(``store_prepared``), each timed as the thread's own CPU.

    python bench/writer_bench.py [--games 256] [--per-commit 73] [--appends 12000] [--profile]

``--games`` games of 3 players (those of ``http_bench.py``) are recorded at once, each
commit taking the next event of ``--per-commit`` of them in turn (73 is what
``http_bench.py --clients 256 --batch 1`` makes). ``--profile``: cProfile of the planning.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from http_bench import make_games, renamed  # noqa: E402
from seasalt_log.http.live import GC_THRESHOLD  # noqa: E402
from seasalt_log.service import plan_append, plan_start, prepare_write, store_prepared  # noqa: E402
from seasalt_log.store import Store  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=256)
    ap.add_argument("--per-commit", type=int, default=73)
    ap.add_argument("--appends", type=int, default=12000)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])     # as the service runs
    pool = make_games(64, 3, "pool")
    games = {f"g-{i}": renamed(pool[i % len(pool)], f"g-{i}") for i in range(args.games)}
    prof = cProfile.Profile() if args.profile else None
    with tempfile.TemporaryDirectory() as d, Store.open(Path(d) / "w.duckdb") as store:
        caches, done = {}, {}
        for gid, game in games.items():
            p = plan_start(store, game[0])
            store_prepared(store, prepare_write([p]))
            caches[gid], done[gid] = p.cache, 1
        order = list(games)
        plan = commit = 0.0
        n = k = 0
        while n < args.appends and any(done[g] < len(games[g]) for g in order):
            t0 = time.thread_time()
            if prof:
                prof.enable()
            batch, tentative = [], {}
            while len(batch) < args.per_commit and k < 100 * args.appends:
                gid = order[k % len(order)]
                k += 1
                if done[gid] >= len(games[gid]):
                    continue
                c = tentative.get(gid) or caches[gid]
                p = plan_append(c, [games[gid][done[gid]]], c.seq)
                done[gid] += 1
                tentative[gid] = p.cache
                batch.append(p)
            w = prepare_write(batch)
            if prof:
                prof.disable()
            t1 = time.thread_time()
            store_prepared(store, w)
            t2 = time.thread_time()
            caches.update(tentative)
            plan += t1 - t0
            commit += t2 - t1
            n += len(batch)
    print(f"{n} appends, {args.per_commit} per commit: planning {plan / n * 1000:.4f} ms, "
          f"committing {commit / n * 1000:.4f} ms of CPU per append (the calling thread's)")
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
