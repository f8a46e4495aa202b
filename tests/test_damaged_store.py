"""A damaged store is reported, not crashed on: every command that opens a store, on each
kind of damage (truncated, overwritten with random bytes, an empty file, a directory, a file
that is not a DuckDB database, a write-ahead log of another database), prints one line
naming the file and what is wrong, exits non-zero, and leaves the files as they were.
``verify`` on a store damaged in one table says what it could not read and still checks
the rest."""

from __future__ import annotations

import hashlib
import random
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log.service import import_logs
from seasalt_log.store import Store
from seasalt_log.verify import verify_store

from .reliability_helpers import seasalt_argv, valid_games, write_log

runner = CliRunner()
#: "log" and "csv": a game log or a CSV file given as the store (DuckDB alone would open
#: either as an in-memory database with a view over it)
DAMAGE = ("truncated", "overwritten", "empty", "empty-log", "directory", "not-duckdb",
          "foreign-wal", "log", "csv")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """(a store of a few games, a log of other games, one stored game's id, the store's
    size)."""
    d = tmp_path_factory.mktemp("damaged")
    games = valid_games(6, seed=5)
    db = d / "pristine.duckdb"
    with Store.open(db) as store:
        assert import_logs(store, [write_log(d / "stored.jsonl", games[:4])]).failed == 0
    log = write_log(d / "more.jsonl", games[4:])
    return db, log, games[0][0].game_id, db.stat().st_size


def damage(kind: str, pristine, where: Path) -> Path:
    """A copy of the pristine store damaged in one way."""
    src, _, _, size = pristine
    db = where / f"{kind}.duckdb"
    if kind == "directory":
        db.mkdir()
        return db
    if kind in ("empty", "empty-log"):
        db = db.with_suffix(".jsonl") if kind == "empty-log" else db
        db.touch()
        return db
    if kind in ("not-duckdb", "csv"):
        db = db.with_suffix(".csv") if kind == "csv" else db
        db.write_text("game_id,players\nsim-1,Ann Ben\n" * 200)
        return db
    if kind == "log":
        db = db.with_suffix(".jsonl")
        shutil.copy(pristine[1], db)
        return db
    shutil.copy(src, db)
    if kind == "truncated":
        with open(db, "r+b") as fh:
            fh.truncate(size // 2)
    elif kind == "overwritten":
        # DuckDB's first blocks after its three 4 kB headers hold the catalog: random bytes there
        with open(db, "r+b") as fh:
            fh.seek(12288)
            fh.write(random.Random(1).randbytes(4 * 4096))
    elif kind == "foreign-wal":
        # the write-ahead log of another database, committed but not checkpointed
        other = where / "other.duckdb"
        con = duckdb.connect(str(other))
        con.execute("CREATE TABLE t AS SELECT range AS a FROM range(10)")
        con.execute("CHECKPOINT")
        con.execute("INSERT INTO t VALUES (11)")
        shutil.copy(Path(str(other) + ".wal"), Path(str(db) + ".wal"))
        con.close()
    return db


def fingerprint(db: Path) -> dict:
    """What is on disk at the store's path and its WAL's (content hashes)."""
    out = {}
    for p in (db, Path(str(db) + ".wal")):
        if p.is_dir():
            out[p.name] = ("dir", sorted(x.name for x in p.iterdir()))
        elif p.exists():
            out[p.name] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def commands(db: Path, log: Path, gid: str, tmp: Path) -> dict[str, list[str]]:
    """Every command that opens a store, with arguments that would work on a good store."""
    d = ["--db", str(db)]
    return {
        "import": ["import", str(log), "--no-progress", *d],
        "validate --db": ["validate", str(log), "--no-progress", *d],
        "games": ["games", *d],
        "show": ["show", gid, *d],
        "replay": ["replay", gid, *d],
        "log": ["log", gid, *d],
        "rescore": ["rescore", gid, "--round", "1", *d],
        "export": ["export", "--all", *d],
        "export --parquet": ["export", "--parquet", str(tmp / "pq"), *d],
        "query": ["query", "SELECT max(length(event)) FROM events", *d],
        "stats": ["stats", "win-rates", *d],
        "rebuild": ["rebuild", *d],
        "compact": ["compact", *d],
        "verify": ["verify", "--no-progress", *d],
        "backup": ["backup", str(tmp / "copy.duckdb"), *d],
        "simulate --db": ["simulate", "--games", "1", "--players", "2", "--seed", "1", *d],
        "serve": ["serve", "--port", "1", *d],
    }


def test_a_good_store_passes_every_command(pristine, tmp_path):
    """The commands' arguments are right: on the undamaged store (a copy) each succeeds,
    so a failure below is the damage's doing (serve is left out: it would run)."""
    db = tmp_path / "good.duckdb"
    shutil.copy(pristine[0], db)
    for name, argv in commands(db, pristine[1], pristine[2], tmp_path).items():
        if name == "serve":
            continue
        result = runner.invoke(app, argv)
        assert result.exit_code == 0, (name, result.output, result.exception)


@pytest.mark.parametrize("kind", DAMAGE)
def test_every_command_reports_the_damage_in_one_line(kind, pristine, tmp_path):
    db = damage(kind, pristine, tmp_path)
    before = fingerprint(db)
    failures = []
    good = runner.invoke(app, commands(pristine[0], *pristine[1:3], tmp_path)["query"])
    assert good.exit_code == 0
    for name, argv in commands(db, pristine[1], pristine[2], tmp_path).items():
        result = runner.invoke(app, argv)
        lines = result.stderr.strip().splitlines()
        if name == "query" and result.exit_code == 0:
            # SQL reads only what it names: an answer from intact blocks is allowed, if right
            assert result.stdout == good.stdout, f"query on a {kind} store: {result.stdout!r}"
            continue
        ok = (result.exit_code == 1 and isinstance(result.exception, SystemExit)
              and len(lines) == 1 and lines[0].startswith("error: ") and db.name in lines[0])
        if not ok:
            failures.append(f"{name}: exit {result.exit_code}, {result.exception!r}, "
                            f"stderr {result.stderr[-300:]!r}")
        assert fingerprint(db) == before, f"{name} changed the damaged store"
    assert not failures, "\n".join(failures)
    assert not (tmp_path / "copy.duckdb").exists()
    assert not (tmp_path / "pq").exists() or not any((tmp_path / "pq").iterdir())


@pytest.mark.parametrize("kind, says", [
    ("truncated", "is damaged"), ("overwritten", "is damaged"), ("empty", "is an empty file"),
    ("empty-log", "is an empty file"),
    ("directory", "is a directory"), ("not-duckdb", "not a DuckDB database"),
    ("foreign-wal", "write-ahead log"), ("log", "not a DuckDB database"),
    ("csv", "not a DuckDB database")])
def test_the_installed_command_names_the_damage(kind, says, pristine, tmp_path):
    db = damage(kind, pristine, tmp_path)
    for argv in (["games", "--db", str(db)], ["verify", "--db", str(db), "--no-progress"]):
        r = subprocess.run([*seasalt_argv(), *argv], capture_output=True, text=True, timeout=120)
        assert r.returncode == 1
        assert "Traceback" not in r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0] and db.name in lines[0], r.stderr


