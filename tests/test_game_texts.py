"""A read-only store keeps games' event texts in memory from its second read
(seasalt_log/store/game_texts.py): what it gives is what was written, for every game and
every ``after``; once a block is read, no game of it costs a query; a game the cache
cannot hold as it is is read from the file."""

from __future__ import annotations

import random

import pytest

from seasalt_log import events as ev
from seasalt_log.errors import UnknownGameError
from seasalt_log.replay import replay, replay_stored
from seasalt_log.service import import_games
from seasalt_log.sim import simulate
from seasalt_log.store import Store, game_texts

from .randomplay import play_random_game


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A store of base, expansion and random games; the games as written."""
    games = ([g for p in (2, 3, 4) for g in simulate(3, p, seed=40 + p)]
             + list(simulate(3, 3, seed=9, ruleset="extra-salt", events="pepper"))
             + [play_random_game(seed, 2 + seed % 3) for seed in range(6)])
    path = tmp_path_factory.mktemp("texts") / "s.duckdb"
    with Store.open(path) as store:
        import_games(store, games)
    return path, games


def _texts(game):       # the oracle: the events as written, encoded as the store keeps them
    return [ev.encode(e).decode() for e in game]


@pytest.mark.parametrize("block", [1, 4, game_texts.BLOCK])
def test_every_game_and_every_after_reads_as_written(stored, monkeypatch, block):
    monkeypatch.setattr(game_texts, "BLOCK", block)
    path, games = stored
    order = list(games)
    random.Random(block).shuffle(order)
    with Store.open(path, read_only=True) as store:
        for game in order:
            gid, want = game[0].game_id, _texts(game)
            assert store.read_texts(gid) == want
            for after in (1, len(want) // 2, len(want) - 1, len(want), len(want) + 5):
                assert store.read_texts(gid, after) == want[after:], (gid, after)
        assert store._texts is not None         # the cache served them
        with pytest.raises(UnknownGameError):
            store.read_texts("no-such-game")
        assert store.read_texts("no-such-game", after=3) == []


class _NoQueries:
    def execute(self, *args, **kwargs):
        raise AssertionError("a query was made")


def test_once_its_block_is_read_a_game_costs_no_query(stored):
    path, games = stored
    with Store.open(path, read_only=True) as store:
        store.read_texts(games[0][0].game_id)      # from the file
        store.read_texts(games[1][0].game_id)      # reads the block (every game here)
        con, store.con = store.con, _NoQueries()
        try:
            for game in games:
                assert store.read_texts(game[0].game_id) == _texts(game)
                mid = (len(game) + 1) // 2        # a point read, as `seasalt replay --seq`
                assert replay_stored(store.read_texts(game[0].game_id), seq=mid) == \
                    replay(game, seq=mid)
        finally:
            store.con = con


def test_a_store_open_for_writing_keeps_nothing(stored, tmp_path):
    path, games = stored
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(path.read_bytes())
    with Store.open(copy) as store:
        for game in games:
            assert store.read_texts(game[0].game_id) == _texts(game)
        assert store._texts is None


def test_a_game_the_cache_cannot_split_is_read_from_the_file(stored, tmp_path):
    """A text holding a newline (no store writes one; a hand-made row may) would split
    wrongly if joined: such a game is left to the file, which gives it whole."""
    path, games = stored
    copy = tmp_path / "odd.duckdb"
    copy.write_bytes(path.read_bytes())
    odd = ['{"type":"x",\n"a":1}', '{"type":"y"}']
    with Store.open(copy) as store:
        n = store.reserve(1)
        store.con.execute("INSERT INTO commits VALUES ('odd', ?, 2, 0)", [n])
        store.con.execute("INSERT INTO events VALUES ('odd', 1, ?, 1, 1, NULL, 'x', ?), "
                          "('odd', 2, ?, 1, 1, NULL, 'y', ?)", [n, odd[0], n, odd[1]])
    with Store.open(copy, read_only=True) as store:
        store.read_texts(games[0][0].game_id)
        store.read_texts(games[1][0].game_id)
        assert store.read_texts("odd") == odd
        assert store.read_texts("odd", 1) == odd[1:]
        assert store.read_texts(games[-1][0].game_id) == _texts(games[-1])
