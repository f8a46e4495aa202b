"""CLI tests of ``seasalt replay | log | rescore`` through Typer's runner, on a store filled
by ``seasalt import`` from hand-written logs."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log.importers.jsonl import derive_game_id, read_games

try:
    from .test_replay import DEMO, LOST, MERMAIDS, codes_in
except ImportError:    # tests/ run as a plain directory
    from test_replay import DEMO, LOST, MERMAIDS, codes_in  # type: ignore[no-redef]

runner = CliRunner()
# LOST without its game_id: the store derives one from the content
ANON = LOST.replace('"game_id":"lost",', "")


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def no_traceback(result) -> None:
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def anon_id() -> str:
    (raw,) = list(read_games(io.BytesIO(ANON.strip().encode())))
    return derive_game_id(raw.events)


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("replay")
    log = tmp / "games.jsonl"
    log.write_text(DEMO.strip() + "\n" + MERMAIDS.strip() + "\n" + ANON.strip() + "\n")
    path = tmp / "tmp.duckdb"
    r = run("import", log, "--db", path)
    assert r.exit_code == 0, r.output
    return path


# ---------------------------------------------------------------- replay

def test_replay_latest(db):
    r = run("replay", "demo", "--db", db)
    assert r.exit_code == 0, r.output
    assert "Game over: Ann wins" in r.stdout
    assert "Last event: Game over (target): Ann wins" in r.stdout
    assert "\x1b" not in r.stdout           # plain text when not on a terminal


def test_replay_to_a_turn(db):
    r = run("replay", "demo", "--round", 1, "--turn", 4, "--db", db)
    assert r.exit_code == 0, r.output
    assert "round 1, after turn 4 (seq 12)" in r.stdout     # the state after turn 4 (issue 16)
    assert "hand (1): crab:black" in r.stdout and "laid: boat:yellow+boat:yellow" in r.stdout
    assert "Last event: Ben ended the turn" in r.stdout


def test_replay_to_a_seq_as_json(db):
    r = run("replay", "demo", "--seq", 3, "--json", "--db", db)
    assert r.exit_code == 0, r.output
    view = json.loads(r.stdout)
    assert view["seq"] == 3 and view["seats"][0]["hand"] == ["sailor:pink"]
    assert view["piles"][1]["top"] == "boat:yellow" and view["viewer"] is None


def test_replay_as_a_player_hides_the_others_hand(db):
    whole = run("replay", "demo", "--round", 1, "--turn", 3, "--db", db)
    assert "sailor:pink" in whole.stdout            # the check below can fail
    r = run("replay", "demo", "--round", 1, "--turn", 3, "--as", "Ben", "--db", db)
    assert r.exit_code == 0, r.output
    assert "As seen by Ben (seat 1)" in r.stdout
    assert "hand (2): hidden" in r.stdout
    assert "sailor:pink" not in r.stdout and "sailor:orange" not in r.stdout
    assert "crab:dark-blue" not in r.stdout        # under the top of pile 0
    r = run("replay", "demo", "--round", 1, "--turn", 3, "--as", "1", "--json", "--db", db)
    view = json.loads(r.stdout)
    assert view["viewer"] == 1 and view["seats"][0]["hand"] is None and view["deck"] is None
    assert view["seats"][0]["hand_size"] == 2
    assert all(p.get("cards") is None for p in view["piles"])
    # the two pile tops and Ben's own card, nothing else
    assert codes_in(r.stdout) == {"fish:black", "shell:grey", "boat:yellow"}


def test_replay_and_log_as_a_spectator_show_no_hand(db):
    """R-VIEW: a spectator (``--as spectator``, as the service reads a reader without a
    seat) sees neither player's hand nor Ben's or Ann's private draws: only the public
    cards, the pile tops; the words say whose view it is."""
    r = run("replay", "demo", "--round", 1, "--turn", 3, "--as", "spectator", "--db", db)
    assert r.exit_code == 0, r.output
    assert "As seen by a spectator" in r.stdout
    assert r.stdout.count("hidden") == 2 and "order not recorded" not in r.stdout
    assert codes_in(r.stdout) == {"fish:black", "shell:grey"}      # the two pile tops
    r = run("replay", "demo", "--round", 1, "--turn", 3, "--as", "spectator", "--json", "--db", db)
    view = json.loads(r.stdout)
    assert view["viewer"] is None and all(s["hand"] is None for s in view["seats"])
    log = run("log", "demo", "--as", "spectator", "--db", db)
    assert log.exit_code == 0, log.output
    assert "octopus:grey" not in log.stdout and "sailor:pink" not in log.stdout


def test_replay_follow(db):
    r = run("replay", "demo", "--round", 1, "--follow", "--as", "ann", "--db", db)
    assert r.exit_code == 0, r.output
    heads = re.findall(r"== Round 1, turn (\d+) ==", r.stdout)
    assert heads == ["1", "2", "3", "4", "5", "6"]
    assert "Ben drew two cards, kept one, discarded crab:black on pile 0" in r.stdout
    assert "Round 1 scored (last_chance, Ann won)" in r.stdout
    r = run("replay", "demo", "--round", 2, "--turn", 8, "--follow", "--json", "--db", db)
    frames = json.loads(r.stdout)
    assert [f["turn"] for f in frames] == [8, 9]
    assert frames[-1]["events"][-1] == "Game over (target): Ann wins"
    assert frames[-1]["state"]["phase"] == "ended"
    # --format jsonl: the same frames, one a line (it was refused: "--follow prints text or
    # one JSON document")
    r = run("replay", "demo", "--round", 2, "--turn", 8, "--follow", "--format", "jsonl",
            "--db", db)
    assert r.exit_code == 0, r.output
    assert [json.loads(line) for line in r.stdout.splitlines()] == frames
    r = run("replay", "demo", "--round", 2, "--follow", "--format", "csv", "--db", db)
    assert (r.exit_code, r.stderr) == (2, "error: --follow prints text, one JSON document or "
                                          "JSON Lines, not --format csv (see: seasalt replay "
                                          "--help)\n")


def test_replay_follow_of_a_round_with_no_turn_yet_shows_its_start(tmp_path):
    """A live game between two rounds: --follow of the round just started has no turn to
    walk; it shows the table at the round's start (and says so on stderr), not nothing."""
    lines = DEMO.strip().replace('"game_id":"demo"', '"game_id":"open"').splitlines()
    cut = next(i for i, line in enumerate(lines) if '"round":2' in line) + 1
    log = tmp_path / "open.jsonl"
    log.write_text("\n".join(lines[:cut]) + "\n")
    assert run("import", log, "--db", tmp_path / "s.duckdb").exit_code == 0
    for more in ([], ["--round", 2], ["--round", 2, "--turn", 0], ["--as", "Ann"]):
        r = run("replay", "open", "--follow", *more, "--db", tmp_path / "s.duckdb")
        assert r.exit_code == 0, (more, r.output)
        # seq 18: the 16 lines of round 1, the round_scored the import adds, round_started
        assert r.stdout.startswith("Game open: round 2, before turn 1 (seq 18)\n"), r.stdout
        assert "Ben to play: take a card" in r.stdout
        assert "Pile 0: top octopus:yellow (1 card)" in r.stdout
        assert r.stderr == "seasalt: round 2 of game open has no turn played yet; the table now:\n"
    r = run("replay", "open", "--follow", "--json", "--db", tmp_path / "s.duckdb")
    assert r.exit_code == 0 and json.loads(r.stdout) == []


