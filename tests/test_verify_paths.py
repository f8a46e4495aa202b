"""``seasalt verify`` takes quick paths when nothing differs: a whole store's chunks checked
the import's way, the events decoded in one call and folded by the engine alone, the hash
chain taken from the import's own computation of the events table's columns, and the read
models compared in one DuckDB query per table. Each falls back to the exhaustive check (the
strict fold, the chain over the stored bytes, the row-by-row comparison) when anything
differs. Here every kind of tampering is run both ways: the differences must be the same
records, in the same order."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log import verify
from seasalt_log.service import import_logs
from seasalt_log.store import Store, batch
from seasalt_log.verify import verify_store

from . import chain_oracle
from .reliability_helpers import valid_games, write_log
from .test_verify import attacker

runner = CliRunner()


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """Two stores of the same games: one write per game, and two (the first half, then the
    rest); the games."""
    d = tmp_path_factory.mktemp("paths")
    games = valid_games(4, seed=11)
    once, twice = d / "once.duckdb", d / "twice.duckdb"
    with Store.open(once) as store:
        import_logs(store, [write_log(d / "games.jsonl", games)])
    with Store.open(twice) as store:
        import_logs(store, [write_log(d / "half.jsonl", [g[:len(g) // 2] for g in games])])
        import_logs(store, [write_log(d / "games.jsonl", games)])
    return {"once": once, "twice": twice}, games


def _seq_of(game, kind, nth=0):
    return [k for k, e in enumerate(game, 1) if type(e) is kind][nth]


def _json_edit(gid, seq, change):
    def edit(con):
        e = json.loads(con.execute("SELECT event FROM events WHERE game_id = ? AND seq = ?",
                                   [gid, seq]).fetchone()[0])
        change(e)
        con.execute("UPDATE events SET event = ? WHERE game_id = ? AND seq = ?",
                    [json.dumps(e, separators=(",", ":")), gid, seq])
    return edit


def _sql(text, *params):
    return lambda con: con.execute(text, list(params))


def tamperings(games):
    """(name, edit) pairs, each edit a function of an attacker's connection."""
    g0, g1, g2, g3 = (g[0].game_id for g in games)
    n1 = len(games[1])
    drawn = _seq_of(games[0], ev.DeckDrawn, 3)
    scored = _seq_of(games[1], ev.RoundScored)

    def points(e):
        e["points"][0] += 5

    def player(e):
        e["player"] = (e["player"] + 1) % len(games[0][0].players)
    return [
        ("nothing", lambda con: None),
        ("event json: another player", _json_edit(g0, drawn, player)),
        ("event json: derived points", _json_edit(g1, scored, points)),
        ("event json: spaced", lambda con: con.execute(
            "UPDATE events SET event = replace(event, ',', ', ') WHERE game_id = ? AND seq = 5",
            [g2])),
        ("event deleted", _sql("DELETE FROM events WHERE game_id = ? AND seq = 6", g2)),
        ("last event deleted", _sql("DELETE FROM events WHERE game_id = ? AND seq = ?", g1, n1)),
        ("event appended", _sql("INSERT INTO events SELECT game_id, seq + 1, game, round, turn, "
                                "player, type, event FROM events WHERE game_id = ? AND seq = ?",
                                g1, n1)),
        ("seqs swapped", _sql("UPDATE events SET seq = CASE seq WHEN 4 THEN 5 ELSE 4 END "
                              "WHERE game_id = ? AND seq IN (4, 5)", g3)),
        ("row column turn", _sql("UPDATE events SET turn = turn + 7 WHERE game_id = ? AND seq = ?",
                                 g0, drawn)),
        ("row column game", _sql("UPDATE events SET game = game + 100 WHERE game_id = ? AND "
                                 "seq = 3", g3)),
        ("write record altered", _sql("UPDATE commits SET hash = xor(hash, 1) WHERE game_id = ?",
                                      g0)),
        ("write record deleted", _sql("DELETE FROM commits WHERE game_id = ? AND seq = ?", g1, n1)),
        ("write numbers shared", _sql("UPDATE commits SET game = (SELECT min(game) FROM commits "
                                      "WHERE game_id = ?) WHERE game_id = ?", g0, g1)),
        ("round_results points", _sql("UPDATE round_results SET points = points + 1 WHERE "
                                      "game_id = ? AND round = 1 AND seat = 0", g0)),
        ("rounds row deleted", _sql("DELETE FROM rounds WHERE game_id = ? AND round = 1", g2)),
        ("turns row doubled", _sql("INSERT INTO turns SELECT * FROM turns WHERE game_id = ? "
                                   "AND round = 1 AND turn = 2", g3)),
        ("games totals", _sql("UPDATE games SET totals = [0, 0] WHERE game_id = ?", g1)),
        ("games meta", _sql("UPDATE games SET meta = '{\"x\": 1}' WHERE game_id = ?", g2)),
        ("seats of no game", _sql("INSERT INTO seats (game_id, seat, name, total) "
                                  "SELECT 'ghost', 0, 'Nobody', 0")),
        ("duos card list", _sql("UPDATE duos SET cards = list_reverse(cards) WHERE game_id = ?",
                                g0)),
    ]


