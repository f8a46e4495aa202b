"""The CLI's conventions (issue 16): help that tells the truth, --version, completion,
``python -m``, --quiet / --verbose, one-line usage errors, one vocabulary of options."""

from __future__ import annotations

import os

import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from seasalt_cli.main import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent

#: the placeholder of an option's value: one upper-case word (FILE, N, NAME,...), or a list
#: of them (NAME,...), or a choice Typer shows itself (metavar None)
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_-]*(\[?,[A-Z]+\]?)?(\.\.\.|,\.\.\.)?$")


def run(*args, env=None):
    return runner.invoke(app, [str(a) for a in args], env=env)


def commands(cmd=None, path=()):
    """Every command of the app, with its path of names (click's command tree)."""
    cmd = cmd or typer.main.get_command(app)
    subs = getattr(cmd, "commands", None)
    if subs:
        for name, sub in subs.items():
            yield from commands(sub, (*path, name))
    else:
        yield path, cmd


ALL = sorted(commands())
IDS = [" ".join(p) for p, _ in ALL]


def test_the_walk_sees_every_command():
    names = {p[0] for p, _ in ALL}
    assert {"import", "validate", "games", "show", "replay", "log", "rescore", "export",
            "score", "simulate", "tournament", "query", "stats", "rebuild", "verify",
            "serve", "rules", "backup", "compact", "archive"} <= names
    assert ("archive", "check") in {p for p, _ in ALL}


def test_the_command_list_starts_where_a_new_user_does():
    """`seasalt --help` lists import and validate first (it listed score, the first
    command ever written)."""
    listed = list(typer.main.get_command(app).list_commands(None))
    assert listed[:4] == ["import", "validate", "games", "show"]


def _options(cmd):
    return [p for p in cmd.params if p.name != "help"]


@pytest.mark.parametrize("path,cmd", ALL, ids=IDS)
def test_every_parameter_has_help_a_placeholder_and_its_default(path, cmd):
    assert cmd.help, f"{' '.join(path)} has no help"
    for p in _options(cmd):
        where = f"seasalt {' '.join(path)} {p.opts[0]}"
        assert p.help and p.help.strip(), f"{where}: no help text"
        # Rich reads [...] as markup and drops it: notes go through Typer's own fields
        assert not re.search(r"(?<!\\)\[[a-z]", p.help), f"{where}: a bracketed note {p.help!r}"
        if p.envvar:
            assert p.show_envvar, f"{where}: reads {p.envvar} but --help does not say so"
        flag = getattr(p, "is_flag", False)
        if p.default not in (None, (), []) and not (flag and p.default is False):
            assert p.show_default, f"{where}: default {p.default!r} not shown"
        if not flag and p.metavar is not None:
            assert PLACEHOLDER.match(p.metavar), f"{where}: placeholder {p.metavar!r}"
        if not flag and p.param_type_name == "option" and p.metavar is None:
            # no metavar: only a choice, whose values Typer shows
            assert p.type_descriptor.is_choice, f"{where}: no placeholder"


def test_json_is_named_the_short_form_of_format_json_where_both_are():
    """A command that takes --format says --json is its short form (it said "machine-
    readable JSON output", as in the commands whose only machine output --json is)."""
    both = [(path, cmd) for path, cmd in ALL
            if {"--format", "--json"} <= {o for p in cmd.params for o in p.opts}]
    assert len(both) >= 9
    for path, cmd in both:
        json_help = next(p.help for p in cmd.params if "--json" in p.opts)
        assert json_help == "Short for --format json.", path


def _help(*path) -> str:
    r = run(*path, "--help", env={"COLUMNS": "250", "TERMINAL_WIDTH": "250"})
    assert r.exit_code == 0, r.output
    return " ".join(r.output.split())


