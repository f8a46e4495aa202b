"""Rows into DuckDB as Arrow (seasalt_log.store.arrow_rows): every table's rows keep the
store's types, a worker's files give back exactly its rows, staged loads go in as INSERTs of
at most one row group, and a rolled-back transaction keeps none of them."""

from __future__ import annotations


import duckdb
import pytest
import pyarrow as pa

from seasalt_log.store import Store, arrow_rows
from seasalt_log.store.arrow_rows import (SCHEMAS, RowSink, StagedRows, read_file, record_batch,
                                          renumbered)
from seasalt_log.store.projections import project
from seasalt_log.store.store import plan_write

from .reliability_helpers import valid_games
from .scenario import states_after as _states




def _game_rows(game_id="g-1", number=0) -> dict[str, list[tuple]]:
    events = valid_games(1, seed=5)[0]
    states = _states(events)
    w = plan_write(game_id, number, events, states)
    return {"events": w.event_rows, "commits": [w.commit_row], **w.projection_rows}


def test_every_table_has_the_store_columns_and_types(tmp_path):
    """The Arrow schema of each table is the store's: the same column names, and DuckDB
    reads each Arrow type as the column's own SQL type."""
    with Store.open(tmp_path / "s.duckdb") as store:
        for table, schema in SCHEMAS.items():
            cols = store.con.execute(
                "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? "
                "ORDER BY column_index", [table]).fetchall()
            assert [c for c, _ in cols] == schema.names, table
            store.con.register("_t", pa.Table.from_batches([], schema=schema))
            got = store.con.execute("SELECT * FROM _t").description
            store.con.unregister("_t")
            want = {c: t for c, t in cols}
            for (name, *_), field in zip(got, schema):
                assert arrow_rows.arrow_type(want[name]) == field.type, (table, name)


def test_a_sinks_files_hold_exactly_its_rows(tmp_path):
    rows = _game_rows()
    sink = RowSink(tuple(rows), directory=tmp_path, tag="7")
    sink.add(rows)
    files = sink.close()
    assert set(files) == {t for t, r in rows.items() if r}
    for t, path in files.items():
        assert path.endswith(f"{t}-7.arrow")
        got = read_file(path)
        assert got.schema == SCHEMAS[t]
        want = [tuple(r) for r in rows[t]]
        assert [tuple(d.values()) for d in got.to_pylist()] == want, t


def test_a_sink_kept_in_memory_gives_the_rows_its_files_would_hold(tmp_path):
    """Without a directory or a connection a sink writes no file: each table's rows come
    back as one Arrow table equal to what its file holds, and read_file gives them as they
    are; a connection and a directory together are refused."""
    rows = _game_rows()
    on_disk = RowSink(tuple(rows), directory=tmp_path, tag="1")
    kept = RowSink(tuple(rows))
    for sink in (on_disk, kept):
        sink.add({t: r for t, r in rows.items() if t != "events"})
        sink.add_columns("events", [list(c) for c in zip(*rows["events"])])
    files, tables = on_disk.close(), kept.close()
    assert list(tmp_path.iterdir()) and set(tables) == set(files)
    for t, table in tables.items():
        assert isinstance(table, pa.Table) and table.schema == SCHEMAS[t]
        assert read_file(table) is table
        assert table.equals(read_file(files[t])), t
        assert [tuple(d.values()) for d in table.to_pylist()] == [tuple(r) for r in rows[t]], t
    with pytest.raises(ValueError):
        RowSink(("turns",), con=object(), directory=tmp_path)


def test_a_sink_on_a_connection_inserts_its_rows(tmp_path):
    rows = _game_rows()
    with Store.open(tmp_path / "s.duckdb") as store:
        sink = RowSink(("turns", "rounds"), con=store.con)
        sink.add({"turns": rows["turns"], "rounds": rows["rounds"]})
        assert sink.close() == {}
        assert store.con.execute("SELECT count(*) FROM turns").fetchone()[0] == len(rows["turns"])
        assert sink.counts == {"turns": len(rows["turns"]), "rounds": len(rows["rounds"])}


