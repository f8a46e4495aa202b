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
from seasalt_log.store import Store
from seasalt_log.store.schema import EVENTS_DDL
from seasalt_log.verify import verify_store

from . import chain_oracle
from .reliability_helpers import seasalt_argv, valid_games, write_log

runner = CliRunner()


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A store holding a few games, each written twice (its first half, then the rest: two
    rows in ``commits``) (path, the games); copied for each test."""
    d = tmp_path_factory.mktemp("verify")
    games = valid_games(4, seed=7)
    db = d / "pristine.duckdb"
    with Store.open(db) as store:
        import_logs(store, [write_log(d / "half.jsonl", [g[:cut(g)] for g in games])])
        summary = import_logs(store, [write_log(d / "games.jsonl", games)])
    assert summary.failed == 0 and summary.extended == len(games)
    return db, games


def cut(game) -> int:
    """The last seq of a game's first write."""
    return len(game) // 2


@pytest.fixture
def db(pristine, tmp_path):
    path = tmp_path / "store.duckdb"
    shutil.copy(pristine[0], path)
    return path


class attacker:
    """A plain duckdb connection with the append-only triggers dropped; ``close()`` puts
    them back, as a careful attacker would (a missing trigger is a schema difference of its
    own: test_schema_tampering.py), so that each test sees only the edit it makes."""

    def __init__(self, path):
        self.con = duckdb.connect(str(path))
        for name, table in self.con.execute("SELECT trigger_name, table_name FROM "
                                            "duckdb_triggers()").fetchall():
            self.con.execute(f"DROP TRIGGER {name} ON {table}")

    def __getattr__(self, name):
        return getattr(self.con, name)

    def close(self):
        self.con.execute(EVENTS_DDL)        # CREATE ... IF NOT EXISTS: the guards again
        self.con.close()


def chain_through(con, gid, seq, edits=None) -> int:
    """The link of the game's write that ended at event ``seq`` (the writes as its commits
    rows record them), with ``edits`` (seq -> JSON) applied, by the chain's definition."""
    ends = [e for (e,) in con.execute("SELECT seq FROM commits WHERE game_id = ? AND seq <= ? "
                                      "ORDER BY seq", [gid, seq]).fetchall()]
    assert ends and ends[-1] == seq
    texts = [(edits or {}).get(s, text).encode() for s, text in con.execute(
        "SELECT seq, event FROM events WHERE game_id = ? AND seq <= ? ORDER BY seq",
        [gid, seq]).fetchall()]
    return chain_oracle.links_at(gid, texts, ends)[-1]


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

def test_changed_event_json_is_caught_in_its_write(db, pristine):
    games = pristine[1]
    gid = gid_of(games, 0)
    seq = next(k for k, e in enumerate(games[0], 1) if k > cut(games[0]) and type(e) is ev.DeckDrawn)
    con = attacker(db)
    old = json.loads(event_json(con, gid, seq))
    new = dict(old, player=(old["player"] + 1) % len(games[0][0].players))
    con.execute("UPDATE events SET event = ? WHERE game_id = ? AND seq = ?",
                [json.dumps(new, separators=(",", ":")), gid, seq])
    con.close()
    report = report_of(db)
    second = cut(games[0]) + 1                          # the first seq of the second write
    assert ("hash", second) in kinds_at(report, gid)
    assert ("hash", 1) not in kinds_at(report, gid)     # the first write is intact
    assert ("rule", seq) in kinds_at(report, gid)       # and the engine refuses it
    assert {d.game_id for d in report.differences} == {gid}
    result = runner.invoke(app, ["verify", "--db", str(db)])
    assert result.exit_code == 1
    assert f"game {gid}, seq {second}: hash: the hash chain through seq {len(games[0])}" in result.stdout


def test_changed_event_with_its_write_record_recomputed_breaks_the_next_write(db, pristine):
    games = pristine[1]
    gid = gid_of(games, 1)
    seq = first_seq(games, 1, ev.TurnEnded)
    assert seq <= cut(games[1])
    con = attacker(db)
    text = event_json(con, gid, seq).replace('"type":"turn_ended"', '"type":"stop_called"')
    con.execute("UPDATE events SET event = ? WHERE game_id = ? AND seq = ?", [text, gid, seq])
    con.execute("UPDATE commits SET hash = ? WHERE game_id = ? AND seq = ?",
                [chain_through(con, gid, cut(games[1])), gid, cut(games[1])])
    con.close()
    found = kinds_at(report_of(db), gid)
    assert ("hash", 1) not in found                     # this write was forged consistently ...
    assert ("hash", cut(games[1]) + 1) in found         # ... the next one was not
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
    assert ("hash", 1) in found


