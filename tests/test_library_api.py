"""The library as a Python user meets it: the README's example run as written (doctest),
``__version__``, ``py.typed``, ``Store.sql`` in the query sandbox, ``Store.replay``, a
readable ``repr`` of a state, module docstrings, ``mypy --strict`` over the public API and
plain ``mypy`` over the whole package and the CLI."""

from __future__ import annotations

import doctest
import importlib
import json
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import seasalt_log
from seasalt_log import events as ev
from seasalt_log.engine import State
from seasalt_log.replay import replay
from seasalt_log.service import import_games
from seasalt_log.sim import simulate
from seasalt_log.store import Store
from seasalt_log.store.sandbox import QueryError, QueryRefusedError

ROOT = Path(__file__).resolve().parents[1]
#: the public API that must pass ``mypy --strict`` (modules; packages checked whole)
TYPED = ["seasalt_log", "seasalt_log.replay", "seasalt_log.events", "seasalt_log.store.store",
         "seasalt_log.service", "seasalt_log.engine", "seasalt_log.engine.core",
         "seasalt_log.engine.state", "seasalt_log.engine.table", "seasalt_log.engine.rulings",
         "seasalt_log.engine.moves"]
TYPED_PACKAGES: list[str] = []


def readme_example() -> str:
    """The README's ``pycon`` block (the notebook-style example)."""
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```pycon\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "the README has one pycon example"
    return blocks[0]


def test_the_readme_example_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(readme_example(), {}, "README.md", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out: list[str] = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
    assert runner.tries >= 10


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A store of 6 simulated games, and those games' events."""
    games = list(simulate(6, 3, seed=4))
    db = tmp_path_factory.mktemp("lib") / "s.duckdb"
    with Store.open(db) as store:
        assert import_games(store, games).new == 6
    return db, {g[0].game_id: g for g in games}


def test_version_is_the_distributions():
    assert seasalt_log.__version__ == metadata.version("seasalt-log")


def test_py_typed_marker_is_in_the_package_and_the_wheel(tmp_path):
    assert (ROOT / "seasalt_log" / "py.typed").is_file()
    # hatchling puts every file of a listed package in the wheel: check what it would list
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'packages = ["seasalt_log"' in pyproject


def test_store_replay_is_replay_of_the_events(stored):
    db, games = stored
    with Store.open(db, read_only=True) as store:
        for gid, events in games.items():
            # the oracle: the plain fold of the whole list, at the same points
            for point in ({"round": 1, "turn": 3}, {"round": 2, "turn": 0}, {"seq": 10}, {}):
                assert store.replay(gid, **point) == replay(events, **point), (gid, point)


def test_store_sql_is_a_relation_in_the_sandbox(stored):
    db, games = stored
    with Store.open(db, read_only=True) as store:
        rel = store.sql("SELECT game_id FROM games ORDER BY game_id")
        assert sorted(r[0] for r in rel.fetchall()) == sorted(games)
        n = store.sql("SELECT count(*) AS n FROM events").arrow().read_all()
        assert n.column("n").to_pylist() == [sum(len(g) for g in games.values())]
        for refused in ("COPY games TO 'x.csv'", "CREATE TABLE t (a INT)", "SET threads = 1",
                        "SELECT 1; SELECT 2"):
            with pytest.raises(QueryRefusedError):
                store.sql(refused)
        for reads_a_file in ("SELECT * FROM read_csv('/etc/hostname')", "FROM 'games.csv'"):
            # refused as `seasalt query` refuses it, not a mere SQL error
            with pytest.raises(QueryRefusedError, match="^query refused: queries may not read "
                                                        "or write files"):
                store.sql(reads_a_file)
        with pytest.raises(QueryError, match="no_such_table"):
            store.sql("SELECT * FROM no_such_table")
        # the store's own reads still work after the lock
        assert store.game_ids() == sorted(games, key=lambda g: int(g.rsplit("-", 1)[1]))
    with Store.open(db) as store, pytest.raises(seasalt_log.errors.SeasaltError, match="read-only"):
        store.sql("SELECT 1")


def test_a_store_opens_again_while_another_of_its_handles_ran_sql(stored):
    """DuckDB shares one database between a process's connections to a file, so the lock
    Store.sql puts on it holds for a second handle too: that one still opens and reads (a
    notebook that opens the store again without closing the first)."""
    db, games = stored
    with Store.open(db, read_only=True) as first:
        assert first.sql("SELECT count(*) FROM games").fetchall() == [(6,)]
        with Store.open(db, read_only=True) as second:
            assert second.sql("SELECT count(*) FROM games").fetchall() == [(6,)]
            gid = next(iter(games))
            assert second.replay(gid) == replay(games[gid])
            with pytest.raises(QueryRefusedError):
                second.sql("COPY games TO 'x.csv'")


def test_a_store_just_opened_leaves_no_result_open(stored):
    """Opening a store reads its format; the connection is then free for any statement
    (DuckDB refuses ``con.sql`` beside an unfinished result)."""
    db, games = stored
    for read_only in (True, False):
        with Store.open(db, read_only=read_only) as store:
            assert store.con.sql("SELECT count(*) FROM games").fetchall() == [(len(games),)]
            gid = next(iter(games))
            assert store.exists(gid)
            assert store.con.sql("SELECT count(DISTINCT game_id) FROM events").fetchall() \
                == [(len(games),)]
            assert store.head(gid)[0] == len(games[gid])      # one row of many commits
            assert store.con.sql("SELECT max(seq) FROM events WHERE game_id = ?",
                                 params=[gid]).fetchall() == [(len(games[gid]),)]


def test_a_state_reads_in_one_line():
    assert repr(State()) == "<State (no id), before round 1; seq 0>"
    start = ev.GameStarted(game_id="demo", players=["Ann", "Ben"])
    rnd = ev.RoundStarted(round=1, first_player=1, discards=["crab:black", "shell:grey"])
    s = replay([start, rnd])
    # worked by hand: round 1 begun, Ben (seat 1) first to take, 58 - 2 cards in the deck
    assert repr(s) == ("<State demo, round 1, before turn 1: Ben (seat 1) to take; "
                       "totals Ann 0, Ben 0 (target 40); deck 56; seq 2>")


def test_a_state_due_an_event_kept_says_who_keeps():
    """Between rounds, a player who received a second event must keep one (R-EV-AWARD
    step 4): the state's line names them, as it names the player to take or play."""
    game = next(g for g in simulate(20, 2, seed=3, ruleset="extra-salt", events="pepper")
                if any(isinstance(e, ev.EventKept) for e in g))
    i = next(i for i, e in enumerate(game) if isinstance(e, ev.EventKept))
    keeper, names = game[i].player, game[0].players
    before = replay(game, seq=i)                     # seq i: the events before the event_kept
    assert f": {names[keeper]} (seat {keeper}) to keep an event; totals " in repr(before)
    assert "to keep an event" not in repr(replay(game, seq=i + 1))


def test_public_modules_have_docstrings():
    for name in [*TYPED, "seasalt_log.store", "seasalt_log.sim", "seasalt_log.analytics",
                 "seasalt_log.rescore", "seasalt_log.narration", "seasalt_log.render"]:
        module = importlib.import_module(name)
        assert (module.__doc__ or "").strip(), name


needs_mypy = pytest.mark.skipif(
    shutil.which("mypy", path=str(Path(sys.executable).parent)) is None,
    reason="mypy is not installed (pip install -e '.[test]')")


def assert_mypy_passes(tmp_path: Path, *args: str) -> None:
    """``mypy ARGS`` from the project's root (its configuration: pyproject.toml) finds no
    error; its report is the assertion's message."""
    r = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"),
                        *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


@needs_mypy
def test_the_public_api_passes_mypy_strict(tmp_path):
    args = ["--strict", "--follow-imports=silent"]
    for name in TYPED:
        args += ["-m", name]
    for name in TYPED_PACKAGES:
        args += ["-p", name]
    assert_mypy_passes(tmp_path, *args)


@needs_mypy
def test_the_package_and_the_cli_pass_mypy(tmp_path):
    # every module, not only the public API: a caller's types and a callee's agree
    assert_mypy_passes(tmp_path, "seasalt_log", "cli")


def test_iter_texts_keeps_the_order_asked_across_queries(stored):
    db, games = stored
    ids = sorted(games, reverse=True)               # not the store's own order
    with Store.open(db, read_only=True) as store:
        # the oracle: each game's events as the simulator made them, encoded
        want = [ev.encode(e).decode() for gid in ids for e in games[gid]]
        for per_query in (1, 2, 4, 100):
            got = [t for block in store.iter_texts(ids, batch=7, games_per_query=per_query)
                   for t in block]
            assert got == want, per_query
            # the same events as bytes, each line ended (what `seasalt export` writes)
            lines = b"".join(store.iter_lines(ids, batch=7, games_per_query=per_query))
            assert lines == "".join(t + "\n" for t in want).encode(), per_query


def test_verify_in_worker_processes_reports_as_in_one(stored, monkeypatch):
    from seasalt_log import verify
    db, games = stored
    monkeypatch.setattr(verify, "CHUNK_GAMES", 2)          # 3 chunks of the 6 games
    with Store.open(db, read_only=True) as store:
        one = verify.verify_store(store, jobs=1)
        two = verify.verify_store(store, jobs=2)
    assert one.ok and (one.games, one.events) == (6, sum(len(g) for g in games.values()))
    assert (two.games, two.events, two.differences) == (one.games, one.events, one.differences)
