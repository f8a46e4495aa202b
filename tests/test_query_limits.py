"""Queries cannot run away: ``seasalt query`` and ``seasalt stats`` (and the service's
reports) stop at a time limit and a memory limit, and Ctrl-C stops any of them at once,
each with one line and a non-zero exit, leaving the store free for the next writer."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import httpx
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log.analytics import reports
from seasalt_log.analytics.limits import (Limits, QueryTimeoutError, guarded, limits_from,
                                          parse_memory, parse_timeout)
from seasalt_log.analytics.query import run_query
from seasalt_log.errors import UsageError
from seasalt_log.http.app import create_app
from seasalt_log.http.server import ServerThread
from seasalt_log.store import Store

try:
    from . import analytics_games as fx
except ImportError:      # tests/ run as a plain directory
    import analytics_games as fx  # type: ignore[no-redef]

runner = CliRunner()

#: never ends: each step adds a row (DuckDB ignores Python's signals while it runs this)
ENDLESS = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
#: one list of 20 million strings: far more than 64 MB, and it cannot spill to disk
HUNGRY = "SELECT len(list(x::VARCHAR || 'abcdefghij')) FROM range(20000000) t(x)"


def cli(*args, env=None):
    return runner.invoke(app, [str(a) for a in args], env=env)


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return fx.stored(tmp_path_factory.mktemp("limits"))


def assert_free(db: Path) -> None:
    """The store can be opened for writing: nothing holds it any more."""
    Store.open(db).close()


def one_error_line(r) -> str:
    assert r.stdout == "", r.stdout
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


# ---------------------------------------------------------------- parsing the limits

@pytest.mark.parametrize("text, seconds", [("60s", 60.0), ("1.5m", 90.0), ("500ms", 0.5),
                                           ("2h", 7200.0), ("45", 45.0), ("0", None),
                                           ("none", None)])
def test_durations(text, seconds):
    assert parse_timeout(text) == seconds


@pytest.mark.parametrize("text", ["", "1x", "-1s", "ten", "1e3s", "²s"])
def test_bad_durations(text):
    with pytest.raises(UsageError, match="--timeout"):
        parse_timeout(text)


def test_memory_sizes():
    assert parse_memory("2GB") == "2GB" and parse_memory("512 MiB") == "512MiB"
    assert parse_memory("0") is None
    for bad in ("2", "lots", "0GB", "1GB'; SET threads=1; --"):
        with pytest.raises(UsageError, match="--memory-limit"):
            parse_memory(bad)


def test_defaults_and_environment(monkeypatch):
    monkeypatch.delenv("SEASALT_QUERY_TIMEOUT", raising=False)
    monkeypatch.delenv("SEASALT_QUERY_MEMORY", raising=False)
    assert limits_from() == Limits(timeout=60.0, memory_limit="2GB")
    monkeypatch.setenv("SEASALT_QUERY_TIMEOUT", "5s")
    monkeypatch.setenv("SEASALT_QUERY_MEMORY", "1GB")
    got = limits_from()
    assert (got.timeout, got.memory_limit, got.timeout_name) == (5.0, "1GB", "SEASALT_QUERY_TIMEOUT")
    got = limits_from("2s", "3GB")      # options win over the environment
    assert (got.timeout, got.memory_limit, got.memory_name) == (2.0, "3GB", "--memory-limit")


def test_bad_limit_options_are_one_line(db):
    line = one_error_line(cli("query", "SELECT 1", "--db", db, "--timeout", "soon"))
    assert "--timeout 'soon'" in line
    r = cli("stats", "win-rates", "--db", db, env={"SEASALT_QUERY_MEMORY": "huge"})
    assert r.exit_code == 2 and "SEASALT_QUERY_MEMORY 'huge'" in one_error_line(r)


# ---------------------------------------------------------------- the time limit

def test_endless_query_stops_at_the_time_limit(db):
    start = time.monotonic()
    r = cli("query", ENDLESS, "--db", db, "--timeout", "1s")
    took = time.monotonic() - start
    assert r.exit_code == 1
    line = one_error_line(r)
    assert "stopped after 1 s" in line and "--timeout" in line
    assert took < 10, took
    assert_free(db)


def test_the_environment_sets_the_time_limit(db):
    r = cli("query", ENDLESS, "--db", db, env={"SEASALT_QUERY_TIMEOUT": "500ms"})
    assert r.exit_code == 1 and "SEASALT_QUERY_TIMEOUT" in one_error_line(r)
    assert_free(db)


def test_a_quick_query_is_not_stopped(db):
    r = cli("query", "SELECT count(*) AS n FROM games", "--db", db, "--timeout", "30s",
            "--format", "csv")
    assert r.exit_code == 0 and r.stdout == "n\n4\n"


def test_a_report_stops_at_the_time_limit(db, monkeypatch):
    """``stats`` runs its report under the same guard (a report made endless here)."""
    real = reports.run_report_on
    monkeypatch.setattr(reports, "run_report_on",
                        lambda con, *a, **k: (con.execute(ENDLESS).fetchall(), real(con, *a, **k)))
    r = cli("stats", "win-rates", "--db", db, "--timeout", "1s")
    assert r.exit_code == 1 and "stopped after 1 s" in one_error_line(r)
    assert_free(db)


def test_guarded_stops_the_statement_itself():
    """The statement is interrupted, not abandoned: the connection is usable at once."""
    con = duckdb.connect()
    try:
        with pytest.raises(QueryTimeoutError):
            guarded(con, lambda: con.execute(ENDLESS).fetchall(), Limits(timeout=0.3))
        assert con.execute("SELECT 42").fetchall() == [(42,)]
    finally:
        con.close()


# ---------------------------------------------------------------- the memory limit

def test_memory_hungry_query_fails_naming_the_limit(db):
    r = cli("query", HUNGRY, "--db", db, "--memory-limit", "64MB", "--timeout", "120s")
    assert r.exit_code == 1
    line = one_error_line(r)
    assert "more memory than its limit of 64MB (--memory-limit)" in line, line
    assert "Out of Memory" in line
    assert_free(db)


def test_the_memory_limit_is_duckdbs_setting(db):
    result = run_query(db, "SELECT current_setting('memory_limit') AS m",
                       limits=Limits(memory_limit="300MB"))
    assert result.rows[0][0].endswith("MiB") and 280 <= float(result.rows[0][0].split()[0]) <= 300


# ---------------------------------------------------------------- Ctrl-C

#: runs the command with a line on stderr once the statement starts (so that the signal
#: is sent while DuckDB runs it, not while the interpreter is still starting)
_SHIM = """
import signal
import sys
# Ctrl-C as a terminal's foreground job gets it, even when these tests run in a background
# job, which a shell starts with SIGINT ignored (a child keeps an ignored signal ignored)
signal.signal(signal.SIGINT, signal.default_int_handler)
from seasalt_log.analytics import query, reports
real_execute = query.execute

