"""Where an import's check spends its time, stage by stage: CPU ns per event of reading
(decoding and the format checks), the rules engine, the read models (and, within them, the
closed turns' points), and the events table's columns, over a sample of a log's games.

    python bench/check_parts.py LOG                 # every 4th game of LOG
    python bench/check_parts.py LOG --every 1 --by-type

The stages are those of ``importers.chunks.check_chunk``; ``arrow`` turns the read models'
rows into Arrow tables, as an import checking in its own process keeps them (its ``--stage``
run projects the games first: subtract a ``--stage project`` run); ``events`` makes the
events table's columns (the ``columns`` stage) and turns them into Arrow as ``check_chunk``
does (subtract a ``--stage columns`` run for the Arrow part). Each figure is the best
of ``--repeat`` runs of process CPU time, the garbage collector off (the import's checking
thread runs so); ``--by-type``: the engine's CPU ns per event of each type, and its share
of all the events. For instruction counts, run it under ``valgrind --tool=callgrind``
(``PYTHONHASHSEED=0``) with ``--stage`` naming one stage, once with ``--stage none`` for the
start-up to subtract.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from seasalt_log.engine import State  # noqa: E402
from seasalt_log.engine import core  # noqa: E402
from seasalt_log.engine.core import HANDLERS  # noqa: E402
from seasalt_log.importers import chunks  # noqa: E402
from seasalt_log.importers.chunks import add_events  # noqa: E402
from seasalt_log.importers.jsonl import check_game, read_games_data  # noqa: E402
from seasalt_log.scoring import (seat_extra_points_and_bonus, seat_points_and_bonus,  # noqa: E402
                                 seat_records)
from seasalt_log.store import projections  # noqa: E402
from seasalt_log.store.arrow_rows import RowSink  # noqa: E402
from seasalt_log.store.event_table import event_columns  # noqa: E402

STAGES = ("read", "check", "project", "columns", "arrow", "events")


def sample(log: Path, every: int) -> bytes:
    """Every ``every``-th game of ``log`` (whole lines, cut at its game starts)."""
    games: list[list[bytes]] = []
    for line in log.read_bytes().split(b"\n"):
        if not line.strip():
            continue
        # (find, not ``in``: bytes.__contains__ tries its operand as an int first and
        # formats a TypeError per line, which made most of a stage's start-up to subtract)
        if line.find(b'"type":"game_started"') != -1 or not games:
            games.append([])
        games[-1].append(line)
    return b"".join(b"\n".join(g) + b"\n" for g in games[::every])


def best(run: Callable[[], Any], repeat: int) -> float:
    """The least process CPU seconds of ``repeat`` calls of ``run``."""
    times = []
    for _ in range(repeat):
        t = time.process_time()
        run()
        times.append(time.process_time() - t)
    return min(times)


def _apply_each(pairs: list[tuple[State, Any]]) -> None:
    """Each event's rules on the state before it (the states made are dropped at once)."""
    for s, e in pairs:
        HANDLERS[type(e)](s, e)


def _closed_turns_points(turns: list[tuple[State, int]]) -> None:
    """One game's closed turns scored as the read models score them (each seat's holding
    counted on from its last count; a base game's Extra Salt cards would need a breakdown:
    none in these logs)."""
    counted = seat_records(turns[0][0].n if turns else 0)
    for s, seat in turns:
        t, rules = s.table, s.ruleset
        if rules.extra_scoring:
            seat_extra_points_and_bonus(counted, seat, t.hands[seat], t.laid[seat],
                                        s.effects(seat), rules.starfish_in_hand_scores)
        else:
            seat_points_and_bonus(counted, seat, t.hands[seat], t.laid[seat])


def _types(raw: Any, game: Any) -> bytes | None:
    """The type codes of ``game``'s events as an import hands them to the read models: the
    reader's, when the log's lines are its events."""
    texts = raw.texts if raw.texts is not None and len(raw.texts) == len(game.events) else None
    return chunks.reader_type_codes(texts)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", type=Path)
    ap.add_argument("--every", type=int, default=4, help="check every n-th game (default 4)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--by-type", action="store_true")
    ap.add_argument("--stage", choices=(*STAGES, "none"),
                    help="run that stage once, untimed (for callgrind)")
    a = ap.parse_args(argv)
    data = sample(a.log, a.every)
    gc.disable()
    # an import projects each game right after its check, so the read models find every
    # round end's breakdowns in the engine's memo (core.round_breakdowns); here every game
    # is checked first: the memo keeps all their round ends, as it keeps a game's
    core.ROUND_ENDS_KEPT = 1 << 30
    raws = list(read_games_data(data, str(a.log)))
    games = [check_game(r) for r in raws]
    n = sum(len(g.events) for g in games)
    rows: list[dict[str, list[tuple]]] = []

    def arrow() -> None:            # the read models' rows into Arrow tables, kept in memory
        sink = RowSink(tuple(projections.TABLES))
        for r in rows:
            sink.add(r)
        sink.close()

    def events() -> None:           # the events table's columns into Arrow, as check_chunk
        sink = RowSink(("events",))
        for i, (g, r) in enumerate(zip(games, raws)):
            add_events(sink, i, g, r.texts)
        sink.close()

    runs: dict[str, Callable[[], Any]] = {
        "read": lambda: list(read_games_data(data, str(a.log))),
        "check": lambda: [check_game(r) for r in raws],
        "project": lambda: [projections.project(g.game_id, g.events, g.states, _types(r, g))
                            for g, r in zip(games, raws)],
        "columns": lambda: [event_columns(g.game_id, i, g.events, g.states, texts=r.texts)
                            for i, (g, r) in enumerate(zip(games, raws))],
        "arrow": arrow,
        "events": events,
    }
    if a.stage in (None, "arrow"):
        rows += runs["project"]()
    if a.stage is not None:
        if a.stage != "none":
            runs[a.stage]()
        return
    print(f"{len(games)} games, {n:,} events (derived included)")
    for name, run in runs.items():
        print(f"{name:>8} {best(run, a.repeat) * 1e9 / n:7.0f} ns/event")
    # the closed turns' points, scored as the read models score them (the turn's seat
    # after its last event; a round's last turn is scored with the round's end)
    closed = [[(s, g.states[i - 1].flow.player)
               for i, (e, s) in enumerate(zip(g.events, g.states))
               if type(e) in projections._ENDED and s.flow.due != "round_scored"]
              for g in games]
    t = best(lambda: [_closed_turns_points(c) for c in closed], a.repeat)
    turns = sum(map(len, closed))
    print(f"{'  of project: closed turns points':>8} {t * 1e9 / n:.0f} ns/event "
          f"({t * 1e9 / turns:.0f} ns per closed turn, {turns:,} turns)")
    if a.by_type:
        cases: dict[str, list[tuple[State, Any]]] = {}
        for g in games:
            before = State()
            for e, s in zip(g.events, g.states):
                cases.setdefault(type(e).__name__, []).append((before, e))
                before = s
        rows = []
        for name, pairs in cases.items():
            t = best(lambda: _apply_each(pairs), a.repeat)
            rows.append((t, name, len(pairs)))
        print("the engine's handlers, by event type:")
        for t, name, k in sorted(rows, reverse=True):
            print(f"{name:>18} {k:7,d} events {t * 1e9 / k:7.0f} ns each "
                  f"{t * 1e9 / n:5.0f} ns per event of all")


if __name__ == "__main__":
    main()