def test_renumbered_leaves_out_skipped_games_and_adds_the_base():
    batch = record_batch("commits", [("a", 0, 3, 11), ("b", 1, 4, 12), ("c", 2, 5, 13)])
    got = renumbered(pa.Table.from_batches([batch]), 40, {"b"}).to_pylist()
    assert [(r["game_id"], r["game"]) for r in got] == [("a", 40), ("c", 42)]


def test_staged_rows_go_in_as_inserts_of_at_most_a_row_group(monkeypatch):
    """Loads are staged and inserted together, never more than a row group per INSERT: the
    INSERT before a load that would pass it takes what was staged."""
    monkeypatch.setattr(arrow_rows, "ROW_GROUP_ROWS", 5)
    con = duckdb.connect()
    con.execute("CREATE TABLE commits (game_id VARCHAR, game INTEGER, seq INTEGER, hash BIGINT)")
    inserts = _counted_inserts(monkeypatch, sizes_only=True)
    part = _commit_rows
    staged = StagedRows(con)
    staged.add("commits", part(2, 0))
    staged.add("commits", part(2, 2))
    assert inserts == [] and con.execute("SELECT count(*) FROM commits").fetchone()[0] == 0
    staged.add("commits", part(2, 4))         # 6 > 5: the first four go in
    assert inserts == [4]
    staged.add("commits", part(7, 6))         # larger than a row group: alone
    staged.flush()
    assert inserts == [4, 2, 7]
    assert [r[0] for r in con.execute("SELECT game FROM commits").fetchall()] == list(range(13))
    staged.add("commits", part(1, 20))
    staged.discard()
    staged.flush()
    assert inserts == [4, 2, 7]


def test_small_tables_wait_for_every_and_keep_their_order(monkeypatch):
    """flush(every=False) inserts only the tables with EARLY_ROWS staged; another table's
    rows wait, and the rows staged after them append behind them (rowid order)."""
    monkeypatch.setattr(StagedRows, "EARLY_ROWS", 3)
    con = duckdb.connect()
    for t in ("commits", "heads"):
        con.execute(f"CREATE TABLE {t} (game_id VARCHAR, game INTEGER, seq INTEGER, hash BIGINT)")
    inserts = _counted_inserts(monkeypatch)
    part = _commit_rows
    staged = StagedRows(con)
    staged.add("commits", part(3, 0))
    staged.add("heads", part(1, 100))
    staged.flush(every=False)
    assert inserts == [("commits", 3)]
    staged.add("commits", part(1, 3))
    staged.add("heads", part(1, 101))
    staged.flush(every=False)             # one commits row, two heads rows: both wait
    assert inserts == [("commits", 3)]
    staged.add("heads", part(1, 102))
    staged.flush(every=False)
    assert inserts == [("commits", 3), ("heads", 3)]
    staged.add("heads", part(2, 103))
    staged.flush()
    assert inserts[2:] == [("commits", 1), ("heads", 2)]
    for t, want in (("commits", [0, 1, 2, 3]), ("heads", [100, 101, 102, 103, 104])):
        assert [r[0] for r in con.execute(f"SELECT game FROM {t} ORDER BY rowid").fetchall()] == want


def test_a_write_after_a_load_keeps_each_tables_rows_in_order(tmp_path):
    """A write in the transaction of a load (a strict import: a game met again) stores
    its rows after the rows the load staged, in every table."""
    first = _game_rows("g-1")
    sink = RowSink(tuple(first))
    sink.add(first)
    files = sink.close()
    events = valid_games(2, seed=5)[1]
    with Store.open(tmp_path / "s.duckdb") as store:
        store.begin()
        store.load(files, ["g-1"])
        store.finish_loads(every=False)
        store.write([plan_write("g-2", store.assign("g-2"), events, _states(events))])
        store.commit()
        for t in ("games", "commits", "heads", "seats", "events"):
            ids = [r[0] for r in store.con.execute(
                f"SELECT game_id FROM {t} ORDER BY rowid").fetchall()]
            assert ids == sorted(ids) and set(ids) == {"g-1", "g-2"}, t


