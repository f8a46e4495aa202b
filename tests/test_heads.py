"""The heads table (store formats 3, 4) as the optimistic-concurrency key: two writers of one
game that expected the same seq cannot both land, a stale expected seq is refused as it was
with the events key of format 2, and a store of format 2 is migrated and keeps working."""

from __future__ import annotations

import threading

import duckdb
import pytest

from seasalt_log import events as ev
from seasalt_log.errors import SeasaltError, StreamConflictError
from seasalt_log.service import GameCache, append_events, import_logs, start_game
from seasalt_log.store import Store
from seasalt_log.store.layout import schema_differences
from seasalt_log.store.store import plan_write
from seasalt_log.verify import verify_store

from .randomplay import play_random_game
from .scenario import states_after
from .test_store import table_rows, write_log
from .test_store_format import as_format_3


@pytest.fixture(scope="module")
def games():
    return [play_random_game(40 + seed, 2 + seed % 3) for seed in range(4)]


def _heads(store: Store) -> dict[str, int]:
    return dict(store.con.execute("SELECT game_id, seq FROM heads").fetchall())


def _race(path, plans) -> list[BaseException | None]:
    """Each plan written by its own thread on its own connection to the store at ``path``:
    every transaction is opened before any writes, and every write is tried before any
    commits. The outcome of each (None: committed)."""
    stores = [Store.open(path) for _ in plans]
    opened, written = threading.Barrier(len(plans)), threading.Barrier(len(plans))
    out: list[BaseException | None] = [None] * len(plans)

    def run(i: int) -> None:
        s = stores[i]
        s.begin()
        opened.wait()
        try:
            s.write([plans[i](s)])
        except BaseException as exc:     # noqa: BLE001 - reported to the test
            out[i] = exc
            s.rollback()
        written.wait()
        if out[i] is None:
            try:
                s.commit()
            except BaseException as exc:  # noqa: BLE001
                out[i] = exc
                s.rollback()
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(plans))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in stores:
        s.close()
    return out


def test_two_writers_at_the_same_seq_cannot_both_land(tmp_path, games):
    """Both expected seq 1; one writes one event, the other three (a key on the commits
    rows' last seq would let both through): exactly one commits, the other gets
    StreamConflictError, and the stored game is the winner's, whole and verified."""
    g = games[0]
    gid, path = g[0].game_id, tmp_path / "s.duckdb"
    with Store.open(path) as store:
        start_game(store, g[0])
        number = store.number(gid)
    states = states_after(g[:4])
    plans = [lambda s, n=n: plan_write(gid, number, g[:n], states[:n], stored=1,
                                       prev_hash=s.head(gid)[1]) for n in (2, 4)]
    out = _race(path, plans)
    assert sorted(type(o).__name__ for o in out) == ["NoneType", "StreamConflictError"], out
    won = 2 if out[0] is None else 4
    with Store.open(path, read_only=True) as store:
        assert store.head(gid)[0] == won
        assert store.con.execute("SELECT list(seq ORDER BY seq) FROM events").fetchone()[0] == \
            list(range(1, won + 1))
        assert _heads(store) == {gid: won}
        assert verify_store(store).ok


def test_two_writers_of_one_new_game_cannot_both_land(tmp_path, games):
    """Both store the same new game (expected seq 0): the second COMMIT is refused by the
    heads key and said as a StreamConflictError, not a DuckDB error."""
    g = games[1]
    gid, path = g[0].game_id, tmp_path / "s.duckdb"
    states = states_after(g[:2])
    out = _race(path, [lambda s: plan_write(gid, s.assign(gid), g[:2], states)] * 2)
    assert sorted(type(o).__name__ for o in out) == ["NoneType", "StreamConflictError"], out
    conflict = next(o for o in out if o is not None)
    assert conflict.game_id == gid
    with Store.open(path, read_only=True) as store:
        assert store.con.execute("SELECT count(*) FROM events").fetchone()[0] == 2
        assert _heads(store) == {gid: 2}
        assert verify_store(store).ok