def test_deleted_last_event_is_caught_by_the_engine_the_chain_and_the_read_models(db, pristine):
    games = pristine[1]
    gid = gid_of(games, 3)
    n = len(games[3])
    con = attacker(db)
    con.execute("DELETE FROM events WHERE game_id = ? AND seq = ?", [gid, n])
    con.close()
    report = report_of(db)
    found = kinds_at(report, gid)
    assert ("derived", n) in found                 # game_ended is due and missing
    assert ("hash", cut(games[3]) + 1) in found    # the last write went up to seq n
    assert any(d.kind == "projection" and d.table == "games" for d in report.differences)


def test_altered_write_record_is_caught(db, pristine):
    games = pristine[1]
    gid = gid_of(games, 0)
    con = attacker(db)
    con.execute("UPDATE commits SET hash = xor(hash, 1) WHERE game_id = ? AND seq = ?",
                [gid, cut(games[0])])
    con.close()
    found = kinds_at(report_of(db), gid)
    assert found == {("hash", 1)}


def test_missing_write_record_is_caught(db, pristine):
    games = pristine[1]
    gid = gid_of(games, 1)
    con = attacker(db)
    con.execute("DELETE FROM commits WHERE game_id = ? AND seq = ?", [gid, len(games[1])])
    con.close()
    report = report_of(db)
    # the game's heads row is still at the last seq: the record it matched is gone
    assert kinds_at(report, gid) == {("hash", cut(games[1]) + 1), ("seq", None)}
    assert any("no write of them is recorded" in str(d) for d in report.differences)


def quick_report_of(path):
    with Store.open(path, read_only=True) as store:
        return verify_store(store, quick=True)


def test_a_removed_earlier_write_record_is_caught(db, pristine):
    """The links hash the writes' boundaries: without the record of the first write, the
    second seems to store every event, and its recorded link is not theirs (the chain of
    every event, format 3, did not see this)."""
    games = pristine[1]
    gid = gid_of(games, 1)
    con = attacker(db)
    con.execute("DELETE FROM commits WHERE game_id = ? AND seq = ?", [gid, cut(games[1])])
    con.close()
    for report in (report_of(db), quick_report_of(db)):
        assert kinds_at(report, gid) == {("hash", 1)}
        assert any(f"the write of seqs 1..{len(games[1])} recorded" in d.message
                   for d in report.differences)


def test_an_added_write_record_is_caught(db, pristine):
    """A record added inside a write, even with the link a write of its events would have
    had, splits the write: the write it was cut from no longer matches its link."""
    games = pristine[1]
    gid = gid_of(games, 2)
    k = cut(games[2]) // 2
    con = attacker(db)
    con.execute("INSERT INTO commits SELECT game_id, game, ?, ? FROM commits WHERE game_id = ? "
                "AND seq = ?", [k, chain_through_writes(con, gid, [k]), gid, cut(games[2])])
    con.close()
    for report in (report_of(db), quick_report_of(db)):
        assert kinds_at(report, gid) == {("hash", k + 1)}


def chain_through_writes(con, gid, ends) -> int:
    """The link of the last of writes of a game ending at the seqs ``ends`` (hashlib)."""
    texts = [t.encode() for (t,) in con.execute(
        "SELECT event FROM events WHERE game_id = ? ORDER BY seq", [gid]).fetchall()]
    return chain_oracle.links_at(gid, texts, ends)[-1]


def test_appended_event_without_a_write_record_is_caught(db, pristine):
    """An event added at the end of a game (a plausible one: a copy of the game's last
    event) is outside every recorded write."""
    games = pristine[1]
    gid = gid_of(games, 2)
    n = len(games[2])
    con = attacker(db)
    con.execute("INSERT INTO events SELECT game_id, seq + 1, game, round, turn, player, type, "
                "event FROM events WHERE game_id = ? AND seq = ?", [gid, n])
    con.close()
    assert ("hash", n + 1) in kinds_at(report_of(db), gid)


