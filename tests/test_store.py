"""The store contract: append, expected-sequence conflicts, idempotent re-import, extension,
nothing stored when a game fails, triggers refusing UPDATE/DELETE, export round trip."""

from __future__ import annotations

import duckdb
import pytest

from seasalt_log import events as ev
from seasalt_log.engine import fold
from seasalt_log.errors import IllegalMoveError, StreamConflictError, UnknownGameError
from seasalt_log.service import append_events, export_lines, import_logs, start_game
from seasalt_log.store import Store
from seasalt_log.store.projections import TABLES

from . import chain_oracle
from .randomplay import play_random_game


def _inputs(events):
    return [e for e in events if type(e) not in ev.DERIVED_TYPES]


def write_log(path, *games, derived=True):
    with open(path, "wb") as fh:
        for g in games:
            fh.write(ev.encode_lines(g if derived else _inputs(g)))
    return path


@pytest.fixture
def store(tmp_path):
    s = Store.open(tmp_path / "s.duckdb")
    yield s
    s.close()


@pytest.fixture(scope="module")
def games():
    return [play_random_game(seed, 2 + seed % 3) for seed in range(6)]


def table_rows(store: Store) -> dict[str, list]:
    return {t: store.con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
            for t in ("events", *TABLES)}


def test_import_stores_every_event_with_derived_ones(store, tmp_path, games):
    log = write_log(tmp_path / "a.jsonl", *games, derived=False)
    summary = import_logs(store, [log])
    assert (summary.new, summary.failed) == (len(games), 0)
    assert summary.events_stored == sum(len(g) for g in games)
    for g in games:
        assert store.read_events(g[0].game_id) == g        # derived events were added
        assert store.head(g[0].game_id)[0] == len(g)


def test_reimport_is_a_no_op(store, tmp_path, games):
    log = write_log(tmp_path / "a.jsonl", *games)
    import_logs(store, [log])
    before = table_rows(store)
    summary = import_logs(store, [log])
    assert (summary.new, summary.unchanged, summary.events_stored) == (0, len(games), 0)
    assert table_rows(store) == before


def test_extension_appends_only_the_tail(store, tmp_path, games):
    g = games[1]
    cut = len(g) // 2
    import_logs(store, [write_log(tmp_path / "a.jsonl", g[:cut])])
    gid = g[0].game_id
    assert store.con.execute("SELECT status FROM games WHERE game_id=?", [gid]).fetchone()[0] == "in_progress"
    summary = import_logs(store, [write_log(tmp_path / "b.jsonl", g)])
    assert summary.extended == 1 and summary.events_stored == len(g) - cut
    assert store.read_events(gid) == g
    assert store.con.execute("SELECT status FROM games WHERE game_id=?", [gid]).fetchone()[0] == "ended"
    # the chain continues across the extension: each write records the link over its
    # events from the write before (hashlib here); a one-shot import records one write
    fresh = Store.open(tmp_path / "fresh.duckdb")
    import_logs(fresh, [tmp_path / "b.jsonl"])
    q = "SELECT seq, hash FROM commits WHERE game_id = ? ORDER BY seq"
    writes, once = store.con.execute(q, [gid]).fetchall(), fresh.con.execute(q, [gid]).fetchall()
    texts = [ev.encode(e) for e in g]
    assert writes == list(zip([cut, len(g)], chain_oracle.links_at(gid, texts, [cut, len(g)])))
    assert once == [(len(g), chain_oracle.links_at(gid, texts, [len(g)])[0])]
    fresh.close()


def test_different_history_is_a_conflict_naming_the_event(store, tmp_path, games):
    a = games[0]
    import_logs(store, [write_log(tmp_path / "a.jsonl", a)])
    other = play_random_game(99, 2)
    # the same game id with another history
    forged = [ev.GameStarted(players=other[0].players, game_id=a[0].game_id)] + _inputs(other)[1:]
    summary = import_logs(store, [write_log(tmp_path / "b.jsonl", forged, derived=False)])
    assert summary.failed == 1
    err = summary.games[0].error
    assert "different history" in err and "event seq 2 differs" in err
    assert store.read_events(a[0].game_id) == a


