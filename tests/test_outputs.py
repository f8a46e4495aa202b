"""Outputs never destroy the store, and every failure is one line (issue 13, points 1 and 6).

Each command that writes a file is aimed at the store, its write-ahead log and links to
them; each is made to fail half-way (a full disk, simulated by a write that raises ENOSPC)
and must leave the old target as it was. Each command that prints is run with its standard
output on /dev/full and into a closed pipe, in a subprocess as a user would.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import outputs, workers
from seasalt_log.digits import is_digits
from seasalt_log.errors import SeasaltError, UsageError

from .reliability_helpers import seasalt_argv

runner = CliRunner()
ENOSPC = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def run(*args, input=None, env=None):
    return runner.invoke(app, [str(a) for a in args], input=input, env=env)


def one_line(r, *needles) -> str:
    """The single error line of a failed run (exit code 1), holding every needle."""
    assert r.exit_code == 1, (r.exit_code, r.output)
    assert "Traceback" not in r.output and (r.exception is None or isinstance(r.exception, SystemExit))
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree(path: Path) -> dict[str, str]:
    """Every file under ``path`` with its content's hash."""
    return {str(p.relative_to(path)): digest(p) for p in sorted(path.rglob("*")) if p.is_file()}


def leftovers(directory: Path) -> list[str]:
    """Temporary files or directories an output left behind (their names start with '.')."""
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("outputs") / "seasalt.duckdb"
    r = run("simulate", "--games", 3, "--players", 2, "--seed", 5, "--db", db)
    assert r.exit_code == 0, r.output
    return db


