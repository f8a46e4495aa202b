"""Engine benchmark: events checked and applied per second on one core.

    python bench/engine_bench.py                   # 1,500 games (500 each of 2, 3, 4 players)
    python bench/engine_bench.py --games 300 --repeat 5
    python bench/engine_bench.py --profile         # where the time goes (cProfile)
    python bench/engine_bench.py --by-type         # CPU µs per event of each type

First plays the games with the seeded random player of the test suite (not timed), then
times ``engine.apply`` (which checks every rule before it applies) over every event of
every game, derived events included, from a fresh state for each game. The figure is
events per second of process CPU time (fairer than wall time on a busy machine); the best
of ``--repeat`` runs is kept.
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from seasalt_log.engine import State, apply  # noqa: E402
from tests.randomplay import play_random_game  # noqa: E402


def make_games(games: int, seed: int) -> list[list]:
    """``games`` seeded random games, player counts 2, 3, 4 in turn."""
    return [play_random_game(seed + i, 2 + i % 3) for i in range(games)]


def fold_all(games: list[list]) -> int:
    """Check and apply every event of every game; returns the number of events."""
    n = 0
    for events in games:
        s = State()
        for e in events:
            s = apply(s, e)
        n += len(events)
    return n


def by_type(games: list[list], repeat: int) -> None:
    """CPU µs per event of each type: ``apply`` timed over the states each type meets (best of
    ``repeat``), the slowest types first."""
    cases: dict[str, list] = {}
    for events in games:
        s = State()
        for e in events:
            cases.setdefault(type(e).__name__, []).append((s, e))
            s = apply(s, e)
    rows = []
    for name, pairs in cases.items():
        best = min(_cpu(pairs) for _ in range(repeat))
        rows.append((best / len(pairs), name, len(pairs)))
    for per, name, n in sorted(rows, reverse=True):
        print(f"{name:>16} {n:7d} events {1e6 * per:7.2f} µs")


def _cpu(pairs: list) -> float:
    c0 = time.process_time()
    for s, e in pairs:
        apply(s, e)
    return time.process_time() - c0


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", action="store_true", help="print the top of a cProfile run")
    ap.add_argument("--by-type", action="store_true",
                    help="CPU µs per event of each type instead of the whole run")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    games = make_games(a.games, a.seed)
    total = sum(map(len, games))
    print(f"{a.games} games, {total} events ({total / a.games:.0f} per game), "
          f"played in {time.perf_counter() - t0:.1f} s (not timed)", flush=True)
    fold_all(games)                                       # warm up
    if a.by_type:
        by_type(games, a.repeat)
        return
    if a.profile:
        prof = cProfile.Profile()
        prof.runcall(fold_all, games)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    best_cpu = best_wall = None
    for r in range(a.repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        events = fold_all(games)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        print(f"run {r + 1}: {events / cpu:9.0f} events/s CPU, {events / wall:9.0f} events/s wall",
              flush=True)
        best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
        best_wall = wall if best_wall is None else min(best_wall, wall)
    print(f"\nbest: {total / best_cpu:.0f} events/s CPU ({total / best_wall:.0f} wall), "
          f"{1e6 * best_cpu / total:.2f} µs per event")
    print(f"Python {platform.python_version()} on {platform.machine()}")


if __name__ == "__main__":
    main()
