"""``seasalt archive check | rebuild`` on a Dask LocalCluster of two workers: the results
equal ``seasalt verify`` and ``seasalt rebuild`` on the same store, row for row; planted
faults are reported with the rule id and seq verify gives; an older export (games split
across files) goes through a shuffle and gives the same results."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.errors import SeasaltError
from seasalt_log.store.rebuild import rebuild
from seasalt_log.analytics.parquet import export_parquet
from seasalt_log.service import import_logs
from seasalt_log.sim import simulate
from seasalt_log.store import Store
from seasalt_log.store.projections import TABLES
from seasalt_log.verify import verify_store

try:
    from . import analytics_games as fx
    from .parquet_checks import assert_export_keeps_games_whole
    from .reliability_helpers import valid_games, write_log
except ImportError:      # tests/ run as a plain directory
    import analytics_games as fx  # type: ignore[no-redef]
    from parquet_checks import assert_export_keeps_games_whole  # type: ignore[no-redef]
    from reliability_helpers import valid_games, write_log  # type: ignore[no-redef]

distributed = pytest.importorskip("distributed")
archive = pytest.importorskip("seasalt_log.archive")

runner = CliRunner()
SIMULATED = 100             # games per player count (2, 3, 4): kept small for CI time


@pytest.fixture(scope="module")
def client():
    """Two workers in this process (threads): quick to start, the same tasks as processes."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=":0", silence_logs=50)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _store(d: Path, games) -> Path:
    db = d / "store.duckdb"
    log = d / "games.jsonl"
    with open(log, "wb") as fh:
        fh.write(fx.log_bytes())
        for g in games:
            fh.write(ev.encode_lines(g))
    with Store.open(db) as store:
        summary = import_logs(store, [log])
    assert summary.failed == 0
    return db


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """The hand-made fixture games, simulated games of 2, 3 and 4 players and games whose
    logs leave the deck order out; its export (path of the store, of the export)."""
    d = tmp_path_factory.mktemp("archive")
    games = [g for n in (2, 3, 4) for g in simulate(SIMULATED, n, seed=40 + n)]
    games += valid_games(24, seed=9)
    db = _store(d, games)
    with Store.open(db, read_only=True) as store:
        export_parquet(store, d / "export")
    assert_export_keeps_games_whole(d / "export", db)
    return db, d / "export"


def rows(con, sql: str) -> list[tuple]:
    return sorted(con.execute(sql).fetchall(), key=repr)


def parquet_rows(directory: Path, table: str, columns: str = "*", where: str = "true"
                 ) -> list[tuple]:
    return sorted(duckdb.sql(f"SELECT {columns} FROM read_parquet('{directory}/{table}/*.parquet')"
                             f" WHERE {where}").fetchall(), key=repr)


def fold_differences(report) -> dict[str, tuple]:
    """Per game, verify's first engine finding (kind, seq, message): what archive reports."""
    out: dict[str, tuple] = {}
    for d in report.differences:
        if d.kind in ("format", "rule", "derived") and d.game_id not in out:
            out[d.game_id] = (d.kind, d.seq, d.message)
    return out


# ---------------------------------------------------------------- equal to verify and rebuild

def test_check_equals_verify_on_the_same_store(big, client, tmp_path):
    db, export = big
    summary = archive.run(f"file://{export}", str(tmp_path / "out"), client=client)
    with Store.open(db, read_only=True) as store:
        report = verify_store(store)
        con = store.con
        n_games = con.execute("SELECT count(*) FROM games").fetchone()[0]
        n_events = con.execute("SELECT count(*) FROM events").fetchone()[0]
        want_games = rows(con, "SELECT game_id, events, status, rounds_played, "
                               "CASE WHEN status = 'ended' THEN winners END, totals FROM games")
        want_rounds = rows(con, "SELECT game_id, round, list(points ORDER BY seat), "
                                "list(total ORDER BY seat) FROM round_results GROUP BY ALL")
    assert report.ok and not summary.shuffled
    assert (summary.games, summary.events, summary.failed) == (n_games, n_events, 0)
    assert summary.games == 3 * SIMULATED + 24 + 4
    out = tmp_path / "out"
    assert parquet_rows(out, "results", "game_id, events, status, rounds, winners, totals") == \
        [tuple(r) for r in want_games]
    assert parquet_rows(out, "results", "DISTINCT ok, error_rule, error_seq, error") == \
        [(True, None, None, None)]
    assert parquet_rows(out, "round_scores", "game_id, round, points, totals") == want_rounds
    # seasalt query reads the results through OUT/archive.duckdb
    r = runner.invoke(app, ["query", "--db", str(out / "archive.duckdb"), "--format", "json",
                            "SELECT count(*) AS n FROM results WHERE ok"])
    assert r.exit_code == 0 and json.loads(r.stdout) == [{"n": n_games}]


