"""Tamper evidence: edit the DuckDB file behind the service's back (plain duckdb, triggers
dropped first, as an attacker would) and check that ``seasalt verify`` names each edit."""

from __future__ import annotations

import json
import shutil
import subprocess

import duckdb
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.service import import_logs
from seasalt_log.store import Store, chain
from seasalt_log.verify import verify_store

from .reliability_helpers import seasalt_argv, valid_games, write_log

runner = CliRunner()


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A store holding a few games (path, the games); copied for each test."""
    d = tmp_path_factory.mktemp("verify")
    games = valid_games(4, seed=7)
    db = d / "pristine.duckdb"
    with Store.open(db) as store:
        summary = import_logs(store, [write_log(d / "games.jsonl", games)])
    assert summary.failed == 0 and summary.new == len(games)
    return db, games


@pytest.fixture
def db(pristine, tmp_path):
    path = tmp_path / "store.duckdb"
    shutil.copy(pristine[0], path)
    return path


def attacker(path):
    """A plain duckdb connection with the append-only triggers dropped."""
    con = duckdb.connect(str(path))
    for name, in con.execute("SELECT trigger_name FROM duckdb_triggers() "
                             "WHERE table_name = 'events'").fetchall():
        con.execute(f"DROP TRIGGER {name} ON events")
    return con


def report_of(path):
    with Store.open(path, read_only=True) as store:
        return verify_store(store)


def kinds_at(report, game_id):
    return {(d.kind, d.seq) for d in report.differences if d.game_id == game_id}


def gid_of(games, i):
    return games[i][0].game_id


def event_json(con, gid, seq):
    return con.execute("SELECT event FROM events WHERE game_id = ? AND seq = ?", [gid, seq]).fetchone()[0]


def first_seq(games, i, kind):
    return next(k for k, e in enumerate(games[i], 1) if type(e) is kind)


# ---------------------------------------------------------------- an intact store

def test_an_intact_store_verifies(db, pristine):
    report = report_of(db)
    assert report.ok, report.differences
    assert report.games == len(pristine[1])
    assert report.events == sum(len(g) for g in pristine[1])
    result = runner.invoke(app, ["verify", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "no differences" in result.stderr


def test_the_installed_command_verifies_and_fails(db, pristine):
    ok = subprocess.run([*seasalt_argv(), "verify", "--db", str(db), "--json"],
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["ok"] is True
    con = attacker(db)
    con.execute("UPDATE round_results SET points = points + 1 WHERE round = 1 AND seat = 0")
    con.close()
    bad = subprocess.run([*seasalt_argv(), "verify", "--db", str(db)],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1
    assert "Traceback" not in bad.stderr
    assert "round_results" in bad.stdout


# ---------------------------------------------------------------- event edits

def test_changed_event_json_is_caught_at_its_seq(db, pristine):
    games = pristine[1]
    gid = gid_of(games, 0)
    seq = first_seq(games, 0, ev.DeckDrawn)
    con = attacker(db)
    old = json.loads(event_json(con, gid, seq))
    new = dict(old, player=(old["player"] + 1) % len(games[0][0].players))
    con.execute("UPDATE events SET event = ? WHERE game_id = ? AND seq = ?",
                [json.dumps(new, separators=(",", ":")), gid, seq])
    con.close()
    report = report_of(db)
    assert ("hash", seq) in kinds_at(report, gid)
    assert ("rule", seq) in kinds_at(report, gid)        # and the engine refuses it
    assert {d.game_id for d in report.differences} == {gid}
    result = runner.invoke(app, ["verify", "--db", str(db)])
    assert result.exit_code == 1
    assert f"game {gid}, seq {seq}: hash:" in result.stdout


def test_changed_event_with_its_hash_recomputed_breaks_the_next_link(db, pristine):
    games = pristine[1]
    gid = gid_of(games, 1)
    seq = first_seq(games, 1, ev.TurnEnded)
    con = attacker(db)
    prev = con.execute("SELECT hash FROM events WHERE game_id = ? AND seq = ?", [gid, seq - 1]).fetchone()[0]
    text = event_json(con, gid, seq).replace('"type":"turn_ended"', '"type":"stop_called"')
    prev = bytes(prev) if isinstance(prev, (bytes, bytearray, memoryview)) else prev
    con.execute("UPDATE events SET event = ?, hash = ? WHERE game_id = ? AND seq = ?",
                [text, chain(prev, text.encode()), gid, seq])
    con.close()
    report = report_of(db)
    found = kinds_at(report, gid)
    assert ("hash", seq) not in found              # this link was forged consistently ...
    assert ("hash", seq + 1) in found              # ... the next one is not
    assert ("event_row", seq) in found or ("rule", seq) in found


def test_deleted_event_is_caught(db, pristine):
    games = pristine[1]
    gid = gid_of(games, 2)
    seq = 6
    con = attacker(db)
    con.execute("DELETE FROM events WHERE game_id = ? AND seq = ?", [gid, seq])
    con.close()
    found = kinds_at(report_of(db), gid)
    assert ("seq", seq) in found
    assert ("hash", seq + 1) in found


def test_deleted_last_event_is_caught_by_the_engine_and_the_read_models(db, pristine):
    games = pristine[1]
    gid = gid_of(games, 3)
    n = len(games[3])
    con = attacker(db)
    con.execute("DELETE FROM events WHERE game_id = ? AND seq = ?", [gid, n])
    con.close()
    report = report_of(db)
    found = kinds_at(report, gid)
    assert ("derived", n) in found                 # game_ended is due and missing
    assert any(d.kind == "projection" and d.table == "games" for d in report.differences)


def test_altered_hash_is_caught(db, pristine):
    games = pristine[1]
    gid = gid_of(games, 0)
    seq = 20
    con = attacker(db)
    h = con.execute("SELECT hash FROM events WHERE game_id = ? AND seq = ?", [gid, seq]).fetchone()[0]
    if isinstance(h, int):
        forged = h ^ 1
    else:
        h = bytes(h)
        forged = bytes([h[0] ^ 1]) + h[1:]
    con.execute("UPDATE events SET hash = ? WHERE game_id = ? AND seq = ?", [forged, gid, seq])
    con.close()
    found = kinds_at(report_of(db), gid)
    assert ("hash", seq) in found and ("hash", seq + 1) in found
    assert not any(k != "hash" for k, _ in found)


def test_rewritten_derived_event_with_a_consistent_chain_is_caught_by_the_engine(db, pristine):
    """The attacker changes a round's points and recomputes the chain from there on: the
    chain is consistent again, but the engine does not compute those points."""
    games = pristine[1]
    gid = gid_of(games, 1)
    seq = first_seq(games, 1, ev.RoundScored)
    con = attacker(db)
    rows = con.execute("SELECT seq, event, hash FROM events WHERE game_id = ? AND seq >= ? "
                       "ORDER BY seq", [gid, seq - 1]).fetchall()
    prev = rows[0][2]
    prev = bytes(prev) if isinstance(prev, (bytes, bytearray, memoryview)) else prev
    for s, text, _ in rows[1:]:
        if s == seq:
            e = json.loads(text)
            e["points"][0] += 5
            e["totals"][0] += 5
            text = json.dumps(e, separators=(",", ":"))
        prev = chain(prev, text.encode())
        con.execute("UPDATE events SET event = ?, hash = ? WHERE game_id = ? AND seq = ?",
                    [text, prev, gid, s])
    con.close()
    found = kinds_at(report_of(db), gid)
    assert not any(k == "hash" for k, _ in found)
    assert ("derived", seq) in found


def test_changed_event_row_column_is_caught(db, pristine):
    games = pristine[1]
    gid = gid_of(games, 2)
    seq = first_seq(games, 2, ev.DeckDrawn)
    con = attacker(db)
    con.execute("UPDATE events SET turn = turn + 7 WHERE game_id = ? AND seq = ?", [gid, seq])
    con.close()
    assert ("event_row", seq) in kinds_at(report_of(db), gid)


# ---------------------------------------------------------------- read-model edits

@pytest.mark.parametrize("sql, table", [
    ("UPDATE round_results SET points = points + 1 WHERE game_id = ? AND round = 1 AND seat = 0",
     "round_results"),
    ("UPDATE games SET totals = [0, 0] WHERE game_id = ?", "games"),
    ("UPDATE seats SET name = 'Mallory' WHERE game_id = ? AND seat = 1", "seats"),
    ("DELETE FROM rounds WHERE game_id = ? AND round = 1", "rounds"),
])
def test_changed_projection_row_is_caught(db, pristine, sql, table):
    gid = gid_of(pristine[1], 0)
    con = attacker(db)
    con.execute(sql, [gid])
    con.close()
    report = report_of(db)
    assert report.differences and all(d.game_id == gid and d.table == table and d.kind == "projection"
                                      for d in report.differences), report.differences
    assert all(d.seq is not None for d in report.differences)
    result = runner.invoke(app, ["verify", "--db", str(db), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["differences"][0]["table"] == table


def test_projection_rows_without_events_are_caught(db):
    con = attacker(db)
    con.execute("INSERT INTO seats (game_id, seat, name, total) "
                "SELECT 'ghost', 0, 'Nobody', 0")
    con.close()
    report = report_of(db)
    assert [(d.game_id, d.table) for d in report.differences] == [("ghost", "seats")]


def test_verify_of_a_named_game_and_of_an_unknown_one(db, pristine):
    gid = gid_of(pristine[1], 0)
    result = runner.invoke(app, ["verify", gid, "--db", str(db)])
    assert result.exit_code == 0 and "verified 1 game(s)" in result.stderr
    result = runner.invoke(app, ["verify", "nope", "--db", str(db)])
    assert result.exit_code == 1
    assert result.stderr.strip() == "error: no game with id 'nope' in the store"