def test_verify_reports_an_unreadable_table_and_checks_the_rest(pristine, tmp_path):
    """Random bytes over the blocks of one read model: verify names that table as unreadable
    (kind ``damage``) and still checks every game's events, chain and other tables."""
    db = tmp_path / "store.duckdb"
    shutil.copy(pristine[0], db)
    con = duckdb.connect(str(db), read_only=True)
    # the blocks of the duos table: where its columns' segments start
    blocks = {r[0] for r in con.execute(
        "SELECT block_id FROM pragma_storage_info('duos') WHERE block_id >= 0").fetchall()}
    others = {r[0] for t in ("events", "commits", "games", "turns", "rounds", "seats",
                             "round_results", "store_meta")
              for r in con.execute(f"SELECT block_id FROM pragma_storage_info('{t}') "
                                   "WHERE block_id >= 0").fetchall()}
    block_size = con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
    con.close()
    only_duos = sorted(blocks - others)
    if not only_duos:
        pytest.skip("the duos table shares every block with other tables in this store")
    with open(db, "r+b") as fh:
        # DuckDB's file: three 4 kB headers, then blocks of block_size (their checksum first)
        fh.seek(3 * 4096 + only_duos[0] * block_size + 64)
        fh.write(random.Random(2).randbytes(256))
    with Store.open(db, read_only=True) as store:
        report = verify_store(store)
    kinds = {(d.kind, d.table) for d in report.differences}
    assert ("damage", "duos") in kinds, report.differences
    assert all(d.kind == "damage" for d in report.differences), report.differences
    assert report.games == 4 and report.events > 0
    result = runner.invoke(app, ["verify", "--db", str(db), "--no-progress"])
    assert result.exit_code == 1
    assert "damage: the table duos" in result.stdout
    # SQL that reads the damaged block names the store, as any command does
    for argv in (["query", "SELECT * FROM duos"], ["stats", "duos"]):
        result = runner.invoke(app, [*argv, "--db", str(db)])
        lines = result.stderr.strip().splitlines()
        assert result.exit_code == 1 and len(lines) == 1, result.stderr
        assert lines[0].startswith(f"error: the store {db} is damaged"), lines