def test_rebuild_equals_seasalt_rebuild_row_for_row(big, client, tmp_path):
    db, export = big
    copy = tmp_path / "store.duckdb"
    shutil.copy(db, copy)
    with Store.open(copy) as store:
        rebuild(store, jobs=1)
    summary = archive.run(str(export), str(tmp_path / "out"), rebuild=True, client=client)
    assert summary.failed == 0
    con = duckdb.connect(str(copy), read_only=True)
    for table in TABLES:
        want = rows(con, f"SELECT * FROM {table}")
        assert parquet_rows(tmp_path / "out", table) == want, table
        assert summary.rows[table] == len(want)
    con.close()


# ---------------------------------------------------------------- planted faults

def _attacker(path: Path):
    con = duckdb.connect(str(path))
    for name, table in con.execute("SELECT trigger_name, table_name FROM duckdb_triggers()"
                                   ).fetchall():
        con.execute(f"DROP TRIGGER {name} ON {table}")
    return con


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A small store with three faults planted behind the store's back, and its export."""
    d = tmp_path_factory.mktemp("planted")
    games = valid_games(12, seed=3)
    db = _store(d, games)
    ids = [g[0].game_id for g in games]
    con = _attacker(db)
    # 1. a deleted event (a turn's take: the next event is out of place)
    con.execute("DELETE FROM events WHERE game_id = ? AND seq = 6", [ids[0]])
    # 2. an edited round_scored (5 more points for seat 0)
    seq, text = con.execute("SELECT seq, event FROM events WHERE game_id = ? AND "
                            "type = 'round_scored' ORDER BY seq LIMIT 1", [ids[1]]).fetchone()
    e = json.loads(text)
    e["points"][0] += 5
    e["totals"][0] += 5
    con.execute("UPDATE events SET event = ? WHERE game_id = ? AND seq = ?",
                [json.dumps(e, separators=(",", ":")), ids[1], seq])
    # 3. a swapped card: the card taken from a discard pile replaced by another card
    seq, text = con.execute("SELECT seq, event FROM events WHERE game_id = ? AND "
                            "type = 'discard_taken' ORDER BY seq LIMIT 1", [ids[2]]).fetchone()
    e = json.loads(text)
    e["card"] = "mermaid:white" if e["card"] != "mermaid:white" else "shell:blue"
    con.execute("UPDATE events SET event = ? WHERE game_id = ? AND seq = ?",
                [json.dumps(e, separators=(",", ":")), ids[2], seq])
    con.close()
    with Store.open(db, read_only=True) as store:
        export_parquet(store, d / "export")
        want = fold_differences(verify_store(store))
    assert_export_keeps_games_whole(d / "export", db)
    return db, d / "export", ids, want


