"""The yardstick of issue 18: a plain SQLite event store that checks nothing.

    python bench/sqlite_baseline.py import LOG DB
    python bench/sqlite_baseline.py replay DB
    python bench/sqlite_baseline.py point DB [--samples 500]

What an engineer would write in an afternoon: one table of ``(game_id, seq, json)`` rows
keyed by ``(game_id, seq)``, WAL mode, each game's rows written with ``executemany`` in one
transaction; a replay that reads the rows back in order, decodes each with ``json.loads``
and folds them with a fold that only counts events. No rule is checked, no derived event
computed, no read model written, no hash chain kept.

Each command prints one JSON object (the figures the bench driver, ``vs_baseline.py``,
reads); the library functions below are what it times.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import statistics
import sys
import time
from collections.abc import Iterable, Iterator

DDL = """CREATE TABLE IF NOT EXISTS events (
    game_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
)"""


def connect(path: str) -> sqlite3.Connection:
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute(DDL)
    return con


def games_of(lines: Iterable[str]) -> Iterator[tuple[str, list[str]]]:
    """(game_id, its lines) for each game of a JSON Lines log (a game starts with its
    ``game_started``, the only event that names the game)."""
    gid, rows = None, []
    for line in lines:
        if not line.strip():
            continue
        event = json.loads(line)
        if event["type"] == "game_started":
            if gid is not None:
                yield gid, rows
            gid, rows = event["game_id"], []
        rows.append(line.rstrip("\n"))
    if gid is not None:
        yield gid, rows


def import_log(con: sqlite3.Connection, path: str) -> int:
    """Store every game of the log, one transaction per game; the events stored."""
    stored = 0
    with open(path, encoding="utf-8") as fh:
        for gid, lines in games_of(fh):
            con.execute("BEGIN")
            con.executemany("INSERT INTO events (game_id, seq, json) VALUES (?, ?, ?)",
                            [(gid, seq, text) for seq, text in enumerate(lines, 1)])
            con.execute("COMMIT")
            stored += len(lines)
    return stored


def fold(state: int, event: dict) -> int:
    """The baseline's fold: it counts events."""
    return state + 1


def replay_all(con: sqlite3.Connection) -> dict[str, int]:
    """Every stored game folded to its end: game_id -> its state (the events counted)."""
    states: dict[str, int] = {}
    for gid, text in con.execute("SELECT game_id, json FROM events ORDER BY game_id, seq"):
        states[gid] = fold(states.get(gid, 0), json.loads(text))
    return states


def replay_to(con: sqlite3.Connection, game_id: str, seq: int) -> int:
    """One game folded up to its event ``seq``."""
    state = 0
    for (text,) in con.execute("SELECT json FROM events WHERE game_id = ? AND seq <= ? "
                               "ORDER BY seq", (game_id, seq)):
        state = fold(state, json.loads(text))
    return state


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def main(argv: list[str]) -> None:
    cmd, *args = argv
    if cmd == "import":
        log, db = args
        con = connect(db)
        t, c = time.perf_counter(), _cpu()
        n = import_log(con, log)
        elapsed, cpu = time.perf_counter() - t, _cpu() - c
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()
        out = {"events": n, "seconds": elapsed, "cpu": cpu}
    elif cmd == "replay":
        con = connect(args[0])
        t, c = time.perf_counter(), _cpu()
        states = replay_all(con)
        out = {"events": sum(states.values()), "games": len(states),
               "seconds": time.perf_counter() - t, "cpu": _cpu() - c}
    elif cmd == "point":
        con = connect(args[0])
        samples = int(args[2]) if len(args) > 2 and args[1] == "--samples" else 500
        games = con.execute("SELECT game_id, max(seq) FROM events GROUP BY game_id").fetchall()
        rng = random.Random(7)
        times, cpu = [], []
        for gid, last in (rng.choice(games) for _ in range(samples)):
            t, c = time.perf_counter(), time.process_time()
            replay_to(con, gid, (last + 1) // 2)
            times.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
        out = {"median_ms": statistics.median(times), "cpu_median_ms": statistics.median(cpu),
               "samples": samples}
    else:
        raise SystemExit(f"unknown command {cmd!r}: import, replay or point")
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