@pytest.mark.parametrize("path,cmd", ALL, ids=IDS)
def test_help_names_each_environment_variable_and_default(path, cmd):
    text = _help(*path)
    for p in _options(cmd):
        if p.envvar:
            assert f"env var: {p.envvar}" in text, f"{path} {p.opts[0]}"
        if isinstance(p.show_default, str):
            assert f"default: ({p.show_default})" in text, f"{path} {p.opts[0]}"


@pytest.mark.parametrize("path", [(), *(p for p, _ in ALL)], ids=["seasalt", *IDS])
def test_a_flag_shows_no_placeholder(path):
    """Typer wrote ``--json <bool>``, as if the flag took a value; a flag shows none."""
    text = _help(*path)
    assert "<bool>" not in text
    assert re.search(r"--help -h Show this message and exit", text)


@pytest.mark.parametrize("path", [(), *(p for p, _ in ALL)], ids=["seasalt", *IDS])
def test_h_is_short_for_help_everywhere(path):
    """`-h` was refused as "No such option" (exit 2) where most command-line tools take it."""
    short = run(*path, "-h", env={"COLUMNS": "250", "TERMINAL_WIDTH": "250"})
    assert short.exit_code == 0, short.output
    assert " ".join(short.output.split()) == _help(*path)


@pytest.mark.parametrize("path,cmd", ALL, ids=IDS)
def test_an_argument_shows_its_placeholder_without_a_python_type(path, cmd):
    """Typer wrote `PATH <list[str]>` and `GAME <str>` beside the placeholder."""
    arguments = [p for p in cmd.params if p.param_type_name == "argument"]
    text = _help(*path)
    for p in arguments:
        shown = p.metavar or p.name.upper()
        assert re.search(rf"\b{re.escape(shown)}\b", text), (path, shown)
    assert not re.search(r"<(list\[)?(str|int|path|float)\]?>", text), path


def test_db_help_names_the_variable_and_the_default():
    """The report of issue 16: `seasalt import --help` said nothing of SEASALT_DB."""
    text = _help("import")
    assert "env var: SEASALT_DB" in text and "default: seasalt.duckdb" in text


def test_db_comes_from_the_environment(tmp_path):
    missing = tmp_path / "from-env.duckdb"
    r = run("games", env={"SEASALT_DB": str(missing)})
    assert r.exit_code == 1 and str(missing) in r.stderr


# ------------------------------------------------------------------ point 2

def test_version_is_the_package_metadata():
    r = run("--version")
    assert r.exit_code == 0
    assert r.stdout.strip() == f"seasalt {metadata.version('seasalt-log')}"


