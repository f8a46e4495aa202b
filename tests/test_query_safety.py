"""``seasalt query``: reading works in every format; every attempt to change data, change a
setting or touch a file is refused with one line, a non-zero exit, and changes nothing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log.analytics.query import QueryRefusedError, run_query
from seasalt_log.service import import_logs
from seasalt_log.store import Store

try:
    from . import analytics_games as fx
except ImportError:      # tests/ run as a plain directory
    import analytics_games as fx  # type: ignore[no-redef]

runner = CliRunner()


def cli(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return fx.stored(tmp_path_factory.mktemp("query"))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def contents(path: Path) -> list:
    """Every table and view, and a digest of every table's rows."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
        views = con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall()
        rows = [con.execute(f"SELECT count(*), md5(string_agg(x::VARCHAR, '|' ORDER BY x::VARCHAR)) "
                            f"FROM {t} AS x").fetchall() for t in tables]
        return [tables, views, rows]
    finally:
        con.close()


REFUSED = {
    "insert": "INSERT INTO games SELECT * FROM games",
    "insert_events": "INSERT INTO events SELECT * FROM events",
    "update": "UPDATE seats SET total = 0",
    "delete": "DELETE FROM events",
    "drop": "DROP TABLE turns",
    "drop_view": "DROP VIEW v_calls",
    "create_table": "CREATE TABLE x AS SELECT 1 AS a",
    "create_temp": "CREATE TEMP TABLE x AS SELECT 1 AS a",
    "create_view": "CREATE VIEW v AS SELECT 1 AS a",
    "create_macro": "CREATE MACRO twice(a) AS a * 2",
    "alter": "ALTER TABLE games ADD COLUMN x INTEGER",
    "truncate": "TRUNCATE rounds",
    "copy_to": "COPY games TO '{tmp}/games.csv'",
    "copy_query_to": "COPY (SELECT * FROM events) TO '{tmp}/events.parquet' (FORMAT parquet)",
    "copy_from": "COPY games FROM '/etc/passwd'",
    "export_database": "EXPORT DATABASE '{tmp}/dump'",
    "attach": "ATTACH '{tmp}/other.duckdb' AS other",
    "attach_memory": "ATTACH ':memory:' AS scratch",
    "detach": "DETACH q",
    "read_csv": "SELECT * FROM read_csv('/etc/passwd')",
    "read_text": "SELECT * FROM read_text('/etc/hostname')",
    "read_parquet": "SELECT * FROM read_parquet('{tmp}/*.parquet')",
    "glob": "SELECT * FROM glob('/*')",
    "install": "INSTALL httpfs",
    "load": "LOAD json",
    "set_access": "SET enable_external_access = true",
    "reset_access": "RESET enable_external_access",
    "set_threads": "SET threads = 1",
    "pragma": "PRAGMA enable_profiling",
    "checkpoint": "CHECKPOINT",
    "vacuum": "VACUUM",
    "begin": "BEGIN TRANSACTION",
    "call": "CALL pragma_version()",
    "two_statements": "SELECT 1; DROP TABLE games",
    "pivot": "PIVOT rounds ON ending USING count(*)",
    "use": "USE memory",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused(db, tmp_path, name):
    sql = REFUSED[name].format(tmp=tmp_path)
    before, state = digest(db), contents(db)
    (tmp_path / "keep.parquet").write_bytes(b"PAR1")      # something read_parquet could find
    r = cli("query", sql, "--db", db)
    assert r.exit_code == 1, (r.stdout, r.stderr)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: query refused: "), r.stderr
    assert "Traceback" not in r.output
    assert digest(db) == before and contents(db) == state
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.parquet"]     # no file written


@pytest.mark.parametrize("sql, name", [
    ("CHECKPOINT", "CHECKPOINT"), ("-- first\nFORCE CHECKPOINT", "FORCE CHECKPOINT"),
    ("use memory", "USE"), ("RESET threads", "RESET"), ("SET VARIABLE v = 1", "SET VARIABLE"),
    ("ANALYZE", "ANALYZE"), ("DEALLOCATE p", "DEALLOCATE"), ("COMMENT ON TABLE games IS 'x'",
    "COMMENT ON"), ("INSTALL httpfs", "INSTALL"), ("CALL pragma_version()", "CALL"),
    ("SET threads = 1", "SET"), ("DROP TABLE games", "DROP"), ("BEGIN", "BEGIN"),
    ("UPDATE EXTENSIONS", "UPDATE EXTENSIONS"),      # a type the duckdb module cannot name
])
def test_a_refusal_names_the_statement_as_written(db, sql, name):
    """DuckDB calls CHECKPOINT a CALL and USE a SET (and so on): the refusal says what the
    user wrote."""
    with pytest.raises(QueryRefusedError, match=f"^query refused: {name} statements may not"):
        run_query(db, sql)


def test_refused_in_the_library(db):
    with pytest.raises(QueryRefusedError, match="read-only"):
        run_query(db, "DELETE FROM events")
    with pytest.raises(QueryRefusedError, match="may not read or write files"):
        run_query(db, "SELECT * FROM read_csv('/etc/passwd')")


def test_sql_errors_are_one_line(db):
    for sql in ("SELEC 1", "SELECT * FROM nowhere", "SELECT * FROM '/etc/passwd'"):
        r = cli("query", sql, "--db", db)
        assert r.exit_code == 1 and r.stdout == ""
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: query failed: "), r.stderr
    r = cli("query", "--db", db)
    assert r.exit_code == 2 and "give the SQL" in r.stderr
    assert cli("query", "--db", db.parent / "missing.duckdb", "SELECT 1").exit_code == 1


def test_sql_that_starts_with_a_comment(db, tmp_path):
    """SQL starting with -- is taken for an option unless -- comes before it (or it is read
    from --file or stdin); the error says so (test_cli_conventions)."""
    sql = "-- one row\nSELECT 1 AS x"
    (tmp_path / "q.sql").write_text(sql)
    for args, stdin in ((["--", sql], None), (["--file", tmp_path / "q.sql"], None), (["-"], sql)):
        r = cli("query", "--db", db, "--format", "csv", *args, input=stdin)
        assert r.exit_code == 0 and r.stdout == "x\n1\n", (args, r.output)


ALLOWED = [
    ("SELECT count(*) AS n FROM games", [{"n": 4}]),
    ("WITH w AS (SELECT name FROM seats WHERE winner) SELECT count(*) AS n FROM w", [{"n": 3}]),
    ("FROM games SELECT game_id ORDER BY game_id LIMIT 1", [{"game_id": "G1"}]),
    ("VALUES (1)", [{"col0": 1}]),
    ("SHOW TABLES", None),
    ("DESCRIBE turns", None),
    ("SUMMARIZE rounds", None),
    ("EXPLAIN SELECT * FROM events", None),
    ("SELECT comment FROM duckdb_columns() WHERE table_name = 'turns' AND column_name = 'take'", None),
]


@pytest.mark.parametrize("sql,expected", ALLOWED)
def test_reading_statements_run(db, sql, expected):
    r = cli("query", sql, "--db", db, "--format", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert rows
    if expected is not None:
        assert rows == expected


def test_formats(db):
    sql = "SELECT game_id, players, winners, meta, n_players > 2 AS big FROM games ORDER BY game_id LIMIT 2"
    r = cli("query", sql, "--db", db, "--format", "csv")
    assert r.stdout.splitlines() == ["game_id,players,winners,meta,big",
                                     'G1,"[""Ann"",""Ben""]",[0],,false',
                                     'G2,"[""Ann"",""Ben"",""Cid""]",[0],,true']
    r = cli("query", sql, "--db", db)                  # not a terminal: csv by default
    assert r.stdout.startswith("game_id,players")
    r = cli("query", sql, "--db", db, "--format", "jsonl")
    assert [json.loads(line)["players"] for line in r.stdout.splitlines()] == [["Ann", "Ben"],
                                                                               ["Ann", "Ben", "Cid"]]
    r = cli("query", sql, "--db", db, "--format", "table")
    assert r.exit_code == 0 and "G2" in r.stdout and "2 row(s)" in r.stderr
    r = cli("query", sql, "--db", db, "--format", "xml")     # a usage error: exit code 2
    assert r.exit_code == 2 and "'xml' is not one of" in r.stderr


def test_json_columns_are_embedded(tmp_path):
    from seasalt_log import events as ev
    log = tmp_path / "m.jsonl"
    log.write_bytes(ev.encode_lines([ev.GameStarted(game_id="m", players=("A", "B"),
                                                    meta={"seed": 3, "bots": ["x"]})]))
    db = tmp_path / "m.duckdb"
    with Store.open(db) as store:
        import_logs(store, [log])
    r = cli("query", "SELECT meta FROM games", "--db", db, "--format", "json")
    assert json.loads(r.stdout) == [{"meta": {"seed": 3, "bots": ["x"]}}]


def test_sql_from_file_and_stdin(db, tmp_path):
    q = tmp_path / "q.sql"
    q.write_text("SELECT count(*) AS n FROM rounds -- every round started\n")
    r = cli("query", "--file", q, "--db", db, "--format", "json")
    assert json.loads(r.stdout) == [{"n": 4 + 1 + 2 + 1}]
    r = cli("query", "-", "--db", db, "--format", "json", input="SELECT 41 + 1 AS n")
    assert json.loads(r.stdout) == [{"n": 42}]
    r = cli("query", "SELECT 1", "--file", q, "--db", db)
    assert r.exit_code == 2 and "not both" in r.stderr
    q.write_text("DROP TABLE games")
    r = cli("query", "--file", q, "--db", db)
    assert r.exit_code == 1 and "query refused" in r.stderr


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".json", ".jsonl"])
def test_output_files(db, tmp_path, suffix):
    out = tmp_path / f"result{suffix}"
    sql = ("SELECT game_id, seq, type, game, event, 1 AS seq FROM events "   # a repeated name
           "WHERE game_id = 'G3' ORDER BY events.seq")
    r = cli("query", sql, "--db", db, "--out", out)
    assert r.exit_code == 0, r.output
    assert r.stdout == "" and out.exists()
    con = duckdb.connect(str(db), read_only=True)
    expected = con.execute("SELECT game_id, seq, type::VARCHAR, game, event FROM events "
                           "WHERE game_id = 'G3' ORDER BY seq").fetchall()
    con.close()
    if suffix == ".parquet":
        got = duckdb.sql(f"SELECT game_id, seq, type::VARCHAR, game, event, seq_1 FROM '{out}'").fetchall()
        assert [g[:5] for g in got] == expected and {g[5] for g in got} == {1}
    elif suffix == ".csv":
        lines = out.read_text().splitlines()
        assert lines[0] == "game_id,seq,type,game,event,seq" and len(lines) == 1 + len(expected)
    else:
        text = out.read_text()
        rows = json.loads(text) if suffix == ".json" else [json.loads(x) for x in text.splitlines()]
        assert [(x["game_id"], x["type"], x["game"]) for x in rows] == [(e[0], e[2], e[3]) for e in expected]


