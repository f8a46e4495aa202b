"""seasalt-log against the plain SQLite store of ``sqlite_baseline.py``, on the same logs.

    python bench/vs_baseline.py [--games 1000 10000] [--corpus base extra] [--runs 3]
                                [--one-worker] [--point-only | --import-only]

For each log (simulated games, a third each of 2, 3 and 4 players; ``base``: the base
game, ``extra``: Extra Salt with the Extra Pepper events; cached in ``bench/.data/``, never
committed) and each of ``--runs`` rounds, every measure runs in a fresh process, the
baseline's and seasalt's in turn (B A B A ...), so that a drift of the shared machine's
speed touches both alike (seasalt's with its modules compiled, as installed: see
:func:`child_env`):

- import: the whole log into a fresh store (seasalt: ``import_logs`` with the default
  ``--jobs``, and with ``--one-worker`` also one worker), events/s of wall clock and the
  CPU seconds of the process and its workers;
- bytes per event: the store's file after a checkpoint;
- replay: every stored game folded to its end (the baseline: ``json.loads`` and a count;
  seasalt: ``Store.iter_games`` and ``replay.replay_stored``, the state after the last
  event), events/s;
- one game at a point, warm process: 500 random games, each to its middle event (``seq``)
  and, for seasalt, to the middle turn of its middle round; median ms (the store read
  included); the bytes of texts the read-only store keeps in memory and the process's
  peak resident memory.

Prints the medians of the rounds and the ratios seasalt / baseline (above 1 is faster for
a rate, below 1 is faster or smaller for ms and bytes).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BENCH = Path(__file__).resolve().parent
from bench_data import DATA  # noqa: E402  (the stores: $SEASALT_BENCH_DATA, else bench/.data)
SETTINGS = {"base": (None, None), "extra": ("extra-salt", "pepper")}


# ------------------------------------------------------------- seasalt's side (child processes)

def seasalt_import(log: str, db: str, jobs: int | None) -> dict:
    from store_bench import bench_import      # the import as store_bench.py times it
    events, elapsed, cpu = bench_import(Path(log), Path(db), jobs)
    return {"events": events, "seconds": elapsed, "cpu": cpu, "bytes": Path(db).stat().st_size}


def seasalt_replay(db: str) -> dict:
    from store_bench import _cpu
    from seasalt_log.replay import replay_stored
    from seasalt_log.store import Store
    with Store.open(db, read_only=True) as store:
        t, c = time.perf_counter(), _cpu()
        events = games = 0
        stored = store.iter_games() if hasattr(store, "iter_games") else (   # older code
            (gid, store.read_texts(gid)) for gid in store.game_ids())
        for gid, texts in stored:
            state = replay_stored(texts, game_id=gid)
            assert state.seq == len(texts), (gid, state.seq, len(texts))
            events += len(texts)
            games += 1
        return {"events": events, "games": games, "seconds": time.perf_counter() - t,
                "cpu": _cpu() - c}


def seasalt_point(db: str, samples: int = 500) -> dict:
    from seasalt_log.replay import replay_stored
    from seasalt_log.store import Store
    with Store.open(db, read_only=True) as store:
        games = store.con.execute("SELECT game_id, events, rounds_played FROM games").fetchall()
        rounds = {(g, r): t for g, r, t in store.con.execute(
            "SELECT game_id, round, turns FROM rounds").fetchall()}
        rng = random.Random(7)
        picks = [rng.choice(games) for _ in range(samples)]
        by_seq, by_turn, cpu = [], [], []
        for gid, last, played in picks:
            t, c = time.perf_counter(), time.process_time()
            replay_stored(store.read_texts(gid), seq=(last + 1) // 2, game_id=gid)
            by_seq.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            rnd = max(1, (played + 1) // 2)
            turn = max(1, rounds.get((gid, rnd), 2) // 2)
            t = time.perf_counter()
            replay_stored(store.read_texts(gid), round=rnd, turn=turn, game_id=gid)
            by_turn.append((time.perf_counter() - t) * 1000)
        kept = getattr(store, "_texts", None)       # the texts a read-only store keeps
        kept_mb = kept.nbytes() / 1e6 if kept is not None else 0.0
    return {"median_ms": statistics.median(by_seq), "cpu_median_ms": statistics.median(cpu),
            "turn_median_ms": statistics.median(by_turn), "samples": samples,
            "kept_mb": kept_mb, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3}


# ------------------------------------------------------------- the driver

def corpus(games: int, kind: str) -> Path:
    from store_bench import corpus as simulated   # the same cached logs as store_bench.py
    return simulated(games, *SETTINGS[kind])


def child_env() -> dict[str, str]:
    """The measuring processes' environment (their workers inherit it): Python's bytecode
    cache on (``__pycache__`` beside the sources), whatever this shell says. An installed seasalt runs
    from compiled modules (pip compiles a wheel's as it installs it; an editable install
    writes them on first use); with ``PYTHONDONTWRITEBYTECODE`` set, every worker process of
    an import would compile seasalt's sources again (about 50 ms of CPU each), which the
    baseline, importing only the standard library (compiled with Python), never pays."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    for name in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"):
        env.pop(name, None)
    return env