def test_shell_completion_is_offered():
    text = _help()
    assert "--install-completion" in text and "--show-completion" in text
    # the shell named rather than detected from the parent processes (none may be a shell):
    # Typer reads this variable when the app is built, hence a fresh process
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    r = subprocess.run([sys.executable, "-m", "seasalt_cli", "--show-completion", "bash"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "complete" in r.stdout, r.stderr


@pytest.mark.parametrize("module", ["seasalt_cli", "seasalt_log"])
def test_python_m_runs_the_cli(module):
    done = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("seasalt ")


@pytest.mark.parametrize("args,expected", [
    (["games", "--bogus"], "No such option: --bogus"),
    (["query", "SELECT 1", "--format", "xml"], "'xml' is not one of"),
    (["replay"], "Missing argument 'GAME'"),
    (["query", "-- a note\nSELECT 1"], "'-- a note SELECT 1' starts with '-', so it was read as "
     "an option: write -- before it (seasalt query [OPTIONS] -- SQL), or read it from --file "
     "FILE or stdin (-)"),
    (["show", "-- x"], "write -- before it (seasalt show [OPTIONS] -- GAME) (see"),
    (["simulate", "--games", "1", "--players", "2", "--seed", "1", "--ruleset", "pepper"],
     "'pepper' is not one of"),
])
def test_usage_errors_are_one_line_with_exit_code_2(args, expected):
    r = run(*args)
    assert r.exit_code == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: ") and expected in lines[0]
    assert lines[0].endswith(f"(see: seasalt {args[0]} --help)")
    assert "╭" not in r.output


def test_query_help_says_where_sql_starting_with_a_dash_goes():
    assert "SQL that starts with - (a -- comment) goes after --: query -- SQL." in _help("query")


def _log(tmp_path) -> Path:
    log = tmp_path / "g.jsonl"
    assert run("simulate", "--games", "2", "--players", "2", "--seed", "3",
               "--out", log).exit_code == 0
    return log


def test_quiet_and_verbose(tmp_path):
    log = _log(tmp_path)
    db = tmp_path / "s.duckdb"
    r = run("import", log, "--db", db)
    assert r.exit_code == 0 and r.stderr.startswith("games: 2 new")
    r = run("--quiet", "import", log, "--db", db)
    assert r.exit_code == 0 and r.stderr == ""
    r = run("-q", "games", "--db", db, "--json")
    assert r.exit_code == 0 and r.stderr == "" and '"game_id"' in r.stdout
    r = run("--verbose", "games", "--db", db, "--json")
    assert r.exit_code == 0 and "games: done in" in r.stderr
    # errors stay, one line, even with --quiet
    r = run("-q", "show", "nope", "--db", db)
    assert r.exit_code == 1 and r.stderr.count("\n") == 1 and r.stderr.startswith("error: ")
    r = run("-q", "-v", "games")
    assert r.exit_code == 2 and "not both" in r.stderr


# ------------------------------------------------------------------ point 3

def test_a_short_flag_means_one_thing_everywhere():
    meaning: dict[str, set[str]] = {}
    for _, cmd in ALL:
        for p in _options(cmd):
            if p.param_type_name != "option":
                continue
            longs = [o for o in p.opts if o.startswith("--")]
            for short in (o for o in p.opts if not o.startswith("--")):
                meaning.setdefault(short, set()).update(longs)
    assert {s: m for s, m in meaning.items() if len(m) != 1} == {}
    assert meaning["-f"] == {"--follow"} and meaning["-o"] == {"--out"}


def test_an_option_has_one_placeholder_everywhere():
    seen: dict[str, set] = {}
    for _, cmd in ALL:
        for p in _options(cmd):
            if p.param_type_name == "option" and not getattr(p, "is_flag", False):
                seen.setdefault(p.opts[0], set()).add(p.metavar)
    assert seen.pop("--out") == {"FILE", "DIR"}     # archive writes a directory
    assert {o: m for o, m in seen.items() if len(m) != 1} == {}
    assert "--output" not in seen      # one spelling: --out


def test_serve_shows_the_service_defaults():
    from seasalt_cli.serve_cmd import SHOWN_DEFAULTS
    from seasalt_log.http.app import DEFAULT_MAX_BODY
    from seasalt_log.http.live import MAX_CACHED_GAMES
    assert SHOWN_DEFAULTS == {"max_body": f"{DEFAULT_MAX_BODY // 2**20} MiB",
                              "live_games": str(MAX_CACHED_GAMES)}


# ------------------------------------------------------------------ point 9

def test_rebuild_refuses_a_missing_store(tmp_path):
    typo = tmp_path / "typo.duckdb"
    r = run("rebuild", "--db", typo)
    assert r.exit_code == 1 and r.stderr == f"error: no store at {typo} (import a log first, or pass --db)\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["games"], ["show", "g"], ["replay", "g"], ["log", "g"],
                                  ["rescore", "g", "--round", "1"], ["export", "--all"],
                                  ["query", "SELECT 1"], ["stats", "win-rates"], ["rebuild"],
                                  ["verify"], ["backup", "copy.duckdb"], ["compact"]])
