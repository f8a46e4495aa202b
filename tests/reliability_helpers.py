"""Test equipment shared by the reliability tests (fuzzing, crashes, concurrency, verify):
valid games to start from, the ``seasalt`` command line as a user runs it, and the
"every stored game is whole" check.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from seasalt_log import events as ev
from seasalt_log.errors import SeasaltError
from seasalt_log.store import Store
from seasalt_log.store.projections import TABLES

from .randomplay import play_random_game


def valid_games(count: int, seed: int = 0) -> list[list[ev.Event]]:
    """``count`` complete, legal games (derived events included), 2 to 4 players.

    Most come from the simulator (its bots through the engine); every fourth is a random
    game of :mod:`tests.randomplay`, half of those without a recorded deck order, so the
    inputs cover both kinds of ``round_started``.
    """
    out: list[list[ev.Event]] = []
    for i in range(count):
        players = 2 + (seed + i) % 3
        if i % 4 == 3:
            out.append(play_random_game(seed * 1000 + i, players, ordered=bool(i % 8 == 3),
                                        call_rate=0.5))
        else:
            out.append(_simulated(seed, i, players))
    return out


def _simulated(seed: int, index: int, players: int) -> list[ev.Event]:
    try:
        from seasalt_log.sim import simulate
    except ImportError:                                   # pragma: no cover
        return play_random_game(seed * 1000 + index, players)
    for bots in (None, ("random", "greedy")):
        try:
            return next(iter(simulate(1, players, seed * 1000 + index, bots=bots)))
        except SeasaltError:                              # pragma: no cover - bot not there
            continue
    return play_random_game(seed * 1000 + index, players)  # pragma: no cover


def write_log(path: Path, games) -> Path:
    """Write games as JSON Lines."""
    with open(path, "wb") as fh:
        for g in games:
            fh.write(ev.encode_lines(g))
    return path


def seasalt_argv() -> list[str]:
    """The ``seasalt`` command the way a user runs it: the installed script next to this
    Python, else the same entry point through the interpreter."""
    script = Path(sys.executable).with_name("seasalt")
    if script.exists() and os.access(script, os.X_OK):
        return [str(script)]
    found = shutil.which("seasalt")
    if found:
        return [found]
    return [sys.executable, "-c", "from seasalt_cli.main import app; app()"]


def table_rows(store: Store, game_id: str | None = None) -> dict[str, list]:
    """Every row of the events table and of each read model (of one game, or all)."""
    where = "" if game_id is None else " WHERE game_id = ?"
    args = [] if game_id is None else [game_id]
    return {t: store.con.execute(f"SELECT * FROM {t}{where} ORDER BY ALL", args).fetchall()
            for t in ("events", *TABLES)}


def assert_games_whole(store: Store, game_ids=None) -> None:
    """Each game (default: every game in any table) is either whole or absent.

    Whole: events numbered 1..n, the games row says n events, every event legal and the
    read models equal a recomputation (:mod:`seasalt_log.verify`). Absent: no row in any
    table.
    """
    from seasalt_log.verify import verify_store
    con = store.con
    if game_ids is None:
        parts = ["SELECT game_id FROM events"] + [f"SELECT game_id FROM {t}" for t in TABLES]
        game_ids = [r[0] for r in con.execute(" UNION ".join(parts)).fetchall()]
    game_ids = [g for g in game_ids if g is not None]
    if not game_ids:
        return
    counts = dict(con.execute("SELECT game_id, count(*) FROM events WHERE game_id IN "
                              "(SELECT unnest(?)) GROUP BY game_id", [game_ids]).fetchall())
    heads = dict(con.execute("SELECT game_id, max(seq) FROM events WHERE game_id IN "
                             "(SELECT unnest(?)) GROUP BY game_id", [game_ids]).fetchall())
    stated = dict(con.execute("SELECT game_id, events FROM games WHERE game_id IN "
                              "(SELECT unnest(?))", [game_ids]).fetchall())
    for gid in game_ids:
        n = counts.get(gid, 0)
        if n == 0:
            for t in TABLES:
                left = con.execute(f"SELECT count(*) FROM {t} WHERE game_id = ?", [gid]).fetchone()[0]
                assert left == 0, f"game {gid!r} has no events but {left} row(s) in {t}"
            continue
        assert heads[gid] == n, f"game {gid!r}: {n} events but the last seq is {heads[gid]}"
        assert stated.get(gid) == n, f"game {gid!r}: {n} events, the games row says {stated.get(gid)}"
    report = verify_store(store, game_ids)
    assert report.ok, "\n".join(map(str, report.differences[:20]))