def _tampered(stores, kind, tmp_path):
    """(name, path) of a copy of the ``kind`` store with each tampering applied in turn."""
    paths, games = stores
    for name, edit in tamperings(games):
        path = tmp_path / f"{kind}.duckdb"
        shutil.copy(paths[kind], path)
        con = attacker(path)
        edit(con)
        con.close()
        yield name, path


def _report(path, exhaustive: bool, monkeypatch, refold: bool = True):
    with monkeypatch.context() as m:
        if exhaustive:
            m.setattr(verify, "_same_rows", lambda *args: False)
            m.setattr(verify, "_known_links", lambda *args: None)
            m.setattr(verify, "decode_column", lambda column: None)
        with Store.open(path, read_only=True) as store:
            return verify_store(store, refold=refold)


@pytest.mark.parametrize("kind", ["once", "twice"])
def test_quick_and_exhaustive_paths_find_the_same_differences(stores, kind, tmp_path,
                                                              monkeypatch):
    for name, path in _tampered(stores, kind, tmp_path):
        quick = _report(path, False, monkeypatch)
        full = _report(path, True, monkeypatch)
        # the games the import vouches for (checked_games) are not folded again: the same
        vouching = _report(path, False, monkeypatch, refold=False)
        assert quick.differences == full.differences == vouching.differences, name
        assert (quick.games, quick.events) == (full.games, full.events), name
        assert (vouching.games, vouching.events) == (full.games, full.events), name
        # every edit but the first is found
        assert bool(quick.differences) == (name != "nothing"), (name, quick.differences)


def test_the_quick_paths_are_taken_on_an_intact_store(stores, monkeypatch):
    """On an intact store of one write per game, every chunk is checked the import's way
    (none falls back to the check game by game), no table goes row by row (the events
    table's included), no game's chain is computed over the stored bytes and no game is
    folded by the strict fold (every game folded again: ``refold``)."""
    paths, games = stores
    calls = []
    imported: list = []
    scan = verify._scan_as_imported
    monkeypatch.setattr(verify, "_scan_as_imported",
                        lambda *a: imported.append(scan(*a)) or imported[-1])
    monkeypatch.setattr(verify._ChunkRows, "row", lambda *a: calls.append("event rows"))
    monkeypatch.setattr(verify, "_compare_table", lambda *a: calls.append("rows"))
    monkeypatch.setattr(verify, "_links_at", lambda *a: calls.append("chain") or {})
    monkeypatch.setattr(batch, "fold_game", lambda *a: calls.append("fold"))
    with Store.open(paths["once"], read_only=True) as store:
        report = verify_store(store, refold=True)
    assert report.ok and report.games == len(games) and not report.vouched
    assert calls == []
    assert imported and None not in imported and not any(p.suspect for p in imported)


@pytest.mark.parametrize("seqs", [[1, 2, 3, 4, 5, 6], [1, 2, 4, 5, 7, 8], [1, 2, 2, 3, 5, 4],
                                  [3, 1, 2, 6, 5, 4]])
def test_the_links_at_the_writes_ends_are_the_chain_of_writes(seqs):
    """The links a check computes at the seqs writes ended at are those of the writes of
    the stored rows between them, whatever the seqs stored: in order, with gaps, twice,
    out of order (a write ends at the last row of its seq, and stores the rows after the
    row the write before ended at); a seq not stored is absent."""
    data = [f'{{"n":{k}}}'.encode() for k in range(len(seqs))]
    ends = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    last_row = {seq: k + 1 for k, seq in enumerate(seqs)}
    at = sorted({last_row[e] for e in ends if e in last_row})
    by_row = dict(zip(at, chain_oracle.links_at("g", data, at)))
    want = {e: by_row[last_row[e]] for e in ends if e in last_row}
    assert verify._links_at("g", data, seqs, ends) == want
    if seqs == [1, 2, 3, 4, 5, 6]:
        assert verify._links_at("g", data, range(1, 7), ends) == want


