"""CLI tests of import / validate / games / show / export / score, through Typer's runner,
and one run of the installed ``seasalt`` executable the way a user would."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.sim import simulate

from .randomplay import play_random_game

runner = CliRunner()


def run(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("logs") / "games.jsonl"
    games = [play_random_game(seed, 2 + seed % 3) for seed in range(4)]
    path.write_bytes(b"".join(ev.encode_lines([e for e in g if type(e) not in ev.DERIVED_TYPES])
                              for g in games))
    return path


def no_traceback(result) -> None:
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_import_then_reimport(tmp_path, log):
    db = tmp_path / "s.duckdb"
    r = run("import", log, "--db", db)
    assert r.exit_code == 0, r.output
    assert "4 new, 0 extended, 0 unchanged, 0 failed" in r.output
    r = run("import", log, "--db", db, "--json")
    data = json.loads(r.stdout)
    assert (data["new"], data["unchanged"], data["events_stored"]) == (0, 4, 0)


def test_default_db_and_env_override(tmp_path, log, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run("import", log).exit_code == 0
    assert (tmp_path / "seasalt.duckdb").exists()
    monkeypatch.setenv("SEASALT_DB", str(tmp_path / "env.duckdb"))
    assert run("import", log).exit_code == 0
    assert (tmp_path / "env.duckdb").exists()


def test_import_from_stdin_and_directory(tmp_path, log):
    db = tmp_path / "s.duckdb"
    r = run("import", "-", "--db", db, input=log.read_text())
    assert r.exit_code == 0 and "4 new" in r.output
    d = tmp_path / "dir" / "sub"
    d.mkdir(parents=True)
    shutil.copy(log, d / "x.jsonl")
    r = run("import", tmp_path / "dir", "--db", tmp_path / "t.duckdb")
    assert r.exit_code == 0 and "4 new" in r.output


@pytest.mark.parametrize("line, expect", [
    ("not json", "LOG-FORMAT: not valid JSON (JSON is malformed: invalid character near byte 4 "
                 "of the line)"),      # the byte past the 4 read as null
    ('{"type":"turn_ended","player":0,"extra":1}', "unknown field 'extra'"),
    ('{"type":"deck_drawn","player":0,"cards":["crab:blak","crab:black"],"kept":"crab:black","discard_pile":0}',
     "unknown card code 'crab:blak'; did you mean crab:black"),
    ('{"type":"teleport","player":0}', "unknown event type 'teleport'"),
    ('{"type":"turn_ended","player":0}', "R-FLOW-TAKE"),
])
def test_bad_input_names_file_line_and_rule(tmp_path, line, expect):
    src = tmp_path / "bad.jsonl"
    src.write_text('{"type":"game_started","game_id":"b1","players":["Ann","Ben"]}\n'
                   '{"type":"round_started","round":1,"first_player":0,"discards":["crab:dark-blue","shell:grey"]}\n'
                   + line + "\n")
    db = tmp_path / "s.duckdb"
    r = run("import", src, "--db", db)
    assert r.exit_code == 1
    assert f"bad.jsonl:3: game b1" in r.output and expect in r.output
    no_traceback(r)
    assert "0 events stored" in r.output


def test_strict_and_validate(tmp_path, log):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(log.read_text() + '{"type":"game_started","players":["A","A"]}\n')
    db = tmp_path / "s.duckdb"
    r = run("import", bad, "--db", db, "--strict")
    assert r.exit_code == 1 and "nothing stored (--strict)" in r.output
    assert "players must have distinct names" in r.output
    r = run("validate", bad)
    assert r.exit_code == 1 and "4 new" in r.output and "1 failed" in r.output
    assert not (tmp_path / "other.duckdb").exists()
    r = run("validate", log)
    assert r.exit_code == 0


def test_validate_locates_a_round_starteds_error_at_the_round_it_starts(tmp_path):
    """A round_started of the next round with its table event left out: the error names
    its line and round 2 (the round it starts, no turn yet), not round 1's last turn."""
    game = next(simulate(1, 3, 2, None, "extra-salt", "pepper"))
    at = [i for i, e in enumerate(game) if type(e) is ev.RoundStarted][1]
    game[at] = msgspec.structs.replace(game[at], event=None)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(ev.encode_lines(game))
    r = run("validate", bad)
    no_traceback(r)
    assert r.exit_code == 1
    assert (f"{bad}:{at + 1}: game {game[0].game_id}, round 2: LOG-FORMAT: missing field "
            f"'event' (a game with events names each round's table event) at $") in r.output


