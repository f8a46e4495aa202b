"""``seasalt verify`` reads a whole store in the order of the games' numbers (the order it is
stored in) and checks again, in id order, only the chunks of games where something may
differ. Here the games' ids sort in another order than their numbers: the report must be
the one the chunks in id order give, difference for difference."""

from __future__ import annotations

import json
import shutil

import duckdb
import pytest

from seasalt_log import events as ev
from seasalt_log import verify
from seasalt_log.service import import_logs
from seasalt_log.store import Store
from seasalt_log.verify import verify_store

from .reliability_helpers import valid_games, write_log
from .test_verify import attacker

#: the games in the order they are imported (numbered), as positions in id order
IMPORT_ORDER = (5, 2, 7, 0, 3, 6, 1, 4)


@pytest.fixture(scope="module")
def shuffled(tmp_path_factory):
    """A store of 8 games numbered in another order than their ids sort in; the ids sorted."""
    d = tmp_path_factory.mktemp("order")
    games = sorted(valid_games(8, seed=5), key=lambda g: g[0].game_id)
    path = d / "store.duckdb"
    with Store.open(path) as store:
        import_logs(store, [write_log(d / "games.jsonl", [games[i] for i in IMPORT_ORDER])])
    return path, games


def _tampered(shuffled, tmp_path):
    """A copy with three games edited: a read-model row of the second game, one of the
    fourth and an event of the fifth (the fourth and fifth in one chunk of 3 ids)."""
    path, games = shuffled
    ids = [g[0].game_id for g in games]
    copy = tmp_path / "tampered.duckdb"
    shutil.copy(path, copy)
    con = attacker(copy)
    con.execute("UPDATE round_results SET points = points + 1 WHERE game_id = ? AND round = 1 "
                "AND seat = 0", [ids[1]])
    con.execute("DELETE FROM rounds WHERE game_id = ? AND round = 1", [ids[3]])
    drawn = [k for k, e in enumerate(games[4], 1) if type(e) is ev.DeckDrawn][2]
    e = json.loads(con.execute("SELECT event FROM events WHERE game_id = ? AND seq = ?",
                               [ids[4], drawn]).fetchone()[0])
    e["player"] = (e["player"] + 1) % len(games[4][0].players)
    con.execute("UPDATE events SET event = ? WHERE game_id = ? AND seq = ?",
                [json.dumps(e, separators=(",", ":")), ids[4], drawn])
    con.close()
    return copy, ids, drawn


def _verify(path, monkeypatch, *, in_id_order=False, **kw):
    """The report, with chunks of 3 games; ``in_id_order``: the chunks in id order only,
    each read with its list of ids (no pass in number order), as verify did before."""
    with monkeypatch.context() as m:
        m.setattr(verify, "CHUNK_GAMES", 3)
        if in_id_order:
            m.setattr(verify, "_scan_store", lambda *a: None)
        with Store.open(path, read_only=True) as store:
            return verify_store(store, **kw)


def test_the_numbers_are_not_in_id_order(shuffled):
    path, games = shuffled
    with Store.open(path, read_only=True) as store:
        by_number = [r[0] for r in store.con.execute(
            "SELECT game_id FROM commits ORDER BY game").fetchall()]
    assert by_number == [games[i][0].game_id for i in IMPORT_ORDER]


