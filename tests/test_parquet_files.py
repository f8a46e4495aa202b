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


def test_a_failed_table_write_leaves_no_open_writer(tmp_path, monkeypatch):
    """A batch that cannot be written fails the table's write with that error."""
    def full(self, *a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(parquet.pq.ParquetWriter, "write_batch", full)
    con = duckdb.connect()
    con.execute(TABLE)
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", ROWS)
    with pytest.raises(OSError, match="No space left"):
        parquet._write_file(con, "t", "SELECT * FROM t", tmp_path / "x.parquet", ("game_id",))
