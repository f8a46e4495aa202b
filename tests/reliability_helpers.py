"""Test equipment shared by the reliability tests (fuzzing, crashes, concurrency, verify):
valid games to start from, the ``seasalt`` command line as a user runs it, and the
"every stored game is whole" check.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log.errors import SeasaltError
from seasalt_log.store import Store
from seasalt_log.store.projections import TABLES


def valid_games(count: int, seed: int = 0) -> list[list[ev.Event]]:
    """``count`` complete, legal games (derived events included), 2 to 4 players, played
    by the simulator's bots through the engine.

    Every fourth game has its deck order removed from each ``round_started`` (a log may
    leave it out: every draw is then an unseen card), so both kinds of log are covered.
    """
    out: list[list[ev.Event]] = []
    for i in range(count):
        game = _simulated(seed, i, 2 + (seed + i) % 3)
        if i % 4 == 3:
            game = [replace(e, deck=None) if type(e) is ev.RoundStarted else e for e in game]
        out.append(game)
    return out


def _simulated(seed: int, index: int, players: int) -> list[ev.Event]:
    from seasalt_log.sim import simulate
    bots = None if index % 3 else ("random",)
    try:
        return next(iter(simulate(1, players, seed * 1000 + index, bots=bots)))
    except SeasaltError:                                  # pragma: no cover - a bot not there
        return next(iter(simulate(1, players, seed * 1000 + index, bots=("random",))))


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


def assert_games_whole(store: Store, game_ids=None, *, verify=None) -> None:
    """Each game (default: every game in any table) is either whole or absent.

    Whole: events numbered 1..n, the games row says n events, and (for the games of
    ``verify``, default all of them) every event legal and the read models equal a
    recomputation (:mod:`seasalt_log.verify`). Absent: no row in any table.
    """
    from seasalt_log.verify import verify_store
    con = store.con
    if game_ids is None:
        parts = ["SELECT game_id FROM events"] + [f"SELECT game_id FROM {t}" for t in TABLES]
        game_ids = [r[0] for r in con.execute(" UNION ".join(parts)).fetchall()]
    game_ids = [g for g in game_ids if g is not None]
    if not game_ids:
        return
    rows = con.execute("SELECT game_id, count(*), max(seq) FROM events WHERE game_id IN "
                       "(SELECT unnest(?)) GROUP BY game_id", [game_ids]).fetchall()
    counts = {g: n for g, n, _ in rows}
    heads = {g: h for g, _, h in rows}
    stated = dict(con.execute("SELECT game_id, events FROM games WHERE game_id IN "
                              "(SELECT unnest(?))", [game_ids]).fetchall())
    absent = [g for g in game_ids if not counts.get(g)]
    if absent:
        for t in TABLES:
            left = con.execute(f"SELECT game_id, count(*) FROM {t} WHERE game_id IN "
                               "(SELECT unnest(?)) GROUP BY game_id", [absent]).fetchall()
            assert not left, f"games with no events but rows in {t}: {left[:5]}"
    present = [g for g in game_ids if counts.get(g)]
    for gid in present:
        n = counts[gid]
        assert heads[gid] == n, f"game {gid!r}: {n} events but the last seq is {heads[gid]}"
        assert stated.get(gid) == n, f"game {gid!r}: {n} events, the games row says {stated.get(gid)}"
    report = verify_store(store, present if verify is None else verify)
    assert report.ok, "\n".join(map(str, report.differences[:20]))