def test_replay_of_a_game_without_id(db):
    gid = anon_id()
    r = run("replay", gid, "--round", 1, "--db", db)
    assert r.exit_code == 0, r.output
    assert f"Game {gid}: after round 1" in r.stdout


# ---------------------------------------------------------------- log

def test_log(db):
    r = run("log", "demo", "--db", db)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 40
    assert re.match(r"\s*9\s+r1 t4\s+Ben drew boat:yellow and crab:black, kept boat:yellow", lines[8])
    assert lines[-1].endswith("Game over (target): Ann wins")


def test_log_as_a_player(db):
    r = run("log", "demo", "--as", "Ann", "--db", db)
    assert r.exit_code == 0, r.output
    assert "Ben drew two cards, kept one, discarded crab:black on pile 0" in r.stdout
    assert "octopus:grey" not in r.stdout       # Ben's last draw, never shown to Ann
    whole = run("log", "demo", "--db", db)
    assert "octopus:grey" in whole.stdout
    r = run("log", "demo", "--as", "Ann", "--json", "--db", db)
    entries = json.loads(r.stdout)
    assert len(entries) == 40 and all("event" not in e for e in entries)
    assert "octopus:grey" not in r.stdout
    r = run("log", "demo", "--json", "--db", db)
    entries = json.loads(r.stdout)
    assert entries[8]["event"]["kept"] == "boat:yellow" and entries[8]["turn"] == 4


