"""Reading the events as stored instead of sorting them (``export --all``, ``export
--parquet``): the same bytes and the same rows, in the same order, as the sorting queries;
and a store whose events are not in game order is seen as such and sorted as before."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from seasalt_log import events as ev
from seasalt_log.analytics import parquet
from seasalt_log.analytics.parquet import export_parquet
from seasalt_log.service import export_blocks, import_logs
from seasalt_log.store import Store
from seasalt_log.store.stored_order import ids_by_number, in_game_order

try:
    from .parquet_checks import assert_export_keeps_games_whole, assert_read_models_in_number_order
    from .randomplay import play_random_game
except ImportError:      # tests/ run as a plain directory
    from parquet_checks import assert_export_keeps_games_whole  # type: ignore[no-redef]
    from parquet_checks import assert_read_models_in_number_order  # type: ignore[no-redef]
    from randomplay import play_random_game  # type: ignore[no-redef]

GAMES = [[e for e in play_random_game(seed, 2 + seed % 3) if type(e) not in ev.DERIVED_TYPES]
         for seed in range(10)]


def _store(tmp_path: Path, extended: bool) -> Path:
    """The ten games imported in one log; with ``extended``, two of them first stored in
    part by an earlier import, so their later events lie after every other game's."""
    full = tmp_path / "all.jsonl"
    full.write_bytes(b"".join(ev.encode_lines(g) for g in GAMES))
    db = tmp_path / "s.duckdb"
    with Store.open(db) as store:
        if extended:
            part = tmp_path / "part.jsonl"
            part.write_bytes(ev.encode_lines(GAMES[3][:30]) + ev.encode_lines(GAMES[7][:50]))
            assert import_logs(store, [part]).new == 2
        summary = import_logs(store, [full])
        assert summary.failed == 0
    return db


@pytest.fixture(scope="module")
def in_order(tmp_path_factory) -> Path:
    return _store(tmp_path_factory.mktemp("in_order"), extended=False)


@pytest.fixture(scope="module")
def out_of_order(tmp_path_factory) -> Path:
    return _store(tmp_path_factory.mktemp("out_of_order"), extended=True)


def test_in_game_order_tells_the_two_stores_apart(in_order, out_of_order):
    for db, want in ((in_order, True), (out_of_order, False)):
        with Store.open(db, read_only=True) as store:
            assert in_game_order(store.con) is want
            # the connection is usable afterwards (the scan ended early in the second)
            assert store.con.execute("SELECT count(*) FROM games").fetchall() == [(10,)]


@pytest.mark.parametrize("which", ["in_order", "out_of_order"])
def test_export_all_bytes_are_those_of_the_ordered_query(which, request, monkeypatch):
    db = request.getfixturevalue(which)
    with Store.open(db, read_only=True) as store:
        ids = ids_by_number(store.con)
        want = b"".join(bytes(b) for b in store.iter_lines(ids))
        if which == "in_order":     # the stored-order path, not the ordered query
            monkeypatch.setattr(Store, "iter_lines", lambda *a, **k: pytest.fail("sorted"))
        got = b"".join(bytes(b) for b in export_blocks(store, ids))
        # and independently: each game's stored lines, read one game at a time
        one_by_one = b"".join(t + b"\n" for g in ids for t in store.read_json(g))
    assert got == want == one_by_one


def test_export_all_of_some_games_keeps_their_order(in_order):
    with Store.open(in_order, read_only=True) as store:
        ids = ids_by_number(store.con)[::-1][:4]
        got = b"".join(bytes(b) for b in export_blocks(store, ids))
        want = b"".join(t + b"\n" for g in ids for t in store.read_json(g))
    assert got == want


def _expected_files(db: Path, buckets: int) -> dict[str, list[tuple]]:
    """Oracle: each events file's rows as the store holds them, the bucket by hashlib, rows
    by game number then seq (docs/SQL.md)."""
    con = duckdb.connect(str(db), read_only=True)
    players = dict(con.execute("SELECT game_id, n_players FROM games").fetchall())
    rows = con.execute("SELECT * FROM events ORDER BY game, seq").fetchall()
    con.close()
    files: dict[str, list[tuple]] = {}
    for r in rows:
        b = int(hashlib.md5(r[0].encode()).hexdigest()[:8], 16) % buckets
        files.setdefault(f"events/n_players={players[r[0]]}/data_{b}.parquet", []).append(r)
    return files


