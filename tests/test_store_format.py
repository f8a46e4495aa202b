"""The store's format: game numbers, one chain link per write (the commits table; format 4
chains the writes, formats 2 and 3 recorded the chain of every event), read models without
index, and the migrations of stores of formats 1 and 3."""

from __future__ import annotations

import duckdb
import pytest

from seasalt_log import events as ev
from seasalt_log.engine import State, apply
from seasalt_log.errors import SeasaltError, UnknownGameError
from seasalt_log.service import append_events, export_lines, import_logs, start_game
from seasalt_log.service import GameCache, plan_append, write_planned
from seasalt_log.store import Store, chain, genesis_hash
from seasalt_log.store.projections import TABLES
from seasalt_log.verify import verify_store

from . import chain_oracle
from .randomplay import play_random_game
from .test_store import table_rows, write_log


@pytest.fixture(scope="module")
def games():
    return [play_random_game(100 + seed, 2 + seed % 3) for seed in range(8)]


def numbers(store: Store) -> dict[str, int]:
    return dict(store.con.execute("SELECT DISTINCT game_id, game FROM events").fetchall())


def test_the_chain_is_blake2b_of_the_previous_link_and_the_writes_lines():
    """The chain as the DDL documents it, computed here with hashlib alone: a write's link
    = BLAKE2b-64(the previous link as 8 big-endian bytes || each event's JSON followed by a
    newline), a signed integer; the genesis value is BLAKE2b-64 of b"seasalt-log:" and the
    game id."""
    import hashlib

    def b2(data: bytes) -> int:
        return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big", signed=True)
    assert genesis_hash("g-1") == b2(b"seasalt-log:g-1")
    h = genesis_hash("g-1")
    for texts in ([b'{"type":"game_started"}'], [b"", b"x" * 300], [b"a", b"b", b"c"]):
        want = b2(h.to_bytes(8, "big", signed=True) + b"".join(t + b"\n" for t in texts))
        h = chain(h, texts)
        assert h == want


