"""The ``checked_games`` table: an import records, per game it stores whole, the count and
hash sum of the rows it stored and the fingerprint of the code that checked it; a
whole-store ``verify`` folds again only the games whose stored rows no longer give them
(docs/RELIABILITY.md, "What verify need not fold again")."""

from __future__ import annotations

import json

import duckdb
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import verify
from seasalt_log.service import append_events, import_logs
from seasalt_log.sim import simulate
from seasalt_log.store import Store, batch, checked
from seasalt_log.store.checked import DIGESTED, code_fingerprint
from seasalt_log.store.projections import SCHEMA
from seasalt_log.verify import verify_store

from .reliability_helpers import valid_games, write_log
from .test_verify import attacker

runner = CliRunner()


def _games():
    """Base games and games of both expansions (their read models: trios, round_events,
    event_awards, ...), 2 to 4 players."""
    return [*valid_games(4, seed=3), *simulate(2, 3, 41, None, "extra-salt", "pepper"),
            *simulate(2, 2, 42, None, "extra-salt", None), *simulate(2, 4, 43, None, None, "pepper")]


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """A store of :func:`_games` imported whole; the games."""
    d = tmp_path_factory.mktemp("checked")
    games = _games()
    path = d / "store.duckdb"
    with Store.open(path) as store:
        import_logs(store, [write_log(d / "games.jsonl", games)])
    return path, games


def _copy(imported, tmp_path):
    import shutil
    path = tmp_path / "copy.duckdb"
    shutil.copy(imported[0], path)
    return path


def _found_both_ways(path):
    """verify's report of the store at ``path``, with the records and with every game
    folded (``refold``): the same, and something found."""
    with Store.open(path, read_only=True) as store:
        report = verify_store(store)
        again = verify_store(store, refold=True)
    assert report.differences and report.differences == again.differences
    return report


def _edited_copy(imported, tmp_path, *statements):
    """A copy of the imported store with ``statements`` run on it by a plain connection."""
    path = _copy(imported, tmp_path)
    con = duckdb.connect(str(path))
    for sql in statements:
        con.execute(sql)
    con.close()
    return path


def _no_fold(monkeypatch):
    """Make any fold of a game fail the test."""
    def folded(*args, **kwargs):
        raise AssertionError("a game was folded")
    monkeypatch.setattr(verify, "check_game", folded)
    monkeypatch.setattr(verify, "fold_decoded", folded)
    monkeypatch.setattr(batch, "fold_game", folded)


def test_an_import_records_each_game_with_the_hash_sum_of_its_rows(imported):
    """One row per game; its count and sum are those of the stored rows, added up here
    row by row in Python from each row's own ``hash()`` (the table's name, then every
    column in the table's order but the events' text, a list column as its length, then
    its items)."""
    path, games = imported
    con = duckdb.connect(str(path), read_only=True)
    rows = con.execute("SELECT game_id, engine, rows, digest FROM checked_games").fetchall()
    assert len(rows) == len(games) == len({r[0] for r in rows})
    assert {r[1] for r in rows} == {code_fingerprint()}
    for gid, _, n, digest in rows:
        count = total = 0
        for table in DIGESTED:
            cols = [f"len({c}), {c}" if kind.endswith("[]") else c for c, kind in con.execute(
                "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? "
                "ORDER BY column_index", [table]).fetchall()
                if (table, c) != ("events", "event")]
            hashes = con.execute(f"SELECT hash('{table}', {', '.join(cols)}) FROM {table} "
                                 "WHERE game_id = ?", [gid]).fetchall()
            count += len(hashes)
            total += sum(h for (h,) in hashes)
        assert (n, digest) == (count, total), gid
    con.close()


def test_verify_takes_the_imported_games_on_their_record(imported, monkeypatch):
    path, games = imported
    _no_fold(monkeypatch)
    with Store.open(path, read_only=True) as store:
        report = verify_store(store)
    assert report.ok and report.games == report.vouched == len(games)
    assert report.events == sum(len(g) for g in games)