def test_a_stale_expected_seq_is_refused_after_the_other_commits(tmp_path, games):
    """A writer whose transaction began before another's append committed, and who still
    believes the game ends at seq 1, is refused: the head moved on."""
    g = games[0]
    gid = g[0].game_id
    with Store.open(tmp_path / "s.duckdb") as store:
        start_game(store, g[0])
        stale = plan_write(gid, store.number(gid), g[:3], states_after(g[:3]), stored=1,
                           prev_hash=store.head(gid)[1])
        append_events(store, gid, [g[1]], 1)
        before = table_rows(store)
        store.begin()
        with pytest.raises(StreamConflictError) as info:
            store.write([stale])
        store.rollback()
        assert (info.value.game_id, info.value.expected, info.value.found) == (gid, 1, 2)
        assert str(info.value) == (f"game {gid}: event seq 2 was already written by another "
                                   "writer (stale expected sequence)")
        assert table_rows(store) == before and _heads(store) == {gid: 2}


def test_a_write_of_several_games_names_the_stale_one(tmp_path, games):
    """One write of two games, one of them planned on a seq the store has moved past: the
    error names that game, and neither game's rows are stored."""
    g, h = games[0], games[1]
    with Store.open(tmp_path / "s.duckdb") as store:
        start_game(store, g[0])
        start_game(store, h[0])
        stale = plan_write(h[0].game_id, store.number(h[0].game_id), h[:2], states_after(h[:2]),
                           stored=1)
        append_events(store, h[0].game_id, [h[1]], 1)
        fine = plan_write(g[0].game_id, store.number(g[0].game_id), g[:2], states_after(g[:2]),
                          stored=1)
        before = table_rows(store)
        store.begin()
        with pytest.raises(StreamConflictError) as info:
            store.write([fine, stale])
        store.rollback()
        assert info.value.game_id == h[0].game_id
        assert table_rows(store) == before


def test_a_stale_cache_of_the_service_is_refused(tmp_path, games):
    """Two caches of one game (as two services would hold): the second append, planned on
    seq 1 when the store is at seq 2, is refused by the heads row and stores nothing."""
    g = games[2]
    gid = g[0].game_id
    with Store.open(tmp_path / "s.duckdb") as store:
        start_game(store, g[0])
        a, b = GameCache.load(store, gid), GameCache.load(store, gid)
        append_events(store, gid, [g[1]], 1, cached=a)
        before, head = table_rows(store), store.head(gid)[0]
        with pytest.raises(StreamConflictError):
            append_events(store, gid, [g[1]], 1, cached=b)
        assert table_rows(store) == before and _heads(store) == {gid: head}


def test_verify_still_finds_a_duplicate_or_missing_seq(tmp_path, games):
    """The events table has no key any more: a row added behind the store's back with a
    seq already stored, or past a gap, is found by verify."""
    g = games[0]
    gid = g[0].game_id
    path = tmp_path / "s.duckdb"
    with Store.open(path) as store:
        import_logs(store, [write_log(tmp_path / "a.jsonl", g)], jobs=0)
        row = store.con.execute("SELECT * FROM events WHERE seq = 2").fetchone()
        store.con.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", list(row))
        store.con.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                          [row[0], len(g) + 2, *row[2:]])
    with Store.open(path, read_only=True) as store:
        text = [str(d) for d in verify_store(store).differences if d.kind == "seq"]
    assert any("seq 2 is out of order" in t for t in text), text
    assert any(f"seq {len(g) + 1} missing" in t for t in text), text