@pytest.mark.parametrize("which", ["in_order", "out_of_order"])
@pytest.mark.parametrize("open_files, bucket_events", [(64, 400), (2, 400), (64, 10**9)])
def test_parquet_events_files_hold_the_store_rows_in_order(which, open_files, bucket_events,
                                                            request, tmp_path, monkeypatch):
    """Many buckets, small row groups, fewer open files than buckets, or one bucket (every
    game of a player count in one file): each events file holds exactly its games' rows, by
    game number and seq, on either path."""
    db = request.getfixturevalue(which)
    monkeypatch.setattr(parquet, "BUCKET_EVENTS", bucket_events)
    monkeypatch.setattr(parquet, "ROW_GROUP_ROWS", 50)
    monkeypatch.setattr(parquet, "OPEN_FILES", open_files)
    with Store.open(db, read_only=True) as store:
        total = store.con.execute("SELECT count(*) FROM events").fetchall()[0][0]
        done = export_parquet(store, tmp_path / "x")
    want = _expected_files(db, -(-total // bucket_events))
    assert len(want) > (4 if bucket_events == 400 else 2)
    assert sorted(f for f in done.files if f.startswith("events/")) == sorted(want)
    # the columns as DuckDB's own COPY of the table marks them: required where no NULL is
    # stored (all but `player`, NULL in the events of no seat)
    theirs = tmp_path / "theirs.parquet"
    con = duckdb.connect(str(db), read_only=True)
    con.execute(f"COPY (SELECT * FROM events) TO '{theirs}' (FORMAT parquet)")
    con.close()
    schema = pq.read_schema(theirs).remove_metadata()
    assert [f.name for f in schema if f.nullable] == ["player"]
    for name, rows in want.items():
        table = pq.read_table(tmp_path / "x" / name)
        assert table.schema.remove_metadata() == schema, name
        assert [tuple(r.values()) for r in table.to_pylist()] == rows, name
    assert_export_keeps_games_whole(tmp_path / "x", db)


def test_parquet_stored_and_sorted_paths_write_the_same_tables(in_order, tmp_path, monkeypatch):
    """The old algorithm (one sorted query) against the new (the stored order), file by file."""
    monkeypatch.setattr(parquet, "BUCKET_EVENTS", 500)
    with Store.open(in_order, read_only=True) as store:
        export_parquet(store, tmp_path / "new")
        monkeypatch.setattr(parquet, "in_game_order", lambda con: False)
        export_parquet(store, tmp_path / "old")
    files = sorted(p.relative_to(tmp_path / "old") for p in (tmp_path / "old").rglob("*.parquet"))
    assert files == sorted(p.relative_to(tmp_path / "new")
                           for p in (tmp_path / "new").rglob("*.parquet"))
    for f in files:
        old, new = pq.read_table(tmp_path / "old" / f), pq.read_table(tmp_path / "new" / f)
        assert new.equals(old) and new.schema.metadata == old.schema.metadata, f


@pytest.mark.parametrize("which", ["in_order", "out_of_order"])
@pytest.mark.parametrize("stored", [True, False])
def test_parquet_read_models_follow_the_game_numbers(which, stored, request, tmp_path,
                                                     monkeypatch):
    """Each read model's file holds its rows by game number, then by its key: read as
    stored (no sort) or, when the store does not hold them so, sorted; the same files."""
    db = request.getfixturevalue(which)
    if not stored:
        monkeypatch.setattr(parquet, "_in_number_order", lambda *a: False)
    with Store.open(db, read_only=True) as store:
        export_parquet(store, tmp_path / "x")
    assert_read_models_in_number_order(tmp_path / "x", db)


def test_an_imported_store_holds_its_read_models_in_number_order(in_order):
    """An import writes each read model's rows game after game, in key order: the export
    reads them with no sort."""
    with Store.open(in_order, read_only=True) as store:
        con = store.con
        numbers = dict(con.execute("SELECT game_id, min(game) FROM commits GROUP BY game_id"
                                   ).fetchall())
        for table, key in parquet.READ_MODELS.items():
            assert "ORDER BY" not in parquet._read_model_query(con, table, numbers), table
            assert parquet._in_number_order(con, table, key[1:], numbers), table


_ROWS = [("g-b", 1, 1), ("g-b", 1, 2), ("g-b", 2, 1), ("g-a", 1, 1), ("g-a", 1, 3),
         ("g-c", 1, 1)]


@pytest.mark.parametrize("batch", [1 << 20, 1, 2, 3])
@pytest.mark.parametrize("rows, numbers, want", [
    (_ROWS, {"g-b": 1, "g-a": 2, "g-c": 5}, True),
    (_ROWS, {"g-b": 2, "g-a": 1, "g-c": 5}, False),                   # games out of order
    (_ROWS, {"g-b": 1, "g-a": 2}, False),                              # a game with no number
    (_ROWS, {"g-b": 1, "g-a": 1, "g-c": 5}, False),                   # two games, one number
    (_ROWS[:1] + _ROWS[2:3] + _ROWS[1:2] + _ROWS[3:], {"g-b": 1, "g-a": 2, "g-c": 5}, False),
    (_ROWS[:4] + _ROWS[3:], {"g-b": 1, "g-a": 2, "g-c": 5}, False),    # a row twice
    (_ROWS[:2] + _ROWS[3:5] + _ROWS[2:3] + _ROWS[5:], {"g-b": 1, "g-a": 2, "g-c": 5}, False),
    (_ROWS[:1] + [("g-b", 1, None)] + _ROWS[2:], {"g-b": 1, "g-a": 2, "g-c": 5}, False),
    (_ROWS[:5] + [("g-c", None, 1)], {"g-b": 1, "g-a": 2, "g-c": 5}, False),  # a null
    ([], {}, True),
])
def test_in_number_order(rows, numbers, want, batch, monkeypatch):
    """The pass over a read model's key columns: games by number, each game's rows together
    and rising by the rest of the key, across batch boundaries too."""
    monkeypatch.setattr(parquet, "ORDER_CHECK_ROWS", batch)
    con = duckdb.connect()
    con.execute("CREATE TABLE turns (game_id VARCHAR, round SMALLINT, turn SMALLINT)")
    if rows:
        con.executemany("INSERT INTO turns VALUES (?, ?, ?)", rows)
    assert parquet._in_number_order(con, "turns", ("round", "turn"), numbers) is want


@pytest.mark.parametrize("batch", [1 << 20, 1, 2])
@pytest.mark.parametrize("ids, want", [(["g-b", "g-a", "g-c"], True), (["g-a", "g-b", "g-c"], False),
                                       (["g-b", "g-b", "g-a"], False), (["g-b", "g-a", "g-b"], False)])
def test_in_number_order_of_one_row_per_game(ids, want, batch, monkeypatch):
    """A key of the game alone (``games``): one row per game, by number."""
    monkeypatch.setattr(parquet, "ORDER_CHECK_ROWS", batch)
    con = duckdb.connect()
    con.execute("CREATE TABLE games (game_id VARCHAR)")
    con.executemany("INSERT INTO games VALUES (?)", [(i,) for i in ids])
    assert parquet._in_number_order(con, "games", (), {"g-b": 1, "g-a": 2, "g-c": 3}) is want


def test_parquet_a_failed_write_in_a_writer_thread_leaves_nothing(in_order, tmp_path,
                                                                  monkeypatch):
    """A row group that cannot be written (disk full, say) fails the export with one line
    naming the target, and the target is not created."""
    from seasalt_log.errors import SeasaltError

    def full(self, *a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(parquet.pq.ParquetWriter, "write_table", full)
    with Store.open(in_order, read_only=True) as store, pytest.raises(SeasaltError) as err:
        export_parquet(store, tmp_path / "x")
    assert str(err.value).startswith(f"cannot export to {tmp_path / 'x'}: ")
    assert "No space left" in str(err.value) and "\n" not in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_cli_export_all_reads_as_stored_when_the_ids_sort_as_numbered(tmp_path, monkeypatch):
    """`seasalt export --all` prints games in their ids' natural order: when that is also
    the order they were written (g-1, g-2, ..., g-10), the stored order is read with no
    sort; the same bytes as one game at a time."""
    from msgspec.structs import replace
    from typer.testing import CliRunner

    from seasalt_cli.main import app
    log = tmp_path / "g.jsonl"
    log.write_bytes(b"".join(ev.encode_lines([replace(g[0], game_id=f"g-{i + 1}"), *g[1:]])
                             for i, g in enumerate(GAMES)))
    db = tmp_path / "g.duckdb"
    with Store.open(db) as store:
        assert import_logs(store, [log]).new == 10
        want = b"".join(t + b"\n" for i in range(10) for t in store.read_json(f"g-{i + 1}"))
    monkeypatch.setattr(Store, "iter_lines", lambda *a, **k: pytest.fail("sorted"))
    out = tmp_path / "out.jsonl"
    r = CliRunner().invoke(app, ["export", "--all", "--out", str(out), "--db", str(db)])
    assert r.exit_code == 0, r.output
    assert out.read_bytes() == want


@pytest.mark.parametrize("which", ["in_order", "out_of_order"])
def test_parquet_table_files_read_back_as_duckdbs_copy(which, request, tmp_path):
    """Every file but the events files has the types (DuckDB's and pyarrow's, required
    columns included) of DuckDB's own COPY of its table, on both paths (as stored, sorted)."""
    db = request.getfixturevalue(which)
    with Store.open(db, read_only=True) as store:
        export_parquet(store, tmp_path / "x")
    con = duckdb.connect()
    con.execute(f"ATTACH '{db}' AS s (READ_ONLY)")
    con.execute("USE s")
    for t in parquet.PARQUET_TABLES:
        ours, theirs = tmp_path / "x" / f"{t}.parquet", tmp_path / f"{t}.parquet"
        con.execute(f"COPY (SELECT * FROM {t}) TO '{theirs}' (FORMAT parquet)")
        assert (pq.read_schema(ours).remove_metadata()
                == pq.read_schema(theirs).remove_metadata()), t
        assert (con.execute(f"DESCRIBE SELECT * FROM '{ours}'").fetchall()
                == con.execute(f"DESCRIBE SELECT * FROM '{theirs}'").fetchall()), t
        assert (con.execute(f"SELECT count(*) FROM '{ours}'").fetchall()
                == con.execute(f"SELECT count(*) FROM {t}").fetchall()), t
    con.close()


def test_parquet_tables_written_beside_the_events_or_after_them_are_the_same(
        in_order, tmp_path, monkeypatch):
    """The read models' files are written by a thread on a cursor of its own while the events'
    are written; when that cursor's snapshot is not the export's (a write came between the
    two transactions' starts) they are written after the events, on the export's own: the
    same files either way."""
    calls: list[int] = []
    snapshot = parquet._snapshot

    def drifting(con):
        calls.append(1)
        return (*snapshot(con), len(calls))     # never the same twice: written after
    with Store.open(in_order, read_only=True) as store:
        export_parquet(store, tmp_path / "beside")
        monkeypatch.setattr(parquet, "_snapshot", drifting)
        export_parquet(store, tmp_path / "after")
    assert len(calls) == 2
    after = tmp_path / "after"
    files = sorted(p.relative_to(after) for p in after.rglob("*.parquet"))
    assert len(files) > len(parquet.PARQUET_TABLES)
    for f in files:
        a, b = pq.read_table(tmp_path / "after" / f), pq.read_table(tmp_path / "beside" / f)
        assert a.equals(b) and a.schema == b.schema, f


@pytest.mark.parametrize("failing", ["tables", "events"])
def test_parquet_a_failure_on_either_side_fails_the_export_and_leaves_nothing(
        failing, in_order, tmp_path, monkeypatch):
    """A failure writing the read models (in their thread) or the events fails the export
    with that error in one line; the other side stops; the target is not created."""
    import threading

    from seasalt_log.errors import SeasaltError
    stopped: list[bool] = []

    def full(*a, **k):
        raise OSError(28, "No space left on device")
    if failing == "tables":
        monkeypatch.setattr(parquet, "_write_table", full)
    else:
        write_tables = parquet._write_tables

        def waiting(con, directory, stop: threading.Event):
            assert stop.wait(30)        # the events' failure sets it
            stopped.append(True)
            return write_tables(con, directory, stop)
        monkeypatch.setattr(parquet, "_write_tables", waiting)
        monkeypatch.setattr(parquet, "_write_events", full)
    with Store.open(in_order, read_only=True) as store, pytest.raises(SeasaltError) as err:
        export_parquet(store, tmp_path / "x")
    assert str(err.value).startswith(f"cannot export to {tmp_path / 'x'}: ")
    assert "No space left" in str(err.value) and "\n" not in str(err.value)
    assert list(tmp_path.iterdir()) == []
    assert stopped == ([True] if failing == "events" else [])