def test_validate_against_a_store(tmp_path, log):
    """validate --db compares with the stored games (read-only): what import would say."""
    db = tmp_path / "s.duckdb"
    assert run("import", log, "--db", db).exit_code == 0
    r = run("validate", log, "--db", db, "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["unchanged"] == 4
    clash = tmp_path / "clash.jsonl"
    first = log.read_text().splitlines()[0]
    gid = json.loads(first)["game_id"]
    clash.write_text(json.dumps({"type": "game_started", "game_id": gid,
                                 "players": ["Zed", "Yan"]}) + "\n")
    r = run("validate", clash, "--db", db)
    assert r.exit_code == 1 and "a different history is stored under this id" in r.output
    no_traceback(r)
    r = run("validate", clash, "--db", tmp_path / "none.duckdb")
    assert r.exit_code == 1 and "no store at" in r.output
    no_traceback(r)


def test_validate_json_counts_the_events_an_import_would_store(tmp_path, log):
    """validate stores nothing: its --json names its count events_to_store (import's is
    events_stored), the events the import stores before it, none after it."""
    before = json.loads(run("validate", log, "--json").stdout)
    assert "events_stored" not in before
    db = tmp_path / "s.duckdb"
    stored = json.loads(run("import", log, "--db", db, "--json").stdout)
    assert before["events_to_store"] == stored["events_stored"] > 0
    assert "events_to_store" not in stored
    after = json.loads(run("validate", log, "--db", db, "--json").stdout)
    assert after["events_to_store"] == 0
    assert "0 events to store" in run("validate", log, "--db", db).output


def test_a_conflict_says_where_its_game_starts(tmp_path, log):
    """Another history under a game id met before (stored, or earlier in the same log) is
    reported like every import error: ``file:line: game id: CONFLICT: ...``."""
    first = json.loads(log.read_text().splitlines()[0])
    clash = json.dumps({"type": "game_started", "game_id": first["game_id"],
                        "players": ["Zed", "Yan"]}) + "\n"
    both = tmp_path / "both.jsonl"
    both.write_text(log.read_text() + clash)
    line = len(log.read_text().splitlines()) + 1
    gid = first["game_id"]
    r = run("validate", both)
    assert r.exit_code == 1
    assert (f"error: {both}:{line}: game {gid}: CONFLICT: a different history is given "
            "earlier in this log under this id") in r.output
    for jobs in ("1", "2"):
        r = run("import", both, "--db", tmp_path / f"s{jobs}.duckdb", "--jobs", jobs)
        assert r.exit_code == 1
        assert (f"error: {both}:{line}: game {gid}: CONFLICT: a different history is stored "
                "under this id; event seq 1 differs") in r.output
    r = run("import", "-", "--db", tmp_path / "s1.duckdb", input=clash)
    assert r.exit_code == 1
    assert f"error: -:1: game {gid}: CONFLICT: a different history is stored" in r.output
    # the id it names is explained where the other errors' ids are (RULES.md §8)
    rules = (Path(__file__).resolve().parent.parent / "docs" / "RULES.md").read_text()
    section = rules[rules.index("## 8. Errors that are not rules of play"):rules.index("## 9.")]
    assert "\n- **CONFLICT.** " in section


BOM = b"\xef\xbb\xbf"      # UTF-8's byte-order mark (U+FEFF), written by hand


@pytest.mark.parametrize("chunked", [False, True])
def test_a_byte_order_mark_starting_a_log_is_read_past(tmp_path, log, monkeypatch, chunked):
    """LOG_FORMAT.md: a UTF-8 byte-order mark at the start of a file is ignored (import
    and validate agree, whatever path reads the log); anywhere else it is an error that
    names it, at its line."""
    if chunked:     # small chunks: the log is read in bulk, a chunk at a time
        from seasalt_log import service
        monkeypatch.setattr(service, "BATCH_EVENTS", 300)
    marked = tmp_path / "marked.jsonl"
    marked.write_bytes(BOM + log.read_bytes())
    r = run("validate", marked)
    assert r.exit_code == 0 and "4 new" in r.output, r.output
    assert run("import", log, "--db", tmp_path / "plain.duckdb").exit_code == 0
    plain = run("export", "--all", "--db", tmp_path / "plain.duckdb").stdout
    for name, args, stdin in (("j1", [marked, "--jobs", "1"], None), ("j2", [marked, "--jobs", "2"], None),
                              ("stdin", ["-"], BOM.decode() + log.read_text())):
        db = tmp_path / f"{name}.duckdb"
        r = run("import", *args, "--db", db, input=stdin)
        assert r.exit_code == 0 and "4 new" in r.output, (name, r.output)
        assert run("export", "--all", "--db", db).stdout == plain
    later = tmp_path / "later.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    later.write_bytes(b"\n" + BOM + b"".join(lines))       # line 2, not the start
    for cmd in (["validate", later], ["import", later, "--db", tmp_path / "x.duckdb"]):
        r = run(*cmd)
        assert r.exit_code == 1
        assert (f"{later}:2: LOG-FORMAT: a UTF-8 byte-order mark is allowed only at the "
                "start of a log (line 1)") in r.output, r.output


def test_a_json_error_on_a_marked_line_1_counts_the_mark(tmp_path):
    """A JSON error's byte on a line 1 that starts with a byte-order mark is the line's own,
    mark included (LOG_FORMAT.md: the mark is read past, the line is still the file's)."""
    line = BOM + b'{"type":"game_started","players":["A","B"] "game_id":"g1"}\n'
    at = line.index(b'"game_id"')            # the missing comma's place: 46
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(line)
    want = f"expected ',' or '}}' near byte {at} of the line"
    for cmd, stdin in ((["validate", bad], None), (["import", bad, "--jobs", "1"], None),
                       (["import", "-"], line.decode())):
        r = run(*cmd, "--db", tmp_path / "s.duckdb", input=stdin) if cmd[0] == "import" \
            else run(*cmd)
        assert r.exit_code == 1 and want in r.output, (cmd, r.output)


def test_games_and_show_say_each_games_ruleset_and_events(tmp_path):
    """A store of base games and Extra Salt games with Extra Pepper's events: each game's
    listing and its show line say which it is (game_started.ruleset and .events; a base
    game's game_started names neither: 'base', no events), in every format."""
    db = tmp_path / "mixed.duckdb"
    assert run("simulate", "-n", 1, "-p", 2, "-s", 1, "--db", db).exit_code == 0
    r = run("simulate", "-n", 1, "-p", 3, "-s", 2, "--ruleset", "extra-salt", "--events",
            "pepper", "--db", db)
    assert r.exit_code == 0, r.output
    listed = {g["n_players"]: (g["ruleset"], g["event_setting"])
              for g in json.loads(run("games", "--db", db, "--json").stdout)}
    assert listed == {2: ("base", None), 3: ("extra-salt", "pepper")}
    lines = list(csv.reader(run("games", "--db", db, "--format", "csv").stdout.splitlines()))
    at = lines[0].index("ruleset")
    assert lines[0][at + 1] == "event_setting"
    assert sorted((row[at], row[at + 1]) for row in lines[1:]) == [("base", ""),
                                                                   ("extra-salt", "pepper")]
    for g in json.loads(run("games", "--db", db, "--json").stdout):
        head = run("show", g["game_id"], "--db", db, "--format", "table").stdout.splitlines()[0]
        words = "extra-salt with pepper events" if g["n_players"] == 3 else "base"
        assert f"  {words}  target " in head, head


def test_games_show_export(tmp_path, log):
    db = tmp_path / "s.duckdb"
    run("import", log, "--db", db)
    r = run("games", "--db", db, "--json")
    rows = json.loads(r.stdout)
    assert len(rows) == 4 and all(g["status"] == "ended" for g in rows)
    r = run("games", "--db", db, "--players", "3", "--json")
    assert [g["n_players"] for g in json.loads(r.stdout)] == [3]
    r = run("games", "--db", db, "--player", "Dee", "--json")
    assert all("Dee" in g["players"] for g in json.loads(r.stdout)) and json.loads(r.stdout)
    gid = rows[0]["game_id"]
    r = run("show", gid, "--db", db, "--json")
    summary = json.loads(r.stdout)
    assert summary["game"]["game_id"] == gid
    assert summary["rounds"][-1]["totals"] == rows[0]["totals"]
    r = run("show", "nope", "--db", db)
    assert r.exit_code == 1 and "no game with id 'nope'" in r.output
    out = tmp_path / "out.jsonl"
    assert run("export", "--all", "--db", db, "--out", out).exit_code == 0
    db2 = tmp_path / "s2.duckdb"
    run("import", out, "--db", db2)
    out2 = tmp_path / "out2.jsonl"
    run("export", "--all", "--db", db2, "-o", out2)
    assert out.read_bytes() == out2.read_bytes()
    r = run("export", "--db", db)
    assert r.exit_code == 2 and "--all" in r.output
    # games named with --all: refused, not exported all the same (an unknown name unnoticed)
    for names in ([gid], ["nope"]):
        r = run("export", *names, "--all", "--db", db, "--out", tmp_path / "both.jsonl")
        assert (r.exit_code, r.stderr) == (2, "error: name the games to export or pass --all, "
                                              "not both (see: seasalt export --help)\n")
    assert not (tmp_path / "both.jsonl").exists()


def test_missing_store_is_a_clear_error(tmp_path):
    r = run("games", "--db", tmp_path / "none.duckdb")
    assert r.exit_code == 1 and "no store at" in r.output
    assert not (tmp_path / "none.duckdb").exists()


def test_export_refuses_two_targets_at_once(tmp_path, log):
    """--parquet with --html was the Parquet export alone (exit 0, the page never written);
    --html with --out said "--html writes one game" of a command that named one game."""
    db = tmp_path / "s.duckdb"
    assert run("import", log, "--db", db).exit_code == 0
    gid = json.loads(run("games", "--db", db, "--json").stdout)[0]["game_id"]
    page, pq, out = tmp_path / "g.html", tmp_path / "pq", tmp_path / "g.jsonl"
    r = run("export", "--parquet", pq, "--html", page, "--db", db)
    assert (r.exit_code, r.stderr) == (2, "error: --parquet and --html are two exports: give "
                                          "one of them (see: seasalt export --help)\n")
    r = run("export", gid, "--html", page, "--out", out, "--db", db)
    assert (r.exit_code, r.stderr) == (2, "error: --html FILE is where the page goes: give no "
                                          "--out with it (see: seasalt export --help)\n")
    assert not page.exists() and not pq.exists() and not out.exists()


def test_score_command():
    r = run("score", "sailor:pink", "sailor:orange", "captain:light-orange", "--json")
    data = json.loads(r.stdout)
    assert (data["collectors"], data["multipliers"], data["card_points"]) == (5, 6, 11)
    r = run("score", "lighthouse:purple", "lighthouse:purple")
    assert r.exit_code == 1 and "deck holds only 1" in r.output
    r = run("score", "crab:pinkk")
    assert r.exit_code == 1 and "did you mean" in r.output
    # codes joined by a comma, as --laid takes them: said so, not an unknown card code
    r = run("score", "crab:black,crab:yellow", "fish:black")
    assert (r.exit_code, r.stderr) == (2, "error: 'crab:black,crab:yellow': give a hand's cards "
                                          "as separate codes (crab:black crab:yellow); a comma "
                                          "joins the codes of --laid only (see: seasalt score "
                                          "--help)\n")


def test_installed_executable_imports_a_log(tmp_path, log):
    exe = shutil.which("seasalt") or str(Path(sys.executable).with_name("seasalt"))
    env = dict(os.environ, SEASALT_DB=str(tmp_path / "cli.duckdb"))
    done = subprocess.run([exe, "import", str(log)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "4 new" in done.stderr
    done = subprocess.run([exe, "games", "--json"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)
    assert len(json.loads(done.stdout)) == 4
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    done = subprocess.run([exe, "import", str(bad)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "bad.jsonl:1" in done.stderr


def test_simulate_stores_games_like_an_import_of_its_log(tmp_path):
    direct = tmp_path / "direct.duckdb"
    r = run("simulate", "-n", "6", "-p", "3", "-s", "5", "--db", direct)
    assert r.exit_code == 0 and "6 new" in r.output
    log = tmp_path / "sim.jsonl"
    assert run("simulate", "-n", "6", "-p", "3", "-s", "5", "--out", log).exit_code == 0
    imported = tmp_path / "imported.duckdb"
    assert run("import", log, "--db", imported).exit_code == 0
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run("export", "--all", "--db", direct, "-o", a)
    run("export", "--all", "--db", imported, "-o", b)
    assert a.read_bytes() == b.read_bytes() == log.read_bytes()
    r = run("simulate", "-n", "1", "-p", "3", "-s", "5", "--db", direct, "--out", log)
    assert r.exit_code == 2 and "exclusive" in r.output


def test_import_of_a_missing_path_creates_no_store(tmp_path, log):
    """A mistyped log path fails before the store is opened: no empty store is left."""
    db = tmp_path / "new.duckdb"
    r = run("import", log, tmp_path / "gmaes.jsonl", "--db", db)
    assert r.exit_code == 1
    assert "gmaes.jsonl: LOG-FORMAT: no such file or directory" in r.stderr
    assert not db.exists()


def test_a_directory_without_logs_is_an_error(tmp_path, log):
    """A directory holding no *.jsonl file (a mistyped one, most likely) fails in one line
    naming it and what was looked for; no store is made, a store there is left as it was."""
    empty = tmp_path / "logs"
    (empty / "sub").mkdir(parents=True)
    (empty / "notes.txt").write_text("not a log\n")
    db = tmp_path / "new.duckdb"
    for cmd in (["import", empty, "--db", db], ["validate", empty]):
        r = run(*cmd)
        assert r.exit_code == 1
        assert r.stderr == f"error: {empty}: LOG-FORMAT: no *.jsonl file in this directory or below it\n"
    assert not db.exists() and not Path(f"{db}.wal").exists()
    assert run("import", log, "--db", db).exit_code == 0
    before = db.read_bytes()
    r = run("import", log, empty, "--db", db)
    assert r.exit_code == 1 and db.read_bytes() == before


def test_a_log_without_a_game_is_an_error(tmp_path, log):
    """An empty log (a file of nothing, or of blank lines; empty stdin) holds nothing to
    import: one line naming it, exit 1, no store made, a store there left as it was (it
    used to end 'games: 0 new ...', exit 0, and leave an empty store behind)."""
    empty, blank = tmp_path / "empty.jsonl", tmp_path / "blank.jsonl"
    empty.write_bytes(b"")
    blank.write_bytes(b"\n  \n\r\n")
    db = tmp_path / "new.duckdb"
    for args, named, input in (([empty], empty, None), ([blank], blank, None), (["-"], "-", "")):
        for cmd in (["import", *args, "--db", db], ["validate", *args]):
            r = run(*cmd, input=input)
            assert (r.exit_code, r.stderr) == (1, f"error: {named}: LOG-FORMAT: no game in it: "
                                                  "nothing but blank lines, or nothing at all\n")
            assert not db.exists() and not Path(f"{db}.wal").exists()
    r = run("validate", empty, blank)
    assert r.stderr == (f"error: {empty}, {blank}: LOG-FORMAT: no game in any of them: nothing "
                        "but blank lines, or nothing at all\n")
    assert run("import", log, "--db", db).exit_code == 0
    before = db.read_bytes()
    assert run("import", empty, "--db", db).exit_code == 1 and db.read_bytes() == before
    r = run("import", empty, log, "--db", tmp_path / "other.duckdb")     # one log has games
    assert r.exit_code == 0 and "4 new" in r.stderr


@pytest.mark.parametrize("name, pack, says", [
    ("games.jsonl.gz", "gzip", "a gzip-compressed file, not JSON Lines text: decompress it first "
                               "(gunzip -k {p}), or pipe it in (zcat {p} | seasalt import -)"),
    ("games.jsonl", "gzip", "a gzip-compressed file"),          # whatever its name
    ("games.jsonl.bz2", "bz2", "a bzip2-compressed file"),
    ("games.jsonl.xz", "lzma", "a xz-compressed file"),
    ("games.jsonl", "utf-16", "UTF-16 text (as Windows PowerShell's > writes it), not UTF-8: "
                              "convert it first (iconv -f UTF-16 -t UTF-8 {p} > games.jsonl)")])
def test_a_compressed_log_is_named_as_such(tmp_path, log, name, pack, says):
    """A compressed log, or one in UTF-16, is refused before anything is read or stored,
    saying what it is and how to read it (it was 'LOG-FORMAT: not valid JSON (...
    invalid character (byte 0))')."""
    import importlib
    p = tmp_path / name
    p.write_bytes(log.read_text().encode(pack) if pack.startswith("utf")
                  else importlib.import_module(pack).compress(log.read_bytes()))
    db = tmp_path / "s.duckdb"
    for cmd in (["import", p, "--db", db], ["validate", p]):
        r = run(*cmd)
        assert r.exit_code == 1 and r.stderr.startswith(f"error: {p}: LOG-FORMAT: "
                                                        + says.format(p=p)), r.stderr
        assert len(r.stderr.splitlines()) == 1 and not db.exists()
    assert run("import", log, "--db", db).exit_code == 0
    before = db.read_bytes()
    r = run("import", log, p, "--db", db)
    assert r.exit_code == 1 and db.read_bytes() == before


def test_a_store_given_as_a_log_is_named_as_such(tmp_path, log):
    """`seasalt import seasalt.duckdb` (the store where its log belongs): one line saying
    what the file is and how to copy its games; the store and the target left alone (it
    was 'LOG-FORMAT: not valid JSON (... invalid character (byte 0))')."""
    store, db = tmp_path / "seasalt.duckdb", tmp_path / "other.duckdb"
    assert run("import", log, "--db", store).exit_code == 0
    before = store.read_bytes()
    for cmd in (["import", store, "--db", db], ["validate", store]):
        r = run(*cmd)
        assert (r.exit_code, r.stderr) == (1, f"error: {store}: LOG-FORMAT: a DuckDB database (a "
                                              "store), not a log: to copy its games, seasalt "
                                              f"export --all --db {store} | seasalt import -\n")
    assert store.read_bytes() == before and not db.exists()


@pytest.mark.parametrize("jobs", [[], ["--jobs", "1"]])
@pytest.mark.parametrize("stdin", [False, True])
def test_a_failed_first_import_leaves_no_store(tmp_path, log, monkeypatch, jobs, stdin):
    """An import that stores nothing and fails (a bad log; --strict refusing one game)
    removes the store it made (file and write-ahead log); a store there before is left
    byte for byte; the good games of a plain import into a new store are kept."""
    from seasalt_log import service
    monkeypatch.setattr(service, "BATCH_EVENTS", 300)     # several chunks too
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(log.read_text() + '{"type":"game_started","players":["A","A"]}\n')

    def imp(src, db, *more):
        if stdin:
            return run("import", "-", "--db", db, *jobs, *more, input=src.read_text())
        return run("import", src, "--db", db, *jobs, *more)

    db = tmp_path / "new.duckdb"
    for src, more in ((bad, []), (bad, ["--strict"]), (mixed, ["--strict"])):
        r = imp(src, db, *more)
        assert r.exit_code == 1, r.output
        assert not db.exists() and not Path(f"{db}.wal").exists(), (src, more)
    r = imp(mixed, db)
    assert r.exit_code == 1 and "4 new" in r.output and "1 failed" in r.output
    assert run("games", "--db", db, "--json").exit_code == 0
    before = db.read_bytes()
    other = tmp_path / "other.jsonl"      # a good game not stored yet, and a bad one
    other.write_text(ev.encode_lines(play_random_game(99, 2)).decode()
                     + '{"type":"game_started","players":["A","A"]}\n')
    for src, more in ((bad, []), (bad, ["--strict"]), (other, ["--strict"])):
        assert imp(src, db, *more).exit_code == 1
        assert db.read_bytes() == before and not Path(f"{db}.wal").exists(), (src, more)


def test_an_interrupted_first_import_leaves_no_empty_store(tmp_path, log, monkeypatch):
    """Ctrl-C during the first import into a new store: no empty store is left behind;
    the games committed before it are kept (importing again resumes)."""
    import seasalt_cli.store_cmds as store_cmds
    real = store_cmds.import_logs

    def interrupted_before(*args, **kwargs):
        raise KeyboardInterrupt

    def interrupted_after(*args, **kwargs):
        real(*args, **kwargs)
        raise KeyboardInterrupt
    db = tmp_path / "new.duckdb"
    monkeypatch.setattr(store_cmds, "import_logs", interrupted_before)
    r = run("import", log, "--db", db)
    assert (r.exit_code, r.stderr) == (130, "error: interrupted\n")
    assert not db.exists() and not Path(f"{db}.wal").exists()
    monkeypatch.setattr(store_cmds, "import_logs", interrupted_after)
    assert run("import", log, "--db", db).exit_code == 130
    monkeypatch.undo()
    r = run("import", log, "--db", db)
    assert r.exit_code == 0 and "4 unchanged" in r.output


def _query_interrupted(*args, **kwargs):
    raise RuntimeError("Query interrupted")     # what DuckDB raises when Ctrl-C lands mid-statement


def test_ctrl_c_inside_a_duckdb_statement_is_an_interruption(tmp_path, log, monkeypatch):
    """Ctrl-C while DuckDB runs a statement ends as any Ctrl-C does (one line, exit 130,
    the store and the target unchanged), not as "unexpected RuntimeError ... a bug"."""
    import seasalt_log.analytics.parquet as parquet
    import seasalt_log.store.rebuild as rebuild
    db = tmp_path / "s.duckdb"
    assert run("import", log, "--db", db).exit_code == 0
    before = run("export", "--all", "--db", db).stdout
    monkeypatch.setattr(rebuild, "rebuild_in", _query_interrupted)
    monkeypatch.setattr(parquet, "_write_events", _query_interrupted)
    for args in (["rebuild"], ["export", "--parquet", tmp_path / "pq"]):
        r = run(*args, "--db", db)
        assert (r.exit_code, r.stderr) == (130, "error: interrupted\n"), args
    assert not (tmp_path / "pq").exists()
    monkeypatch.undo()
    assert run("export", "--all", "--db", db).stdout == before
    assert run("verify", "--db", db).exit_code == 0


def test_a_failed_first_import_keeps_a_store_another_process_has_opened(tmp_path, monkeypatch):
    """A first import that fails, when another process has opened the new store by the time
    it would remove it (the read-only look finds it busy): the store is left, not removed
    under the other process's writes."""
    import seasalt_cli.store_cmds as store_cmds
    from seasalt_log.errors import StoreBusyError
    real = store_cmds.Store.open.__func__

    def busy_when_read(cls, path, *, read_only=False, create=True):
        if read_only:
            raise StoreBusyError(f"the store {path} is busy")
        return real(cls, path, read_only=read_only, create=create)
    monkeypatch.setattr(store_cmds.Store, "open", classmethod(busy_when_read))
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    db = tmp_path / "new.duckdb"
    r = run("import", bad, "--db", db)
    assert r.exit_code == 1, r.output
    assert db.exists()


def test_a_conflict_within_a_log_names_the_first_event_that_differs(tmp_path):
    """Validating keeps only fingerprints of the games met: the conflict still names the
    first seq that differs, as a conflict with a stored game does (here the round's deal,
    seq 2: the same game_started line heads another game's events)."""
    a = [e for e in play_random_game(10, 2) if type(e) not in ev.DERIVED_TYPES]
    b = [e for e in play_random_game(11, 2) if type(e) not in ev.DERIVED_TYPES]
    assert ev.encode(a[1]) != ev.encode(b[1])
    both = tmp_path / "both.jsonl"
    both.write_bytes(ev.encode_lines(a) + ev.encode_lines([a[0], *b[1:]]))
    r = run("validate", both)
    assert r.exit_code == 1
    assert ("CONFLICT: a different history is given earlier in this log under this id; "
            "event seq 2 differs") in r.output


@pytest.mark.parametrize("at", [1, 2, 7, 30, 31])
def test_the_first_difference_of_two_fingerprint_chains(at):
    """outcomes.compare_digest finds the first differing seq from the prefix fingerprints
    alone (worked here on a game whose event at ``at`` is replaced by another's)."""
    from seasalt_log.importers.outcomes import compare_digest, fingerprints
    game = play_random_game(12, 3)[:31]
    other = play_random_game(13, 3)
    changed = [*game[:at - 1], other[at] if at > 1 else other[0], *game[at:]]
    assert ev.encode(changed[at - 1]) != ev.encode(game[at - 1])
    status, reason = compare_digest(fingerprints(changed), len(game), fingerprints(game))
    assert status == "failed" and reason.endswith(f"event seq {at} differs")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_ill_formed_game_started_is_its_own_games_error(tmp_path, jobs):
    """A game_started line the decoder refuses (LOG_FORMAT.md: players is a list) starts a
    game all the same: the error names that game and its line, and the game before it,
    which is good, is stored (it failed with the next game's error before)."""
    a = [e for e in play_random_game(20, 2) if type(e) not in ev.DERIVED_TYPES]
    b = [e for e in play_random_game(21, 3) if type(e) not in ev.DERIVED_TYPES]
    bad = json.loads(ev.encode(b[0]))
    bad["players"] = "Ann"
    path = tmp_path / "log.jsonl"
    path.write_bytes(ev.encode_lines(a) + json.dumps(bad).encode() + b"\n"
                     + ev.encode_lines(b[1:]))
    line = len(a) + 1
    db = tmp_path / "s.duckdb"
    r = run("import", path, "--db", db, "--jobs", jobs, "--no-progress")
    assert r.exit_code == 1
    assert (f"{path}:{line}: game {b[0].game_id}: LOG-FORMAT: Expected `array`, got `str` "
            "at $.players") in r.output
    assert "games: 1 new, 0 extended, 0 unchanged, 1 failed" in r.output
    r = run("games", "--db", db, "--format", "json")
    assert [g["game_id"] for g in json.loads(r.output)] == [a[0].game_id]