def test_readers_refuse_a_missing_store_and_create_nothing(tmp_path, args, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run(*args, "--db", tmp_path / "typo.duckdb")
    assert r.exit_code == 1 and "typo.duckdb" in r.stderr and r.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_serve_says_serving_only_once_bound(tmp_path):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "seasalt_cli", "serve", "--db",
                               str(tmp_path / "s.duckdb"), "--port", str(port)],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "serving" not in done.stderr
    assert done.stderr.splitlines()[-1] == (f"error: could not start the service on "
                                            f"127.0.0.1:{port} (see the message above)")


# ------------------------------------------------------------------ point 10

FIXTURES = ROOT / "fixtures" / "rules"


@pytest.mark.parametrize("name,rule,line", [
    # RULES.md R-FLOW-TAKE: "the event right after a boat pair is the take it gives"
    ("boat-without-take", "R-FLOW-TAKE", 9),
    # RULES.md R-LAST-3: revealed hands (the caller's, a finished final turn's) are not stolen from
    ("shark-caller-hand", "R-LAST-3", 18),
    ("shark-revealed-hand", "R-LAST-3", 21),
])
def test_where_two_rules_meet_every_face_names_the_documented_rule(tmp_path, name, rule, line):
    import httpx
    from seasalt_log.http.app import create_app
    from seasalt_log.http.server import ServerThread

    log = FIXTURES / f"{name}.illegal.jsonl"
    for args in (["validate", log], ["import", log, "--db", tmp_path / "s.duckdb"]):
        r = run(*args)
        assert r.exit_code == 1
        first = r.stderr.splitlines()[0]
        assert first.startswith(f"error: {log}:{line}: ") and f": {rule}: " in first, first
    lines = log.read_text().splitlines()
    with ServerThread(create_app(tmp_path / "live.duckdb")) as url, \
            httpx.Client(base_url=url, timeout=30,
                         headers={"Content-Type": "application/json"}) as c:
        game = json.loads(lines[0])["game_id"]
        assert c.post("/games", content=lines[0]).status_code in (200, 201)
        for n, text in enumerate(lines[1:line - 1], 2):
            r = c.post(f"/games/{game}/events", content=text, headers={"If-Match": f'"{n - 1}"'})
            assert r.status_code == 200, r.text
        r = c.post(f"/games/{game}/events", content=lines[line - 1],
                   headers={"If-Match": f'"{line - 1}"'})
        assert r.status_code == 422 and r.json()["rule"] == rule


def test_stats_refuses_a_report_with_list():
    r = run("stats", "win-rates", "--list")
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
    assert "give win-rates or --list, not both" in r.stderr


@pytest.mark.parametrize("args", [("--player", "Ann"), ("--players", "3"),
                                  ("--list", "--player", "Ann")])
def test_stats_refuses_a_filter_without_a_report(args):
    r = run("stats", *args)
    assert r.exit_code == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
    assert f"{args[-2]} filters a report: give a REPORT with it" in r.stderr
    assert r.stdout == ""


# ------------------------------------------------------------------ point 9: before / after

@pytest.fixture(scope="module")
def sim_store(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sim")
    _log(tmp)
    db = tmp / "s.duckdb"
    assert run("import", tmp / "g.jsonl", "--db", db).exit_code == 0
    return db


@pytest.mark.parametrize("point,expected", [
    (["--round", "1", "--turn", "0"], "round 1, before turn 1"),
    (["--round", "1", "--turn", "2"], "round 1, after turn 2"),
    (["--round", "1"], "after round 1"),
])
def test_replay_says_before_or_after_a_turn(sim_store, point, expected):
    r = run("replay", "sim-3-0", *point, "--db", sim_store)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0].startswith(f"Game sim-3-0: {expected} (seq ")
    view = json.loads(run("replay", "sim-3-0", *point, "--db", sim_store, "--json").stdout)
    if "--turn" in point:      # the state after turn T is the one before turn T+1's take
        assert (view["turn"], view["step"]) == (int(point[3]) + 1, "take")


