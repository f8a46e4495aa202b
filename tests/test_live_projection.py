"""The live service's incremental read models: after every append, the rows kept by the
single writer (the rows of the earlier rounds kept, the round in play re-projected with
``project_from``) are exactly the rows ``project`` gives for the whole game."""

from __future__ import annotations

import pytest

from seasalt_log import events as ev
from seasalt_log.service import GameCache, plan_append, start_game, write_planned
from seasalt_log.store import Store
from seasalt_log.store.projections import (ROUND_TABLES, TABLES, ScoreMemo, project,
                                           project_from, round_start)

from .randomplay import play_random_game
from .scenario import states_after as _states




def _mermaid_game() -> list[ev.Event]:
    for seed in range(300):
        game = play_random_game(seed, 2)
        if game[-1].reason == "mermaids":
            return game
    raise AssertionError("no four-mermaid win in 300 random games")


def _games() -> list[list[ev.Event]]:
    games = [play_random_game(seed, players) for players in (2, 3, 4) for seed in range(8)]
    games.append(_mermaid_game())
    return games


def _incremental(game_id, events, states, before: dict, stored: int, memo: list) -> dict:
    """The rows after ``events`` from the rows ``before`` of ``events[:stored]``, as the
    writer computes them (``memo``: [round start, ScoreMemo] of the calls before)."""
    start = round_start(events, stored)
    first_round = events[start].round if start else 0
    if memo[0] != start:
        memo[:] = [start, ScoreMemo()]
    tail = project_from(game_id, events, states, start, scores=memo[1])
    out = {}
    for t in TABLES:
        if t in ROUND_TABLES:
            kept = [r for r in before[t] if r[1] < first_round]
            assert all(r[1] >= first_round for r in tail[t]), t
        else:
            kept = []
        out[t] = kept + tail[t]
    return out


@pytest.mark.parametrize("step", [1, 3])
def test_incremental_rows_equal_project_after_every_append(step):
    """Over random games of 2-4 players (every kind of round ending and a four-mermaid
    win), appended ``step`` events at a time: the incremental rows equal ``project``."""
    checked = 0
    for game in _games():
        gid = game[0].game_id
        states = _states(game)
        rows = project(gid, game[:1], states[:1])
        stored = 1
        memo = [None, None]
        while stored < len(game):
            n = min(len(game), stored + step)
            rows = _incremental(gid, game[:n], states[:n], rows, stored, memo)
            assert rows == project(gid, game[:n], states[:n]), (gid, n)
            stored = n
            checked += 1
    assert checked > 1000


def test_project_from_the_first_event_is_project():
    game = play_random_game(3, 3)
    states = _states(game)
    assert project_from("g", game, states, 0) == project("g", game, states)


def test_project_from_a_round_gives_only_that_round_and_later():
    game = play_random_game(5, 3)
    states = _states(game)
    starts = [i for i, e in enumerate(game) if type(e) is ev.RoundStarted]
    assert len(starts) >= 2
    whole = project("g", game, states)
    part = project_from("g", game, states, starts[1])
    assert {r[1] for r in part["rounds"]} == {r[1] for r in whole["rounds"]} - {1}
    assert part["turns"] == [r for r in whole["turns"] if r[1] >= 2]
    assert part["games"] == whole["games"] and part["seats"] == whole["seats"]
    # round_start: the round of the event before ``end``
    assert round_start(game, starts[1]) == starts[0]
    assert round_start(game, starts[1] + 1) == starts[1]
    assert round_start(game, 1) == 0


def test_a_memo_from_another_history_is_not_used():
    """A ScoreMemo filled by one game gives nothing wrong for another game (its turns end
    at the same seqs, but in other states)."""
    a, b = play_random_game(21, 3), play_random_game(22, 3)
    assert type(a[1]) is ev.RoundStarted and type(b[1]) is ev.RoundStarted
    memo = ScoreMemo()
    sa, sb = _states(a), _states(b)
    end = min(len(a), len(b), 40)
    assert project_from("g", a[:end], sa[:end], 1, scores=memo) == project_from(
        "g", a[:end], sa[:end], 1)
    assert memo.turns
    assert project_from("g", b[:end], sb[:end], 1, scores=memo) == project_from(
        "g", b[:end], sb[:end], 1)


def test_project_from_refuses_a_start_inside_a_round():
    game = play_random_game(5, 3)
    states = _states(game)
    start = next(i for i, e in enumerate(game) if type(e) is ev.RoundStarted)
    with pytest.raises(ValueError, match="round_started"):
        project_from("g", game, states, start + 1)


def test_writer_cache_keeps_the_rows_of_project(tmp_path):
    """Through plan_append/write_planned (several games in one commit, 1-3 events a time),
    each cache's read-model rows equal ``project`` of its game after every commit, and the
    store holds those rows."""
    games = [play_random_game(60 + i, 2 + i % 3) for i in range(4)] + [_mermaid_game()]
    inputs = [[e for e in g if type(e) not in ev.DERIVED_TYPES] for g in games]
    with Store.open(tmp_path / "live.duckdb") as store:
        caches = {}
        for ins in inputs:
            r = start_game(store, ins[0])
            caches[r.game_id] = GameCache.load(store, r.game_id)
        pending = {ins[0].game_id: ins[1:] for ins in inputs}
        k = 0
        while any(pending.values()):
            planned = []
            for gid, left in pending.items():
                if left:
                    size = 1 + (k + len(left)) % 3
                    planned.append(plan_append(caches[gid], left[:size], caches[gid].seq))
                    pending[gid] = left[size:]
            k += 1
            write_planned(store, planned)
            for p in planned:
                c = caches[p.cache.game_id] = p.cache
                assert c.projection == project(c.game_id, c.events, c.states)
        for gid, c in caches.items():
            for t in TABLES:
                got = store.con.execute(f"SELECT * FROM {t} WHERE game_id = ?", [gid]).fetchall()
                assert sorted(got, key=repr) == sorted(c.projection[t], key=repr), (gid, t)
