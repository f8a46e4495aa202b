"""Every read command speaks every format (``--format table|csv|json|jsonl``), and a table
neither cuts nor wraps a value, and shows at most ``--limit`` rows, counting the rest.

The expected values come from the log the store was loaded from (its ``game_started`` and
``round_scored`` events), read here without the store, or are worked by hand.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log.analytics.output import Result, render_table, rows_result
from seasalt_log.store.store import natural_key

runner = CliRunner()
GAMES = 12


def run(*args, env=None):
    return runner.invoke(app, [str(a) for a in args], env=env)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[Path, list[dict]]:
    """A store of 12 simulated 3-player games, and the log's events (as JSON objects)."""
    d = tmp_path_factory.mktemp("formats")
    log, db = d / "g.jsonl", d / "s.duckdb"
    assert run("simulate", "--games", GAMES, "--players", 3, "--seed", 7, "--out", log).exit_code == 0
    assert run("import", log, "--db", db).exit_code == 0
    return db, [json.loads(line) for line in log.read_text().splitlines()]


def by_game(events: list[dict]) -> dict[str, list[dict]]:
    games: dict[str, list[dict]] = {}
    gid = None
    for e in events:
        if e["type"] == "game_started":
            gid = e["game_id"]
        games.setdefault(gid, []).append(e)
    return games


def jsonl(text: str) -> list[dict]:
    lines = text.splitlines()
    rows = [json.loads(line) for line in lines]
    assert all(isinstance(r, dict) for r in rows)      # one object per line
    return rows


# ---------------------------------------------------------------- the table itself

def test_a_table_never_cuts_a_value_and_counts_what_it_leaves_out():
    long = "x" * 150 + "-end"
    result = Result(columns=["n", "text"], types=["INTEGER", "VARCHAR"],
                    rows=[(i, long if i == 3 else f"r{i}") for i in range(45)])
    text = render_table(result, limit=40)
    lines = text.splitlines()
    assert len(lines) == 2 + 40 + 1                     # header, rule, 40 rows, the count
    assert long in text                                  # whole, on one line
    assert lines[-1].startswith("(40 of 45 rows shown, 5 left out")
    assert "r39" in text and "r40" not in text
    assert len(render_table(result, limit=0).splitlines()) == 2 + 45    # 0: every row


def test_a_table_keeps_a_row_on_one_line_and_aligns_numbers_right():
    result = rows_result(["name", "n"], [("a\nb", 5), ("c", 123)])
    lines = render_table(result).splitlines()
    assert lines[2] == "a\\nb    5"       # the line break escaped; 5 under the 3 of 123
    assert lines[3] == "c     123"


def test_query_table_limit_and_csv_all(store):
    db, _ = store
    sql = "SELECT range AS n FROM range(100)"
    r = run("query", sql, "--db", db, "--format", "table")
    assert r.exit_code == 0, r.output
    assert "(40 of 100 rows shown, 60 left out" in r.stdout
    r = run("query", sql, "--db", db, "--format", "table", "--limit", 7)
    assert "(7 of 100 rows shown, 93 left out" in r.stdout
    r = run("query", sql, "--db", db)                   # piped: CSV, every row
    assert r.stdout.splitlines() == ["n", *map(str, range(100))]