@pytest.mark.parametrize("quick", [False, True])
def test_the_report_is_in_id_order_as_the_chunks_of_ids_give_it(shuffled, tmp_path,
                                                                monkeypatch, quick):
    path, ids, drawn = _tampered(shuffled, tmp_path)
    checked = []
    here = verify._check_chunk_here
    monkeypatch.setattr(verify, "_check_chunk_here",
                        lambda store, tables, q, chunk: checked.append(chunk) or
                        here(store, tables, q, chunk))
    report = _verify(path, monkeypatch, quick=quick)
    # only the chunks of ids holding an edited game are checked the exact way
    assert checked == ([ids[0:3], ids[3:6]] if not quick else [ids[3:6]])
    before = _verify(path, monkeypatch, in_id_order=True, quick=quick)
    assert report.differences == before.differences
    assert (report.games, report.events) == (before.games, before.events)
    assert report.games == 8 and report.events == sum(len(g) for g in shuffled[1])
    where = [(d.game_id, d.kind, d.table) for d in report.differences]
    if quick:       # the chain of the edited event's write: the rest is not looked at
        assert where == [(ids[4], "hash", None)]
        assert report.differences[0].seq == 1
        return
    # by chunk of ids: the second game's rows; then the chunk's events (the fifth game's),
    # the read models it cannot give, and the fourth game's rows
    assert [w for w in where if w[0] == ids[1]] == [(ids[1], "projection", "round_results")]
    assert where[0][0] == ids[1] and where[-1] == (ids[3], "projection", "rounds")
    fifth = [w for w in where if w[0] == ids[4]]
    assert where[1:-1] == fifth and ("hash", None) in [w[1:] for w in fifth]
    assert fifth[-1] == (ids[4], "projection", None)
    assert any(d.kind == "rule" and d.seq == drawn for d in report.differences)


def test_an_intact_store_checks_no_chunk_again(shuffled, monkeypatch):
    path, games = shuffled
    checked = []
    monkeypatch.setattr(verify, "_check_chunk_here", lambda *a: checked.append(a))
    for quick in (False, True):
        report = _verify(path, monkeypatch, quick=quick)
        assert report.ok and report.games == 8
        assert report.events == sum(len(g) for g in games)
    assert checked == []


def test_worker_processes_give_the_same_report(shuffled, tmp_path, monkeypatch):
    path, ids, _ = _tampered(shuffled, tmp_path)
    one = _verify(path, monkeypatch)
    two = _verify(path, monkeypatch, jobs=2)
    assert one.differences and two.differences == one.differences
    assert (two.games, two.events) == (one.games, one.events)


def test_one_of_two_jobs_is_a_thread_of_this_process(shuffled, tmp_path, monkeypatch):
    """With two jobs, one worker process is started; the other slot is a thread of this
    process on a connection of its own, which takes the first chunk at once and then the
    next each time it is free: the report is the one of a single process."""
    import threading
    path, ids, _ = _tampered(shuffled, tmp_path)
    one = _verify(path, monkeypatch)
    here, scan, check = [], verify._scan_games, verify._check_readable_chunk

    def scanned(store, *a):
        here.append(("scan", threading.current_thread() is threading.main_thread(),
                     store.con is not opened[0].con))
        return scan(store, *a)

    def checked(store, *a):
        here.append(("check", threading.current_thread() is threading.main_thread(),
                     store.con is not opened[0].con))
        return check(store, *a)
    opened: list = []
    monkeypatch.setattr(verify, "_scan_games", scanned)
    monkeypatch.setattr(verify, "_check_readable_chunk", checked)  # (what is sent is not)
    monkeypatch.setattr(verify, "CHUNK_GAMES", 3)
    with Store.open(path, read_only=True) as store:
        opened.append(store)
        two = verify_store(store, jobs=2)
    assert two.differences == one.differences and (two.games, two.events) == (one.games, one.events)
    # 8 games: 3 chunks of numbers, the first here (and whichever others the thread was free
    # for, as the chunks of ids checked again), each on the thread's own connection
    assert here and here[0] == ("scan", False, True)
    assert set(here) <= {("scan", False, True), ("check", False, True)}


def test_a_read_the_store_fails_in_the_pass_leaves_the_chunks_of_ids_to_say_it(
        shuffled, tmp_path, monkeypatch):
    path, ids, _ = _tampered(shuffled, tmp_path)
    before = _verify(path, monkeypatch, in_id_order=True)

    def fails(store, tables, quick, bounds):
        if bounds[0] is not None:       # the first chunk of numbers reads, the next does not
            raise duckdb.IOException("IO Error: Could not read block")
        return here(store, tables, quick, bounds)
    here = verify._scan_games
    monkeypatch.setattr(verify, "_scan_games", fails)
    report = _verify(path, monkeypatch)
    assert report.differences == before.differences and report.differences
    assert (report.games, report.events) == (before.games, before.events)