def test_a_state_mid_turn_is_during_it(sim_store):
    events = json.loads(run("log", "sim-3-0", "--db", sim_store, "--json").stdout)
    take = next(e for e in events if e["round"] == 1 and e["turn"] == 2)   # turn 2's take
    r = run("replay", "sim-3-0", "--seq", take["seq"], "--db", sim_store)
    assert r.stdout.splitlines()[0] == f"Game sim-3-0: round 1, during turn 2 (seq {take['seq']})"


def test_the_http_state_says_the_same_position(sim_store, tmp_path):
    import httpx
    from seasalt_log.http.app import create_app
    from seasalt_log.http.server import ServerThread

    db = tmp_path / "copy.duckdb"
    assert run("backup", db, "--db", sim_store).exit_code == 0
    cli = run("replay", "sim-3-0", "--round", "1", "--turn", "2", "--db", db).stdout
    with ServerThread(create_app(db)) as url:
        r = httpx.get(f"{url}/games/sim-3-0/state", params={"round": 1, "turn": 2}, timeout=30)
    assert r.status_code == 200 and r.headers["Seasalt-Position"] == "round 1, after turn 2"
    assert cli.startswith(f"Game sim-3-0: {r.headers['Seasalt-Position']} (seq ")


def test_follow_steps_a_turn_per_key_on_a_terminal(sim_store, monkeypatch):
    from seasalt_cli import replay_cmds
    keys = iter(["n", "q"])
    monkeypatch.setattr(replay_cmds, "_interactive", lambda: True)
    monkeypatch.setattr(replay_cmds.typer, "getchar", lambda: next(keys))
    r = run("replay", "sim-3-0", "--round", "1", "--follow", "--db", sim_store)
    assert r.exit_code == 0 and r.stdout.count("== Round 1, turn ") == 2   # then q: stopped
    monkeypatch.setattr(replay_cmds, "_interactive", lambda: False)
    r = run("replay", "sim-3-0", "--round", "1", "--follow", "--db", sim_store)
    turns = len(json.loads(run("replay", "sim-3-0", "--round", "1", "--follow", "--json",
                               "--db", sim_store).stdout))
    assert turns > 2 and r.stdout.count("== Round 1, turn ") == turns


@pytest.mark.parametrize("path,cmd", ALL, ids=IDS)
def test_help_names_only_documents_and_sections_that_exist(path, cmd):
    """A document or a section of RULES.md that --help points to is there to read."""
    texts = [cmd.help or ""] + [p.help or "" for p in cmd.params if getattr(p, "help", None)]
    text = " ".join(" ".join(texts).split())
    for name in re.findall(r"\b([A-Z][A-Z_]+)(?:\.md)?\s+§", text) + re.findall(r"\b(\w+)\.md\b", text):
        assert (ROOT / "docs" / f"{name}.md").is_file(), f"{' '.join(path)}: {name}"
    headings = (ROOT / "docs" / "RULES.md").read_text()
    for section in re.findall(r"RULES\.md §(\d+)", text):
        assert re.search(rf"^## {section}\. ", headings, re.M), f"{' '.join(path)}: §{section}"


def test_help_paragraphs_are_wrapped_to_the_terminal_not_to_the_docstring():
    """A docstring's line breaks are not kept: Rich wraps each paragraph itself (kept breaks
    left every wrapped line ragged, `statements that change data,` / `settings or files`)."""
    r = run("query", "--help")
    assert r.exit_code == 0
    assert "change data, settings or files" in " ".join(r.output.split("\n"))
    for path, cmd in ALL:
        for paragraph in (cmd.help or "").split("\n\n"):
            assert "\n" not in paragraph, " ".join(path)


