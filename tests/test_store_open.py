"""How a store file is opened for writing: attached with its own row group size
(:data:`~seasalt_log.store.store.ROW_GROUP_SIZE`), under the database name a plain
``duckdb.connect(file)`` gives it, and shared by every read-write open in the process."""

from __future__ import annotations

import duckdb
import pytest

from seasalt_log.store import Store
from seasalt_log.store.store import ROW_GROUP_SIZE, wal_path


def plain_name(path) -> str:
    """The database name DuckDB itself gives the file (the oracle)."""
    con = duckdb.connect(str(path))
    try:
        return con.execute("SELECT current_database()").fetchone()[0]
    finally:
        con.close()


def row_groups(con, table: str) -> list[int]:
    """The rows of each row group of ``table``, in order."""
    return [n for _, n in con.execute(
        f"SELECT row_group_id, max(start + count) - min(start) FROM pragma_storage_info('{table}') "
        "WHERE segment_type <> 'VALIDITY' GROUP BY ALL ORDER BY 1").fetchall()]


@pytest.mark.parametrize("name", ["my-store.v2.duckdb", "store.duckdb", "main.db", "it's.duckdb",
                                  "memory.duckdb", "Memory.duckdb", "MEMORY.v2.duckdb"])
def test_a_writable_store_keeps_the_name_a_plain_connection_gives_it(tmp_path, name):
    path = tmp_path / name
    Store.open(path).close()
    want = plain_name(path)
    with Store.open(path) as s:
        assert s.con.execute("SELECT current_database()").fetchone()[0] == want
        # a second connection to the same database (as the service makes) sees the store
        cur = s.con.cursor()
        assert cur.execute("SELECT current_database()").fetchone()[0] == want
        assert cur.execute("SELECT count(*) FROM events").fetchone()[0] == 0
        names = {r[0] for r in s.con.execute("SELECT database_name FROM duckdb_databases()").fetchall()}
        assert names == {want, "system", "temp"}
        assert s.con.execute(f"SELECT count(*) FROM {duckdb_identifier(want)}.main.events"
                             ).fetchone()[0] == 0


def duckdb_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def test_a_writable_store_writes_row_groups_of_its_size_and_a_plain_connection_reads_them(tmp_path):
    path = tmp_path / "s.duckdb"
    rows = 2 * ROW_GROUP_SIZE + 1000
    with Store.open(path) as s:
        s.begin()
        s.con.execute(f"CREATE TABLE t AS SELECT range AS i, range % 7 AS j FROM range({rows})")
        s.commit()
        assert row_groups(s.con, "t") == [16384, 16384, 1000]
    assert not wal_path(path).exists()      # closing checkpoints what the commit logged
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT count(*), sum(i), sum(j) FROM t").fetchone() == (
            rows, rows * (rows - 1) // 2, sum(i % 7 for i in range(rows)))
    finally:
        con.close()
    # a plain read-write connection writes DuckDB's own row groups (122,880 rows)
    con = duckdb.connect(str(path))
    try:
        con.execute("CREATE TABLE u AS SELECT range AS i FROM range(130000)")
        con.execute("CHECKPOINT")
        assert row_groups(con, "u") == [122880, 130000 - 122880]
    finally:
        con.close()


def test_read_write_opens_in_one_process_share_the_database(tmp_path):
    path = tmp_path / "s.duckdb"
    a = Store.open(path)
    b = Store.open(path)
    try:
        a.con.execute("CREATE TABLE t (i INTEGER)")
        a.con.execute("INSERT INTO t VALUES (1)")
        assert b.con.execute("SELECT i FROM t").fetchall() == [(1,)]
        a.close()
        b.con.execute("INSERT INTO t VALUES (2)")
        assert b.con.execute("SELECT i FROM t ORDER BY i").fetchall() == [(1,), (2,)]
    finally:
        b.close()
    with Store.open(path, read_only=True) as s:
        assert s.con.execute("SELECT i FROM t ORDER BY i").fetchall() == [(1,), (2,)]


def test_a_file_open_by_a_plain_connection_in_the_process_is_shared(tmp_path):
    path = tmp_path / "s.duckdb"
    Store.open(path).close()
    con = duckdb.connect(str(path))
    try:
        con.execute("CREATE TABLE t AS SELECT 5 AS i")
        with Store.open(path) as s:
            assert s.con.execute("SELECT i FROM t").fetchall() == [(5,)]
    finally:
        con.close()


def test_threads_opening_a_store_at_once_share_it(tmp_path):
    import threading
    path = tmp_path / "s.duckdb"
    Store.open(path).close()
    start = threading.Barrier(8)
    opened: list[Store] = []
    errors: list[Exception] = []

    def open_it():
        start.wait()
        try:
            opened.append(Store.open(path))
        except Exception as exc:        # noqa: BLE001  (reported below)
            errors.append(exc)
    threads = [threading.Thread(target=open_it) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert not errors, errors[:2]
        opened[0].con.execute("CREATE TABLE t AS SELECT 7 AS i")
        assert [s.con.execute("SELECT i FROM t").fetchall() for s in opened] == [[(7,)]] * 8
    finally:
        for s in opened:
            s.close()


def test_a_read_only_open_beside_this_process_writer_says_what_to_do(tmp_path):
    """A read-only open of a store this process holds open for writing is refused by DuckDB
    (one configuration per file and process): the error says so in one line, and what to
    read it through, instead of DuckDB's "Unique file handle conflict"."""
    from seasalt_log.errors import SeasaltError, StoreBusyError

    path = tmp_path / "held.duckdb"
    with Store.open(path):
        with pytest.raises(SeasaltError) as err:
            Store.open(path, read_only=True)
    # not "busy" (another process): an interrupted import's clean-up in this process
    # removes the store it made when it meets this (tests/test_ctrl_c_import.py)
    assert not isinstance(err.value, StoreBusyError)
    message = str(err.value)
    assert "open for writing in this process" in message and "conflict" not in message
    assert "\n" not in message
    Store.open(path, read_only=True).close()    # once the writer has closed it opens


def test_a_new_store_in_a_missing_directory_is_named_plainly(tmp_path):
    """``--db missing/s.duckdb``: one line naming the directory (it was DuckDB's "IO Error:
    Cannot open file "<absolute path>": No such file or directory")."""
    from seasalt_log.errors import SeasaltError
    path = tmp_path / "missing" / "s.duckdb"
    with pytest.raises(SeasaltError) as caught:
        Store.open(path)
    assert str(caught.value) == f"cannot create the store {path}: no directory {path.parent}"
    assert not path.parent.exists()
