"""Large results: the read commands over a 100,000-game store.

    python bench/large_results.py [--games 100000] [--base 2000] [--cache DIR] [--only WORD]
                                  [--verify]

Builds the store once for this code in ``--cache`` (default ``$SEASALT_BENCH_DATA`` when
set, else ``~/.cache/seasalt-bench``, outside the repository): ``--base`` simulated 3-player games,
each written again under new game ids (``big-<copy>-<i>``) until the log holds ``--games``
games, imported with ``seasalt import``. Then times each command below as a whole process (wall and CPU seconds, the
output thrown away) and prints Markdown rows for bench/RESULTS.md ("Large results").
For figures to quote, time one command several times as a whole process and take the median.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

COMMANDS = [
    ("games (a table: the first 40)", ["games", "--format", "table"]),
    ("games --offset {half} --limit 20 --sort rounds", ["games", "--format", "table", "--offset",
                                                        "{half}", "--limit", "20", "--sort",
                                                        "rounds"]),
    ("games --format csv (every game)", ["games", "--format", "csv"]),
    ("games --format json (every game)", ["games", "--format", "json"]),
    ("games --format jsonl (every game)", ["games", "--format", "jsonl"]),
    ("query: every game as a table (40 shown)", ["query", "SELECT * FROM games", "--format", "table"]),
    ("query: every game as CSV", ["query", "SELECT * FROM games", "--format", "csv"]),
    ("query: every game as JSON", ["query", "SELECT * FROM games", "--format", "json"]),
    ("query: every game as JSON Lines", ["query", "SELECT * FROM games", "--format", "jsonl"]),
    ("query: every seat result of every round as CSV", ["query", "SELECT * FROM round_results",
                                                       "--format", "csv"]),
    ("query: every game --out a Parquet file", ["query", "SELECT * FROM games", "--out",
                                                "{parquet}.games.parquet"]),
    ("query: every seat result of every round --out a Parquet file",
     ["query", "SELECT * FROM round_results", "--out", "{parquet}.results.parquet"]),
    ("stats win-rates", ["stats", "win-rates", "--format", "table"]),
    ("stats calls --format csv", ["stats", "calls", "--format", "csv"]),
    ("stats calls --format json", ["stats", "calls", "--format", "json"]),
    ("show one game", ["show", "{game}", "--format", "table"]),
    ("replay one game at a turn", ["replay", "{game}", "--round", "2", "--turn", "5"]),
    ("export --all (every event)", ["export", "--all"]),
    ("export --parquet DIR (events and read models)", ["export", "--parquet", "{parquet}"]),
    ("verify --quick --jobs 2 (seqs, chain, writes, heads, numbers, row counts)",
     ["verify", "--quick", "--jobs", "2", "--no-progress"]),
    ("verify --jobs 2 (every game: its import's record, or the engine)",
     ["verify", "--jobs", "2", "--no-progress"]),
]
#: where the store is built (``--cache``): $SEASALT_BENCH_DATA when set (bench_data.py)
CACHE = Path(os.environ.get("SEASALT_BENCH_DATA") or Path.home() / ".cache" / "seasalt-bench")
#: ``--verify``: also the whole-store check that folds every event through the engine again,
#: in two worker processes (the slowest of these by far)
VERIFY = ("verify --refold --jobs 2 (every game folded)",
          ["verify", "--refold", "--jobs", "2", "--no-progress"])


def build(cache: Path, games: int, base: int) -> Path:
    """The store (built once for this code: ``verify`` takes the games on their import's
    record only under the code that imported them): the log of ``base`` games copied
    under new ids, imported. A store built by other code is removed."""
    from seasalt_log.store.checked import code_fingerprint
    db = cache / f"large-{games}-{code_fingerprint()}.duckdb"
    if db.exists():
        return db
    for old in cache.glob(f"large-{games}*.duckdb"):
        old.unlink()
    from seasalt_log import events as ev
    from seasalt_log.sim import simulate
    from msgspec.structs import replace
    cache.mkdir(parents=True, exist_ok=True)
    log = cache / f"large-{games}.jsonl"
    originals = [[e for e in g if type(e) not in ev.DERIVED_TYPES]
                 for g in simulate(base, 3, 1)]
    with open(log, "wb") as fh:
        for n in range(games):
            copy, i = divmod(n, base)
            g = originals[i]
            fh.write(ev.encode_lines([replace(g[0], game_id=f"big-{copy}-{i}"), *g[1:]]))
    subprocess.run([sys.executable, "-m", "seasalt_cli", "import", str(log), "--db",
                    str(db) + ".part", "--no-progress"], check=True, cwd=ROOT)
    os.replace(str(db) + ".part", db)
    log.unlink()
    return db


def timed(db: Path, args: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one ``seasalt`` run, its output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-c", "from seasalt_cli.main import main; main()", *args,
                    "--db", str(db)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--base", type=int, default=2000)
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--only", metavar="WORD", help="Only the commands whose name holds WORD.")
    ap.add_argument("--verify", action="store_true", help="Also time `seasalt verify`.")
    a = ap.parse_args()
    t0 = time.monotonic()
    db = build(a.cache, a.games, a.base)
    print(f"store: {db} ({db.stat().st_size / 2**20:.0f} MiB; ready in "
          f"{time.monotonic() - t0:.0f} s)", file=sys.stderr)
    names = {"half": str(a.games // 2), "game": f"big-{a.games // a.base // 2}-{a.base // 2}",
             "parquet": str(a.cache / f"large-{a.games}-parquet")}
    print(f"{a.games:,} games\n\n| command | wall s | CPU s |\n|---|---:|---:|")
    for what, args in COMMANDS + ([VERIFY] if a.verify else []):
        if a.only and a.only not in what:
            continue
        wall, cpu = timed(db, [arg.format(**names) for arg in args])
        what = what.format(**names)
        print(f"| `{what}` | {wall:.2f} | {cpu:.2f} |", flush=True)
    shutil.rmtree(names["parquet"], ignore_errors=True)
    for kind in ("games", "results"):
        Path(f"{names['parquet']}.{kind}.parquet").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