def test_verify_checks_the_games_outside_a_damaged_block_of_events(tmp_path):
    """Small row groups (4096 events), random bytes over a block that holds only some row
    groups' events: verify reports exactly the games with an event in those row groups
    (found from DuckDB's storage layout before the damage) as unreadable, and checks every
    other game clean."""
    games = valid_games(80, seed=9)
    log = write_log(tmp_path / "games.jsonl", games)
    db = tmp_path / "store.duckdb"
    con = duckdb.connect()
    con.execute(f"ATTACH '{db}' AS s (ROW_GROUP_SIZE 4096)")
    con.execute("USE s")
    store = Store(con, db, read_only=False)
    store._migrate()
    assert import_logs(store, [log], jobs=1).new == len(games)
    con.close()

    con = duckdb.connect(str(db), read_only=True)
    layout = con.execute("SELECT row_group_id, block_id FROM pragma_storage_info('events') "
                         "WHERE block_id >= 0").fetchall()
    elsewhere = {r[0] for t in ("commits", "games", "seats", "rounds", "round_results", "turns",
                                "duos", "cards", "store_meta")
                 for r in con.execute(f"SELECT block_id FROM pragma_storage_info('{t}') "
                                      "WHERE block_id >= 0").fetchall()}
    groups_of: dict[int, set[int]] = {}
    for group, block in layout:
        groups_of.setdefault(block, set()).add(group)
    every_group = set().union(*groups_of.values())
    # a block of events only, that not every row group uses
    candidates = [b for b, g in sorted(groups_of.items()) if b not in elsewhere and g != every_group]
    if not candidates:
        pytest.skip("every block of events holds every row group in this layout")
    block = candidates[-1]
    hit = sorted(groups_of[block])
    # each row group's rows, from the layout: a row group may hold fewer than 4096 (DuckDB
    # ends one where an insert's rows were written ahead of the commit)
    sizes = dict(con.execute("SELECT row_group_id, sum(count) FROM pragma_storage_info('events') "
                             "WHERE column_name = 'game_id' AND segment_type <> 'VALIDITY' "
                             "GROUP BY ALL").fetchall())
    first = {g: sum(sizes[k] for k in sizes if k < g) for g in sizes}
    damaged = {r[0] for g in hit for r in con.execute(
        "SELECT DISTINCT game_id FROM events WHERE rowid >= ? AND rowid < ?",
        [first[g], first[g] + sizes[g]]).fetchall()}
    all_games = {r[0] for r in con.execute("SELECT DISTINCT game_id FROM events").fetchall()}
    # whether the block holds game ids (which column it holds depends on the layout)
    ids_hit = bool(con.execute("SELECT count(*) FROM pragma_storage_info('events') "
                               "WHERE block_id = ? AND column_name = 'game_id'", [block]).fetchone()[0])
    block_size = con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
    con.close()
    assert damaged and damaged != all_games

    with open(db, "r+b") as fh:
        fh.seek(3 * 4096 + block * block_size + 64)
        fh.write(random.Random(3).randbytes(512))
    with Store.open(db, read_only=True) as store:
        report = verify_store(store)
    assert all(d.kind == "damage" for d in report.differences), report.differences[:5]
    # the scan for game ids fails once if the block holds some (they are found in the other
    # tables too) ...
    whole = [d for d in report.differences if d.game_id is None]
    assert [(d.kind, d.table) for d in whole] == ([("damage", "events")] if ids_hit else []), whole
    # ... and each game with an event in the damaged row groups cannot be read
    assert {d.game_id for d in report.differences} - {None} == damaged
    assert report.games == len(all_games - damaged)
    result = runner.invoke(app, ["verify", "--db", str(db), "--no-progress"])
    assert result.exit_code == 1
    assert f"verified {len(all_games - damaged)} game(s)" in result.stderr