def test_refold_and_other_code_fold_every_game(imported, monkeypatch):
    path, games = imported
    with Store.open(path, read_only=True) as store:
        again = verify_store(store, refold=True)
        assert again.ok and again.games == len(games) and again.vouched == 0
        monkeypatch.setattr(checked, "code_fingerprint", lambda: "0123456789abcdef")
        other = verify_store(store)
    assert other.ok and other.games == len(games) and other.vouched == 0


def test_a_game_extended_after_its_import_is_folded_again(tmp_path, monkeypatch):
    """Its recorded sum no longer matches: its chunk of game numbers is folded, the chunks
    of the others are not."""
    games = valid_games(6, seed=5)
    cut = games[3][:len(games[3]) // 2]
    path = tmp_path / "s.duckdb"
    with Store.open(path) as store:
        import_logs(store, [write_log(tmp_path / "g.jsonl", games[:3] + [cut] + games[4:])])
        gid = json.loads(store.read_texts(games[3][0].game_id)[0])["game_id"]
        rest = [e for e in games[3][len(cut):] if type(e).__name__ not in
                ("RoundScored", "GameEnded")]
        append_events(store, gid, rest, len(cut))
    monkeypatch.setattr(verify, "CHUNK_GAMES", 2)
    with Store.open(path, read_only=True) as store:
        numbers = dict(store.con.execute("SELECT game_id, game FROM heads JOIN "
                                         "(SELECT DISTINCT game_id, game FROM commits) "
                                         "USING (game_id)").fetchall())
        report = verify_store(store)
    assert report.ok and report.games == 6
    # the chunk of two numbers that holds the extended game is folded, the two others not
    assert report.vouched == 4, numbers


@pytest.mark.parametrize("table", DIGESTED)
def test_a_row_added_to_any_table_is_found_as_without_the_record(imported, tmp_path, table):
    """A copy of one of a game's rows, in each table that holds any: found, and reported as
    when every game is folded."""
    path = _copy(imported, tmp_path)
    con = attacker(path)
    gid = con.execute(f"SELECT game_id FROM {table} LIMIT 1").fetchall()
    if not gid:
        con.close()
        pytest.skip(f"no {table} rows in these games")
    con.execute(f"INSERT INTO {table} SELECT * FROM {table} WHERE game_id = ? LIMIT 1", [gid[0][0]])
    con.close()
    report = _found_both_ways(path)
    assert report.vouched < report.games


@pytest.mark.parametrize("column", ["game_id", "seq", "game", "round", "turn", "player", "type"])
def test_a_changed_event_column_is_found_as_without_the_record(imported, tmp_path, column):
    path = _copy(imported, tmp_path)
    con = attacker(path)
    value = {"game_id": "'x' || game_id", "type": "'x' || type", "player": "coalesce(player, 0) + 1"
             }.get(column, f"{column} + 1")
    con.execute(f"UPDATE events SET {column} = {value} WHERE rowid = 40")
    con.close()
    _found_both_ways(path)


def test_a_rolled_back_import_records_nothing(tmp_path):
    games = valid_games(3, seed=8)
    bad = games[2][:-3] + games[2][-2:]         # an event missing near the end
    path = tmp_path / "s.duckdb"
    with Store.open(path) as store:
        summary = import_logs(store, [write_log(tmp_path / "g.jsonl", games[:2] + [bad])],
                              strict=True)
        assert summary.failed and not summary.written
        assert store.con.execute("SELECT count(*) FROM checked_games").fetchall() == [(0,)]


def test_a_format_4_store_gets_the_table_empty_and_every_game_folded(imported, tmp_path):
    path = _edited_copy(imported, tmp_path, "DROP TABLE checked_games",
                        "UPDATE store_meta SET value = '4' WHERE key = 'schema_version'")
    with pytest.raises(Exception, match="format 4, this version reads format 5.*rebuild"):
        Store.open(path, read_only=True)
    with Store.open(path) as store:                     # opened for writing: migrated
        assert store.con.execute("SELECT value FROM store_meta WHERE key = 'schema_version'"
                                 ).fetchall() == [("5",)]
        assert store.con.execute("SELECT count(*) FROM checked_games").fetchall() == [(0,)]
    with Store.open(path, read_only=True) as store:
        report = verify_store(store)
    assert report.ok and report.games == len(imported[1]) and report.vouched == 0


def test_the_cli_says_how_many_games_were_taken_on_their_record(imported):
    path, games = imported
    r = runner.invoke(app, ["verify", "--db", str(path), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert f"verified {len(games)} game(s)" in r.output
    assert f"{len(games)} of them taken on their record in checked_games" in r.output
    assert "folded again" not in r.output
    r = runner.invoke(app, ["verify", "--db", str(path), "--no-progress", "--refold"])
    assert r.exit_code == 0 and "taken on their record" not in r.output
    assert "folded again" not in r.output
    r = runner.invoke(app, ["verify", "--db", str(path), "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["vouched"] == len(games)


def _stored_one_by_one(path, games):
    from seasalt_log.service import import_games
    with Store.open(path) as store:
        import_games(store, games)


def test_verify_record_vouches_for_games_stored_one_at_a_time(tmp_path):
    """Games stored one at a time (no import's record): folded, then recorded; the next
    check takes them on that record."""
    games = valid_games(5, seed=21)
    path = tmp_path / "s.duckdb"
    _stored_one_by_one(path, games)
    with Store.open(path, read_only=True) as store:
        assert store.con.execute("SELECT count(*) FROM checked_games").fetchall() == [(0,)]
        assert verify_store(store).vouched == 0
    report, recorded = verify.verify_and_record(path)
    assert report.ok and report.vouched == 0 and recorded == len(games)
    with Store.open(path, read_only=True) as store:
        again = verify_store(store)
    assert again.ok and again.vouched == len(games)


def test_verify_record_leaves_out_a_game_that_differs(imported, tmp_path, monkeypatch):
    """After a fingerprint change, every game but the changed one is recorded anew; the
    changed one is still folded and reported."""
    path = _copy(imported, tmp_path)
    games = imported[1]
    gid = games[1][0].game_id
    con = attacker(path)
    con.execute("UPDATE round_results SET points = points + 1 WHERE game_id = ? AND round = 1 "
                "AND seat = 0", [gid])
    con.close()
    monkeypatch.setattr(checked, "code_fingerprint", lambda: "fedcba9876543210")
    report, recorded = verify.verify_and_record(path)
    assert [d.game_id for d in report.differences] == [gid]
    assert recorded == len(games) - 1
    monkeypatch.setattr(verify, "CHUNK_GAMES", 1)
    with Store.open(path, read_only=True) as store:
        again = verify_store(store)
    assert again.differences == report.differences and again.vouched == len(games) - 1


def test_verify_record_keeps_out_a_game_written_between_the_check_and_the_record(
        tmp_path, monkeypatch):
    """A game whose rows change between the check (its sums taken while the check's
    read-only store is still open) and the record (a writer got in between the two opens):
    not recorded."""
    games = valid_games(4, seed=22)
    path = tmp_path / "s.duckdb"
    _stored_one_by_one(path, games)
    gid = games[2][0].game_id
    real, calls = verify.game_sums, []

    def sums_then_a_write(con, *args):
        got = real(con, *args)
        calls.append(len(got))
        if len(calls) == 1:         # the check's sums: the game is written to after them
            con.close()
            with Store.open(path) as writer:
                writer.con.execute("INSERT INTO seats SELECT * REPLACE (9 AS seat) FROM seats "
                                   "WHERE game_id = ? LIMIT 1", [gid])
        return got
    monkeypatch.setattr(verify, "game_sums", sums_then_a_write)
    report, recorded = verify.verify_and_record(path)
    assert report.ok and recorded == 3 and calls == [4, 4]
    with duckdb.connect(str(path), read_only=True) as con:
        assert gid not in {g for (g,) in con.execute("SELECT game_id FROM checked_games").fetchall()}


def test_verify_record_records_nothing_when_the_schema_differs(imported, tmp_path):
    path = _edited_copy(imported, tmp_path, "CREATE INDEX extra ON games (n_players)",
                        "DELETE FROM checked_games")
    report, recorded = verify.verify_and_record(path)
    assert any(d.kind == "schema" for d in report.differences) and recorded is None
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM checked_games").fetchall() == [(0,)]


def test_the_cli_records_and_refuses_record_with_quick(tmp_path):
    games = valid_games(3, seed=23)
    path = tmp_path / "s.duckdb"
    _stored_one_by_one(path, games)
    r = runner.invoke(app, ["verify", "--db", str(path), "--record", "--quick"])
    assert r.exit_code == 2 and "give --quick or --record, not both" in r.output
    r = runner.invoke(app, ["verify", "--db", str(path), "--no-progress"])
    assert r.exit_code == 0 and "3 game(s) folded again" in r.output
    assert "seasalt verify --record" in r.output
    r = runner.invoke(app, ["verify", "--db", str(path), "--record", "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "recorded 3 game(s) in checked_games" in r.output
    assert "folded again" not in r.output
    r = runner.invoke(app, ["verify", "--db", str(path), "--json"])
    assert json.loads(r.output)["vouched"] == 3
    r = runner.invoke(app, ["verify", "--db", str(tmp_path / "missing.duckdb"), "--record"])
    assert r.exit_code == 1 and not (tmp_path / "missing.duckdb").exists()


#: the list columns that may hold NULL
NULLABLE_LISTS = sorted((t.name, c.name) for t in SCHEMA for c in t.columns
                        if "[]" in c.type and "NOT NULL" not in c.type)


@pytest.mark.parametrize("table, column", NULLABLE_LISTS)
def test_a_list_column_made_null_or_empty_is_found_as_without_the_record(
        imported, tmp_path, table, column):
    """DuckDB's ``hash()`` gives a NULL list and an empty one the same value (no value at
    all): each list column is summed as its length and then its items, so turning one into
    the other (or, where these games hold neither, a list into NULL) is found."""
    path = _copy(imported, tmp_path)
    con = attacker(path)
    for where, value in ((f"{column} IS NULL", "[]"), (f"len({column}) = 0", "NULL"),
                         (f"len({column}) > 0", "NULL")):
        row = con.execute(f"SELECT rowid FROM {table} WHERE {where} LIMIT 1").fetchall()
        if row:
            con.execute(f"UPDATE {table} SET {column} = {value} WHERE rowid = ?", [row[0][0]])
            break
    con.close()
    assert row, f"no {table} row in these games"
    _found_both_ways(path)


def test_rows_stored_before_an_import_are_not_taken_for_its_games(tmp_path, monkeypatch):
    """A read-model row of a game not yet stored, left after rows deleted by an extension
    (past the table's count, below its end), is not summed with that game when an import
    then stores it: verify reports the row as when every game is folded."""
    games = valid_games(4, seed=5)
    cut = games[0][:len(games[0]) // 2]
    path = tmp_path / "s.duckdb"
    later = games[2][0].game_id
    with Store.open(path) as store:
        import_logs(store, [write_log(tmp_path / "a.jsonl", [cut, games[1]])])
        gid = json.loads(store.read_texts(games[0][0].game_id)[0])["game_id"]
        rest = [e for e in games[0][len(cut):] if type(e).__name__ not in
                ("RoundScored", "GameEnded")]
        append_events(store, gid, rest, len(cut))   # its read-model rows deleted, written anew
        count, end = store.con.execute("SELECT count(*), max(rowid) + 1 FROM seats").fetchall()[0]
        assert end > count
        store.con.execute(f"INSERT INTO seats SELECT * REPLACE ('{later}' AS game_id) FROM seats "
                          "LIMIT 1")
        import_logs(store, [write_log(tmp_path / "b.jsonl", [games[2], games[3]])])
    monkeypatch.setattr(verify, "CHUNK_GAMES", 1)
    report = _found_both_ways(path)
    assert {d.game_id for d in report.differences} == {later}


def test_a_rollback_forgets_where_the_tables_ended(tmp_path):
    with Store.open(tmp_path / "s.duckdb") as store:
        store.expect_loads()
        assert store._sizes is not None
        store.begin()
        store.rollback()
        assert store._sizes is None and store._loaded == []


@pytest.mark.parametrize("change", [
    # DuckDB's hash() of several values takes a list's items as values of their own: these
    # two rows hash alike unless each list is hashed with its length
    "winners = winners || [totals[1]::TINYINT], totals = totals[2:]",
    # ... and a NULL list as no value at all, true as 1 (a NULL flag hashed after the list)
    "winners = NULL, totals = [0::SMALLINT] || totals"])
def test_values_moved_between_list_columns_are_found_as_without_the_record(
        imported, tmp_path, change):
    path = _copy(imported, tmp_path)
    con = attacker(path)
    gid = con.execute("SELECT game_id FROM games WHERE winners = [1] LIMIT 1").fetchall()
    assert gid, "a game won by seat 1 alone"
    con.execute(f"UPDATE games SET {change} WHERE game_id = ?", [gid[0][0]])
    con.close()
    _found_both_ways(path)


def test_an_import_after_one_that_stored_nothing_sums_only_its_own_rows(tmp_path):
    """An import that stores nothing (every game unchanged) must not leave the next one
    the ends of the tables it found: a row written between them, of a game the next import
    stores, would be summed with that game."""
    games = valid_games(3, seed=5)
    path = tmp_path / "s.duckdb"
    a = write_log(tmp_path / "a.jsonl", games[:2])
    later = games[2][0].game_id
    with Store.open(path) as store:
        import_logs(store, [a])
        assert {g.status for g in import_logs(store, [a]).games} == {"unchanged"}
        store.con.execute("INSERT INTO seats VALUES (?, 7, 'stray', NULL, 0)", [later])
        import_logs(store, [write_log(tmp_path / "b.jsonl", games[2:])])
    report = _found_both_ways(path)
    assert {d.game_id for d in report.differences} == {later}


def test_verify_record_reports_a_damaged_schema_and_records_nothing(imported, tmp_path):
    """A read model without one of its columns: the schema difference is reported, the sums
    are not taken (they would fail), nothing is recorded."""
    path = _edited_copy(imported, tmp_path, "ALTER TABLE seats DROP COLUMN winner",
                        "DELETE FROM checked_games")
    report, recorded = verify.verify_and_record(path)
    assert any(d.kind == "schema" and d.table == "seats" for d in report.differences)
    assert recorded is None
    r = runner.invoke(app, ["verify", "--db", str(path), "--record", "--no-progress"])
    assert r.exit_code == 1 and "recorded nothing" in r.output


def test_a_record_with_a_null_sum_vouches_for_nothing(imported, tmp_path):
    """A ``checked_games`` row whose sum is NULL (its NOT NULL dropped first: a schema
    difference of its own) does not vouch for its game: a changed row of that game is
    found as when every game is folded."""
    gid = imported[1][0][0].game_id
    path = _edited_copy(imported, tmp_path,
                        "ALTER TABLE checked_games ALTER digest DROP NOT NULL",
                        f"UPDATE checked_games SET digest = NULL WHERE game_id = '{gid}'",
                        f"UPDATE seats SET total = total + 1 WHERE game_id = '{gid}' AND seat = 0")
    report = _found_both_ways(path)
    assert {d.kind for d in report.differences} == {"schema", "projection"}


def test_two_rows_of_one_seq_give_one_report(imported, tmp_path):
    """An event row moved to another game that has the same seq: the rows of that seq are
    read in the order stored, so every check, with the records or without, words the
    broken chain the same way."""
    games = imported[1]
    path = _copy(imported, tmp_path)
    con = attacker(path)
    con.execute("UPDATE events SET game_id = ? WHERE game_id = ? AND seq = 3",
                [games[2][0].game_id, games[1][0].game_id])
    con.close()
    reports = [_found_both_ways(path).differences for _ in range(3)]
    assert reports[0] == reports[1] == reports[2]