@pytest.mark.parametrize("jobs", [0, 2])
def test_games_are_numbered_in_order_of_first_write_and_keep_their_number(tmp_path, games, jobs):
    """Serial (jobs 0) and chunked (2 workers) imports number new games 1, 2, ... in log
    order (gaps allowed), one number per game, kept when the game is extended."""
    half = games[0][: len(games[0]) // 2]
    store = Store.open(tmp_path / "s.duckdb")
    import_logs(store, [write_log(tmp_path / "a.jsonl", half, *games[1:4])], jobs=jobs)
    first = numbers(store)
    order = [g[0].game_id for g in (half, *games[1:4])]
    assert sorted(first, key=first.get) == order
    assert len(set(first.values())) == len(first)
    import_logs(store, [write_log(tmp_path / "b.jsonl", *games)], jobs=jobs)
    after = numbers(store)
    assert {g: after[g] for g in first} == first                   # the extended game too
    new = [g[0].game_id for g in games[4:]]
    assert min(after[g] for g in new) > max(first.values())
    assert sorted(new, key=after.get) == new
    # events, commits and the store's own lookup agree
    commits = dict(store.con.execute("SELECT DISTINCT game_id, game FROM commits").fetchall())
    assert commits == after
    assert all(store.number(g) == n for g, n in after.items())
    store.close()


def test_reads_find_a_game_written_by_another_connection(tmp_path, games):
    """A game stored after a reader learnt every number is still found (asked again)."""
    store = Store.open(tmp_path / "s.duckdb")
    import_logs(store, [write_log(tmp_path / "a.jsonl", *games[:2])], jobs=0)
    reader = Store(store.con.cursor(), store.path, read_only=True)
    for g in games[:2]:                     # the second lookup loads every number
        assert reader.read_events(g[0].game_id) == g
    import_logs(store, [write_log(tmp_path / "b.jsonl", games[2])], jobs=0)
    assert reader.read_events(games[2][0].game_id) == games[2]
    with pytest.raises(UnknownGameError):
        reader.read_events("nope")
    store.close()


def _links_by_definition(store: Store, gid: str) -> tuple[list[int], list[int]]:
    """A game's commits rows (seqs, hashes) and the links of writes ending at those seqs
    by the chain's definition (hashlib)."""
    rows = store.con.execute("SELECT seq, hash FROM commits WHERE game_id = ? ORDER BY seq",
                             [gid]).fetchall()
    texts = [t.encode() for t in store.read_texts(gid)]
    seqs = [s for s, _ in rows]
    return [h for _, h in rows], chain_oracle.links_at(gid, texts, seqs)


def test_each_write_records_its_link(tmp_path, games):
    """One commits row per write of a game, whose hash is the link over the events it
    stored, chained from the game's write before; a live game gets one per append."""
    store = Store.open(tmp_path / "s.duckdb")
    g = games[1]
    gid = g[0].game_id
    start_game(store, g[0])
    seq = 1
    for e in g[1:6]:
        if type(e) in ev.DERIVED_TYPES:
            continue
        seq = append_events(store, gid, [e], seq).seq
    rows = store.con.execute("SELECT seq, game FROM commits WHERE game_id = ? ORDER BY seq",
                             [gid]).fetchall()
    assert [s for s, _ in rows] == sorted({s for s, _ in rows}) and rows[-1][0] == seq
    assert len(rows) > 3
    stored, want = _links_by_definition(store, gid)
    assert stored == want
    assert {n for _, n in rows} == {store.number(gid)}
    assert store.head(gid) == (seq, want[-1])
    store.close()


def test_appends_of_a_game_written_together_record_one_link_over_them_all(tmp_path, games):
    """Several appends of one game planned on one another and written in one transaction
    (the live service's group commit) make one commits row: its link is over all their
    events, from the game's write before; a later write chains from it."""
    store = Store.open(tmp_path / "s.duckdb")
    g = [e for e in games[2] if type(e) not in ev.DERIVED_TYPES]
    gid = g[0].game_id
    start_game(store, g[0])
    append_events(store, gid, [g[1]], 1)
    cache = GameCache.load(store, gid)
    planned = []
    for e in g[2:5]:
        planned.append(plan_append(cache, [e], None))
        cache = planned[-1].cache
    write_planned(store, planned)
    last = append_events(store, gid, [g[5]], cache.seq).seq
    seqs = [s for (s,) in store.con.execute("SELECT seq FROM commits WHERE game_id = ? "
                                            "ORDER BY seq", [gid]).fetchall()]
    assert seqs == [1, 2, cache.seq, last] and cache.seq >= 5
    stored, want = _links_by_definition(store, gid)
    assert stored == want
    assert cache.hash == want[2]
    assert verify_store(store).ok and verify_store(store, quick=True).ok
    store.close()


def test_the_commits_table_is_append_only(tmp_path, games):
    store = Store.open(tmp_path / "s.duckdb")
    import_logs(store, [write_log(tmp_path / "a.jsonl", games[0])], jobs=0)
    for sql in ("UPDATE commits SET hash = 0", "DELETE FROM commits"):
        with pytest.raises(duckdb.Error, match="append-only"):
            store.con.execute(sql)
    assert store.con.execute("SELECT count(*) FROM commits").fetchone()[0] == 1
    store.close()


def test_read_models_have_no_index(tmp_path):
    """Only the heads key (the concurrency check, one row per game) and store_meta's are
    indexed: an index on a read model costs every bulk load time and the file about 3 bytes
    per event, the events' own key (format 2) about 11."""
    store = Store.open(tmp_path / "s.duckdb")
    indexed = {r[0] for r in store.con.execute(
        "SELECT table_name FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY'").fetchall()}
    assert indexed == {"heads", "store_meta"}
    assert set(TABLES) <= {r[0] for r in store.con.execute(
        "SELECT table_name FROM duckdb_tables()").fetchall()}
    store.close()


# ---------------------------------------------------------------- format 1

_V1_DDL = """
CREATE TABLE events (
    game_id VARCHAR NOT NULL, seq INTEGER NOT NULL, round INTEGER NOT NULL,
    turn INTEGER NOT NULL, player INTEGER, type VARCHAR NOT NULL, event VARCHAR NOT NULL,
    hash BIGINT NOT NULL, PRIMARY KEY (game_id, seq));
CREATE TABLE append_only_guard (refused VARCHAR);
CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events FOR EACH STATEMENT
    INSERT INTO append_only_guard SELECT error('the events table is append-only: UPDATE refused');
CREATE TRIGGER events_refuse_delete BEFORE DELETE ON events FOR EACH STATEMENT
    INSERT INTO append_only_guard SELECT error('the events table is append-only: DELETE refused');
CREATE TABLE store_meta (key VARCHAR PRIMARY KEY, value VARCHAR);
INSERT INTO store_meta VALUES ('schema_version', '1'), ('projections_version', '2');
"""


def _v1_store(path, games) -> None:
    """A store as format 1 wrote it: a chain hash in every event row."""
    con = duckdb.connect(str(path))
    con.execute(_V1_DDL)
    for g in reversed(games):               # stored in an order unlike the ids'
        gid, s = g[0].game_id, State()
        hashes = chain_oracle.format3_chain(gid, [ev.encode(e) for e in g])
        for i, e in enumerate(g):
            data, h = ev.encode(e), hashes[i]
            rnd, turn = (0, 0) if i == 0 else ((e.round, 0) if isinstance(e, ev.RoundStarted)
                                              else (s.flow.round, s.flow.turn))
            s = apply(s, e)
            con.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [gid, i + 1, rnd, turn, getattr(e, "player", None), ev.TAGS[type(e)],
                         data.decode(), h])
    con.close()