def compile_once() -> None:
    """seasalt's modules compiled into the cache of :func:`child_env` before any measure."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "seasalt_log")],
                   check=True, stdout=subprocess.DEVNULL, env=child_env())


def child(*args: str) -> dict:
    out = subprocess.run([sys.executable, *args], check=True, stdout=subprocess.PIPE,
                         text=True, cwd=ROOT, env=child_env())
    return json.loads(out.stdout.strip().splitlines()[-1])


def fresh(db: Path) -> str:
    for p in (db, Path(f"{db}.wal"), Path(f"{db}-wal"), Path(f"{db}-shm")):
        p.unlink(missing_ok=True)
    return str(db)


def one_round(log: Path, tag: str, one_worker: bool, point_only: bool = False,
              import_only: bool = False) -> dict:
    """Every measure once, the baseline's and seasalt's in turn (``point_only``: only the
    point reads, on stores imported by an earlier round or now; ``import_only``: only the
    imports)."""
    me, base = str(Path(__file__)), str(BENCH / "sqlite_baseline.py")
    sq, dk = DATA / f"vs-{tag}.sqlite", DATA / f"vs-{tag}.duckdb"
    r: dict = {}
    if point_only:
        if not (sq.exists() and dk.exists()):
            child(base, "import", str(log), fresh(sq))
            child(me, "seasalt-import", str(log), fresh(dk))
        r["b_point"] = child(base, "point", str(sq))
        r["s_point"] = child(me, "seasalt-point", str(dk))
        return r
    r["b_import"] = child(base, "import", str(log), fresh(sq))
    r["b_import"]["bytes"] = sq.stat().st_size
    r["s_import"] = child(me, "seasalt-import", str(log), fresh(dk))
    if one_worker:
        r["s_import1"] = child(me, "seasalt-import", str(log), fresh(DATA / f"vs-{tag}-1.duckdb"),
                               "--jobs", "1")
        fresh(DATA / f"vs-{tag}-1.duckdb")
    if import_only:
        return r
    r["b_replay"] = child(base, "replay", str(sq))
    r["s_replay"] = child(me, "seasalt-replay", str(dk))
    r["b_point"] = child(base, "point", str(sq))
    r["s_point"] = child(me, "seasalt-point", str(dk))
    return r


def report(tag: str, rounds: list[dict]) -> list[str]:
    def med(key: str, f) -> float:
        return statistics.median(f(r[key]) for r in rounds if key in r)

    def ratio(a: str, b: str, f) -> float:   # pair by pair, then the median
        return statistics.median(f(r[a]) / f(r[b]) for r in rounds if a in r)

    rate = lambda x: x["events"] / x["seconds"]          # noqa: E731
    cpu_rate = lambda x: x["events"] / x["cpu"]          # noqa: E731
    per_event = lambda x: x["bytes"] / x["events"]       # noqa: E731
    ms = lambda x: x["median_ms"]                        # noqa: E731
    cpu_ms = lambda x: x["cpu_median_ms"]                # noqa: E731
    rows = []
    if "s_import" in rounds[0]:
        rows += [f"| {tag}: import, events/s (wall) | {med('s_import', rate):,.0f} | "
                 f"{med('b_import', rate):,.0f} | {ratio('s_import', 'b_import', rate):.2f} |",
                 f"| {tag}: import, events per CPU second (seasalt: with its workers) | "
                 f"{med('s_import', cpu_rate):,.0f} | {med('b_import', cpu_rate):,.0f} | "
                 f"{ratio('s_import', 'b_import', cpu_rate):.2f} |"]
    if any("s_import1" in r for r in rounds):
        rows.append(f"| {tag}: import, one worker, events/s (wall) | {med('s_import1', rate):,.0f} | "
                    f"{med('b_import', rate):,.0f} | {ratio('s_import1', 'b_import', rate):.2f} |")
        rows.append(f"| {tag}: import, one worker, events per CPU second | "
                    f"{med('s_import1', cpu_rate):,.0f} | {med('b_import', cpu_rate):,.0f} | "
                    f"{ratio('s_import1', 'b_import', cpu_rate):.2f} |")
    if not any("s_point" in r for r in rounds):
        return rows
    if "s_replay" in rounds[0]:
        rows += [f"| {tag}: bytes per event | {med('s_import', per_event):.1f} | "
                 f"{med('b_import', per_event):.1f} | {ratio('s_import', 'b_import', per_event):.2f} |",
                 f"| {tag}: replay of every game to its end, events/s | {med('s_replay', rate):,.0f} | "
                 f"{med('b_replay', rate):,.0f} | {ratio('s_replay', 'b_replay', rate):.2f} |",
                 f"| {tag}: replay of every game, events per CPU second | "
                 f"{med('s_replay', cpu_rate):,.0f} | {med('b_replay', cpu_rate):,.0f} | "
                 f"{ratio('s_replay', 'b_replay', cpu_rate):.2f} |"]
    rows += [f"| {tag}: one game to its middle event, median ms | {med('s_point', ms):.2f} | "
             f"{med('b_point', ms):.2f} | {ratio('s_point', 'b_point', ms):.2f} |",
             f"| {tag}: the same, median CPU ms | {med('s_point', cpu_ms):.2f} | "
             f"{med('b_point', cpu_ms):.2f} | {ratio('s_point', 'b_point', cpu_ms):.2f} |",
             f"| {tag}: one game to a middle turn, median ms | "
             f"{med('s_point', lambda x: x['turn_median_ms']):.2f} | | |",
             f"| {tag}: texts kept in memory, MB (peak memory of the process) | "
             f"{med('s_point', lambda x: x.get('kept_mb', 0)):.1f} "
             f"({med('s_point', lambda x: x.get('peak_rss_mb', 0)):.0f}) | | |"]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, nargs="+", default=[1000, 10_000])
    ap.add_argument("--corpus", choices=sorted(SETTINGS), nargs="+", default=["base", "extra"])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--one-worker", action="store_true", help="also import with --jobs 1")
    ap.add_argument("--point-only", action="store_true",
                    help="only the point reads (the stores are imported once and kept)")
    ap.add_argument("--import-only", action="store_true",
                    help="measure the imports only (no replay, no point reads)")
    args = ap.parse_args()
    lines = ["| figure | seasalt | plain sqlite3 | seasalt / sqlite3 |", "|---|---|---|---|"]
    compile_once()
    for games in args.games:
        for kind in args.corpus:
            log = corpus(games, kind)
            tag = f"{games:,} {kind}"
            rounds = []
            for k in range(args.runs):
                print(f"{tag}: round {k + 1} of {args.runs}", file=sys.stderr, flush=True)
                rounds.append(one_round(log, f"{kind}-{games}", args.one_worker,
                                        args.point_only, args.import_only))
                print(json.dumps(rounds[-1]), file=sys.stderr, flush=True)
            lines += report(tag, rounds)
            for p in DATA.glob(f"vs-{kind}-{games}*"):
                if not args.point_only:
                    p.unlink()
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1].startswith("seasalt-"):
        cmd, rest = sys.argv[1], sys.argv[2:]
        if cmd == "seasalt-import":
            jobs = int(rest[3]) if len(rest) > 3 and rest[2] == "--jobs" else None
            print(json.dumps(seasalt_import(rest[0], rest[1], jobs)))
        elif cmd == "seasalt-replay":
            print(json.dumps(seasalt_replay(rest[0])))
        elif cmd == "seasalt-point":
            print(json.dumps(seasalt_point(rest[0])))
        else:
            raise SystemExit(f"unknown command {cmd!r}")
    else:
        main()