# ---------------------------------------------------------------- rescore

def test_rescore(db):
    r = run("rescore", "demo", "--round", 1, "--db", db)
    assert r.exit_code == 0, r.output
    assert "Round 1: Ann called LAST CHANCE and won (6 turns)" in r.stdout
    assert "if STOP" in r.stdout
    assert "Stored points and totals match today's engine" in r.stdout
    r = run("rescore", "demo", "--round", 2, "--json", "--db", db)
    data = json.loads(r.stdout)
    assert data["points"] == [2, 9] and data["stored_points"] == [2, 9]
    assert data["what_if"]["call"] == "last_chance" and data["what_if"]["points"] == [3, 10]
    assert data["players"][1]["breakdown"]["collectors"] == 9


def test_rescore_mermaid_round(db):
    r = run("rescore", "mer", "--round", 1, "--db", db)
    assert r.exit_code == 0, r.output
    assert "four mermaids" in r.stdout and "not scored" in r.stdout


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("args, message, code", [
    # exit code 1: what the store holds is not there; 2: a command line that cannot be right
    (["replay", "nope"], "no game with id 'nope' in the store", 1),
    (["log", "nope"], "no game with id 'nope' in the store", 1),
    (["rescore", "nope", "--round", 1], "no game with id 'nope' in the store", 1),
    # a stored id the user may have meant: one it begins, or one spelt alike (any case)
    (["replay", "dem"], "no game with id 'dem' in the store; did you mean demo?", 1),
    (["rescore", "Demo", "--round", 1], "no game with id 'Demo' in the store; did you mean demo?", 1),
    # the words the service says for it (they differed: "has no round 7 (2 rounds)")
    (["replay", "demo", "--round", 7], "game demo has 2 rounds; there is no round 7", 1),
    (["replay", "demo", "--round", 2, "--turn", 31], "round 2 has 9 turns", 1),
    (["replay", "demo", "--seq", 99], "there is no seq 99", 1),
    (["replay", "demo", "--turn", 2], "--turn needs --round", 2),
    (["replay", "demo", "--seq", 2, "--round", 1], "--seq names a point on its own", 2),
    (["replay", "demo", "--seq", 2, "--follow"], "--follow walks a round", 2),
    (["replay", "demo", "--round", 1, "--turn", 9, "--follow"], "round 1 has 6 turns", 1),
    (["replay", "demo", "--as", "Zed"], "no player 'Zed'", 1),
    (["log", "demo", "--as", "5"], "no player '5'", 1),
    (["rescore", "demo", "--round", 3], "game demo has 2 rounds; there is no round 3", 1),
])
def test_errors(db, args, message, code):
    r = run(*args, "--db", db)
    no_traceback(r)
    assert r.exit_code == code
    assert r.stdout == ""
    assert r.stderr.startswith("error: ") and message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_missing_store(tmp_path):
    r = run("replay", "demo", "--db", tmp_path / "none.duckdb")
    no_traceback(r)
    assert r.exit_code == 1 and "no store at" in r.stderr


def test_rescore_needs_a_round(db):
    r = run("rescore", "demo", "--db", db)
    assert r.exit_code != 0 and "--round" in r.output
