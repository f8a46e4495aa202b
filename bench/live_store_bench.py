"""A store recorded live: bytes per event and replay time when games are interleaved.

    python bench/live_store_bench.py [--games 1000] [--in-flight 512] [--per-commit 146]

``seasalt serve`` stores each append as it comes: with many tables playing at once, one
group commit holds one event of each of many games, so a game's events end up spread over
the events table instead of lying together as an import leaves them. This records the
input events of simulated games (``bench/.data/sim-10000.jsonl``, made by
``store_bench.py``) the way the service's writer does (``plan_start`` / ``plan_append`` /
``write_planned``), ``--in-flight`` games at a time, each commit taking the next event of
``--per-commit`` of them in turn (146 is what the HTTP bench's 512 clients made). Then it
reports the file's bytes per event and replays 500 random games to a mid-game turn, as
``store_bench.py`` does for an imported store.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import OrderedDict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from seasalt_log import events as ev  # noqa: E402
from seasalt_log.service import plan_append, plan_start, write_planned  # noqa: E402
from seasalt_log.store import Store  # noqa: E402
from store_bench import DATA, corpus, report_replay  # noqa: E402


def input_games(log: Path, n: int) -> list[list[ev.Event]]:
    """The input events (derived ones left out) of the first ``n`` games of ``log``."""
    games: list[list[ev.Event]] = []
    with open(log, "rb") as fh:
        for line in fh:
            e = ev.decode(line)
            if type(e) is ev.GameStarted:
                if len(games) == n:
                    break
                games.append([])
            if type(e) not in ev.DERIVED_TYPES:
                games[-1].append(e)
    return games


def record(store: Store, games: list[list[ev.Event]], in_flight: int, per_commit: int) -> int:
    """Store ``games`` as the service's writer would; the number of commits."""
    waiting = list(range(len(games)))
    waiting.reverse()
    playing: OrderedDict[int, tuple] = OrderedDict()    # game -> (cache, next event) or None
    commits = 0
    while waiting or playing:
        while waiting and len(playing) < in_flight:
            playing[waiting.pop()] = None
        batch = []
        for i in list(playing)[:per_commit]:
            state = playing.pop(i)
            if state is None:
                batch.append((i, plan_start(store, games[i][0]), 1))
            else:
                cache, k = state
                batch.append((i, plan_append(cache, [games[i][k]], cache.seq), k + 1))
        write_planned(store, [p for _, p, _ in batch])
        commits += 1
        for i, p, k in batch:                  # served games go to the back of the queue
            if k < len(games[i]):
                playing[i] = (p.cache, k)
    return commits


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--in-flight", type=int, default=512)
    ap.add_argument("--per-commit", type=int, default=146)
    args = ap.parse_args()
    games = input_games(corpus(10_000), args.games)
    db = DATA / f"live-{args.games}.duckdb"
    for p in (db, db.with_suffix(".duckdb.wal")):
        p.unlink(missing_ok=True)
    with Store.open(db) as store:
        t = time.perf_counter()
        commits = record(store, games, args.in_flight, args.per_commit)
        elapsed = time.perf_counter() - t
        store.con.execute("CHECKPOINT")
        events, writes = (store.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                          for t in ("events", "commits"))
    size = db.stat().st_size
    print(f"recorded {len(games)} games, {events} events in {commits} commits "
          f"({elapsed:.0f} s); {writes} rows in commits")
    print(f"store: {size / 1e6:.1f} MB = {size / events:.1f} bytes/event (whole file)")
    report_replay(db)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