def test_verify_finds_a_head_that_is_not_the_games_last_seq(tmp_path, games):
    """A heads row moved behind the store's back (a stale writer could then store a seq
    twice), or missing, is reported with the seq the game's last write ended at."""
    path = tmp_path / "s.duckdb"
    a, b = games[0][0].game_id, games[1][0].game_id
    with Store.open(path) as store:
        import_logs(store, [write_log(tmp_path / "a.jsonl", *games[:2])], jobs=0)
        store.con.execute("UPDATE heads SET seq = 3 WHERE game_id = ?", [a])
        store.con.execute("DELETE FROM heads WHERE game_id = ?", [b])
    with Store.open(path, read_only=True) as store:
        text = sorted(str(d) for d in verify_store(store).differences)
    assert text == [
        f"game {a}: seq: the heads row says seq 3, its last write ended at seq {len(games[0])}",
        f"game {b}: seq: the game has no heads row, its last write ended at seq "
        f"{len(games[1])}"], text


# ---------------------------------------------------------------- format 2

def _as_format_2(path) -> None:
    """Turn a store of this format into one as format 2 wrote it: the chain of every event
    in the commits rows (as format 3), the key on the events table, no heads table."""
    as_format_3(path)
    con = duckdb.connect(str(path))
    cols = ", ".join(f"{n} {t}" for n, t in con.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'events' "
        "ORDER BY column_index").fetchall())
    for op in ("update", "delete"):
        con.execute(f"DROP TRIGGER events_refuse_{op} ON events")
    con.execute(f"CREATE TABLE ev2 ({cols}, PRIMARY KEY (game_id, seq))")
    con.execute("INSERT INTO ev2 SELECT * FROM events")
    con.execute("DROP TABLE events")
    con.execute("ALTER TABLE ev2 RENAME TO events")
    con.execute("DROP TABLE heads")
    con.execute("UPDATE store_meta SET value = '2' WHERE key = 'schema_version'")
    con.close()


def test_a_format_2_store_is_migrated_and_keeps_working(tmp_path, games):
    path = tmp_path / "old.duckdb"
    with Store.open(path) as store:
        import_logs(store, [write_log(tmp_path / "a.jsonl", *games[:3])], jobs=0)
        want = table_rows(store)
    _as_format_2(path)
    with pytest.raises(SeasaltError, match="format 2.*seasalt rebuild"):
        Store.open(path, read_only=True)        # a reader does not migrate: it says how to
    with Store.open(path) as store:
        assert store.con.execute("SELECT value FROM store_meta WHERE key = 'schema_version'"
                                 ).fetchone()[0] == "5"
        assert table_rows(store) == want
        assert _heads(store) == {g[0].game_id: len(g) for g in games[:3]}
        assert schema_differences(store.con) == []
        assert verify_store(store).ok
        # it takes a new game and refuses a stale write
        g = games[3]
        start_game(store, g[0])
        append_events(store, g[0].game_id, [g[1]], 1)
        stale = plan_write(g[0].game_id, store.number(g[0].game_id), g[:2],
                           states_after(g[:2]), stored=1)
        store.begin()
        with pytest.raises(StreamConflictError):
            store.write([stale])
        store.rollback()
        assert _heads(store)[g[0].game_id] == 2
        assert store.con.execute("SELECT count(*) FROM events WHERE game_id = ?",
                                 [g[0].game_id]).fetchone()[0] == 2


def test_a_format_2_store_with_a_broken_chain_is_not_migrated(tmp_path, games):
    """Format 2 goes through format 3's migration, chain check included: a changed event
    refuses it, leaving the file byte for byte as it was."""
    path = tmp_path / "old.duckdb"
    with Store.open(path) as store:
        import_logs(store, [write_log(tmp_path / "a.jsonl", *games[:3])], jobs=0)
    _as_format_2(path)
    gid = sorted(g[0].game_id for g in games[:3])[1]
    con = duckdb.connect(str(path))
    con.execute("UPDATE events SET event = event || ' ' WHERE game_id = ? AND seq = 4", [gid])
    con.close()
    before = path.read_bytes()
    last = {g[0].game_id: len(g) for g in games[:3]}[gid]
    with pytest.raises(SeasaltError, match=f"cannot migrate the store to format 5: game {gid}, "
                                           f"seq {last}: its hash chain is broken"):
        Store.open(path)
    assert path.read_bytes() == before
