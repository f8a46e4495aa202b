"""Concurrent use: DuckDB lets one process write a store, or many read it, never both.

While an import runs, a second writer (``import``, ``rebuild``, ``compact``) and every reader
(``games``, ``show``, ``export``, ``query``, ``stats``, ``replay``, ``log``, ``rescore``,
``verify``) gets one clear line, "the store ... is busy", and exit code 1, never a
traceback; ``validate``, which needs no store, still works. Nothing is lost: the running
import completes, and the refused import, run again afterwards, stores its games.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log.errors import StoreBusyError
from seasalt_log.service import import_logs
from seasalt_log.store import Store

from .reliability_helpers import assert_games_whole, seasalt_argv, table_rows, valid_games


def _held_writer(log: Path, db: Path, gate: Path) -> list[str]:
    """``seasalt import`` that, after its first commit, writes ``committed`` on stdout and
    waits until ``gate`` exists: the test knows the lock is held and for how long."""
    code = ("import os, sys, time\n"
            "gate = sys.argv.pop()\n"
            "import seasalt_log.service as service\n"
            "from seasalt_log.store.store import Store\n"
            "service.BATCH_EVENTS = 500\n"
            "_commit = Store.commit\n"
            "def commit(self):\n"
            "    _commit(self)\n"
            "    if not getattr(Store, 'told', False):\n"
            "        Store.told = True\n"
            "        sys.stdout.write('committed\\n')\n"
            "        sys.stdout.flush()\n"
            "        while not os.path.exists(gate):\n"
            "            time.sleep(0.05)\n"
            "Store.commit = commit\n"
            "from seasalt_cli.main import app\n"
            "app(prog_name='seasalt')")
    return [sys.executable, "-c", code, "import", str(log), "--db", str(db), "--no-progress",
            str(gate)]


def _with_ids(games, suffix):
    return [[replace(g[0], game_id=f"{g[0].game_id}-{suffix}")] + g[1:] for g in games]


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """(first log, second log, a game id already stored, path of a store holding it)."""
    d = tmp_path_factory.mktemp("conc")
    base = valid_games(6, seed=21)
    first, second = d / "first.jsonl", d / "second.jsonl"
    first.write_bytes(b"".join(ev.encode_lines(g) for g in _with_ids(base, "a")))
    second.write_bytes(b"".join(ev.encode_lines(g) for g in _with_ids(base, "b")))
    seed_log = d / "seed.jsonl"
    seed_log.write_bytes(ev.encode_lines(base[0]))
    db = d / "seeded.duckdb"
    with Store.open(db) as store:
        assert import_logs(store, [seed_log]).new == 1
    return first, second, base[0][0].game_id, db


def _busy_ok(result: subprocess.CompletedProcess, what: str, holder: int | None = None) -> None:
    """One line saying the store is busy, and naming the ``holder`` process where given
    (a writer's line said "another process has it open", whoever held the store)."""
    assert result.returncode == 1, f"{what}: exit {result.returncode}\n{result.stderr}"
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, f"{what}: expected one line on stderr, got\n{result.stderr}"
    assert lines[0].startswith("error: the store ") and " is busy" in lines[0], f"{what}: {lines[0]}"
    if holder is not None:
        assert f" is busy: process {holder} (" in lines[0], f"{what}: {lines[0]}"
    assert "Traceback" not in result.stderr + result.stdout


def test_second_writer_and_readers_get_a_clear_busy_message(logs, tmp_path):
    first, second, gid, seeded = logs
    db = tmp_path / "s.duckdb"
    db.write_bytes(seeded.read_bytes())
    gate = tmp_path / "go"
    writer = subprocess.Popen(_held_writer(first, db, gate), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        line = writer.stdout.readline()
        assert line.startswith(b"committed"), writer.stderr.read().decode(errors="replace")
        sql = "SELECT count(*) FROM events"
        contenders = {
            "import": ["import", str(second)],
            "rebuild": ["rebuild"],
            "compact": ["compact"],
            "games": ["games"],
            "show": ["show", gid],
            "export": ["export", gid],
            "export --all": ["export", "--all"],
            "query": ["query", sql],
            "stats": ["stats", "overview"],
            "replay": ["replay", gid],
            "log": ["log", gid],
            "rescore": ["rescore", gid, "--round", "1"],
            "verify": ["verify"],
        }
        for what, args in contenders.items():
            result = subprocess.run([*seasalt_argv(), *args, "--db", str(db)],
                                    capture_output=True, text=True, timeout=120)
            _busy_ok(result, what, writer.pid)
        # the library says the same, as an exception of its own
        for read_only in (True, False):
            with pytest.raises(StoreBusyError, match="is busy"):
                Store.open(db, read_only=read_only)
        # a command that needs no store is not affected
        ok = subprocess.run([*seasalt_argv(), "validate", str(second), "--no-progress"],
                            capture_output=True, text=True, timeout=120)
        assert ok.returncode == 0, ok.stderr
        assert writer.poll() is None, "the writer must still hold the store"
    finally:
        gate.touch()
        try:
            _, err = writer.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            writer.kill()
            raise
    assert writer.returncode == 0, err.decode(errors="replace")
    # nothing lost: the first import is complete, the refused one succeeds when re-run
    again = subprocess.run([*seasalt_argv(), "import", str(second), "--db", str(db), "--json",
                            "--no-progress"], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["failed"] == 0
    with Store.open(db, read_only=True) as store:
        ids = set(store.game_ids())
        assert_games_whole(store)
        got = table_rows(store)
    want_ids = {gid} | set(_ids_of(first)) | set(_ids_of(second))
    assert ids == want_ids
    fresh = tmp_path / "fresh.duckdb"
    fresh.write_bytes(seeded.read_bytes())
    with Store.open(fresh) as store:
        assert import_logs(store, [first, second]).failed == 0
        assert table_rows(store) == got


def _ids_of(log: Path) -> list[str]:
    return [json.loads(line)["game_id"] for line in log.read_bytes().splitlines()
            if b'"game_started"' in line]


def test_a_reader_holding_the_store_keeps_writers_out_cleanly(logs, tmp_path):
    """Many readers may share the store; a writer meanwhile is refused with the busy
    message and stores nothing, and succeeds once the readers are gone."""
    _, second, gid, seeded = logs
    db = tmp_path / "s.duckdb"
    db.write_bytes(seeded.read_bytes())
    hold = ("import sys, time, duckdb\n"
            "c = duckdb.connect(sys.argv[1], read_only=True)\n"
            "print(c.execute('SELECT count(*) FROM games').fetchone()[0], flush=True)\n"
            "time.sleep(120)")
    reader = subprocess.Popen([sys.executable, "-c", hold, str(db)], stdout=subprocess.PIPE)
    try:
        assert reader.stdout.readline().strip() == b"1"
        second_reader = subprocess.run([*seasalt_argv(), "games", "--db", str(db), "--json"],
                                       capture_output=True, text=True, timeout=120)
        assert second_reader.returncode == 0, second_reader.stderr
        assert [g["game_id"] for g in json.loads(second_reader.stdout)] == [gid]
        result = subprocess.run([*seasalt_argv(), "import", str(second), "--db", str(db)],
                                capture_output=True, text=True, timeout=120)
        _busy_ok(result, "import while a reader holds the store", reader.pid)
    finally:
        reader.kill()
        reader.wait()
    time.sleep(0.1)
    result = subprocess.run([*seasalt_argv(), "import", str(second), "--db", str(db), "--json",
                             "--no-progress"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["new"] == len(_ids_of(second))
