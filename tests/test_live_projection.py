"""The live service's incremental read models: after every append, the rows kept by the
single writer (a ``Projector`` fed each append, and the rows it says to delete and insert)
are exactly the rows ``project`` gives for the whole game."""

from __future__ import annotations

import duckdb
import pytest

from seasalt_log import events as ev
from seasalt_log.engine.core import player_breakdown
from seasalt_log.scoring import as_breakdown
from seasalt_log.service import (GameCache, plan_append, prepare_write, start_game,
                                 store_prepared, write_planned)
from seasalt_log.store import Store
from seasalt_log.store.projections import ROW_KEY, TABLES, Projector, ScoreMemo, project

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


def _apply(tables: dict[str, dict], p: Projector) -> None:
    """Apply the projector's changes since its last call to ``tables`` (by table, rows by
    key), as the store's deletes and inserts do; a row inserted over a row left in place
    would be a duplicate key."""
    keys = {t: [] for t in TABLES}
    insert = {t: [] for t in TABLES}
    p.changes(keys, insert)
    for t in TABLES:
        for k in keys[t]:
            del tables[t][k]                    # only rows that are there are deleted
        for r in insert[t]:
            k = ROW_KEY[t](r)
            assert k not in tables[t], (t, k)
            tables[t][k] = r


def _expansion_games() -> list[list[ev.Event]]:
    """Simulated games of every expansion setting: Extra Salt without and with the Extra
    Pepper events, the base cards with the events; 2-4 players."""
    from seasalt_log.sim import simulate
    return [g for k, (ruleset, events) in enumerate((("extra-salt", None), ("extra-salt", "pepper"),
                                                     (None, "pepper")))
            for players in (2, 3, 4) for g in simulate(2, players, 70 + 10 * k, None, ruleset, events)]


def _rounds_agree_with_turns(rows: dict[str, list[tuple]], started) -> None:
    """Each ``rounds`` row counts the round's ``turns`` rows, and has the deck its latest
    one has (the deck of ``started``, the state after its round_started, if it has none)."""
    at = {c: i for i, c in enumerate(TABLES["turns"])}
    for r in rows["rounds"]:
        turns = [t for t in rows["turns"] if t[at["round"]] == r[1]]
        assert r[9] == len(turns), r
        if turns:
            assert r[10] == max(turns, key=lambda t: t[at["turn"]])[at["deck_left"]], r
        elif started is not None and r[1] == started.flow.round:
            assert r[10] == len(started.table.deck), r


def _incremental_checks(game: list[ev.Event], step: int) -> int:
    """Feed ``game`` to a projector ``step`` events at a time; after every append its
    rows, and the rows its changes leave in the tables, equal ``project``, and the changes
    touch only what changed. The appends checked."""
    gid = game[0].game_id
    states = _states(game)
    p = Projector(gid, game[0])
    tables: dict[str, dict] = {t: {} for t in TABLES}
    stored = checked = 0
    while stored < len(game):
        n = min(len(game), stored + step)
        before = {t: dict(rows) for t, rows in tables.items()}
        p.feed(game[:n], states[:n])
        _apply(tables, p)
        want = project(gid, game[:n], states[:n])
        assert p.rows() == want, (gid, n)
        _rounds_agree_with_turns(want, states[n - 1] if type(game[n - 1]) is ev.RoundStarted
                                 else None)
        for t in TABLES:
            assert sorted(tables[t].values(), key=repr) == sorted(want[t], key=repr), (t, n)
            # a row left as it was is neither deleted nor inserted again
            rewritten = {k for k, r in tables[t].items() if before[t].get(k) is not r}
            assert rewritten == {k for k, r in tables[t].items() if before[t].get(k) != r}
        stored = n
        checked += 1
    return checked


@pytest.mark.parametrize("step", [1, 3])
def test_incremental_rows_equal_project_after_every_append(step):
    """Over random games of 2-4 players (every kind of round ending and a four-mermaid
    win), appended ``step`` events at a time: the projector's rows, and the rows its
    changes leave in the tables, equal ``project``; the changes touch only what changed."""
    assert sum(_incremental_checks(game, step) for game in _games()) > 1000


@pytest.mark.parametrize("step", [1, 2])
def test_incremental_rows_equal_project_over_expansion_games(step):
    """The same over simulated games of the expansions (starfish, face-down shells, forced
    turns, the events' awards between rounds)."""
    assert sum(_incremental_checks(game, step) for game in _expansion_games()[::2]) > 1000


#: the turns columns a turn's close sets: how it ended, and the hand, points and deck after it
_CLOSE_COLUMNS = {"ended", "hand_size", "card_points", "color_bonus", "deck_left", "last_seq"}


