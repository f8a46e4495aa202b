"""``seasalt archive check | rebuild`` on a Dask LocalCluster of two workers: the results
equal ``seasalt verify`` and ``seasalt rebuild`` on the same store, row for row; planted
faults are reported with the rule id and seq verify gives; an older export (games split
across files) goes through a shuffle and gives the same results."""

from __future__ import annotations

import json
import shutil
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import duckdb
import pyarrow as pa
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
from seasalt_log.sim.runner import EVENT_SETTINGS, RULESET_NAMES
from seasalt_log.store import Store
from seasalt_log.store.projections import TABLES
from seasalt_log.verify import verify_store

try:
    from . import analytics_games as fx
    from .parquet_checks import assert_export_keeps_games_whole
    from .reliability_helpers import valid_games
except ImportError:      # tests/ run as a plain directory
    import analytics_games as fx  # type: ignore[no-redef]
    from parquet_checks import assert_export_keeps_games_whole  # type: ignore[no-redef]
    from reliability_helpers import valid_games  # type: ignore[no-redef]

distributed = pytest.importorskip("distributed")
archive = pytest.importorskip("seasalt_log.archive")

runner = CliRunner()
#: every ruleset with and without the events (R-X-RULESET): (ruleset, event setting)
SETTINGS = [(r, e) for r in RULESET_NAMES for e in (None, *EVENT_SETTINGS)]
SIMULATED = 170             # games per setting and player count (2, 3, 4): 2,040 in all


@pytest.fixture(scope="module")
def client():
    """Two workers in this process (threads): quick to start, the same tasks as processes."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=":0", silence_logs=50)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _simulated_log(setting: tuple[str, str | None], players: int, seed: int) -> bytes:
    ruleset, events = setting
    games = simulate(SIMULATED, players, seed, ruleset=None if ruleset == "base" else ruleset,
                     events=events)
    return b"".join(ev.encode_lines(g) for g in games)


@pytest.fixture(scope="session")
def simulated() -> dict[tuple, bytes]:
    """JSON Lines of :data:`SIMULATED` games per setting and player count, simulated once per
    test session, in two processes (each its own seed, so every game id differs)."""
    jobs = [(setting, n, 4100 + 10 * k + n) for k, setting in enumerate(SETTINGS)
            for n in (2, 3, 4)]
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        logs = pool.map(_simulated_log, *zip(*jobs))
        return {(setting, n): log for (setting, n, _), log in zip(jobs, logs)}


def _store(d: Path, games, *logs: bytes) -> Path:
    db = d / "store.duckdb"
    log = d / "games.jsonl"
    with open(log, "wb") as fh:
        fh.write(fx.log_bytes())
        for g in games:
            fh.write(ev.encode_lines(g))
        for chunk in logs:
            fh.write(chunk)
    with Store.open(db) as store:
        summary = import_logs(store, [log])
    assert summary.failed == 0
    return db


@pytest.fixture(scope="module")
def big(tmp_path_factory, simulated):
    """The hand-made fixture games, games whose logs leave the deck order out, and the
    simulated games of every setting; its export (path of the store, of the export)."""
    d = tmp_path_factory.mktemp("archive")
    db = _store(d, valid_games(24, seed=9), *simulated.values())
    with Store.open(db, read_only=True) as store:
        export_parquet(store, d / "export")
        per_setting = store.con.execute(
            "SELECT ruleset, event_setting, count(*) FROM games GROUP BY ALL").fetchall()
    assert_export_keeps_games_whole(d / "export", db)
    for ruleset, events in SETTINGS:      # the store's own words: every setting is there
        n = sum(c for r, e, c in per_setting
                if (r or "base") == ruleset and (e or None) == events)
        assert n >= 3 * SIMULATED, (ruleset, events, per_setting)
    return db, d / "export"


@pytest.fixture(scope="module")
def checked(request, client, tmp_path_factory):
    """``archive check`` of an export, run once a module: ``checked("big")`` (a ``file://``
    URL) or ``checked("planted")`` (a path) gives (summary, OUT)."""
    done: dict[str, tuple] = {}

    def run(name: str):
        if name not in done:
            export = request.getfixturevalue(name)[1]
            out = tmp_path_factory.mktemp(f"checked-{name}") / "out"
            url = f"file://{export}" if name == "big" else str(export)
            done[name] = archive.run(url, str(out), client=client), out
        return done[name]
    return run


def assert_same_rows(con, want: str, got: str, what: str) -> int:
    """The rows of the queries ``want`` and ``got`` are the same multiset (compared in
    DuckDB); the number of rows, which must not be 0."""
    n = con.execute(f"SELECT count(*) FROM ({want})").fetchone()[0]
    missing = con.execute(f"({want}) EXCEPT ALL ({got}) LIMIT 3").fetchall()
    extra = con.execute(f"({got}) EXCEPT ALL ({want}) LIMIT 3").fetchall()
    assert n > 0, what
    assert not missing and not extra, f"{what}: missing {missing}, unexpected {extra}"
    assert con.execute(f"SELECT count(*) FROM ({got})").fetchone()[0] == n, what
    return n


def parquet(directory: Path, table: str) -> str:
    return f"read_parquet('{directory}/{table}/*.parquet')"


def fold_differences(report) -> dict[str, tuple]:
    """Per game, verify's first engine finding (kind, seq, message): what archive reports."""
    out: dict[str, tuple] = {}
    for d in report.differences:
        if d.kind in ("format", "rule", "derived") and d.game_id not in out:
            out[d.game_id] = (d.kind, d.seq, d.message)
    return out