def test_a_rollback_forgets_staged_loads(tmp_path):
    rows = _game_rows("g-9")
    sink = RowSink(tuple(rows), directory=tmp_path, tag="0")
    sink.add(rows)
    files = sink.close()
    with Store.open(tmp_path / "s.duckdb") as store:
        store.begin()
        store.load(files, ["g-9"])
        store.rollback()
        store.begin()
        store.commit()
        assert store.con.execute("SELECT count(*) FROM events").fetchone()[0] == 0
        store.begin()
        store.load(files, ["g-9"])
        store.commit()          # a commit inserts what is staged first
        assert store.con.execute("SELECT count(*) FROM events").fetchone()[0] == len(rows["events"])
        assert store.con.execute("SELECT min(game) FROM events").fetchone()[0] >= 1


def test_project_rows_are_what_the_sink_takes():
    """Every projection row fits its table's Arrow struct (no conversion error)."""
    events = valid_games(1, seed=8)[0]
    for t, rows in project("g", events, _states(events)).items():
        assert record_batch(t, rows).num_rows == len(rows)


def test_a_sinks_batches_from_columns_equal_the_struct_of_rows(tmp_path, expansion_games):
    """The sink converts rows a column at a time: the same batches as pyarrow's struct
    conversion of the rows (record_batch), for every table of games of every setting."""
    games = [*valid_games(4, seed=3), *expansion_games[::3]]
    rows: dict[str, list[tuple]] = {}
    for i, events in enumerate(games):
        for t, r in project(f"g-{i}", events, _states(events)).items():
            rows.setdefault(t, []).extend(r)
    assert all(rows[t] for t in ("turns", "duos", "trios", "round_extra", "event_outcomes"))
    sink = RowSink(tuple(rows), directory=tmp_path, tag="c")
    sink.add(rows)
    for t, path in sink.close().items():
        assert read_file(path).equals(pa.Table.from_batches([record_batch(t, rows[t])])), t


@pytest.mark.parametrize("kind", [pa.int8(), pa.int16(), pa.int32(), pa.int64()])
def test_an_integer_column_is_what_pyarrow_makes_of_it(kind):
    """Through a C array or not, an integer column is pyarrow's conversion of its values,
    or the same error: the type's limits, a NULL, a value out of range."""
    lo, hi = -(1 << (kind.bit_width - 1)), (1 << (kind.bit_width - 1)) - 1
    for values in ([lo, -1, 0, 1, hi], [0, None, 3], [], [hi + 1], [lo - 1], [1, 2.5]):
        try:
            want = pa.array(values, type=kind)
        except (pa.ArrowException, OverflowError, TypeError) as exc:
            with pytest.raises(type(exc)):
                arrow_rows._array(values, kind)
            continue
        got = arrow_rows._array(values, kind)
        assert got.type == kind and got.equals(want)
        assert arrow_rows._array(tuple(values), kind).equals(want)


@pytest.mark.parametrize("kind", [pa.int8(), pa.int16(), pa.int32(), pa.int64()])
def test_a_c_array_of_the_width_is_taken_as_it_is(kind):
    """An integer column given as a C array of its width is its values; of another
    width, converted (or the same error as its values as a list)."""
    from array import array
    code = arrow_rows._C_INTS[kind]
    for values in ([], [0, -1, 5], [1 << 20]):
        for c in (code, "q", "b"):
            try:
                given = array(c, values)
            except OverflowError:
                continue
            try:
                want = pa.array(values, type=kind)
            except (pa.ArrowException, OverflowError) as exc:
                with pytest.raises(type(exc)):
                    arrow_rows._array(given, kind)
                continue
            got = arrow_rows._array(given, kind)
            assert got.type == kind and got.equals(want)