def test_stats_calls_at_80_columns_cuts_nothing(store):
    db, _ = store
    r = run("stats", "calls", "--db", db, "--format", "table", env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    header = r.stdout.splitlines()[0].split()
    assert header[0] == "players" and "last_chance_success" in header
    assert "…" not in r.stdout


def test_stats_json_player_count_is_an_integer(store):
    db, _ = store
    r = run("stats", "calls", "--db", db, "--format", "json")
    rows = json.loads(r.stdout)
    assert rows[0]["players"] == 3 and rows[-1]["players"] is None     # None: every count


# ---------------------------------------------------------------- games

def test_games_every_format(store):
    db, events = store
    games = by_game(events)
    want = sorted(games, key=natural_key)
    r = run("games", "--db", db, "--format", "jsonl")
    rows = jsonl(r.stdout)
    assert [g["game_id"] for g in rows] == want
    for g in rows:
        assert g["n_players"] == 3 and isinstance(g["n_players"], int)
        assert g["players"] == games[g["game_id"]][0]["players"]
    assert json.loads(run("games", "--db", db, "--format", "json").stdout) == rows
    r = run("games", "--db", db, "--format", "csv")
    got = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [g["game_id"] for g in got] == want and got[0]["n_players"] == "3"
    r = run("games", "--db", db, "--format", "table")
    for gid in want:
        assert gid in r.stdout
    assert "meta" not in r.stdout.splitlines()[0]       # the table leaves meta out


def test_games_limit_offset_sort(store):
    db, events = store
    games = by_game(events)
    want = sorted(games, key=natural_key)
    assert want[:3] == ["sim-7-0", "sim-7-1", "sim-7-2"] and want[-2:] == ["sim-7-10", "sim-7-11"]
    r = run("games", "--db", db, "--format", "jsonl", "--limit", 4, "--offset", 9)
    assert [g["game_id"] for g in jsonl(r.stdout)] == want[9:13]
    # rounds: the round_started events of each game's log; ties by id
    rounds = {gid: sum(e["type"] == "round_started" for e in evs) for gid, evs in games.items()}
    by_rounds = sorted(want, key=lambda g: -rounds[g])
    r = run("games", "--db", db, "--format", "jsonl", "--sort", "rounds", "--desc")
    assert [g["game_id"] for g in jsonl(r.stdout)] == by_rounds
    r = run("games", "--db", db, "--format", "table", "--limit", 5)
    body = r.stdout.splitlines()[2:]
    assert [line.split()[0] for line in body] == want[:5]
    assert f"5 game(s) of {GAMES}" in r.stderr and f"{GAMES - 5} more" in r.stderr
    r = run("games", "--db", db, "--sort", "colour")
    assert r.exit_code == 2 and "colour" in r.output


# ---------------------------------------------------------------- one game

def _scored(events: list[dict]) -> list[dict]:
    return [e for e in events if e["type"] == "round_scored"]


def test_show_every_format(store):
    db, events = store
    gid = "sim-7-3"
    game = by_game(events)[gid]
    names = game[0]["players"]
    scored = _scored(game)
    r = run("show", gid, "--db", db, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [int(x["round"]) for x in rows] == [s["round"] for s in scored]
    for row, s in zip(rows, scored):
        assert [int(row[f"{n} points"]) for n in names] == s["points"]
        assert [int(row[f"{n} total"]) for n in names] == s["totals"]
    rows = jsonl(run("show", gid, "--db", db, "--format", "jsonl").stdout)
    assert [r_[f"{names[0]} total"] for r_ in rows] == [s["totals"][0] for s in scored]
    doc = json.loads(run("show", gid, "--db", db, "--format", "json").stdout)
    assert doc["game"]["game_id"] == gid and len(doc["rounds"]) == len(scored)
    r = run("show", gid, "--db", db, "--format", "table")      # piped: nothing cut
    assert "…" not in r.stdout and f"{names[-1]} total" in r.stdout
    for s in scored:
        assert s["ending"] in r.stdout


def test_replay_log_rescore_formats(store):
    db, events = store
    gid = "sim-7-3"
    game = by_game(events)[gid]
    names = game[0]["players"]
    seats = jsonl(run("replay", gid, "--round", 1, "--turn", 2, "--db", db,
                      "--format", "jsonl").stdout)
    assert [s["name"] for s in seats] == names and all(isinstance(s["seat"], int) for s in seats)
    r = run("replay", gid, "--db", db, "--format", "csv")
    last = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [int(s["total"]) for s in last] == _scored(game)[-1]["totals"]
    lines = jsonl(run("log", gid, "--db", db, "--format", "jsonl").stdout)
    assert [x["type"] for x in lines] == [e["type"] for e in game]
    assert [x["seq"] for x in lines] == list(range(1, len(game) + 1))
    r = run("log", gid, "--db", db, "--format", "csv")
    assert r.stdout.splitlines()[0] == "seq,round,turn,type,player,text"
    first = _scored(game)[0]
    rows = jsonl(run("rescore", gid, "--round", 1, "--db", db, "--format", "jsonl").stdout)
    assert [x["stored_points"] for x in rows] == first["points"]
    assert [x["points"] for x in rows] == first["points"]
    doc = json.loads(run("rescore", gid, "--round", 1, "--db", db, "--format", "json").stdout)
    assert doc["round"] == 1 and len(doc["players"]) == 3
    # every ending under `result` ("outcome" is LAST CHANCE's result alone, in show and SQL)
    assert "outcome" not in doc and "outcome" not in (doc["what_if"] or {})
    assert doc["result"] in (("won", "tied", "lost") if doc["ending"] == "last_chance"
                             else (doc["ending"],))
    r = run("replay", gid, "--db", db, "--follow", "--format", "csv")
    assert r.exit_code == 2 and "--follow" in r.output


def test_tournament_formats():
    args = ("tournament", "-n", 6, "-p", 2, "-s", 3, "--bots", "greedy,random")
    rows = jsonl(run(*args, "--format", "jsonl").stdout)
    assert {x["strategy"] for x in rows} == {"greedy", "random"}
    assert sum(x["wins"] for x in rows) == pytest.approx(6)     # 6 games, one win each
    assert all(isinstance(x["seats"], int) for x in rows)
    r = run(*args, "--format", "csv")
    assert r.stdout.splitlines()[0].startswith("strategy,seats,wins,win_rate")
    # the rows' columns are the JSON document's fields, named and ordered alike (the rows
    # said points_per_round where the document says mean_points_per_round, and put
    # last_chance_won before last_chance_calls)
    document = json.loads(run(*args, "--format", "json").stdout)["results"]
    assert [list(x) for x in rows] == [list(document[0])] * len(rows)
    assert r.stdout.splitlines()[0] == ("strategy,seats,wins,win_rate,mean_points_per_round,"
                                        "last_chance_calls,last_chance_won")


def test_score_formats():
    """score speaks every format: its rows are the sources of points (CSV when piped, a
    plain table under a line counting the cards), its JSON the whole breakdown (--json)."""
    args = ("score", "swimmer:black", "swimmer:yellow", "seahorse:white", "shell:grey",
            "--ruleset", "extra-salt", "--event", "water-rodeo", "--event",
            "dance-of-the-shells")
    piped = run(*args)
    assert piped.exit_code == 0, piped.output
    assert piped.stdout == run(*args, "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(piped.stdout)))
    assert rows[0] == {"source": "pairs", "points": "1", "detail": "1 Water Rodeo pair in hand"}
    assert [r["source"] for r in rows][-2:] == ["color_bonus", "tables"]
    lines = jsonl(run(*args, "--format", "jsonl").stdout)
    document = json.loads(run(*args, "--json").stdout)
    assert document == json.loads(run(*args, "--format", "json").stdout)
    assert {r["source"]: r["points"] for r in lines}["card_points"] == document["card_points"]
    table = run(*args, "--format", "table").stdout.splitlines()
    assert table[0] == "4 cards (extra-salt; events: water-rodeo, dance-of-the-shells)"
    assert table[1].split() == ["source", "points", "detail"] and "┃" not in "".join(table)
    base = jsonl(run("score", "crab:black", "crab:yellow", "--format", "jsonl").stdout)
    assert base[0] == {"source": "pairs", "points": 1}


def test_a_bad_format_is_a_usage_error(store):
    db, _ = store
    r = run("games", "--db", db, "--format", "yaml")
    assert r.exit_code == 2 and "yaml" in r.output


def test_json_is_the_short_form_of_format_json_in_every_read_command(store):
    """``--json`` is ``--format json`` for games, show, replay, log, rescore and tournament;
    query and stats refused it ("No such option: --json")."""
    db, _ = store
    for args in (("query", "SELECT 2 AS n, 'a' AS s"), ("stats", "overview", "--players", 3)):
        r = run(*args, "--db", db, "--json")
        assert r.exit_code == 0, r.output
        assert r.stdout == run(*args, "--db", db, "--format", "json").stdout
    assert json.loads(run("query", "SELECT 2 AS n, 'a' AS s", "--db", db, "--json").stdout) == \
        [{"n": 2, "s": "a"}]
    assert json.loads(run("stats", "overview", "--players", 3, "--db", db, "--json").stdout
                      )[0]["games"] == GAMES
    r = run("query", "SELECT 1", "--db", db, "--json", "--format", "csv")
    assert (r.exit_code, r.stderr) == (2, "error: --json and --format csv disagree: give one "
                                          "of them (see: seasalt query --help)\n")