def test_failed_game_stores_nothing_and_others_are_kept(store, tmp_path, games):
    good, bad = games[0], list(games[1])
    # an illegal move halfway: the same player acts twice in a row
    i = next(i for i, e in enumerate(bad) if isinstance(e, ev.TurnEnded) and i > len(bad) // 2)
    bad.insert(i + 1, ev.TurnEnded(player=bad[i].player))
    summary = import_logs(store, [write_log(tmp_path / "a.jsonl", good, bad, derived=False)])
    assert (summary.new, summary.failed) == (1, 1)
    assert summary.games[1].rule in ("R-FLOW-PLAYER", "R-FLOW-TAKE", "R-DERIVED")
    assert store.heads() == {good[0].game_id: len(good)}
    for t in TABLES:
        ids = {r[0] for r in store.con.execute(f"SELECT DISTINCT game_id FROM {t}").fetchall()}
        assert bad[0].game_id not in ids


def test_strict_stores_nothing_when_one_game_fails(store, tmp_path, games):
    bad = _inputs(games[1])[:5] + [ev.StopCalled(player=0)]
    summary = import_logs(store, [write_log(tmp_path / "a.jsonl", games[0], bad, derived=False)],
                          strict=True)
    assert summary.failed == 1 and not summary.written
    assert store.heads() == {}
    assert all(not rows for rows in table_rows(store).values())


def test_triggers_refuse_update_and_delete(store, tmp_path, games):
    import_logs(store, [write_log(tmp_path / "a.jsonl", games[0])])
    for sql in ("UPDATE events SET seq = seq + 1000", "DELETE FROM events",
                "DELETE FROM events WHERE seq = 1"):
        with pytest.raises(duckdb.Error, match="append-only"):
            store.con.execute(sql)
    assert store.head(games[0][0].game_id)[0] == len(games[0])


def test_append_with_expected_sequence(store, games):
    g = games[2]
    gid = g[0].game_id
    res = start_game(store, g[0])
    assert res.seq == 1
    inputs = _inputs(g)[1:]
    seq = 1
    for e in inputs[:10]:
        seq = append_events(store, gid, [e], seq).seq
    with pytest.raises(StreamConflictError) as info:
        append_events(store, gid, [inputs[10]], seq - 1)       # a stale expectation
    assert info.value.found == seq
    for i in range(10, len(inputs), 25):                        # batches of events
        seq = append_events(store, gid, inputs[i:i + 25], seq).seq
    assert store.read_events(gid) == g


def test_append_refuses_illegal_event_and_changes_nothing(store, games):
    g = games[0]
    gid = g[0].game_id
    start_game(store, g[0])
    seq = append_events(store, gid, [g[1]], 1).seq
    before = table_rows(store)
    with pytest.raises(IllegalMoveError) as info:
        append_events(store, gid, [ev.TurnEnded(player=g[1].first_player)], seq)  # no take yet
    assert info.value.rule == "R-FLOW-TAKE"
    assert table_rows(store) == before


def test_primary_key_is_the_concurrency_check(store, games):
    """Two writers that both expected seq N: the second append's rows collide on the key."""
    g = games[0]
    gid = g[0].game_id
    start_game(store, g[0])
    from seasalt_log.store.store import plan_write
    from seasalt_log.engine import State, apply
    states, s = [], State()
    for e in g[:3]:
        s = apply(s, e)
        states.append(s)
    append_events(store, gid, [g[1]], 1)
    w = plan_write(gid, store.number(gid), g[:3], states, stored=1)   # believes only seq 1 is stored
    store.begin()
    with pytest.raises(StreamConflictError):
        store.write([w])
    store.rollback()
    assert store.head(gid)[0] == 2


def test_unknown_game(store, games):
    with pytest.raises(UnknownGameError) as e:
        store.read_events("nope")
    assert e.value.near == ()
    for gid, g in zip(("t-1", "t-2", "t-10", "other"), games):
        start_game(store, ev.GameStarted(players=g[0].players, game_id=gid))
    # the ids it begins, closest first (Jaro-Winkler to "t-": t-1 and t-2 0.911, t-10 0.867),
    # a tie by id
    with pytest.raises(UnknownGameError) as e:
        store.read_events("t-")
    assert e.value.near == ("t-1", "t-2", "t-10")
    assert str(e.value) == "no game with id 't-' in the store; did you mean t-1, t-2, t-10?"
    with pytest.raises(UnknownGameError) as e:       # spelt alike, in another case
        store.read_events("OTHERS")
    assert e.value.near == ("other",)
    # an empty id begins every id: it names none (not the first three stored)
    assert store.unknown_game("").near == ()
    # a quote, % and _ are the id's own characters, not SQL text or a LIKE pattern (which
    # would match t-1 and every t- id)
    assert store.unknown_game("t-1'").near == ("t-1", "t-10")
    assert store.unknown_game("t_1").near == store.unknown_game("t-%").near == ()
    with pytest.raises(UnknownGameError):
        append_events(store, "nope", [], 0)


def test_unknown_game_in_a_read_only_store(tmp_path, games):
    """A read-only store (its texts kept in memory), also once ``Store.sql`` has locked its
    connection (the sandbox), names the ids as a writable one does."""
    with Store.open(tmp_path / "s.duckdb") as store:
        start_game(store, ev.GameStarted(players=games[0][0].players, game_id="t-1"))
    with Store.open(tmp_path / "s.duckdb", read_only=True) as store:
        for _ in range(2):
            with pytest.raises(UnknownGameError) as e:
                store.read_texts("t-")
            assert e.value.near == ("t-1",)
            assert store.replay("t-1").seq == 1
            store.sql("SELECT 1").fetchall()            # from here on sandboxed


def test_export_import_export_is_byte_identical(tmp_path, games):
    a = Store.open(tmp_path / "a.duckdb")
    import_logs(a, [write_log(tmp_path / "in.jsonl", *games, derived=False)])
    first = b"".join(export_lines(a, a.game_ids()))
    a.close()
    (tmp_path / "out.jsonl").write_bytes(first)
    b = Store.open(tmp_path / "b.duckdb")
    import_logs(b, [tmp_path / "out.jsonl"])
    assert b"".join(export_lines(b, b.game_ids())) == first
    b.close()


def test_stored_stream_replays_like_the_log(store, tmp_path, games):
    import_logs(store, [write_log(tmp_path / "a.jsonl", *games)])
    for g in games:
        assert fold(store.read_events(g[0].game_id)) == fold(g)


def test_iter_games_gives_every_game_as_read_texts_does(store, tmp_path, games):
    """Every stored game once, in the order first written, each with the JSON lines of
    the log it came from (derived events included), however many games a query holds."""
    import_logs(store, [write_log(tmp_path / "a.jsonl", *games[:4])])
    tail = games[4][:40]                                   # a game stored in two writes
    import_logs(store, [write_log(tmp_path / "b.jsonl", tail, games[5])])
    append_events(store, tail[0].game_id, _inputs(games[4][40:]), expected_seq=len(tail))
    want = [(g[0].game_id, ev.encode_lines(g).decode().splitlines()) for g in games]
    for batch in (1, 2, 2000):
        assert list(store.iter_games(batch)) == want


def test_new_stores_use_small_blocks_and_old_ones_keep_theirs(tmp_path):
    """A new store file has blocks of 64 KiB; a file made with DuckDB's 256 KiB blocks
    is opened, written and read as it is."""
    from seasalt_log.store.store import BLOCK_SIZE
    size = "SELECT block_size FROM pragma_database_size()"
    with Store.open(tmp_path / "new.duckdb") as s:
        assert s.con.execute(size).fetchone()[0] == BLOCK_SIZE == 65536
    duckdb.connect(str(tmp_path / "old.duckdb")).close()
    game = play_random_game(1, 2)
    with Store.open(tmp_path / "old.duckdb") as s:
        assert s.con.execute(size).fetchone()[0] == 262144
        import_logs(s, [write_log(tmp_path / "a.jsonl", game)])
    with Store.open(tmp_path / "old.duckdb", read_only=True) as s:
        assert fold(s.read_events(game[0].game_id)) == fold(game)


def test_games_are_listed_with_the_numbers_in_their_ids_in_order(tmp_path):
    """`seasalt games`, GET /games and `export --all` list sim-1-2 before sim-1-10."""
    from msgspec.structs import replace

    from seasalt_log import queries
    from seasalt_log.service import import_games
    base = play_random_game(3, 2)
    ids = ["t-10", "t-2", "t-1", "a-9", "t-2-b"]
    with Store.open(tmp_path / "s.duckdb") as store:
        import_games(store, [[replace(base[0], game_id=g)] + base[1:] for g in ids])
        want = ["a-9", "t-1", "t-2", "t-2-b", "t-10"]
        assert [r.game_id for r in queries.list_games(store)] == want
        assert store.game_ids() == want