def test_a_sink_given_c_arrays_gives_the_batches_of_lists(tmp_path):
    """Integer columns given as C arrays, over several adds (copied, not kept: the
    caller's are left as they were), give the batch of the same columns as lists."""
    from array import array
    rows = _game_rows("g-1", 0)["events"] + _game_rows("g-2", 1)["events"]
    lists = [list(c) for c in zip(*rows)]
    lists[7] = [t.encode() for t in lists[7]]
    sink = RowSink(("events",))
    given = []
    for a, b in ((0, len(rows) // 2 + 5), (len(rows) // 2 + 5, len(rows))):
        part = [c[a:b] for c in lists]
        part[1], part[2] = array("i", part[1]), array("i", part[2])
        given.append((part[2], list(part[2])))
        sink.add_columns("events", part)
    got = sink.close()["events"]
    assert got.equals(pa.Table.from_batches([arrow_rows.column_batch("events", lists)]))
    assert all(list(col) == values for col, values in given)


def test_a_sink_given_arrow_arrays_gives_the_batches_of_lists():
    """A column given as Arrow arrays (each game's id, :func:`arrow_rows.repeated`), over
    several adds, gives the batch of the same column as a list, counted by its rows."""
    games = [_game_rows("g-1", 0)["events"], _game_rows("g-é", 1)["events"]]
    lists = [list(c) for c in zip(*games[0], *games[1])]
    sink = RowSink(("events",))
    for rows in games:
        part = [list(c) for c in zip(*rows)]
        part[0] = arrow_rows.repeated(rows[0][0], len(rows))
        sink.add_columns("events", part)
    got = sink.close()["events"]
    assert got.equals(pa.Table.from_batches([arrow_rows.column_batch("events", lists)]))
    assert sink.counts["events"] == len(lists[0])


def test_a_sink_given_lines_gives_the_batches_of_lists():
    """A JSON column given as the :class:`Lines` of games in a log (those that follow each
    other, one after a gap, one given as an Arrow array between them), over several adds,
    gives the batch of the same column as a list."""
    from seasalt_log.log_lines import Lines, Log
    texts = [f'{{"n":{i}}}'.encode() for i in range(12)]
    log = Log(b"".join(t + b"\n" for t in texts))
    starts = [0]
    for t in texts:
        starts.append(starts[-1] + len(t) + 1)
    games = [(0, 3), (3, 5), (7, 9), (9, 10), (10, 12)]     # lines 5 and 6 left out
    rows = _game_rows("g-1", 0)["events"]
    sink = RowSink(("events",))
    for k, (a, b) in enumerate(games):
        part = [list(c) for c in zip(*rows[:b - a])]
        lines = Lines(log, a, b - a, starts[a], starts[b])
        part[7] = arrow_rows.texts_array(lines.split()) if k == 3 else lines
        sink.add_columns("events", part)
    got = sink.close()["events"]
    assert got["event"].to_pylist() == [t.decode() for a, b in games for t in texts[a:b]]


@pytest.mark.parametrize("value", ["g-1", "", "é-ü", "x" * 300])
@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_repeated_is_the_array_of_n_copies(value, n):
    assert arrow_rows.repeated(value, n).equals(pa.array([value] * n, pa.string()))


def _counted_inserts(monkeypatch, sizes_only: bool = False) -> list:
    """Every INSERT of :mod:`arrow_rows` from now on, as (table, rows) or as its row count."""
    inserts: list = []
    real = arrow_rows.insert

    def insert(c, table, rows):
        inserts.append(rows.num_rows if sizes_only else (table, rows.num_rows))
        real(c, table, rows)
    monkeypatch.setattr(arrow_rows, "insert", insert)
    return inserts


def _commit_rows(n: int, first: int) -> pa.Table:
    """``n`` commits rows of games ``first``, ``first + 1``, ..."""
    return pa.Table.from_batches([record_batch(
        "commits", [(f"g{first + i}", first + i, 1, 0) for i in range(n)])])


def test_system_allocation_puts_the_pool_back_after_an_error():
    before = pa.default_memory_pool()
    with pytest.raises(RuntimeError):
        with arrow_rows.system_allocation():
            assert pa.default_memory_pool().backend_name == pa.system_memory_pool().backend_name
            raise RuntimeError
    assert pa.default_memory_pool().backend_name == before.backend_name


def test_system_allocation_overlapping_uses_ending_out_of_order_put_the_first_pool_back():
    """Two imports of one process (a library user's threads) that end in another order
    than they began: the pool there was before the first is put back after the last."""
    before = pa.default_memory_pool().backend_name
    if before == pa.system_memory_pool().backend_name:
        pytest.skip("the system's pool is pyarrow's default here")
    first, second = arrow_rows.system_allocation(), arrow_rows.system_allocation()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert pa.default_memory_pool().backend_name == pa.system_memory_pool().backend_name
    second.__exit__(None, None, None)
    assert pa.default_memory_pool().backend_name == before
