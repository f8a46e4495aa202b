"""The reading commands while `seasalt serve` holds the store (issue 15, point 4): `games`,
`show`, `replay`, `log`, `rescore`, `query` and `stats` through `--url` and through the
service's discovery file, against a real `seasalt serve` subprocess.

The oracle is each command run on the store directly, before the service starts: through
the service it must print the same bytes for the same reader (the table). Readers with less
(a spectator, a seat) are checked against RULES.md §7 (R-VIEW): no other player's hand, no
deck order.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.http.access import Credentials
from seasalt_log.http.discovery import discovery_path
from tests.randomplay import play_random_game

TOKEN = "cli-reader-token"
ENDED_GAME = "cli-ended"
OPEN_GAME = "cli-open"
RUN = [sys.executable, "-c", "import sys; from seasalt_cli.main import app; sys.exit(app())"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _open_game() -> list[ev.Event]:
    """A game cut in the middle of round 2, after a few turns and before any call, so that
    no hand of round 2 has been shown to anyone (R-VIEW)."""
    for seed in range(50):
        game = play_random_game(seed, 3, call_rate=0.3)
        game[0] = ev.GameStarted(players=game[0].players, game_id=OPEN_GAME, target=game[0].target)
        start = next((i for i, e in enumerate(game)
                      if type(e) is ev.RoundStarted and e.round == 2), None)
        if start is None:
            continue
        cut = start + 1
        ended = 0
        while cut < len(game) and ended < 4:
            if type(game[cut]) in (ev.StopCalled, ev.LastChanceCalled, ev.RoundScored):
                break
            ended += type(game[cut]) is ev.TurnEnded
            cut += 1
        if ended == 4:
            return game[:cut]
    raise AssertionError("no random game reached round 2 without an early call")


def _run(args: list[str], env: dict | None = None):
    result = CliRunner().invoke(app, args, env={"SEASALT_URL": None, "SEASALT_TOKEN": None,
                                                **(env or {})})
    return result


# every reading command, with what it needs; "{db}" is the store
COMMANDS = {
    "games": ["games", "--json"],
    "games-sorted": ["games", "--json", "--sort", "events", "--desc"],
    "games-page": ["games", "--format", "jsonl", "--sort", "events", "--offset", "1", "--limit", "1"],
    "games-csv": ["games", "--format", "csv", "--sort", "rounds"],
    "show": ["show", ENDED_GAME, "--json"],
    "replay": ["replay", ENDED_GAME, "--round", "2", "--turn", "3"],
    "replay-json": ["replay", OPEN_GAME, "--json"],
    "replay-seq": ["replay", OPEN_GAME, "--seq", "5", "--json"],
    "replay-as": ["replay", OPEN_GAME, "--as", "1", "--json"],
    "follow": ["replay", ENDED_GAME, "--follow", "--round", "1", "--json"],
    "follow-text": ["replay", OPEN_GAME, "--follow", "--round", "2", "--turn", "2"],
    "log": ["log", OPEN_GAME, "--json"],
    "log-text": ["log", ENDED_GAME],
    "log-as": ["log", OPEN_GAME, "--as", "1", "--json"],
    "rescore": ["rescore", ENDED_GAME, "--round", "1", "--json"],
    "rescore-text": ["rescore", OPEN_GAME, "--round", "1"],
    "query": ["query", "--format", "csv", "SELECT game_id, events FROM games ORDER BY game_id"],
    # a DECIMAL keeps its scale through the service's JSON; DOUBLEs stay floats
    "query-types": ["query", "--format", "csv", "SELECT 1.50::DECIMAL(5,2) AS d, 0.1::DOUBLE AS f, "
                    "1e16::DOUBLE AS g, [0.5]::DOUBLE[] AS l, 2::BIGINT AS n"],
    # a JSON column travels as JSON values and is printed as its text again
    "query-json": ["query", "--format", "csv", "SELECT json_object('a', [1, 2.5], 'b', 'é', "
                   "'c', NULL) AS j, NULL::JSON AS n, '[0.1]'::JSON AS l"],
    "stats": ["stats", "win-rates", "--format", "csv"],
    "stats-player": ["stats", "calls", "--format", "json", "--player", "Ben"],
}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(store, url, the local outputs of COMMANDS, the open game's events): the store is
    made and every command run on it directly, then `seasalt serve` holds it."""
    tmp = tmp_path_factory.mktemp("cli-served")
    db = tmp / "held.duckdb"
    ended = play_random_game(7, 3, call_rate=0.5)
    ended[0] = ev.GameStarted(players=ended[0].players, game_id=ENDED_GAME, target=ended[0].target)
    opened = _open_game()
    log = tmp / "games.jsonl"
    log.write_bytes(b"".join(ev.encode(e) + b"\n" for e in ended + opened))
    r = _run(["import", str(log), "--db", str(db)])
    assert r.exit_code == 0, r.output
    local = {}
    for name, args in COMMANDS.items():
        r = _run([*args, "--db", str(db)])
        assert r.exit_code == 0, (name, r.output)
        local[name] = r.stdout
    port = _free_port()
    proc = subprocess.Popen([*RUN, "serve", "--db", str(db), "--port", str(port)],
                            env={**os.environ, "SEASALT_TOKEN": TOKEN},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not discovery_path(db).exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the service did not announce itself"
            time.sleep(0.05)
        yield db, url, local, opened
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
    assert not discovery_path(db).exists(), "the discovery file outlived the service"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_through_url_prints_what_it_prints_locally(served, name):
    db, url, local, _ = served
    r = _run([*COMMANDS[name], "--url", url, "--token", TOKEN])
    assert r.exit_code == 0, r.output
    assert r.stdout == local[name]
    # SEASALT_URL and SEASALT_TOKEN say the same
    r = _run(COMMANDS[name], env={"SEASALT_URL": url, "SEASALT_TOKEN": TOKEN})
    assert r.exit_code == 0, r.output
    assert r.stdout == local[name]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_finds_the_service_holding_the_store(served, name):
    db, url, local, _ = served
    r = _run([*COMMANDS[name], "--db", str(db), "--token", TOKEN])
    assert r.exit_code == 0, r.output
    assert r.stdout == local[name]
    assert "is held by `seasalt serve`" in r.stderr and url in r.stderr


def test_quiet_keeps_the_note_about_the_service_off_stderr(served):
    """--quiet: only results and errors; the note that the service answers is neither."""
    db, url, local, _ = served
    name = next(iter(COMMANDS))
    r = _run(["--quiet", *COMMANDS[name], "--db", str(db), "--token", TOKEN])
    assert r.exit_code == 0, r.output
    assert r.stdout == local[name] and r.stderr == ""


def test_a_query_cut_at_the_services_row_limit_says_so(served):
    """POST /query answers 10,000 rows at most: the command prints them and says on stderr
    that more matched, instead of passing a cut result off as the whole."""
    db, url, _, _ = served
    r = _run(["query", "--format", "csv", "SELECT * FROM range(10001)", "--url", url,
              "--token", TOKEN])
    assert r.exit_code == 0, r.output
    assert r.stdout.count("\n") == 1 + 10_000
    assert "first 10,000 rows" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = _run(["query", "--format", "csv", "SELECT * FROM range(10000)", "--url", url,
              "--token", TOKEN])
    assert r.exit_code == 0 and r.stderr == "", r.stderr


def test_a_spectator_sees_no_hand_and_no_deck(served):
    """Without a credential the service answers as to a spectator (R-VIEW): in round 2
    before any call, no hand and no deck order, and the log never names a drawn card."""
    db, url, _, opened = served
    r = _run(["replay", OPEN_GAME, "--url", url, "--json"])
    assert r.exit_code == 0, r.output
    view = json.loads(r.stdout)
    assert view["deck"] is None
    assert all(seat["hand"] is None for seat in view["seats"])
    r = _run(["log", OPEN_GAME, "--url", url, "--json"])
    lines = json.loads(r.stdout)
    assert len(lines) == len(opened) and all("event" not in line for line in lines)
    drawn = 0
    for line, e in zip(lines, opened):
        if type(e) is ev.DeckDrawn and len(e.cards) == 2 and e.cards[0] != e.cards[1]:
            drawn += 1                    # which card was kept is private (R-VIEW)
            assert e.kept not in line["text"], line["text"]
    assert drawn
    # the rescore shows every hand: refused while round 2 is in play (R-VIEW)
    r = _run(["rescore", OPEN_GAME, "--round", "2", "--url", url])
    assert r.exit_code == 1
    assert r.output.count("\n") == 1 and "403" in r.output


@pytest.mark.parametrize("args,words", [
    (["--round", "1", "--turn", "999"], "there is no turn 999"),
    (["--follow", "--round", "1", "--turn", "999"], "there is no turn 999"),
    (["--round", "99"], "there is no round 99")])
def test_a_point_the_game_lacks_is_404_through_url(served, args, words):
    """replay of a round or turn the game does not have through --url: one line saying
    what is missing, exit 1; the service answers 404 for it, a well-formed point that does
    not exist (a turn was a 400)."""
    _, url, _, _ = served
    r = _run(["replay", ENDED_GAME, *args, "--url", url, "--token", TOKEN])
    assert r.exit_code == 1 and r.stderr.count("\n") == 1, r.output
    assert f"the service at {url} answered 404: " in r.stderr and words in r.stderr


def test_a_seat_reads_its_own_view_only(served):
    db, url, local, _ = served
    seat1 = Credentials(TOKEN).for_game(OPEN_GAME, 3)["seat_tokens"][1]
    mine = _run(["replay", OPEN_GAME, "--as", "1", "--json", "--url", url, "--token", seat1])
    assert mine.exit_code == 0, mine.output
    assert mine.stdout == local["replay-as"]
    view = json.loads(mine.stdout)
    assert view["seats"][1]["hand"] is not None
    assert all(s["hand"] is None for s in view["seats"] if s["seat"] != 1)
    theirs = _run(["replay", OPEN_GAME, "--as", "0", "--url", url, "--token", seat1])
    assert theirs.exit_code == 1 and "403" in theirs.output
    wrong = _run(["log", OPEN_GAME, "--url", url, "--token", "not-a-credential"])
    assert wrong.exit_code == 1 and "401" in wrong.output


def test_pages_follow_their_link_headers(served):
    """Every list endpoint pages with ``limit`` and a ``Link: rel="next"`` header; the pages
    put together are the whole list."""
    _, url, _, opened = served
    auth = {"Authorization": f"Bearer {TOKEN}"}

    def walk(path):
        items, pages = [], 0
        while path:
            r = httpx.get(url + path, headers=auth, timeout=30)
            assert r.status_code == 200, r.text
            page = r.json()
            items += page["rows"] if isinstance(page, dict) else page
            pages += 1
            link = r.headers.get("link")
            path = link[1:link.index(">")] if link else None
        return items, pages

    whole = httpx.get(f"{url}/games/{OPEN_GAME}/events", headers=auth).json()
    assert len(whole) == len(opened)
    for base, size in ((f"/games/{OPEN_GAME}/events", 7), (f"/games/{OPEN_GAME}/log", 10),
                       ("/games", 1), ("/stats/win-rates", 2)):
        full = httpx.get(url + base, headers=auth).json()
        full = full["rows"] if isinstance(full, dict) else full
        got, pages = walk(f"{base}?limit={size}")
        assert got == full
        assert pages == -(-len(full) // size) and pages > 1
    r = httpx.get(f"{url}/stats/win-rates?cursor=x")
    assert r.status_code == 400
    # a cursor at the last game (or past it): an empty page, no Link (docs/HTTP.md)
    last = httpx.get(url + "/games", headers=auth).json()[-1]["game_id"]
    for cursor in (last, "zzz"):
        r = httpx.get(f"{url}/games?cursor={cursor}", headers=auth)
        assert (r.status_code, r.json(), r.headers.get("link")) == (200, [], None)
    for path in (f"/games/{OPEN_GAME}/events", f"/games/{OPEN_GAME}/log"):
        r = httpx.get(f"{url}{path}?after={len(opened)}", headers=auth)
        assert (r.status_code, r.json(), r.headers.get("link")) == (200, [], None)


def test_serving_a_served_store_names_the_service(served):
    """A second `seasalt serve` of a store a service holds: one line naming the store, the
    service's process and URL, and what to do; nothing else starts."""
    db, url, _, _ = served
    pid = json.loads(discovery_path(db).read_text())["pid"]
    r = _run(["serve", "--db", str(db), "--port", str(_free_port())])
    assert r.exit_code == 1 and r.output.count("\n") == 1, r.output
    assert (f"error: the store {db} is already served by `seasalt serve` (process {pid}) at "
            f"{url}: use that service, or stop it") in r.output
    assert json.loads(discovery_path(db).read_text())["pid"] == pid


def test_a_busy_store_without_a_service_names_url(tmp_path):
    """Another process holds the store and no live service announced itself (a stale
    discovery file of a process that is gone is ignored): one line naming --url."""
    db = tmp_path / "busy.duckdb"
    r = _run(["simulate", "--games", "1", "--players", "2", "--seed", "3", "--db", str(db)])
    assert r.exit_code == 0, r.output
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    discovery_path(db).write_text(json.dumps({"url": "http://127.0.0.1:9", "pid": gone.pid}))
    holder = subprocess.Popen([sys.executable, "-c",
                               "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); time.sleep(120)", str(db)],
                              stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"held\n"
        for args in (["games"], ["log", "sim-3-0"], ["stats", "win-rates"], ["query", "SELECT 1"]):
            r = _run([*args, "--db", str(db)])
            assert r.exit_code == 1, r.output
            assert r.output.count("\n") == 1, r.output
            assert "busy" in r.output and "--url" in r.output
            assert r.output.startswith(f"error: the store {db} is busy: process {holder.pid} ("), r.output
        # the service cannot have it either: one line naming the process that holds it
        r = _run(["serve", "--db", str(db), "--port", str(_free_port())])
        assert r.exit_code == 1 and r.output.count("\n") == 1, r.output
        assert r.output.startswith(f"error: the store {db} is busy: process {holder.pid} (")
        assert "stop that process, or wait for it to finish" in r.output
        # a live process that does not answer at the URL (a reused pid) is no service either
        discovery_path(db).write_text(json.dumps({"url": f"http://127.0.0.1:{_free_port()}",
                                                  "pid": os.getpid()}))
        r = _run(["show", "sim-3-0", "--db", str(db)])
        assert r.exit_code == 1 and "busy" in r.output and "--url" in r.output, r.output
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("url", ["nonsense", "ftp://host", "http://[::1", "http://127.0.0.1:1/x y"])
@pytest.mark.parametrize("args", [["games"], ["show", "g"], ["stats", "overview"],
                                  ["backup", "copy.duckdb"]])
def test_a_malformed_url_is_a_one_line_error(tmp_path, url, args):
    """A --url that is no service's URL says so in one line, exit 1 (it was an "unexpected
    ValueError / InvalidURL ... a bug")."""
    r = CliRunner().invoke(app, [*args, "--url", url, "--db", str(tmp_path / "s.duckdb")])
    assert r.exit_code == 1, r.output
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "unexpected" not in lines[0], lines
    assert url in lines[0]
    assert not (tmp_path / "copy.duckdb").exists()


def test_a_service_that_cannot_start_leaves_no_new_store(tmp_path):
    """`seasalt serve --db NEW` on a port in use: exit 1, and the store it made on the way
    is removed again (as a failed first import's is); a store there before is kept."""
    db = tmp_path / "new.duckdb"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        r = subprocess.run([*RUN, "serve", "--db", str(db), "--port", port],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 1 and f"could not start the service on 127.0.0.1:{port}" in r.stderr
        assert not db.exists() and not Path(f"{db}.wal").exists()
        assert _run(["simulate", "--games", "1", "--players", "2", "--seed", "3",
                     "--db", str(db)]).exit_code == 0
        before = db.read_bytes()
        r = subprocess.run([*RUN, "serve", "--db", str(db), "--port", port],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 1 and db.read_bytes() == before


@pytest.mark.parametrize("origin, fixed", [
    ("table.example", "https://table.example"), ("https://Table.Example", "https://table.example"),
    ("https://table.example/", "https://table.example"),
    ("https://table.example:443", "https://table.example"),
    ("http://table.example:8080/app", "http://table.example:8080"),
    ("not an origin", None)])
def test_serve_refuses_a_cors_origin_no_browser_sends(tmp_path, origin, fixed):
    """A browser's Origin is compared with --cors-origin as it is: one written otherwise
    (no scheme, capitals, a path, a default port) would never match and leave CORS off
    without a word. Refused in one line naming the origin to give; no store is made."""
    db = tmp_path / "s.duckdb"
    r = _run(["serve", "--db", str(db), "--port", str(_free_port()), "--cors-origin", origin])
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert f"--cors-origin {origin!r} is not an origin as a browser sends it" in r.stderr
    assert (f"give {fixed}, or * for any" if fixed else
            "give one such as https://table.example, or * for any") in r.stderr
    assert not db.exists()


def test_a_games_row_of_an_older_service_decodes():
    """``GET /games`` of a service before the ruleset and event setting (its rows lack
    them) decodes as this version's GameRow, and GameSummary, as the base game without
    events; a row that has them keeps them, and the JSON keeps its order."""
    import msgspec

    from seasalt_log.queries import GameRow, GameSummary
    old = {"game_id": "g", "players": ["A", "B"], "n_players": 2, "target": 40,
           "status": "ended", "rounds_played": 3, "events": 90, "end_reason": "target",
           "winners": [0], "totals": [41, 12], "meta": None}
    row = msgspec.json.decode(json.dumps(old), type=GameRow)
    assert (row.ruleset, row.event_setting) == ("base", None)
    assert msgspec.convert([old], list[GameRow])[0] == row
    summary = msgspec.convert({"game": old, "rounds": []}, GameSummary)
    assert summary.game.rules_words() == "base"
    new = msgspec.convert({**old, "ruleset": "extra-salt", "event_setting": "pepper"}, GameRow)
    assert new.rules_words() == "extra-salt with pepper events"
    assert list(msgspec.to_builtins(new))[3:6] == ["target", "ruleset", "event_setting"]