@pytest.fixture
def store(built, tmp_path, monkeypatch) -> Path:
    """A copy of the built store as ./seasalt.duckdb of a fresh working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SEASALT_DB", raising=False)
    db = tmp_path / "seasalt.duckdb"
    shutil.copy(built, db)
    return db


def still_whole(db: Path, before: str) -> None:
    assert digest(db) == before
    r = run("games", "--db", db, "--json")
    assert r.exit_code == 0 and r.stdout.count('"game_id"') == 3, r.output


# ---------------------------------------------------------------- the store is never a target

def _write_cmds(target):
    """Every command that writes a file, aimed at ``target`` (the store is ./seasalt.duckdb)."""
    return {
        "export --out": ["export", "--all", "--out", target],
        "export --html": ["export", "sim-5-0", "--html", target],
        "query --out": ["query", "SELECT 1 AS x", "--out", target],
        "stats --out": ["stats", "win-rates", "--out", target],
        "simulate --out": ["simulate", "--games", 1, "--players", 2, "--seed", 1, "--out", target],
    }


def _targets(db: Path) -> dict[str, Path]:
    """Names that are the store or its WAL; with a .csv suffix, as query --out needs one."""
    d = db.parent
    (d / "sym.csv").symlink_to(db.name)
    (d / "symwal.csv").symlink_to(db.name + ".wal")        # the WAL need not exist yet
    os.link(db, d / "hard.csv")
    (d / "sub").mkdir()
    (d / "sub" / "up.csv").symlink_to(Path("..") / db.name)
    return {"store": db, "wal": d / (db.name + ".wal"), "symlink": d / "sym.csv",
            "symlink to wal": d / "symwal.csv", "hard link": d / "hard.csv",
            "link in another directory": d / "sub" / "up.csv"}


@pytest.mark.parametrize("cmd", list(_write_cmds("T")))
def test_no_command_writes_over_the_store(store, cmd):
    before = digest(store)
    for kind, target in _targets(store).items():
        one_line(run(*_write_cmds(target)[cmd]), str(target), "refusing")
        still_whole(store, before)
        assert not (store.parent / "seasalt.duckdb.wal").exists()
    assert leftovers(store.parent) == []


def test_export_refuses_any_duckdb_database(store, tmp_path):
    other = tmp_path / "other.csv"
    shutil.copy(store, other)                 # another store, whatever its name
    before = digest(other)
    one_line(run("export", "--all", "--out", other), "is a DuckDB database")
    one_line(run("query", "SELECT 1", "--out", other), "is a DuckDB database")
    assert digest(other) == before


def test_parquet_refuses_the_store_and_its_directory(store, tmp_path):
    before = digest(store)
    one_line(run("export", "--parquet", store), "is the store")
    (tmp_path / "pq").symlink_to(store)
    one_line(run("export", "--parquet", tmp_path / "pq"), "is the store")
    one_line(run("export", "--parquet", tmp_path), "holds the store")
    one_line(run("export", "--parquet", "."), "holds the store")
    still_whole(store, before)
    assert leftovers(tmp_path) == []


def test_stdout_redirected_into_the_store_is_refused(store):
    before = digest(store)
    with open(store, "ab") as out:                 # seasalt export --all >> seasalt.duckdb
        p = subprocess.run([*seasalt_argv(), "export", "--all"], stdout=out,
                           stderr=subprocess.PIPE, cwd=store.parent)
    assert p.returncode == 1
    assert p.stderr.decode().strip().splitlines() == [
        f"error: standard output is the store ({store.name}); refusing to write into it: "
        "redirect the output elsewhere"]
    still_whole(store, before)


def test_check_target_hard_link_to_an_existing_wal(tmp_path):
    db, wal = tmp_path / "s.duckdb", tmp_path / "s.duckdb.wal"
    db.write_bytes(b"x")
    wal.write_bytes(b"log")
    os.link(wal, tmp_path / "w.jsonl")
    with pytest.raises(UsageError, match="write-ahead log"):
        outputs.check_target(tmp_path / "w.jsonl", [db])
    outputs.check_target(tmp_path / "fine.jsonl", [db])       # anything else passes


# ---------------------------------------------------------------- written whole or not at all

def test_outputs_are_complete_and_readable(store, tmp_path):
    assert run("export", "--all", "--out", "e.jsonl").exit_code == 0
    full = run("export", "--all")
    assert (tmp_path / "e.jsonl").read_bytes() == full.stdout_bytes
    mode = stat.S_IMODE((tmp_path / "e.jsonl").stat().st_mode)
    (tmp_path / "plain").touch()            # what open() would have made here
    assert mode == stat.S_IMODE((tmp_path / "plain").stat().st_mode)
    # through a link to a regular file: the file it names is replaced, the link stays
    (tmp_path / "real.jsonl").write_text("old\n")
    (tmp_path / "link.jsonl").symlink_to("real.jsonl")
    assert run("export", "--all", "--out", "link.jsonl").exit_code == 0
    assert (tmp_path / "link.jsonl").is_symlink()
    assert (tmp_path / "real.jsonl").read_bytes() == full.stdout_bytes
    # a FIFO (like a device: never /dev/null itself, which a bug would replace) is written
    # in place, never replaced
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    assert run("export", "--all", "--out", fifo).exit_code == 0
    reader.join(timeout=60)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and got == [full.stdout_bytes]
    assert leftovers(tmp_path) == []


def test_backup_never_replaces_a_device_or_fifo(store, tmp_path):
    """As root, renaming a backup over /dev/null replaced the device with a file."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    one_line(run("backup", fifo), "is not a regular file")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and leftovers(tmp_path) == []


