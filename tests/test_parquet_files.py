"""The read models' Parquet files (``seasalt export --parquet``), written by pyarrow: the
same column types, read back by DuckDB and by pyarrow, as DuckDB's own ``COPY`` of the same
table (the oracle), the same rows in the same order, statistics only for the key."""

from __future__ import annotations

import duckdb
import pyarrow.parquet as pq
import pytest

from seasalt_log.analytics import parquet

TABLE = """CREATE TABLE t (game_id VARCHAR NOT NULL, round SMALLINT NOT NULL, seat TINYINT,
    maybe VARCHAR, gap SMALLINT, meta JSON, cards VARCHAR[], flag BOOLEAN NOT NULL)"""
ROWS = [("g-2", 1, 0, "a", 5, '{"seed": 1}', ["x:1", "y:2"], True),
        ("g-2", 2, 1, "b", None, '{"seed": 2}', [], False),
        ("g-1", 1, None, "c", 7, '{}', None, True)]


@pytest.mark.parametrize("rows, batch", [(ROWS, 2), (ROWS, 100), ([], 100)])
def test_a_table_file_reads_back_as_duckdbs_copy(rows, batch, tmp_path, monkeypatch):
    monkeypatch.setattr(parquet, "TABLE_ROWS", batch)
    con = duckdb.connect()
    con.execute(TABLE)
    if rows:
        con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    ours, theirs = tmp_path / "ours.parquet", tmp_path / "theirs.parquet"
    parquet._write_file(con, "t", "SELECT * FROM t", ours, ("game_id", "round"))
    con.execute(f"COPY (SELECT * FROM t) TO '{theirs}' (FORMAT parquet)")
    # pyarrow: the same Arrow schema (types, required columns, JSON as JSON, no dictionary)
    assert pq.read_schema(ours).remove_metadata() == pq.read_schema(theirs).remove_metadata()
    assert pq.read_schema(ours).field("maybe").nullable is False        # no NULL stored
    assert pq.read_schema(ours).field("gap").nullable is bool(rows)     # a NULL stored
    assert pq.read_table(ours).equals(pq.read_table(theirs))
    # DuckDB: the same types, the same rows in the same order
    for f in (ours, theirs):
        assert con.execute(f"DESCRIBE SELECT * FROM '{f}'").fetchall() == con.execute(
            f"DESCRIBE SELECT * FROM '{theirs}'").fetchall()
    got = con.execute(f"SELECT * FROM read_parquet('{ours}', file_row_number = true) "
                      "ORDER BY file_row_number").fetchall()
    assert [r[:-1] for r in got] == con.execute("SELECT * FROM t").fetchall()
    assert [r[-1] for r in got] == list(range(len(rows)))
    meta = pq.read_metadata(ours)
    assert meta.num_row_groups == -(-len(rows) // batch)
    for g in range(meta.num_row_groups):
        stats = {meta.schema.column(c).path.split(".")[0]
                 for c in range(meta.num_columns)
                 if meta.row_group(g).column(c).statistics is not None
                 and meta.row_group(g).column(c).statistics.has_min_max}
        assert stats == {"game_id", "round"}


@pytest.mark.parametrize("kept", [0, 1])
def test_a_table_after_deletes_reads_back_as_duckdbs_copy(kept, tmp_path):
    """A table whose rows with NULLs were deleted (a read model's rows are replaced), all
    of them or all but one without NULLs: its file's columns are as DuckDB's own COPY
    makes them (DuckDB's statistics still count the deleted rows' NULLs)."""
    con = duckdb.connect(str(tmp_path / "s.duckdb"))
    con.execute(TABLE)
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", ROWS)
    con.execute("CHECKPOINT")
    con.execute("DELETE FROM t WHERE seat IS NULL OR gap IS NULL" if kept else "DELETE FROM t")
    ours, theirs = tmp_path / "ours.parquet", tmp_path / "theirs.parquet"
    assert parquet._write_table(con, "t", "SELECT * FROM t", ours, ("game_id",)) == kept
    con.execute(f"COPY (SELECT * FROM t) TO '{theirs}' (FORMAT parquet)")
    assert pq.read_schema(ours).remove_metadata() == pq.read_schema(theirs).remove_metadata()
    assert pq.read_table(ours).num_rows == kept


def test_a_failed_table_write_closes_its_writer(tmp_path, monkeypatch):
    """A batch that cannot be written fails the table's write with that error, the file's
    writer closed."""
    closed: list[str] = []

    def full(self, *a, **k):
        raise OSError(28, "No space left on device")

    def spy(cls, name):
        real = getattr(cls, name)

        def called(self, *a, **k):
            closed.append(name)
            return real(self, *a, **k)
        monkeypatch.setattr(cls, name, called)

    monkeypatch.setattr(parquet.pq.ParquetWriter, "write_batch", full)
    spy(parquet.pq.ParquetWriter, "close")
    con = duckdb.connect()
    con.execute(TABLE)
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", ROWS)
    try:
        parquet._write_file(con, "t", "SELECT * FROM t", tmp_path / "x.parquet", ("game_id",))
    except OSError as exc:          # (its traceback keeps the writer: not closed by its __del__)
        assert "No space left" in str(exc)
        assert closed == ["close"]
    else:
        pytest.fail("the write did not fail")