def test_ctrl_c_while_the_command_starts_is_one_line_with_exit_code_130():
    """Ctrl-C during the imports of start-up (a second on a loaded machine) prints no
    traceback: one line, exit code 130, as during a command."""
    code = ("import sys\n"
            "class Stop:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'seasalt_log.engine':\n"
            "            raise KeyboardInterrupt\n"
            "sys.meta_path.insert(0, Stop())\n"
            "from seasalt_cli.main import main\n"
            "main()\n")
    proc = subprocess.run([sys.executable, "-c", code, "games"], capture_output=True, text=True,
                          timeout=60)
    assert (proc.returncode, proc.stderr) == (130, "error: interrupted\n")


def test_ctrl_c_while_the_command_line_is_parsed_is_an_interruption(monkeypatch):
    """Typer ends on Ctrl-C outside a command with exit code 130 and no word: it says so."""
    from typer.core import TyperGroup

    def stop(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(TyperGroup, "make_context", stop)
    r = run("games")
    assert (r.exit_code, r.stderr.strip()) == (130, "error: interrupted")


@pytest.mark.parametrize("name", ["replay", "log", "rescore"])
def test_text_commands_do_not_promise_csv_when_piped(name):
    """replay, log and rescore print their text when piped (README, "Output formats"): their
    --format help says so, not the "else csv" of the tabular commands."""
    r = run(name, "--help")
    text = " ".join(re.sub("[│╭╮╰╯─]", " ", r.output).split())     # Rich's panel, any width
    assert r.exit_code == 0 and "else csv" not in text and "on a terminal or piped" in text


def test_out_dash_is_standard_output(tmp_path, monkeypatch):
    """`--out -` writes to standard output, as `-` reads standard input for `import`; it
    made a file named "-"."""
    monkeypatch.chdir(tmp_path)
    args = ["--games", "1", "--players", "2", "--seed", "1"]
    plain = run("simulate", *args)
    dashed = run("simulate", *args, "--out", "-")
    assert dashed.exit_code == 0 and dashed.stdout == plain.stdout and plain.stdout
    assert runner.invoke(app, ["import", "-"], input=plain.stdout).exit_code == 0
    r = run("stats", "overview", "-o", "-", "--format", "csv")
    assert r.exit_code == 0 and r.stdout.startswith("players,games")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seasalt.duckdb"]


def test_quiet_serve_prints_no_server_chatter(tmp_path):
    """`seasalt -q serve` keeps to errors: uvicorn's INFO lines (started, waiting, shutting
    down) are messages --quiet hides; the reason it could not start stays."""
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "seasalt_cli", "-q", "serve", "--db",
                               str(tmp_path / "s.duckdb"), "--port", str(port)],
                              capture_output=True, text=True, timeout=120)
    lines = done.stderr.splitlines()
    assert done.returncode == 1 and [x for x in lines if x.startswith("INFO")] == [], lines
    assert "address already in use" in done.stderr
    assert lines[-1].startswith("error: could not start the service")


def test_the_docs_show_the_error_words_as_printed(tmp_path):
    """Each changed error is documented where a reader looks for it, in the words the code
    prints: an unknown game's "did you mean" (README, HTTP.md's 404), "query failed:" and
    "query refused:" (SQL.md's `seasalt query`), 409 `game_exists` (RULES.md's CONFLICT,
    README's statuses)."""
    from seasalt_log.errors import UnknownGameError
    from seasalt_log.store.sandbox import query_failed
    text = {name: " ".join((ROOT / name).read_text().split()) for name in   # lines joined
            ("README.md", "docs/HTTP.md", "docs/SQL.md", "docs/RULES.md")}
    assert f"`error: {UnknownGameError('demo', ['demo-1', 'demo-2'])}`" in text["README.md"]
    assert "; did you mean demo-1?" in text["docs/HTTP.md"]
    assert str(query_failed('Parser Error: syntax error at or near "SELEC"')) in text["docs/SQL.md"]
    assert "`query refused: INSERT statements may not run here;" in text["docs/SQL.md"]
    assert "409 `game_exists`" in text["docs/RULES.md"]
    assert "`POST /games` of an id already stored" in text["README.md"]