def test_output_suffix_and_format_must_agree(db, tmp_path):
    r = cli("query", "SELECT 1", "--db", db, "--out", tmp_path / "x.txt")
    assert r.exit_code == 2 and "must end with" in r.stderr
    r = cli("query", "SELECT 1", "--db", db, "--out", tmp_path / "x.csv", "--format", "json")
    assert r.exit_code == 2 and "does not match" in r.stderr
    r = cli("query", "SELECT 1", "--db", db, "--out", tmp_path / "no" / "such" / "x.csv")
    assert r.exit_code == 1 and r.stderr.startswith("error: cannot write")


def test_store_busy_is_one_line(db):
    import subprocess
    import sys
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('ready', flush=True); time.sleep(30)", str(db)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        r = cli("query", "SELECT 1", "--db", db)
        assert r.exit_code == 1 and "busy" in r.stderr and r.stderr.count("\n") == 1
    finally:
        holder.kill()
        holder.wait()


def test_connection_holds_without_the_statement_check(db, tmp_path):
    """The second and third locks alone (read-only store, no file access, locked settings)."""
    from seasalt_log.analytics.query import connect_readonly
    con = connect_readonly(db)
    try:
        for sql in ("SET enable_external_access = true", "SET lock_configuration = false",
                    "INSERT INTO games SELECT * FROM games", "DROP TABLE turns",
                    f"COPY games TO '{tmp_path}/g.csv'", "SELECT * FROM read_csv('/etc/passwd')",
                    f"ATTACH '{tmp_path}/o.duckdb'", "INSTALL httpfs"):
            with pytest.raises(duckdb.Error):
                con.execute(sql)
    finally:
        con.close()
    assert list(tmp_path.iterdir()) == []


def test_installed_command(db):
    """The ``seasalt`` script as a user runs it: SQL on stdin, CSV out; a refusal is one line."""
    import shutil
    import subprocess
    import sys
    script = Path(sys.executable).with_name("seasalt")
    argv = [str(script)] if script.exists() else [shutil.which("seasalt") or "seasalt"]
    done = subprocess.run([*argv, "query", "-", "--db", str(db)], input="SELECT count(*) AS n FROM seats",
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "n\n" + str(2 + 3 + 2 + 2) + "\n"), done.stderr
    done = subprocess.run([*argv, "query", "DROP TABLE games", "--db", str(db)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: query refused")