# ---------------------------------------------------------------- equal to verify and rebuild

def test_check_equals_verify_on_the_same_store(big, checked):
    db, export = big
    summary, out = checked("big")
    with Store.open(db, read_only=True) as store:
        report = verify_store(store)
        con = store.con
        n_games = con.execute("SELECT count(*) FROM games").fetchone()[0]
        n_events = con.execute("SELECT count(*) FROM events").fetchone()[0]
        assert report.ok and not summary.shuffled
        assert (summary.games, summary.events, summary.failed) == (n_games, n_events, 0)
        assert summary.games == len(SETTINGS) * 3 * SIMULATED + 24 + 4
        assert_same_rows(
            con, "SELECT game_id, events, status, rounds_played, "
                 "CASE WHEN status = 'ended' THEN winners END, totals FROM games",
            f"SELECT game_id, events, status, rounds, winners, totals FROM {parquet(out, 'results')}",
            "results")
        assert con.execute(f"SELECT DISTINCT ok, error_rule, error_seq, error FROM "
                           f"{parquet(out, 'results')}").fetchall() == [(True, None, None, None)]
        assert_same_rows(
            con, "SELECT game_id, round, list(card_points ORDER BY seat), "
                 "list(color_bonus ORDER BY seat), list(points ORDER BY seat), "
                 "list(total ORDER BY seat) FROM round_results GROUP BY ALL",
            f"SELECT game_id, round, card_points, color_bonus, points, totals "
            f"FROM {parquet(out, 'round_scores')}", "round_scores")
        assert_same_rows(
            # a four-mermaid win ends the game with no round_scored (R-MERMAID-WIN, R-GAME-2)
            con, "SELECT game_id, round, ending, caller, caller_won FROM rounds "
                 "WHERE ending <> 'mermaids'",
            f"SELECT game_id, round, ending, caller, caller_won FROM {parquet(out, 'round_scores')}",
            "round_scores (endings)")
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
    for table, columns in TABLES.items():
        cols = ", ".join(columns)
        n = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        if n:
            assert assert_same_rows(con, f"SELECT {cols} FROM {table}",
                                    f"SELECT {cols} FROM {parquet(tmp_path / 'out', table)}",
                                    table) == n
        else:
            assert con.execute(f"SELECT count(*) FROM {parquet(tmp_path / 'out', table)}"
                               ).fetchone()[0] == 0, table
        assert summary.rows[table] == n, table
    con.close()


# ---------------------------------------------------------------- planted faults

def _attacker(path: Path):
    con = duckdb.connect(str(path))
    for name, table in con.execute("SELECT trigger_name, table_name FROM duckdb_triggers()"
                                   ).fetchall():
        con.execute(f"DROP TRIGGER {name} ON {table}")
    return con


def _edit(con, game_id: str, kind: str, change) -> None:
    """Change the first ``kind`` event of the game in place with ``change(dict)``."""
    seq, text = con.execute("SELECT seq, event FROM events WHERE game_id = ? AND type = ? "
                            "ORDER BY seq LIMIT 1", [game_id, kind]).fetchone()
    e = json.loads(text)
    change(e)
    con.execute("UPDATE events SET event = ? WHERE game_id = ? AND seq = ?",
                [json.dumps(e, separators=(",", ":")), game_id, seq])


def _more_points(e: dict) -> None:
    e["points"][0] += 5
    e["totals"][0] += 5