def test_the_links_joined_in_arrow_are_the_links_event_by_event():
    """The quick scan's links (the events of each write joined in Arrow, one hash per
    write) are those of the chain's definition (hashlib), for games of one write, of
    several, with a record beyond the stored events, twice at one seq, at seq 0, and with
    no record; the column in several chunks or one."""
    import pyarrow as pa
    games = {"a": 5, "b": 1, "c": 7, "d": 3, "e": 4}
    ends = {"a": [5], "b": [1], "c": [2, 3, 3, 7, 9], "d": [0, 2], "e": []}
    ids, seqs, texts = [], [], []
    for gid, n in games.items():
        for k in range(1, n + 1):
            ids.append(gid)
            seqs.append(k)
            texts.append(f'{{"g":"{gid}","k":{k}}}')
    commits = {gid: [(gid, 1, e, 0) for e in es] for gid, es in ends.items() if es}
    table = pa.table({"game_id": ids, "seq": pa.array(seqs, pa.int32()), "event": texts})
    for t in (table, pa.concat_tables([table.slice(0, 4), table.slice(4)])):
        rows = verify._ChunkRows(t, decode=False)
        got = rows.links(commits)
        for gid, n in games.items():
            data = [x.encode() for x, g in zip(texts, ids) if g == gid]
            at = sorted({e for e in ends[gid] if 1 <= e <= n})
            want = dict(zip(at, chain_oracle.links_at(gid, data, at)))
            assert got[gid] == want, gid
            assert verify._links_at(gid, data, range(1, n + 1), ends[gid]) == want


# ---------------------------------------------------------------- verify --quick

#: the kinds of difference the quick check looks for (and the full check too)
QUICK_KINDS = ("seq", "hash", "number")


def _quick(path):
    with Store.open(path, read_only=True) as store:
        return verify_store(store, quick=True)


@pytest.mark.parametrize("kind", ["once", "twice"])
def test_quick_finds_what_the_full_check_finds_of_seqs_chain_and_numbers(stores, kind, tmp_path,
                                                                         monkeypatch):
    """Of the seqs, the chain and the game numbers, --quick reports exactly what the full
    check reports, on every tampering; of the rest, nothing but row counts."""
    for name, path in _tampered(stores, kind, tmp_path):
        full = _report(path, False, monkeypatch)
        quick = _quick(path)
        assert quick.quick and (quick.games, quick.events) == (full.games, full.events), name
        assert [d for d in quick.differences if d.kind in QUICK_KINDS] == \
            [d for d in full.differences if d.kind in QUICK_KINDS], name
        assert all(d.kind in QUICK_KINDS or d.kind == "projection" and d.table is not None
                   for d in quick.differences), (name, quick.differences)


def test_quick_counts_read_model_rows_and_says_what_it_skips(stores, tmp_path):
    paths, games = stores
    path = tmp_path / "store.duckdb"
    shutil.copy(paths["once"], path)
    gid = games[0][0].game_id
    con = attacker(path)
    con.execute("DELETE FROM games WHERE game_id = ?", [gid])
    con.execute("INSERT INTO seats (game_id, seat, name, total) SELECT 'ghost', 0, 'Nobody', 0")
    con.execute("UPDATE round_results SET points = points + 1 WHERE game_id = ?", [games[1][0].game_id])
    con.close()
    assert [str(d) for d in _quick(path).differences] == [
        f"game {gid}, table games: projection: 0 rows of this game, one expected",
        "game ghost, table seats: projection: 1 row(s) belong to no stored game (no events)",
    ]       # the changed points are not seen: the rows' contents are not compared
    result = runner.invoke(app, ["verify", "--quick", "--db", str(path)])
    assert result.exit_code == 1
    assert "not folded by the engine" in result.stderr and "read models' rows not compared" \
        in result.stderr
    result = runner.invoke(app, ["verify", "--quick", "--json", "--db", str(path)])
    data = json.loads(result.stdout)
    assert data["ok"] is False and "not folded" in data["quick"] and len(data["differences"]) == 2
    assert "not folded" in runner.invoke(app, ["verify", "--help"]).output.replace("\n", " ")
