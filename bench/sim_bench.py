"""Simulator benchmark: complete games simulated per second on one core.

    python bench/sim_bench.py                      # 2 players, default bots, 2,000 games
    python bench/sim_bench.py --players 4 --bots planner --games 500
    python bench/sim_bench.py --profile            # where the time goes (cProfile)
    python bench/sim_bench.py --tournament 1000    # the win-rate table of bench/RESULTS.md
    python bench/sim_bench.py --ruleset extra-salt --events pepper   # the expansions
    python bench/sim_bench.py --digest 300         # a digest of the games, to compare versions

Each game is played whole through the rules engine (every event through ``apply``, the
derived events from ``next_derived``), bots deciding from their views. The figure counts
games and events per second of wall time and of process CPU time (the CPU figure is the
fairer one on a busy machine); the best of ``--repeat`` runs is kept.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import platform
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from seasalt_log import events as ev  # noqa: E402
from seasalt_log.sim import DEFAULT_BOTS, simulate  # noqa: E402
from seasalt_log.sim.tournament import DEFAULT_STRATEGIES, tournament  # noqa: E402


def run(games: int, players: int, seed: int, bots, ruleset=None,
        events_setting=None) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, events) for one batch."""
    w0, c0 = time.perf_counter(), time.process_time()
    events = 0
    for game in simulate(games, players, seed, bots, ruleset, events_setting):
        events += len(game)
    return time.perf_counter() - w0, time.process_time() - c0, events


def digest(games: int, seed: int, bots) -> None:
    """Print, for every ruleset and events setting and 2, 3 and 4 players, the events and
    a SHA-256 of ``games`` simulated games as encoded: two versions of the code that print
    the same lines simulate the same games byte for byte."""
    for ruleset, events_setting in ((None, None), ("extra-salt", None), ("extra-salt", "pepper"),
                                    (None, "pepper")):
        for players in (2, 3, 4):
            h, events = hashlib.sha256(), 0
            for game in simulate(games, players, seed, bots, ruleset, events_setting):
                h.update(ev.encode_lines(game))
                events += len(game)
            print(f"{ruleset or 'base'}/{events_setting or 'none'} {players} players: {games} "
                  f"games, {events} events, sha256 {h.hexdigest()}", flush=True)


def tournament_table(games: int, seed: int, strategies) -> str:
    """A markdown table of win rates per strategy and player count (seats rotated)."""
    names = list(strategies or DEFAULT_STRATEGIES)
    rows = []
    head = "| players | games | " + " | ".join(names) + " | fair share | rounds/game | four-mermaid wins |"
    rows.append(head)
    rows.append("|" + "---|" * (len(names) + 5))
    for players in (2, 3, 4):
        t0 = time.process_time()
        r = tournament(games, players, seed, names)
        rate = {x.strategy: x for x in r.results}
        cells = [f"{rate[n].win_rate:.1%}" for n in names]
        rows.append(f"| {players} | {r.games} | " + " | ".join(cells) +
                    f" | {r.fair_share:.1%} | {r.mean_rounds:.2f} | {r.mermaid_wins} |")
        print(f"{players} players: {r.games} games in {time.process_time() - t0:.1f} s CPU",
              file=sys.stderr, flush=True)
    return "\n".join(rows)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bots", default=None, help="comma-separated bot names (default: the default mix)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ruleset", choices=("base", "extra-salt"), default="base")
    ap.add_argument("--events", choices=("none", "pepper"), default="none")
    ap.add_argument("--profile", action="store_true", help="print the top of a cProfile run")
    ap.add_argument("--tournament", type=int, metavar="GAMES",
                    help="instead, play a tournament of at least GAMES games per player count "
                         "and print its win-rate table (--bots: the strategies)")
    ap.add_argument("--digest", type=int, metavar="GAMES",
                    help="instead, print a digest of GAMES games of every setting (see digest)")
    a = ap.parse_args(argv)
    bots = a.bots.split(",") if a.bots else None
    if a.digest:
        digest(a.digest, a.seed, bots)
        return
    settings = (None if a.ruleset == "base" else a.ruleset,
                None if a.events == "none" else a.events)
    if a.tournament:
        print(tournament_table(a.tournament, a.seed, bots))
        return
    run(50, a.players, a.seed + 99, bots, *settings)     # warm up
    if a.profile:
        prof = cProfile.Profile()
        prof.runcall(run, a.games, a.players, a.seed, bots, *settings)
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)
        return
    best = None
    for r in range(a.repeat):
        wall, cpu, events = run(a.games, a.players, a.seed, bots, *settings)
        print(f"run {r + 1}: {a.games / wall:7.0f} games/s wall, {a.games / cpu:7.0f} games/s CPU, "
              f"{events / cpu:8.0f} events/s CPU ({events / a.games:.0f} events/game)", flush=True)
        if best is None or cpu < best[1]:
            best = (wall, cpu, events)
    wall, cpu, events = best
    names = ",".join(bots or DEFAULT_BOTS)
    print(f"\n| {a.players} | {a.ruleset}/{a.events} | {names} | {a.games} | {a.games / wall:.0f} | {a.games / cpu:.0f} | "
          f"{events / a.games:.0f} | {events / cpu:.0f} |")
    print(f"Python {platform.python_version()} on {platform.machine()}")


if __name__ == "__main__":
    main()