def test_game_numbers_are_checked(db, pristine):
    games = pristine[1]
    a, b = gid_of(games, 0), gid_of(games, 1)
    con = attacker(db)
    con.execute("UPDATE events SET game = game + 100 WHERE game_id = ? AND seq = 3", [a])
    con.execute("UPDATE commits SET game = (SELECT min(game) FROM commits WHERE game_id = ?) "
                "WHERE game_id = ?", [a, b])
    con.close()
    report = report_of(db)
    assert ("event_row", 3) in kinds_at(report, a)
    assert any(d.kind == "number" and a in d.message and b in d.message for d in report.differences)


def test_rewritten_derived_event_with_a_consistent_chain_is_caught_by_the_engine(db, pristine):
    """The attacker changes a round's points and recomputes every write's chain record from
    there on: the chain is consistent again, but the engine does not compute those points."""
    games = pristine[1]
    gid = gid_of(games, 1)
    seq = first_seq(games, 1, ev.RoundScored)
    con = attacker(db)
    e = json.loads(event_json(con, gid, seq))
    e["points"][0] += 5
    e["totals"][0] += 5
    text = json.dumps(e, separators=(",", ":"))
    for (last,) in con.execute("SELECT seq FROM commits WHERE game_id = ?", [gid]).fetchall():
        con.execute("UPDATE commits SET hash = ? WHERE game_id = ? AND seq = ?",
                    [chain_through(con, gid, last, {seq: text}), gid, last])
    con.execute("UPDATE events SET event = ? WHERE game_id = ? AND seq = ?", [text, gid, seq])
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


def test_changed_card_catalog_is_caught(db):
    """The cards table is the catalog the engine plays with (RULES.md §1): a copy count
    changed, a card deleted and one added each show, naming the card."""
    con = attacker(db)
    con.execute("UPDATE cards SET copies = 3 WHERE code = 'mermaid:white'")
    con.execute("DELETE FROM cards WHERE code = 'shark:purple'")
    con.execute("INSERT INTO cards VALUES ('kraken:black', 'kraken', 'duo', 'black', 1, 'kraken', NULL, 'base')")
    con.close()
    report = report_of(db)
    assert sorted(str(d) for d in report.differences) == [
        "table cards: projection: card kraken:black is not in the catalog",
        "table cards: projection: card mermaid:white: copies is 3, expected 4",
        "table cards: projection: card shark:purple is missing",
    ]


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


def test_rows_are_normalised_column_by_column_as_value_by_value():
    """verify compares read-model rows after ``_norm``; ``_normalized`` applies it only to
    the columns that hold lists, tuples or dicts: the result must be the same as applying
    it to every value (the way it was done before)."""
    import random
    from seasalt_log.verify import _norm, _normalized
    rnd = random.Random(5)
    values = [0, 7, -3, "x", "", None, True, 1.5, [1, 2], (3, [4, None]), {"b": [1], "a": 2},
              [], ({"k": (1,)},)]
    for width in (1, 3, 6):
        for _ in range(50):
            rows = [tuple(rnd.choice(values) for _ in range(width))
                    for _ in range(rnd.randint(0, 8))]
            assert _normalized(rows) == [tuple(_norm(v) for v in r) for r in rows]
    # by hand: the nested column becomes tuples, the scalar ones stay
    assert _normalized([("g", [1, [2]], {"b": 1, "a": [3]})]) == [
        ("g", (1, (2,)), (("a", (3,)), ("b", 1)))]


def test_a_write_record_copied_is_caught(db, pristine):
    """A row of the commits table copied whole (same seq, same link) records one write
    twice: the links still match, but the record no longer says what was written."""
    games = pristine[1]
    gid = gid_of(games, 2)
    end = cut(games[2])
    con = attacker(db)
    con.execute("INSERT INTO commits SELECT * FROM commits WHERE game_id = ? AND seq = ?",
                [gid, end])
    con.close()
    for report in (report_of(db), quick_report_of(db)):
        assert kinds_at(report, gid) == {("hash", 1)}
        assert any(f"the write of seqs 1..{end} is recorded more than once" in d.message
                   for d in report.differences)