def _other_card(e: dict) -> None:
    e["card"] = "mermaid:white" if e["card"] != "mermaid:white" else "shell:blue"


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A small store with three faults planted behind the store's back in games of every
    setting, and its export; the faulty games' ids per fault, and verify's findings."""
    d = tmp_path_factory.mktemp("planted")
    games = [g for k, (ruleset, events) in enumerate(SETTINGS)
             for g in simulate(3, 2 + k % 3, 4300 + k,
                               ruleset=None if ruleset == "base" else ruleset, events=events)]
    db = _store(d, games)
    deleted, edited, swapped = ([g[0].game_id for g in games[i::3]] for i in range(3))
    con = _attacker(db)
    for gid in deleted:      # 1. a deleted event: what follows is out of place
        con.execute("DELETE FROM events WHERE game_id = ? AND seq = 6", [gid])
    for gid in edited:       # 2. an edited round_scored: 5 more points for seat 0
        _edit(con, gid, "round_scored", _more_points)
    for gid in swapped:      # 3. a swapped card: the card taken from a discard pile
        _edit(con, gid, "discard_taken", _other_card)
    con.close()
    with Store.open(db, read_only=True) as store:
        export_parquet(store, d / "export")
        want = fold_differences(verify_store(store))
    assert_export_keeps_games_whole(d / "export", db)
    return db, d / "export", (deleted, edited, swapped), want


def test_planted_faults_are_reported_as_verify_reports_them(planted, checked):
    _, _, (deleted, edited, swapped), want = planted
    # verify's findings, checked by hand against RULES.md: the missing event breaks the
    # game, the edited points are not what the engine computes (R-DERIVED, RULES.md §5),
    # and the swapped card is not on top of the pile (R-TAKE-2), in every setting
    assert set(want) == set(deleted + edited + swapped)
    assert len(deleted) == len(edited) == len(swapped) == len(SETTINGS)
    for gid in edited:
        assert want[gid][0] == "derived" and want[gid][2].startswith("R-DERIVED: round_scored.points")
    for gid in swapped:
        assert want[gid][0] == "rule" and want[gid][2].startswith("R-TAKE-2: ")
    for gid in deleted:
        assert want[gid][1] >= 6 and want[gid][2].startswith("R-"), want[gid]
    summary, out = checked("planted")
    assert summary.failed == len(want) and summary.games == len(want) + 4  # + the fixture games
    got = {r[0]: (r[1], r[2], r[3]) for r in duckdb.sql(
        f"SELECT game_id, error_kind, error_seq, error FROM {parquet(out, 'results')}"
        " WHERE NOT ok").fetchall()}
    assert got == want
    # the summary lines: game, round, turn: RULE-ID: ...
    assert len(summary.errors) == archive.MAX_ERRORS
    for line in summary.errors:
        gid = line.split(",", 1)[0].removeprefix("game ")
        assert line.startswith(f"game {gid}, round ") and f": {want[gid][2]}" in line


def test_the_command_prints_the_failures_and_exits_1(planted, tmp_path):
    _, export, _, want = planted
    r = runner.invoke(app, ["archive", "check", str(export), "--out", str(tmp_path / "o"),
                            "--workers", "1"])
    assert r.exit_code == 1, r.output
    lines = r.stdout.splitlines()
    first, rest = lines[:archive.MAX_ERRORS], lines[archive.MAX_ERRORS:]
    assert all(x.startswith("game ") and ", round " in x and ": R-" in x for x in first)
    assert rest == [f"... and {len(want) - archive.MAX_ERRORS} more failed game(s): see "
                    "results/ (WHERE NOT ok)"]
    assert f"checked {len(want) + 4} game(s)" in r.stderr and f"{len(want)} failed" in r.stderr


# ---------------------------------------------------------------- an older export: shuffle

def _older_export(export: Path, target: Path, files: int = 3, mixed: bool = False) -> None:
    """The events split the way an earlier export could leave them: every game's rows spread
    over several files, out of order, no whole-games mark (``mixed``: the first file's
    columns required, as a later export marks them, the others nullable)."""
    target.mkdir()
    src = duckdb.sql(f"SELECT * FROM read_parquet('{export}/events/*/*.parquet')")
    for k in range(files):
        part = duckdb.sql(f"SELECT * FROM src WHERE seq % {files} = {k} ORDER BY seq DESC, game_id")
        rows = part.to_arrow_table()
        if mixed and k == 0:
            rows = rows.cast(pa.schema([f.with_nullable(f.name == "player") for f in rows.schema]))
        pq.write_table(rows, target / f"data_{k}.parquet")


@pytest.mark.parametrize("fixture, mixed", [("big", False), ("planted", False), ("big", True)])
def test_an_older_export_goes_through_a_shuffle(fixture, mixed, request, checked, client,
                                                tmp_path):
    """Every setting's games (and, in ``planted``, their faults) come out of a shuffle as
    they come out of the whole-games export; also from files of two export versions, one
    marking its columns required and one not."""
    export = request.getfixturevalue(fixture)[1]
    old = tmp_path / "old"
    _older_export(export, old, mixed=mixed)
    summary = archive.run(str(old), str(tmp_path / "shuffled"), client=client)
    assert summary.shuffled and summary.files == 3
    whole, whole_out = checked(fixture)
    assert (summary.games, summary.events, summary.failed) == \
        (whole.games, whole.events, whole.failed)
    con = duckdb.connect()
    for table in ("results", "round_scores"):
        assert_same_rows(con, f"SELECT * FROM {parquet(whole_out, table)}",
                         f"SELECT * FROM {parquet(tmp_path / 'shuffled', table)}", table)
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
    # OUT inside the archive (its results would be read as events by the next job)
    for inside in (export / "results", export / "events" / "results"):
        r = runner.invoke(app, ["archive", "check", str(export), "--out", str(inside)])
        assert r.exit_code == 1 and "inside the archive" in r.stderr, r.stderr
        assert not inside.exists()
    r = runner.invoke(app, ["archive", "check", str(tmp_path / "none"), "--out", str(tmp_path / "o")])
    assert r.exit_code == 1 and "no such file" in r.stderr


def test_workers_and_a_scheduler_together_are_a_usage_error(tmp_path):
    """--workers starts a local cluster, --scheduler names one: both is a command line that
    cannot be right, refused as the parser's own usage errors are (exit code 2, the --help
    to read), before any cluster starts or anything is written."""
    out = tmp_path / "o"
    r = runner.invoke(app, ["archive", "check", str(tmp_path), "--out", str(out),
                            "--workers", "1", "--scheduler", "tcp://127.0.0.1:1"])
    assert (r.exit_code, r.stderr) == (2, "error: give --workers (a local cluster) or "
                                          "--scheduler, not both (see: seasalt archive check "
                                          "--help)\n")
    assert not out.exists()


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


def test_a_file_that_is_not_parquet_is_a_one_line_error(tmp_path):
    """A log given where the archive goes, or a damaged file in it, names the file (it was
    an "unexpected ArrowInvalid ... a bug"); nothing is written."""
    log = tmp_path / "games.jsonl"
    log.write_text('{"type":"game_started","game_id":"g","players":["A","B"]}\n')
    damaged = tmp_path / "archive" / "events"
    damaged.mkdir(parents=True)
    shutil.copy(log, damaged / "part-0.parquet")
    for source, named in ((log, log), (tmp_path / "archive", damaged / "part-0.parquet")):
        for cmd in ("check", "rebuild"):
            r = runner.invoke(app, ["archive", cmd, str(source), "--out", str(tmp_path / "o")])
            assert r.exit_code == 1, r.output
            lines = r.stderr.splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"error: {named}: cannot read the events ")
            assert "unexpected" not in lines[0]
            assert not (tmp_path / "o").exists()


def test_parquet_without_the_events_columns_is_a_one_line_error(tmp_path):
    """A Parquet file of another table where the events go: one line naming it (Arrow's
    message, "No match for FieldRef.Name(game_id) in ...", ran over a dozen lines)."""
    other = tmp_path / "archive" / "events" / "part-0.parquet"
    other.parent.mkdir(parents=True)
    pq.write_table(pa.table({"code": ["crab:black"], "copies": [1]}), other)
    r = runner.invoke(app, ["archive", "check", str(tmp_path / "archive"),
                            "--out", str(tmp_path / "o"), "--workers", "1"])
    assert r.exit_code == 1, r.output
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {other}: cannot read the events (")
    assert not (tmp_path / "o").exists()


def test_the_export_of_an_empty_store_is_an_archive_of_no_events(tmp_path):
    """``export --parquet`` of a store without games wrote no events/ directory, so
    ``archive check`` read the read models' files as events and failed on the first."""
    with Store.open(tmp_path / "s.duckdb"):
        pass
    export = tmp_path / "pq"
    r = runner.invoke(app, ["export", "--parquet", str(export), "--db", str(tmp_path / "s.duckdb")])
    assert r.exit_code == 0, r.output
    assert (export / "events").is_dir() and not any((export / "events").iterdir())
    r = runner.invoke(app, ["archive", "check", str(export), "--out", str(tmp_path / "o"),
                            "--workers", "1"])
    assert (r.exit_code, r.stderr) == (1, f"error: archive {export}: no Parquet files of events "
                                          "found\n")


def test_rebuild_help_names_every_read_model_it_writes():
    r = runner.invoke(app, ["archive", "rebuild", "--help"], env={"COLUMNS": "400"})
    text = " ".join(r.output.split())
    assert r.exit_code == 0 and [t for t in TABLES if t not in text] == []