def test_a_format_1_store_is_migrated_when_opened_for_writing(tmp_path, games):
    old, fresh = tmp_path / "old.duckdb", tmp_path / "fresh.duckdb"
    _v1_store(old, games[:4])
    with pytest.raises(SeasaltError, match="format 1.*seasalt rebuild"):
        Store.open(old, read_only=True)     # a reader does not migrate: it says how to
    store = Store.open(old)
    assert store.con.execute("SELECT value FROM store_meta WHERE key = 'schema_version'"
                             ).fetchone()[0] == "5"
    # numbered in the order first written (reversed), one commit row per game with the
    # link of one write of all its events
    order = [g[0].game_id for g in reversed(games[:4])]
    got = numbers(store)
    assert sorted(got, key=got.get) == order
    assert verify_store(store).ok
    ref = Store.open(fresh)
    import_logs(ref, [write_log(tmp_path / "a.jsonl", *reversed(games[:4]))], jobs=0)
    assert table_rows(store) == table_rows(ref)
    q = "SELECT game_id, game, seq, hash FROM commits ORDER BY ALL"
    assert store.con.execute(q).fetchall() == ref.con.execute(q).fetchall()
    # and it takes new games
    import_logs(store, [write_log(tmp_path / "b.jsonl", games[4])], jobs=0)
    assert numbers(store)[games[4][0].game_id] == 5
    assert b"".join(export_lines(store, [games[4][0].game_id])) == ev.encode_lines(games[4])
    store.close()
    ref.close()


def test_a_format_1_store_with_a_broken_chain_is_not_migrated(tmp_path, games):
    """Format 4 keeps one link per write: a change made before the migration would go
    unseen after it, so the migration checks format 1's chain first and refuses, leaving
    the store as it was."""
    old = tmp_path / "old.duckdb"
    _v1_store(old, games[:3])
    gid = games[1][0].game_id
    con = duckdb.connect(str(old))
    con.execute("DROP TRIGGER events_refuse_update ON events")
    con.execute("UPDATE events SET event = event || ' ' WHERE game_id = ? AND seq = 5", [gid])
    con.close()
    with pytest.raises(SeasaltError, match=f"cannot migrate.*game {gid}, seq 5: its hash chain is broken"):
        Store.open(old)
    con = duckdb.connect(str(old), read_only=True)
    assert con.execute("SELECT value FROM store_meta WHERE key = 'schema_version'").fetchone() == ("1",)
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'commits'").fetchone() == (0,)
    con.close()


def test_a_format_1_migration_hashes_each_event_once(tmp_path, games, monkeypatch):
    """The format-1 chain is checked at every event, then the rows made from it are not
    checked again: each event goes through the format-3 hash once (twice before)."""
    from seasalt_log.store import format3

    old = tmp_path / "old.duckdb"
    _v1_store(old, games[:3])
    hashed = []
    through = format3._format3_through

    def counted(prev, texts):
        texts = list(texts)
        hashed.extend(texts)
        return through(prev, texts)
    monkeypatch.setattr(format3, "_format3_through", counted)
    with Store.open(old) as store:
        assert verify_store(store).ok
    assert len(hashed) == sum(len(g) for g in games[:3])


def test_a_store_of_an_unknown_format_is_refused(tmp_path, games):
    path = tmp_path / "s.duckdb"
    with Store.open(path) as store:
        import_logs(store, [write_log(tmp_path / "a.jsonl", games[0])], jobs=0)
        store.con.execute("UPDATE store_meta SET value = '9' WHERE key = 'schema_version'")
    before = path.read_bytes()
    for read_only in (False, True):
        with pytest.raises(SeasaltError, match="format 9, which this version of seasalt does not know"):
            Store.open(path, read_only=read_only)
    assert path.read_bytes() == before


# ---------------------------------------------------------------- format 3

def as_format_3(path) -> None:
    """Turn a store of this format into one as format 3 wrote it: each commits row's hash
    the chain of every event through its seq (computed here with hashlib alone)."""
    con = duckdb.connect(str(path))
    for op in ("update", "delete"):
        con.execute(f"DROP TRIGGER commits_refuse_{op} ON commits")
    texts: dict[str, list[bytes]] = {}
    for gid, text in con.execute("SELECT game_id, event FROM events ORDER BY game_id, seq"
                                 ).fetchall():
        texts.setdefault(gid, []).append(text.encode())
    for gid, seq in con.execute("SELECT game_id, seq FROM commits").fetchall():
        con.execute("UPDATE commits SET hash = ? WHERE game_id = ? AND seq = ?",
                    [chain_oracle.format3_chain(gid, texts[gid])[seq - 1], gid, seq])
    for op in ("UPDATE", "DELETE"):
        con.execute(f"CREATE TRIGGER commits_refuse_{op.lower()} BEFORE {op} ON commits FOR "
                    "EACH STATEMENT INSERT INTO append_only_guard SELECT error('the commits "
                    f"table is append-only: {op} refused')")
    con.execute("UPDATE store_meta SET value = '3' WHERE key = 'schema_version'")
    con.close()


