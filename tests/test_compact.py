"""``seasalt compact`` (:mod:`seasalt_log.store.compact`): a store recorded live, its games'
events interleaved as ``seasalt serve`` writes them, rewritten in game order.

What each test guards is in its docstring. The expected contents are the store's own
rows, digests and exported bytes taken before compaction, never values computed by the
code under test.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections import OrderedDict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.errors import SeasaltError
from seasalt_log.service import export_blocks, import_logs, plan_append, plan_start, write_planned
from seasalt_log.store import Store
from seasalt_log.store import compact as compact_mod
from seasalt_log.store.compact import compact
from seasalt_log.store.layout import schema_differences
from seasalt_log.store.projections import TABLES
from seasalt_log.store.stored_order import ids_by_number, in_game_order
from seasalt_log.verify import verify_store

from .reliability_helpers import seasalt_argv, valid_games, write_log

runner = CliRunner()

#: every table of the store, compared whole before and after
ALL_TABLES = ("events", "commits", "heads", "store_meta", "cards", *TABLES)


def _record_live(store: Store, games: list[list[ev.Event]], per_commit: int, step: int = 1) -> int:
    """Store the input events of ``games`` as the service's writer does: each commit takes
    the next ``step`` events of ``per_commit`` games in turn. Returns the commits made."""
    inputs = [[e for e in g if type(e) not in ev.DERIVED_TYPES] for g in games]
    playing: OrderedDict[int, tuple | None] = OrderedDict((i, None) for i in range(len(games)))
    commits = 0
    while playing:
        batch = []
        for i in list(playing)[:per_commit]:
            state = playing.pop(i)
            if state is None:
                batch.append((i, plan_start(store, inputs[i][0]), 1))
            else:
                cache, k = state
                batch.append((i, plan_append(cache, inputs[i][k:k + step], cache.seq),
                              min(k + step, len(inputs[i]))))
        write_planned(store, [p for _, p, _ in batch])
        commits += 1
        for i, p, k in batch:
            if k < len(inputs[i]):
                playing[i] = (p.cache, k)
    return commits


@pytest.fixture(scope="module")
def live_store(tmp_path_factory) -> Path:
    """Two games imported, then nine recorded live (interleaved, one event per game per
    commit), so every table holds games out of order."""
    d = tmp_path_factory.mktemp("compact")
    db = d / "live.duckdb"
    games = valid_games(11, seed=3)
    with Store.open(db) as store:
        assert import_logs(store, [write_log(d / "first.jsonl", games[:2])]).failed == 0
        assert _record_live(store, games[2:], per_commit=5) > 100
    return db


@pytest.fixture
def db(live_store, tmp_path) -> Path:
    copy = tmp_path / "store.duckdb"
    shutil.copy(live_store, copy)
    return copy


def snapshot(path: Path) -> dict:
    """Every table's rows (sorted), the export bytes in two game orders, the schema."""
    with Store.open(path, read_only=True) as store:
        rows = {t: store.con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                for t in ALL_TABLES}
        exported = {order: hashlib.sha256(b"".join(bytes(b) for b in export_blocks(store, ids))
                                          ).hexdigest()
                    for order, ids in (("ids", store.game_ids()),
                                       ("numbers", ids_by_number(store.con)))}
        tables = sorted(r[0] for r in store.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE NOT internal").fetchall())
    return {"rows": rows, "export": exported, "tables": tables}


def assert_same_store(path: Path, before: dict) -> None:
    """The store opens, verify passes, and every table, export and table list is as
    ``before`` (each table's rows as a sorted list: the same multiset of rows, what
    EXCEPT ALL both ways would check)."""
    assert snapshot(path) == before
    with Store.open(path, read_only=True) as store:
        report = verify_store(store)
        assert report.ok, report.differences[:3]
        assert schema_differences(store.con) == []


def test_the_fixture_is_scattered(live_store):
    """The premise: a live-recorded store does not hold its events in game order."""
    with Store.open(live_store, read_only=True) as store:
        assert not in_game_order(store.con)
        assert store.con.execute("SELECT count(*) FROM commits").fetchone()[0] > 100


def test_compact_changes_no_row_and_orders_the_tables(db):
    """Content unchanged (every table, export --all's bytes, hash chains via verify, the
    schema check); afterwards the events lie in (game, seq) order and every read model's
    rows by game number, each game's rows in their former order."""
    before = snapshot(db)
    with Store.open(db) as store:
        old_order = {t: store.con.execute(f"SELECT * FROM {t}").fetchall() for t in TABLES}
        summary = compact(store)
    assert summary.events == len(before["rows"]["events"])
    assert summary.games == len(before["rows"]["heads"])
    assert summary.rows["commits"] == len(before["rows"]["commits"])
    assert summary.passes >= 1
    assert_same_store(db, before)
    with Store.open(db, read_only=True) as store:
        con = store.con
        assert in_game_order(con)
        assert con.execute("SELECT game, seq FROM commits").fetchall() == sorted(
            con.execute("SELECT game, seq FROM commits").fetchall())
        numbers = dict(con.execute("SELECT game_id, min(game) FROM commits GROUP BY game_id"
                                   ).fetchall())
        for t in TABLES:       # a stable sort: each game's rows keep their former order
            assert con.execute(f"SELECT * FROM {t}").fetchall() == sorted(
                old_order[t], key=lambda r: numbers[r[0]]), t

def test_a_read_model_row_of_an_unknown_game_is_kept(db):
    """A read-model row whose game has no commit (what ``verify`` reports, never what the
    store writes) is not lost by the ordering join: it is copied, after the others."""
    with Store.open(db) as store:
        store.con.execute("INSERT INTO seats SELECT * REPLACE ('no-such-game' AS game_id) "
                          "FROM seats LIMIT 1")
    before = snapshot(db)
    with Store.open(db) as store:
        assert compact(store).passes >= 1
    assert snapshot(db) == before
    with Store.open(db, read_only=True) as store:
        assert store.con.execute("SELECT game_id FROM seats").fetchall()[-1] == ("no-such-game",)


def free_blocks(path: Path) -> int:
    """The free blocks of the store file, as DuckDB counts them on a fresh read-only open."""
    with Store.open(path, read_only=True) as store:
        return store.con.execute("SELECT free_blocks FROM pragma_database_size() "
                                 "WHERE database_name = current_database()").fetchone()[0]


def leftovers(path: Path) -> list[Path]:
    """Files a compaction of ``path`` made beside it (its copy, the copy's log)."""
    return sorted(path.parent.glob(f".{path.name}.compact-*"))


def test_compact_shrinks_the_file_and_twice_is_a_fixed_point(db):
    """The new file is smaller than the live-recorded one and has no free block (the small
    commits' free and partly filled blocks are not copied); a compacted store is in game
    order, so compacting it again rewrites nothing and changes neither rows nor bytes."""
    before = snapshot(db)
    size = db.stat().st_size
    assert free_blocks(db) > 0                  # the premise: the small commits left some
    with Store.open(db) as store:
        first = compact(store)
    assert first.passes == 1
    assert first.bytes_before == size and first.bytes_after == db.stat().st_size < size
    assert first.free_bytes == 0 and free_blocks(db) == 0
    raw = db.read_bytes()
    with Store.open(db) as store:
        again = compact(store)
    assert again.passes == 0 and again.rows == first.rows
    assert db.read_bytes() == raw
    assert_same_store(db, before)
    assert leftovers(db) == []


def test_an_imported_store_is_left_as_it_is(tmp_path):
    """An import leaves the events and commits in game order: nothing to gain, and a
    rewrite of a store without free blocks would only grow the file; the file is left
    byte for byte."""
    db = tmp_path / "imported.duckdb"
    with Store.open(db) as store:
        assert import_logs(store, [write_log(tmp_path / "g.jsonl", valid_games(3, seed=4))]
                           ).failed == 0
    with Store.open(db) as store:
        store.con.execute("CHECKPOINT")
    raw = db.read_bytes()
    with Store.open(db) as store:
        summary = compact(store)
    assert summary.passes == 0 and summary.bytes_after == summary.bytes_before == len(raw)
    assert db.read_bytes() == raw


def test_free_blocks_are_left_behind(db):
    """Blocks a dropped table freed in the middle of the file (2,000,000 rows' worth, a
    game recorded live after them) are not in the new file: it holds the rows alone."""
    with Store.open(db) as store:
        store.con.execute("CREATE TABLE filler AS SELECT range AS x FROM range(2000000)")
        store.con.execute("CHECKPOINT")
        _record_live(store, valid_games(1, seed=99), per_commit=1, step=50)
        store.con.execute("DROP TABLE filler")
        store.con.execute("CHECKPOINT")
    size, free = db.stat().st_size, free_blocks(db)
    assert free > 0
    before = snapshot(db)
    with Store.open(db) as store:
        summary = compact(store)
    assert summary.passes == 1 and summary.free_bytes == 0 and free_blocks(db) == 0
    assert db.stat().st_size < size - free * 65536 // 2
    assert_same_store(db, before)


@pytest.mark.parametrize("after_tables", [0, 3, 17])
def test_a_failure_part_way_leaves_the_file_as_it_was(db, monkeypatch, after_tables):
    """An error raised while the tables are copied (before the first, after some, after
    all but one of the store's 18): the store's file is byte for byte as it was, the copy
    is removed, and the store object goes on (a second compaction completes)."""
    before = snapshot(db)
    raw = db.read_bytes()
    real, calls = compact_mod.copy_table, []

    def failing(con, table, alias):
        calls.append(table)
        if len(calls) == after_tables + 1:
            raise OSError("disk full (injected)")
        return real(con, table, alias)
    monkeypatch.setattr(compact_mod, "copy_table", failing)
    with Store.open(db) as store:
        with pytest.raises(OSError, match="injected"):
            compact(store)
        assert db.read_bytes() == raw and leftovers(db) == []
        monkeypatch.setattr(compact_mod, "copy_table", real)
        assert compact(store).passes == 1
    assert_same_store(db, before)


def test_the_store_file_is_not_written_before_the_rename(db, monkeypatch):
    """Up to the moment the copy is renamed over it, the store's file is byte for byte as
    it was (so no write a kill cuts short can tear one of its blocks); after, it is the
    copy, which was flushed and checked before."""
    raw = db.read_bytes()
    seen = []
    real = compact_mod._swap

    def watched(con, name, path, tmp):
        seen.append((path.read_bytes() == raw, tmp.stat().st_size))
        real(con, name, path, tmp)
    monkeypatch.setattr(compact_mod, "_swap", watched)
    with Store.open(db) as store:
        assert compact(store).passes == 1
    assert seen == [(True, db.stat().st_size)]


def test_a_copy_a_killed_compaction_left_is_removed(db):
    """A copy (and its log) that a killed compaction left beside the store is removed by
    the next compaction, whether or not that one has anything to rewrite; other files
    beside the store are not touched."""
    stale = [db.parent / f".{db.name}.compact-0badc0de", db.parent / f".{db.name}.compact-0badc0de.wal"]
    other = db.parent / f".{db.name}.backup-1"
    for f in (*stale, other):
        f.write_bytes(b"x" * 100)
    with Store.open(db) as store:
        assert compact(store).passes == 1
    assert leftovers(db) == [] and other.exists()
    stale[0].write_bytes(b"x")
    with Store.open(db) as store:
        assert compact(store).passes == 0
    assert leftovers(db) == []


def test_a_linked_store_stays_linked_and_keeps_its_mode(db):
    """Compacting through a symbolic link replaces the file it points to (the link stays);
    the new file has the store's permissions."""
    os.chmod(db, 0o640)
    link = db.parent / "link.duckdb"
    link.symlink_to(db.name)
    before = snapshot(db)
    r = runner.invoke(app, ["compact", "--db", str(link)])
    assert r.exit_code == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == db.name
    assert stat.S_IMODE(db.stat().st_mode) == 0o640
    assert_same_store(db, before)
    assert leftovers(db) == []
    with Store.open(db, read_only=True) as store:
        assert in_game_order(store.con)


def test_the_new_file_is_checked_before_it_replaces_the_store(db, monkeypatch):
    """A copy that misses rows (a table's copy made to skip its last row here) is refused
    before the rename: one error, the store's file as it was, no copy left."""
    raw = db.read_bytes()
    real = compact_mod.copy_table

    def short(con, table, alias):
        count = real(con, table, alias)
        if table == "turns":
            con.execute(f"DELETE FROM {alias}.main.turns WHERE rowid = "
                        f"(SELECT max(rowid) FROM {alias}.main.turns)")
        return count
    monkeypatch.setattr(compact_mod, "copy_table", short)
    with Store.open(db) as store:
        with pytest.raises(SeasaltError, match="the compacted copy is not the store"):
            compact(store)
    assert db.read_bytes() == raw and leftovers(db) == []


def test_a_full_disk_is_one_line_and_leaves_every_row(db, monkeypatch):
    """DuckDB's I/O error part-way (a full disk) is one line saying the store is as it
    was, not a damaged store; every row, verify and the schema as before."""
    import duckdb
    before = snapshot(db)
    real, calls = compact_mod.copy_table, []

    def full(con, table, alias):
        calls.append(table)
        if len(calls) == 4:
            raise duckdb.IOException('IO Error: Could not write file "x": No space left on device')
        return real(con, table, alias)
    monkeypatch.setattr(compact_mod, "copy_table", full)
    r = runner.invoke(app, ["compact", "--db", str(db)])
    assert r.exit_code == 1
    assert r.stderr == (f'error: cannot compact the store {db}: IO Error: Could not write file '
                        '"x": No space left on device; every row is as it was\n')
    assert_same_store(db, before)


def test_an_unreadable_block_part_way_is_called_damage(db, monkeypatch):
    """An I/O error that says the file is damaged (a block that cannot be read) is named
    as such, as every command names it, rather than as a full disk."""
    import duckdb

    def unreadable(con, table, alias):
        raise duckdb.IOException("IO Error: Could not read enough bytes from file \"x\"")
    monkeypatch.setattr(compact_mod, "copy_table", unreadable)
    r = runner.invoke(app, ["compact", "--db", str(db)])
    assert r.exit_code == 1 and r.stderr.startswith(f"error: the store {db} is damaged")


def test_a_read_only_store_is_refused(db):
    with Store.open(db, read_only=True) as store:
        with pytest.raises(SeasaltError, match="opened for writing"):
            compact(store)


# ------------------------------------------------------------------ the command

def test_cli_summary_line_and_json(db):
    """One summary line on stderr (bytes before and after, rows); on a compacted store it
    says nothing was rewritten; --json the same facts; --quiet says nothing, --verbose
    adds the rewrites and each table's rows."""
    events = len(snapshot(db)["rows"]["events"])
    size = db.stat().st_size
    r = runner.invoke(app, ["compact", "--db", str(db)])
    assert r.exit_code == 0 and r.stdout == ""
    line = r.stderr.strip()
    assert "\n" not in line
    assert line.startswith(f"compacted {db}: 11 game(s), {events} events, ")
    assert f" rows rewritten; {size:,} -> {db.stat().st_size:,} bytes (" in line
    r = runner.invoke(app, ["compact", "--db", str(db)])
    assert r.exit_code == 0 and r.stderr == (
        f"{db}: 11 game(s), {events} events, already in game order: nothing "
        f"rewritten; {db.stat().st_size:,} bytes ({db.stat().st_size / events:.1f} bytes/event)\n")
    r = runner.invoke(app, ["compact", "--db", str(db), "--json"])
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert doc["events"] == events and doc["games"] == 11 and doc["passes"] == 0
    assert doc["bytes_after"] == doc["bytes_before"] == db.stat().st_size
    r = runner.invoke(app, ["--quiet", "compact", "--db", str(db)])
    assert r.exit_code == 0 and r.stderr == "" and r.stdout == ""
    r = runner.invoke(app, ["--verbose", "compact", "--db", str(db)])
    assert r.exit_code == 0 and r.stdout == ""
    assert f"compact: 0 rewrite(s); rows: events {events}, commits " in r.stderr
    assert "already in game order" in r.stderr and "compact: done in " in r.stderr


def _tight_store(path: Path) -> Path:
    """Twelve games imported, then two recorded live: a store with few free blocks."""
    games = valid_games(14, seed=8)
    with Store.open(path) as store:
        log = write_log(path.with_suffix(".jsonl"), games[:12])
        assert import_logs(store, [log]).failed == 0
        _record_live(store, games[12:], per_commit=2, step=20)
    return path


def test_a_store_with_few_free_blocks_does_not_grow(tmp_path):
    """Where a rewrite in place would have had to grow the file (no free blocks to land
    in), the new file holds the rows alone: no larger than the store, no free block, the
    JSON saying so."""
    db = _tight_store(tmp_path / "tight.duckdb")
    before = snapshot(db)
    size = db.stat().st_size
    r = runner.invoke(app, ["compact", "--db", str(db), "--json"])
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert doc["passes"] == 1 and (doc["bytes_before"], doc["bytes_after"]) == (size, db.stat().st_size)
    assert doc["bytes_after"] <= size and doc["free_bytes"] == 0 and free_blocks(db) == 0
    assert_same_store(db, before)


def test_cli_refuses_a_missing_store_and_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("SEASALT_DB", raising=False)
    typo = tmp_path / "typo.duckdb"
    r = runner.invoke(app, ["compact", "--db", str(typo)])
    assert r.exit_code == 1
    assert r.stderr == f"error: no store at {typo} (import a log first, or pass --db)\n"
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setenv("SEASALT_DB", str(typo))
    r = runner.invoke(app, ["compact"])
    assert r.exit_code == 1 and str(typo) in r.stderr


def test_cli_refuses_a_store_another_process_holds(db):
    """A store open in another process (as `seasalt serve` holds it) is refused in one
    line naming it busy, and left byte for byte as it was."""
    raw = db.read_bytes()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
         "print('held', flush=True); sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        r = runner.invoke(app, ["compact", "--db", str(db)])
    finally:
        holder.communicate("")
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert r.stderr.startswith(f"error: the store {db} is busy")
    assert db.read_bytes() == raw


# ------------------------------------------------------------------ crashes

#: ``seasalt compact`` that writes a line on stdout after each table copied and after the
#: rename (so that a test can kill it right after the n-th step)
_STEPPED = """
import sys
from seasalt_log.store import compact as c
copy, swap = c.copy_table, c._swap
def copy_table(con, table, alias):
    rows = copy(con, table, alias)
    print('copied', table, flush=True)
    return rows
def stepped_swap(*args):
    swap(*args)
    print('renamed', flush=True)
c.copy_table, c._swap = copy_table, stepped_swap
from seasalt_cli.main import app
sys.argv = ['seasalt', 'compact', '--db', sys.argv[1]]
app()
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_killed_at_each_step_the_store_is_whole(live_store, tmp_path):
    """`seasalt compact` killed with SIGKILL a random moment after its n-th step (a table
    copied, the copy renamed; the kill lands inside a copy, the check, the fsync or the
    rename), each time on a copy of the live-recorded store: until the rename the store's
    file is byte for byte as it was (a copy is never made by writing it in place: a write
    a kill cuts short could tear a block), after it the whole copy; either way the store
    opens, verify passes and every row is as it was; compacting it then completes and
    leaves no copy behind."""
    db = tmp_path / "killed.duckdb"
    shutil.copy(live_store, db)
    before = snapshot(db)
    raw = live_store.read_bytes()
    with Store.open(live_store, read_only=True) as store:
        tables = len(store.con.execute("SELECT * FROM duckdb_tables()").fetchall())
    rng = random.Random(7)
    renamed = 0
    for step in (1, 5, tables - 1, tables, tables, tables, tables + 1):
        for p in [db, *tmp_path.glob("*.wal"), *leftovers(db)]:
            p.unlink()
        shutil.copy(live_store, db)
        inode = db.stat().st_ino
        proc = subprocess.Popen([sys.executable, "-c", _STEPPED, str(db)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for _ in range(step):
            assert proc.stdout.readline(), f"compact ended before step {step}"
        time.sleep(rng.uniform(0, 0.02))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        if db.stat().st_ino == inode:
            assert db.read_bytes() == raw, f"the store's file was written (step {step})"
        else:
            renamed += 1
        assert_same_store(db, before)
        done = subprocess.run([*seasalt_argv(), "compact", "--db", str(db)], capture_output=True)
        assert done.returncode == 0, done.stderr
        assert_same_store(db, before)
        assert leftovers(db) == []
        with Store.open(db, read_only=True) as store:
            assert in_game_order(store.con)
    assert renamed >= 1         # the last kill came after the rename


def test_the_same_store_object_records_on_after_compaction(tmp_path):
    """A process that recorded games, compacted and records on with the same store object
    (its appenders, kept across commits, must not point at the old tables): every game
    verifies, and the games recorded after are whole."""
    db = tmp_path / "on.duckdb"
    games = valid_games(4, seed=11)
    with Store.open(db) as store:
        _record_live(store, games[:2], per_commit=2, step=10)
        compact(store)
        _record_live(store, games[2:], per_commit=2, step=10)
        exported = b"".join(bytes(b) for b in export_blocks(store, [g[0].game_id for g in games]))
    assert exported == b"".join(ev.encode_lines(g) for g in games)
    with Store.open(db, read_only=True) as store:
        assert verify_store(store).ok


# ------------------------------------------------------------------ found in review

def test_another_connection_of_the_process_is_refused(db):
    """A cursor of the store's connection with a transaction of its own (its writes would
    go to the old file) makes compact refuse before anything: the file as it was, and the
    store goes on."""
    raw = db.read_bytes()
    with Store.open(db) as store:
        other = store.con.cursor()
        with pytest.raises(SeasaltError, match="other connections of this process"):
            compact(store)
        other.close()
        assert db.read_bytes() == raw
        assert compact(store).passes == 1


def test_a_store_whose_schema_differs_is_refused(db):
    """A store whose schema is not the format's (here a view of a user's) is refused with the
    first difference, byte for byte as it was: a copy by the format's DDL would drop it."""
    with Store.open(db) as store:
        store.con.execute("CREATE VIEW my_notes AS SELECT 1 AS a")
    raw = db.read_bytes()
    r = runner.invoke(app, ["compact", "--db", str(db)])
    assert r.exit_code == 1
    assert "its schema is not the store format's (the view my_notes is not part" in r.stderr
    assert db.read_bytes() == raw and leftovers(db) == []


@pytest.mark.parametrize("stem", ["compact_new", "Compact_Swap", "s" * 230])
def test_unusual_store_names(live_store, tmp_path, stem):
    """The names compact attaches under are not a store's own; a name near the file
    system's limit still leaves room for the copy's name."""
    db = tmp_path / f"{stem}.duckdb"
    shutil.copy(live_store, db)
    before = snapshot(db)
    r = runner.invoke(app, ["compact", "--db", str(db)])
    assert r.exit_code == 0, r.stderr
    assert_same_store(db, before)
    assert list(tmp_path.glob(".*")) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_the_owner_is_kept(db):
    """A store a service user owns, compacted by root, stays that user's."""
    os.chown(db, 65534, 65534)
    with Store.open(db) as store:
        assert compact(store).passes == 1
    assert (db.stat().st_uid, db.stat().st_gid) == (65534, 65534)


def test_a_store_spills_beside_itself(db):
    """A read-write store's temporary files go beside it (``STORE.tmp``), as a plain
    DuckDB connection of the file puts them, not into the working directory."""
    with Store.open(db) as store:
        got = store.con.execute("SELECT current_setting('temp_directory')").fetchone()[0]
    assert got == str(db) + ".tmp"
