"""Crash safety: ``seasalt import`` killed with SIGKILL at random moments of a large import.

After every kill the store opens, every game in it is whole (with all its read-model rows,
consistent with its events) or absent, and every stored game is exactly the log's game.
Running the same import again resumes it; once an import completes, the store equals an
import of the same log into a fresh store, table by table.

Most runs lower the import's batch size (``BATCH_EVENTS``) so that one import commits many
times and a kill can land between, inside or after any of them; every third run uses the
installed ``seasalt`` script as it is. ``SEASALT_CRASH_KILLS`` sets the number of kills
(default 6), ``SEASALT_CRASH_SEED`` the seed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log.errors import SeasaltError
from seasalt_log.importers.writer import ImportRun
from seasalt_log.service import import_logs
from seasalt_log.store import Store

from .reliability_helpers import assert_games_whole, seasalt_argv, table_rows, valid_games

KILLS = int(os.environ.get("SEASALT_CRASH_KILLS", "6"))
SEED = int(os.environ.get("SEASALT_CRASH_SEED", "1"))
COPIES = 6                 # each base game is written this many times under other ids
SMALL_BATCH = 600          # events per write batch in the lowered-batch runs
SMALL_COMMIT_LOADS = 2     # chunk loads per transaction in the lowered-batch runs

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def _import_argv(log: Path, db: Path, small_batch: bool, *extra: str) -> list[str]:
    """``seasalt import``: the installed script, or the same entry point with a lowered
    batch size that also writes ``committed`` on stdout after each commit (so a test can
    kill right after the n-th one)."""
    tail = ["import", str(log), "--db", str(db), "--no-progress", *extra]
    if not small_batch:
        return [*seasalt_argv(), *tail]
    code = ("import sys\n"
            "import seasalt_log.service as service\n"
            "from seasalt_log.store.store import Store\n"
            f"service.BATCH_EVENTS = {SMALL_BATCH}\n"
            "from seasalt_log.importers.writer import ImportRun\n"
            f"ImportRun.COMMIT_LOADS = {SMALL_COMMIT_LOADS}\n"
            "_commit = Store.commit\n"
            "def commit(self):\n"
            "    _commit(self)\n"
            "    sys.stdout.write('committed\\n')\n"
            "    sys.stdout.flush()\n"
            "Store.commit = commit\n"
            "from seasalt_cli.main import app\n"
            "app(prog_name='seasalt')")
    return [sys.executable, "-c", code, *tail]


def _run_and_kill(argv: list[str], *, delay: float | None = None, after_commits: int = 0,
                  then: float = 0.0) -> tuple[bool, int, bytes]:
    """Start ``argv``; SIGKILL it after ``delay`` seconds, or ``then`` seconds after its
    ``after_commits``-th commit. Returns (finished by itself, return code, stderr)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finished = False
    if delay is None:
        seen = 0
        while seen < after_commits:
            line = proc.stdout.readline()
            if not line:
                break
            seen += line.startswith(b"committed")
        delay = then
    try:
        proc.wait(timeout=delay)
        finished = True
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    # it may have ended by itself between the timeout and the kill: then it finished (and
    # the caller checks the store is complete), it was not killed
    finished = finished or proc.returncode == 0
    return finished, proc.returncode, stderr


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A log of many games (base games copied under new ids) and the expected store:
    (log path, {game id: its JSON lines}, rows of a fresh import, seconds it took)."""
    d = tmp_path_factory.mktemp("crash")
    base = valid_games(20, seed=11)
    log = d / "big.jsonl"
    expected: dict[str, list[bytes]] = {}
    with open(log, "wb") as fh:
        for copy in range(COPIES):
            for g in base:
                gid = f"{g[0].game_id}-c{copy}"
                game = [replace(g[0], game_id=gid)] + g[1:]
                lines = [ev.encode(e) for e in game]
                expected[gid] = lines
                fh.write(b"".join(line + b"\n" for line in lines))
    t0 = time.monotonic()
    with Store.open(d / "fresh.duckdb") as fresh:
        summary = import_logs(fresh, [log])
        assert summary.failed == 0 and summary.new == len(expected)
        rows = table_rows(fresh)
    return log, expected, rows, time.monotonic() - t0


def _check_after_kill(db: Path, expected: dict[str, list[bytes]], verified: set[str]) -> int:
    """The store opens; each game whole or absent, and equal to the log's; returns games.

    Killed while it created the store, the import leaves a database with nothing in it (the
    schema is created in one transaction): readers say so in one line, and the next import
    creates it."""
    try:
        store = Store.open(db, read_only=True)
    except SeasaltError as exc:
        assert "\n" not in str(exc), exc               # a clear line, whatever it says
        con = duckdb.connect(str(db), read_only=True)
        try:
            tables = con.execute("SELECT count(*) FROM duckdb_tables() WHERE NOT internal").fetchone()[0]
        finally:
            con.close()
        assert tables == 0, f"a half-created store: {tables} tables but no events table"
        return 0
    with store:
        ids = [r[0] for r in store.con.execute("SELECT DISTINCT game_id FROM events").fetchall()]
        assert set(ids) <= set(expected), "a game the log does not hold"
        new = sorted(set(ids) - verified)
        assert_games_whole(store, verify=new)       # structure of all, engine+models of new
        for gid in new:
            got = [j.encode() for j, in store.con.execute(
                "SELECT event FROM events WHERE game_id = ? ORDER BY seq", [gid]).fetchall()]
            assert got == expected[gid], f"game {gid} differs from the log"
        verified.update(new)
        return len(ids)


def test_sigkill_at_random_moments_never_leaves_part_of_a_game(big, tmp_path):
    log, expected, fresh_rows, seconds = big
    per_commit = SMALL_BATCH * ImportRun.LOAD_BATCHES * SMALL_COMMIT_LOADS   # chunk loads
    commits = -(-sum(len(v) for v in expected.values()) // per_commit)
    rng = random.Random(SEED)
    generation = 0
    db = tmp_path / "g0.duckdb"
    verified: set[str] = set()
    outcomes = []
    for kill in range(KILLS):
        small = kill % 3 != 2
        if small and kill % 2 == 0:       # right after a commit, or before the next one
            how = dict(after_commits=rng.randrange(1, commits + 1),
                       then=rng.uniform(0, min(0.3, seconds / commits)))
        else:                             # anywhere: start-up, migration, checking, writing
            how = dict(delay=rng.uniform(0.0, 0.8 + seconds))
        finished, code, stderr = _run_and_kill(_import_argv(log, db, small), **how)
        if finished:
            assert code == 0, stderr.decode(errors="replace")
        else:
            assert code == -signal.SIGKILL
        stored = _check_after_kill(db, expected, verified) if db.exists() else 0
        outcomes.append((how, "finished" if finished else "killed", stored))
        if finished:                      # this store is complete: start a fresh one
            _assert_complete(db, fresh_rows)
            generation += 1
            db = tmp_path / f"g{generation}.duckdb"
            verified = set()
    # the same import again completes what the kills interrupted
    done = subprocess.run(_import_argv(log, db, True), capture_output=True, timeout=600)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    _assert_complete(db, fresh_rows)
    mid = sum(o[1] == "killed" and 0 < o[2] < len(expected) for o in outcomes)
    print(f"\n{KILLS} runs: {sum(o[1] == 'killed' for o in outcomes)} killed "
          f"({mid} with part of the games stored), {generation} completed by themselves")
    assert mid or KILLS < 3, f"no kill landed in the middle of an import: {outcomes}"


def _assert_complete(db: Path, fresh_rows: dict) -> None:
    with Store.open(db, read_only=True) as store:
        rows = table_rows(store)
    for table, want in fresh_rows.items():
        assert rows[table] == want, f"table {table} differs from a fresh import"


def test_a_killed_import_resumes_where_it_stopped(big, tmp_path):
    """Killed after its second commit, the import has stored some games; run again, it
    reports those as unchanged and stores the rest."""
    log, expected, fresh_rows, _ = big
    db = tmp_path / "s.duckdb"
    finished, _, _ = _run_and_kill(_import_argv(log, db, True), after_commits=2)
    assert not finished
    with Store.open(db, read_only=True) as store:
        before = store.con.execute("SELECT count(*) FROM games").fetchone()[0]
    assert 0 < before < len(expected)
    done = subprocess.run([*seasalt_argv(), "import", str(log), "--db", str(db), "--json",
                           "--no-progress"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["unchanged"], summary["new"], summary["failed"]) == (
        before, len(expected) - before, 0)
    _assert_complete(db, fresh_rows)