def test_planted_faults_are_reported_as_verify_reports_them(planted, client, tmp_path):
    db, export, ids, want = planted
    # verify's findings, checked by hand against RULES.md: the missing event breaks the
    # flow, the edited points are not what the engine computes (R-DERIVED), and the
    # swapped card is not on top of the pile (R-TAKE-2)
    assert set(want) == set(ids[:3])
    assert want[ids[1]][0] == "derived" and want[ids[1]][2].startswith("R-DERIVED: round_scored.points")
    assert want[ids[2]][2].startswith("R-TAKE-2: ")
    summary = archive.run(str(export), str(tmp_path / "out"), client=client)
    assert summary.failed == 3 and summary.games == len(ids) + 4      # + the fixture games
    got = {r[0]: (r[1], r[2], r[3]) for r in parquet_rows(
        tmp_path / "out", "results", "game_id, error_kind, error_seq, error", "NOT ok")}
    assert got == want
    # the summary lines: game, round, turn: RULE-ID: ...
    assert len(summary.errors) == 3
    for line in summary.errors:
        gid = line.split(",", 1)[0].removeprefix("game ")
        assert line.startswith(f"game {gid}, round ") and f": {want[gid][2]}" in line


def test_the_command_prints_the_failures_and_exits_1(planted, tmp_path):
    _, export, ids, want = planted
    r = runner.invoke(app, ["archive", "check", str(export), "--out", str(tmp_path / "o"),
                            "--workers", "1"])
    assert r.exit_code == 1, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 3 and all(", round " in x and ": R-" in x for x in lines)
    assert "checked 16 game(s)" in r.stderr and "3 failed" in r.stderr


# ---------------------------------------------------------------- an older export: shuffle

def _older_export(export: Path, target: Path, files: int = 3) -> None:
    """The events split the way an earlier export could leave them: every game's rows spread
    over several files, out of order, no whole-games mark."""
    target.mkdir()
    src = duckdb.sql(f"SELECT * FROM read_parquet('{export}/events/*/*.parquet')")
    for k in range(files):
        part = duckdb.sql(f"SELECT * FROM src WHERE seq % {files} = {k} ORDER BY seq DESC, game_id")
        pq.write_table(part.to_arrow_table(), target / f"data_{k}.parquet")


def test_an_older_export_goes_through_a_shuffle(big, client, tmp_path):
    _, export = big
    old = tmp_path / "old"
    _older_export(export, old)
    summary = archive.run(str(old), str(tmp_path / "shuffled"), client=client)
    assert summary.shuffled and summary.failed == 0 and summary.files == 3
    whole = archive.run(str(export), str(tmp_path / "whole"), client=client)
    assert summary.games == whole.games and summary.events == whole.events
    for table in ("results", "round_scores"):
        assert parquet_rows(tmp_path / "shuffled", table) == parquet_rows(tmp_path / "whole", table)
    assert not (tmp_path / "shuffled" / "_shuffle").exists()


# ---------------------------------------------------------------- refusals

def test_out_must_be_new_or_empty_and_not_the_store(planted, tmp_path):
    db, export, _, _ = planted
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    for target, words in ((busy, "not empty"), (db, "a file is there")):
        r = runner.invoke(app, ["archive", "check", str(export), "--out", str(target)])
        assert r.exit_code == 1 and words in r.stderr and len(r.stderr.splitlines()) == 1
    assert sorted(p.name for p in busy.iterdir()) == ["keep.txt"]
    r = runner.invoke(app, ["archive", "check", str(tmp_path / "none"), "--out", str(tmp_path / "o")])
    assert r.exit_code == 1 and "no such file" in r.stderr


def test_without_the_extra_the_command_says_so_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "distributed", None)       # import distributed fails
    r = runner.invoke(app, ["archive", "rebuild", str(tmp_path), "--out", str(tmp_path / "o")])
    assert r.exit_code == 1
    assert r.stderr.strip().splitlines() == [
        "error: seasalt archive needs Dask, an optional extra: pip install 'seasalt-log[dask]'"]


def test_a_failed_job_leaves_no_partial_output(planted, client, tmp_path, monkeypatch):
    """Results are written beside OUT and renamed into place only when the whole job is
    done, so a job that fails part-way leaves OUT as it was (absent here)."""
    export = planted[1]
    out = tmp_path / "out"

    def fail(summary, futures, total, progress):
        for f in futures:           # let the tasks write their parts first
            f.result()
        raise SeasaltError("a worker was lost")

    monkeypatch.setattr(archive, "_gather", fail)
    with pytest.raises(SeasaltError, match="a worker was lost"):
        archive.run(str(export), str(out), client=client)
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == []     # no temporary directory left either