def _several_writes(store: Store, tmp_path, games) -> None:
    """Games imported whole, and one written by a live start and appends."""
    import_logs(store, [write_log(tmp_path / "a.jsonl", *games[:4])], jobs=0)
    g = [e for e in games[4] if type(e) not in ev.DERIVED_TYPES]
    start_game(store, g[0])
    seq = 1
    for e in g[1:6]:
        seq = append_events(store, g[0].game_id, [e], seq).seq


def _commits(store_or_con) -> list[tuple]:
    return store_or_con.execute("SELECT game_id, game, seq, hash FROM commits ORDER BY rowid"
                                ).fetchall()


def test_a_format_3_store_is_migrated_when_opened_for_writing(tmp_path, games):
    """Every commits row's hash becomes the link of its write by format 4's definition
    (hashlib here), the rows otherwise as they were, in their order; the store verifies
    and takes new writes."""
    path = tmp_path / "old.duckdb"
    with Store.open(path) as store:
        _several_writes(store, tmp_path, games)
        want_rows, want_commits = table_rows(store), _commits(store.con)
    as_format_3(path)
    con = duckdb.connect(str(path), read_only=True)
    format3 = _commits(con)
    con.close()
    assert [r[:3] for r in format3] == [r[:3] for r in want_commits] and format3 != want_commits
    with pytest.raises(SeasaltError, match="format 3, this version reads format 5.*rebuild"):
        Store.open(path, read_only=True)
    with Store.open(path) as store:
        assert store.con.execute("SELECT value FROM store_meta WHERE key = 'schema_version'"
                                 ).fetchone()[0] == "5"
        assert _commits(store.con) == want_commits
        for gid in {r[0] for r in want_commits}:
            stored, want = _links_by_definition(store, gid)
            assert stored == want
        assert table_rows(store) == want_rows
        assert verify_store(store).ok and verify_store(store, quick=True).ok
        import_logs(store, [write_log(tmp_path / "b.jsonl", games[5])], jobs=0)
        assert verify_store(store).ok
    with Store.open(path, read_only=True) as store:
        assert verify_store(store, quick=True).ok


@pytest.mark.parametrize("edit", ["event", "hash", "record", "unrecorded", "no events"])
def test_a_format_3_store_with_a_broken_chain_is_not_migrated(tmp_path, games, edit):
    """A changed event (or hash) of a format-3 store refuses the migration, which leaves
    the file byte for byte as it was: format 4's links would hash the change anew. So does
    a write record of no stored event, events stored after a game's last write, and a
    write of a game none of whose events is stored."""
    path = tmp_path / "old.duckdb"
    with Store.open(path) as store:
        _several_writes(store, tmp_path, games)
    as_format_3(path)
    gid = games[4][0].game_id
    con = duckdb.connect(str(path))
    for t in ("events", "commits"):
        for op in ("update", "delete"):
            con.execute(f"DROP TRIGGER {t}_refuse_{op} ON {t}")
    if edit == "event":
        con.execute("UPDATE events SET event = event || ' ' WHERE game_id = ? AND seq = 2", [gid])
        where = f"game {gid}, seq 2: its hash chain is broken"
    elif edit == "hash":
        con.execute("UPDATE commits SET hash = xor(hash, 1) WHERE game_id = ? AND seq = 3", [gid])
        where = f"game {gid}, seq 3: its hash chain is broken"
    elif edit == "record":
        con.execute("INSERT INTO commits SELECT game_id, game, 99, hash FROM commits "
                    "WHERE game_id = ? AND seq = 1", [gid])
        where = f"game {gid}, seq 99: a write is recorded up to it"
    elif edit == "unrecorded":
        con.execute("DELETE FROM commits WHERE game_id = ? AND seq = 6", [gid])
        where = f"game {gid}, seq 6: it is stored, but no write of it is recorded"
    else:
        con.execute("INSERT INTO commits VALUES ('g-none', 99, 3, 0)")
        where = "game g-none, seq 3: a write of it is recorded, but none of its events is stored"
    con.close()
    before = path.read_bytes()
    with pytest.raises(SeasaltError, match=f"cannot migrate the store to format 5: {where}"):
        Store.open(path)
    assert path.read_bytes() == before