def started():
    sys.stderr.write("started\\n")
    sys.stderr.flush()

def execute(*args, **kwargs):
    started()
    return real_execute(*args, **kwargs)

def endless_report(con, *a, **k):
    started()
    return con.execute(%r).fetchall()

query.execute = execute
reports.run_report_on = endless_report
from seasalt_cli.main import main
sys.argv[0] = "seasalt"
main()
""" % ENDLESS


@pytest.mark.parametrize("command", ["query", "stats"])
def test_ctrl_c_stops_a_query_at_once(db, tmp_path, command):
    shim = tmp_path / "shim.py"
    shim.write_text(_SHIM)
    args = (["query", ENDLESS] if command == "query" else ["stats", "win-rates"]) + ["--db", str(db)]
    proc = subprocess.Popen([sys.executable, str(shim), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "SEASALT_QUERY_TIMEOUT": "300s"})
    try:
        assert proc.stderr.readline() == "started\n", proc.communicate()
        time.sleep(1.0)                 # deep in the statement
        assert proc.poll() is None, proc.communicate()
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert took < 2.0, took
    assert proc.returncode == 130, (proc.returncode, err)
    assert out == "" and "Traceback" not in err
    assert err.splitlines() == ["error: interrupted (Ctrl-C): the query was stopped"]
    assert_free(db)


# ---------------------------------------------------------------- the service's reports

def test_service_report_stops_at_the_time_limit(tmp_path, monkeypatch):
    db = fx.stored(tmp_path, "live.duckdb")
    monkeypatch.setenv("SEASALT_QUERY_TIMEOUT", "1s")
    real = reports.run_report_on
    endless = {"on": True}

    def maybe_endless(con, *a, **k):
        if endless["on"]:
            con.execute(ENDLESS).fetchall()
        return real(con, *a, **k)

    monkeypatch.setattr(reports, "run_report_on", maybe_endless)
    with ServerThread(create_app(db)) as url, httpx.Client(base_url=url, timeout=30) as c:
        start = time.monotonic()
        r = c.get("/stats/win-rates")
        assert time.monotonic() - start < 10
        assert r.status_code == 503, r.text
        body = r.json()
        assert body["error"] == "report_limit" and "SEASALT_QUERY_TIMEOUT" in body["detail"]
        endless["on"] = False           # the reader connection is usable again at once
        assert c.get("/stats/win-rates").status_code == 200
        assert c.get("/games").status_code == 200


def test_service_sets_the_memory_limit(tmp_path, monkeypatch):
    """The service's database gets SEASALT_QUERY_MEMORY as DuckDB's memory limit."""
    from seasalt_log.analytics.output import Result
    db = tmp_path / "live.duckdb"
    monkeypatch.setenv("SEASALT_QUERY_MEMORY", "300MB")
    monkeypatch.setattr(reports, "run_report_on", lambda con, *a, **k: Result(
        columns=["m"], types=["VARCHAR"],
        rows=con.execute("SELECT current_setting('memory_limit')").fetchall()))
    with ServerThread(create_app(db)) as url, httpx.Client(base_url=url, timeout=30) as c:
        r = c.get("/stats/win-rates")
    assert r.status_code == 200, r.text
    (row,) = r.json()["rows"]
    value = row["m"] if isinstance(row, dict) else row[0]
    assert value.endswith("MiB") and 280 <= float(value.split()[0]) <= 300, value