def _full_disk_after(limit: int, real_open=open):
    """An ``open`` whose files refuse writes past ``limit`` bytes with ENOSPC."""
    class Full:
        def __init__(self, fh):
            self.fh, self.n = fh, 0

        def write(self, data):
            self.n += len(data)
            if self.n > limit:
                self.fh.write(data[: max(0, limit - (self.n - len(data)))])
                raise ENOSPC
            return self.fh.write(data)

        def __getattr__(self, name):
            return getattr(self.fh, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    return lambda *a, **k: Full(real_open(*a, **k))


@pytest.mark.parametrize("cmd,name", [
    (["export", "--all", "--out"], "out.jsonl"),
    (["export", "sim-5-0", "--html"], "out.html"),
    (["query", "SELECT * FROM events", "--out"], "out.csv"),
    (["stats", "win-rates", "--out"], "out.json"),
    (["simulate", "--games", 3, "--players", 2, "--seed", 1, "--out"], "out.jsonl"),
])
def test_a_full_disk_leaves_the_old_file(store, tmp_path, monkeypatch, cmd, name):
    target = tmp_path / name
    target.write_text("the old content\n")
    monkeypatch.setattr(outputs, "open", _full_disk_after(100), raising=False)
    one_line(run(*cmd, target), f"cannot write {target}: No space left on device")
    assert target.read_text() == "the old content\n"
    assert leftovers(tmp_path) == []
    # without a target before: none after
    one_line(run(*cmd, tmp_path / ("new" + target.suffix)), "No space left on device")
    assert not (tmp_path / ("new" + target.suffix)).exists()


def test_a_failing_parquet_write_leaves_the_old_file(store, tmp_path, monkeypatch):
    from seasalt_log.analytics import output
    target = tmp_path / "q.parquet"
    assert run("query", "SELECT 1 AS x", "--out", target).exit_code == 0
    before = digest(target)

    def half(result, path, shown=None):
        Path(path).write_bytes(b"PAR1 half a file")
        raise ENOSPC
    monkeypatch.setattr(output, "write_parquet", half)
    one_line(run("query", "SELECT 2 AS x", "--out", target), "No space left on device")
    assert digest(target) == before and leftovers(tmp_path) == []


def test_a_failing_parquet_export_leaves_the_old_directory(store, tmp_path, monkeypatch):
    from seasalt_log.analytics import parquet
    out = tmp_path / "pq"
    assert run("export", "--parquet", out).exit_code == 0
    before = tree(out)
    assert "games.parquet" in before

    def half(con, directory, target):
        (directory / "games.parquet").write_bytes(b"PAR1 half")
        raise ENOSPC
    monkeypatch.setattr(parquet, "_copy_tables", half)
    one_line(run("export", "--parquet", out), f"cannot write {out}: No space left on device")
    assert tree(out) == before and leftovers(tmp_path) == []
    one_line(run("export", "--parquet", tmp_path / "new" / "deeper" / "pq"), "No space left on device")
    assert not (tmp_path / "new").exists() and leftovers(tmp_path) == []   # parents made, removed


# ---------------------------------------------------------------- one line, never a traceback

def test_export_into_missing_not_a_directory_or_read_only(store, tmp_path, monkeypatch):
    one_line(run("export", "--all", "--out", "missing/e.jsonl"),
             "cannot write missing/e.jsonl: No such file or directory")
    Path("afile").write_text("x")
    one_line(run("export", "--all", "--out", "afile/e.jsonl"), "Not a directory")
    one_line(run("export", "--parquet", "afile/pq"), "afile is not a directory")
    one_line(run("export", "--all", "--out", tmp_path), "is a directory")

    def read_only(*a, **k):        # chmod means nothing to root: the error a read-only dir gives
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))
    monkeypatch.setattr(outputs.tempfile, "mkstemp", read_only)
    monkeypatch.setattr(outputs.tempfile, "mkdtemp", read_only)
    one_line(run("export", "--all", "--out", "e.jsonl"), "cannot write e.jsonl: Read-only file system")
    one_line(run("export", "--parquet", "ro/pq"), "cannot write ro/pq: Read-only file system")
    one_line(run("query", "SELECT 1", "--out", "q.parquet"), "Read-only file system")
    assert leftovers(tmp_path) == [] and not (tmp_path / "ro").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_read_only_directory_for_real(store, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        one_line(run("export", "--all", "--out", ro / "e.jsonl"), "Permission denied")
        one_line(run("export", "--parquet", ro / "pq"), "Permission denied")
    finally:
        ro.chmod(0o755)


def test_query_sql_that_is_not_utf8(store, tmp_path):
    (tmp_path / "q.sql").write_bytes(b"SELECT '\xff'")
    one_line(run("query", "--file", tmp_path / "q.sql"), "--file", "not UTF-8", "0xff at offset 8")
    one_line(run("query", "-", input=b"SELECT '\xfe'"), "standard input: the SQL is not UTF-8",
             "0xfe at offset 8")


@pytest.mark.parametrize("who", ["²", "١", "0²"])
def test_seat_numbers_are_ascii_digits(store, who):
    r = run("games", "--json")
    gid = r.stdout.split('"game_id": "')[1].split('"')[0]
    for cmd in ("replay", "log"):
        one_line(run(cmd, gid, "--as", who), f"no player {who!r}")
    assert run("replay", gid, "--as", "1").exit_code == 0


def test_is_digits():
    assert is_digits("0") and is_digits("42")
    assert not any(is_digits(t) for t in ("", "²", "٣", "1²", "-1", " 1", "1.0"))


def test_a_full_temporary_directory_during_an_import(store, tmp_path, monkeypatch):
    """In this process (a small log) and in a worker (a large one): one line naming TMPDIR."""
    from seasalt_log.importers import chunks
    log = tmp_path / "g.jsonl"
    assert run("export", "--all", "--out", log).exit_code == 0
    before = digest(store)

    def full(chunk):
        raise ENOSPC
    monkeypatch.setattr(chunks, "check_chunk", full)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    line = one_line(run("import", log, "--db", "new.duckdb"), "cannot write temporary files",
                    "No space left on device", "TMPDIR")
    assert str(tmp_path) in line
    assert digest(store) == before
    with workers.Pool(1) as pool, pytest.raises(SeasaltError) as caught:
        list(pool.map(_full_disk, [1]))
    assert "\n" not in str(caught.value)
    assert "cannot write temporary files" in str(caught.value) and "No space left" in str(caught.value)


def _full_disk(_):
    """Run by a worker process: its disk is full."""
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_an_unexpected_failure_is_one_line(store, monkeypatch):
    from seasalt_log import queries

    def bug(*a, **k):
        raise ZeroDivisionError("division by zero")
    monkeypatch.setattr(queries, "page_ids", bug)
    one_line(run("games"), "unexpected ZeroDivisionError: division by zero", "SEASALT_DEBUG")
    r = run("games", env={"SEASALT_DEBUG": "1"})
    assert isinstance(r.exception, ZeroDivisionError)

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(queries, "page_ids", interrupted)
    r = run("games")
    assert r.exit_code == 130 and r.stderr.strip() == "error: interrupted"


# ---------------------------------------------------------------- standard output: full, closed

PRINTING = {
    "help": ["--help"],
    "games": ["games"],
    "games --json": ["games", "--json"],
    "show": ["show", "sim-5-0"],
    "replay": ["replay", "sim-5-0"],
    "log": ["log", "sim-5-0"],
    "rescore": ["rescore", "sim-5-0", "--round", "1"],
    "export": ["export", "--all"],
    "score": ["score", "crab:black", "crab:yellow"],
    "simulate": ["simulate", "--games", "2", "--players", "2", "--seed", "1"],
    "tournament": ["tournament", "--games", "4", "--players", "2", "--seed", "1"],
    "query": ["query", "SELECT * FROM events", "--format", "csv"],
    "stats": ["stats", "win-rates", "--format", "json"],
    "stats --list": ["stats", "--list"],
    "verify --json": ["verify", "--json"],
    "validate --json": ["validate", "log.jsonl", "--json"],
    "import --json": ["import", "log.jsonl", "--json", "--db", "other.duckdb"],
    "rebuild --json": ["rebuild", "--json"],
    "rules": ["rules"],
    "rules ID": ["rules", "R-TAKE"],
}


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_every_printing_command_on_a_full_disk(store):
    assert run("export", "sim-5-0", "--out", "log.jsonl").exit_code == 0
    failures = {}
    for name, args in PRINTING.items():
        with open("/dev/full", "wb") as full:
            p = subprocess.run([*seasalt_argv(), *args], stdout=full, stderr=subprocess.PIPE,
                               cwd=store.parent)
        lines = p.stderr.decode().strip().splitlines()
        if p.returncode != 1 or lines[-1:] != [
                "error: cannot write to standard output: No space left on device"] \
                or any("Traceback" in line or "Exception ignored" in line for line in lines):
            failures[name] = (p.returncode, lines[-5:])
    assert failures == {}


@pytest.mark.parametrize("args", [["export", "--all"],
                                  ["simulate", "--games", "40", "--players", "4", "--seed", "1"]])
def test_a_closed_pipe_ends_quietly(store, args):
    """`seasalt export --all | head -c 10`: no message, no traceback, exit code 0."""
    p = subprocess.Popen([*seasalt_argv(), *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=store.parent)
    assert len(p.stdout.read(10)) == 10
    p.stdout.close()
    assert p.wait(timeout=120) == 0
    assert p.stderr.read() == b""


def test_backup_from_a_service_that_sends_a_non_ascii_count(store, tmp_path):
    """A number read from the network goes through the same ASCII-digits check."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Odd(BaseHTTPRequestHandler):
        def do_POST(self):
            self.send_response(200)
            self.send_header("X-Seasalt-Store", "1:2 3:4 - seasalt.duckdb")
            self.send_header("X-Seasalt-Events", "²")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Odd)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        one_line(run("backup", tmp_path / "b.duckdb", "--url", url),
                 "did not answer as a seasalt service")
    finally:
        server.shutdown()
    assert not (tmp_path / "b.duckdb").exists()


def test_a_full_temporary_directory_during_a_rebuild(store, tmp_path, monkeypatch):
    """DuckDB's failure to write the rebuild's temporary files is TMPDIR's, not the store's."""
    from seasalt_log.store import rebuild as rebuild_mod
    (tmp_path / "afile").write_text("x")
    monkeypatch.setattr(rebuild_mod.tempfile, "mkdtemp", lambda **k: str(tmp_path / "afile" / "t"))
    before = digest(store)
    line = one_line(run("rebuild", "--jobs", 2), "cannot write temporary files", "TMPDIR")
    assert "store" not in line.split("(TMPDIR")[0]
    still_whole(store, before)


@pytest.mark.parametrize("args", [["rules"], ["score", "crab:black"], ["games"]])
def test_stdout_redirected_into_any_duckdb_database_is_refused(store, tmp_path, args):
    """`seasalt rules >> seasalt.duckdb` (a command without --db: the default store) and
    `seasalt games >> other.duckdb` (a database the command does not read) are refused as
    `seasalt export --all >> seasalt.duckdb` is; they appended to the file."""
    other = tmp_path / "other.duckdb"
    shutil.copy(store, other)
    for target, says in ((store, f"is the store ({store.name})"), (other, "is a DuckDB database")):
        before = digest(target)
        with open(target, "ab") as out:
            p = subprocess.run([*seasalt_argv(), *args], stdout=out, stderr=subprocess.PIPE,
                               cwd=store.parent)
        lines = p.stderr.decode().strip().splitlines()
        assert p.returncode == 1 and len(lines) == 1 and says in lines[0], (target, lines)
        assert digest(target) == before


def test_a_parquet_result_has_the_query_types_and_rows(tmp_path):
    """``--out FILE.parquet`` of a result kept as Arrow (numbers, text, booleans, lists, NULLs,
    two columns of one name): DuckDB reads back the types and rows DuckDB's own COPY of the
    query writes (the oracle), in order."""
    import duckdb

    from seasalt_log.analytics.output import arrow_result, write_parquet
    sql = ("SELECT (i % 100)::TINYINT AS a, (i * 1000)::INTEGER AS a, "
           "i::BIGINT * 1e9::BIGINT AS big, "
           "'g-' || i AS game_id, i % 3 = 0 AS flag, [('c' || i)::VARCHAR, NULL] AS cards, "
           "CASE WHEN i % 4 = 0 THEN NULL ELSE i::SMALLINT END AS maybe, i / 7 AS ratio "
           "FROM range(300) t(i) ORDER BY i DESC")
    con = duckdb.connect()
    result = arrow_result(con.sql(sql))
    assert result.arrow is not None
    ours, theirs = tmp_path / "ours.parquet", tmp_path / "theirs.parquet"
    write_parquet(result, ours)
    con.execute(f"COPY ({sql}) TO '{theirs}' (FORMAT parquet)")
    describe = "DESCRIBE SELECT * FROM '{}'"
    assert con.sql(describe.format(ours)).fetchall() == con.sql(describe.format(theirs)).fetchall()
    assert (con.sql(f"SELECT * FROM '{ours}'").fetchall()
            == con.sql(f"SELECT * FROM '{theirs}'").fetchall())