@pytest.mark.parametrize("expansions", [False, True])
def test_a_turn_in_play_and_closed_has_the_same_columns(expansions):
    """A closed turn's row (built by ``feed``) and the same turn's row one event before its
    end (the turn in play, built by ``_close_turn``) agree on every column its close does
    not set; each row's player, hand and deck are those of the state after its last event."""
    cols = TABLES["turns"]
    at = {c: i for i, c in enumerate(cols)}
    checked = 0
    for game in (_expansion_games()[::3] if expansions else _games()[::3]):
        gid, states = game[0].game_id, _states(game)
        for closed in project(gid, game, states)["turns"]:
            first, last = closed[at["first_seq"]], closed[at["last_seq"]]
            if last == first:
                continue                        # the turn is its end alone: never in play
            in_play = project(gid, game[:last - 1], states[:last - 1])["turns"][-1]
            assert in_play[at["ended"]] is None and closed[at["ended"]] is not None
            assert first <= in_play[at["last_seq"]] < last
            for c in cols:
                if c not in _CLOSE_COLUMNS:
                    assert in_play[at[c]] == closed[at[c]], (gid, c, in_play, closed)
            for row in (in_play, closed):
                s, seat = states[row[at["last_seq"]] - 1], row[at["seat"]]
                assert type(game[row[at["first_seq"]] - 1]).__name__ != "RoundStarted"
                assert seat == game[row[at["first_seq"]] - 1].player
                assert row[at["hand_size"]] == len(s.table.hands[seat])
                assert row[at["deck_left"]] == len(s.table.deck)
                assert (row[at["round"]], row[at["turn"]]) == (s.flow.round, states[
                    row[at["first_seq"]] - 2].flow.turn)
            checked += 1
    assert checked > 100


def test_a_memo_from_another_history_is_not_used():
    """A ScoreMemo (the one a Projector keeps across appends) filled by one game, whose
    states are then dropped, gives every seat of another game the engine's own breakdown."""
    import gc
    memo = ScoreMemo()
    a = play_random_game(21, 3)
    for s in _states(a)[1:40]:
        for seat in range(s.n):
            memo.of(s, seat)
    assert memo.memo
    del a
    gc.collect()
    b = play_random_game(22, 3)
    for s in _states(b)[1:40]:
        for seat in range(s.n):
            assert memo.of(s, seat) == as_breakdown(player_breakdown(s, seat))


def test_a_memo_that_keeps_nothing_gives_the_engines_breakdowns():
    """A ScoreMemo told to keep nothing (``project``'s: each state scored once) gives every
    seat the engine's own breakdown, and keeps none of them."""
    memo = ScoreMemo(keep=False)
    for s in _states(play_random_game(23, 4))[1:60]:
        for seat in range(s.n):
            assert memo.of(s, seat) == as_breakdown(player_breakdown(s, seat))
            assert memo.points(s, seat) == (memo.of(s, seat).card_points,
                                            memo.of(s, seat).color_bonus)
    assert not memo.memo


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


def _all_rows(store: Store) -> dict[str, list]:
    return {t: sorted(store.con.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
            for t in ("events", "commits", "heads", *TABLES)}


def test_a_failed_commit_stores_nothing_and_leaves_no_row_behind(tmp_path):
    """A commit that fails part-way (a ``commits`` row the appender refuses, after the
    events and the good ``commits`` row before it went in) stores nothing; the writer's
    appenders, kept across commits, then hold no row of it: the game read back and appended
    to the end has exactly the rows of ``project`` and one ``commits`` row per commit."""
    inputs = [e for e in play_random_game(71, 3) if type(e) not in ev.DERIVED_TYPES]
    with Store.open(tmp_path / "live.duckdb") as store:
        gid = start_game(store, inputs[0]).game_id
        cache = GameCache.load(store, gid)
        for e in inputs[1:8]:
            p = plan_append(cache, [e], cache.seq)
            write_planned(store, [p])
            cache = p.cache
        before = _all_rows(store)
        w = prepare_write([plan_append(cache, [inputs[8]], cache.seq)])
        w.commits.append(("not a commits row",))
        with pytest.raises(duckdb.Error):
            store_prepared(store, w)
        assert _all_rows(store) == before
        cache = GameCache.load(store, gid)        # its rows are rewritten whole
        commits = 1 + 7 + len(inputs[8:])
        for e in inputs[8:]:
            p = plan_append(cache, [e], cache.seq)
            write_planned(store, [p])
            cache = p.cache
        rows = project(gid, cache.events, cache.states)
        got = _all_rows(store)
        for t in TABLES:
            assert got[t] == sorted(rows[t], key=repr), t
        assert len(got["events"]) == len(cache.events)
        assert len(got["commits"]) == commits
