"""The web app in a real browser (issue 17): headless Chromium, driven by Playwright,
against ``seasalt serve`` started as a subprocess on a loopback port.

What a page shows is compared with the engine's state at the same point (the state's table
itself, not the view code the server uses); a player's page is checked against the rule of
RULES.md §7 (R-VIEW: another player's hand is hidden until revealed). Screenshots of every
page, phone-sized and desktop, are kept in ``test-artifacts/web/``.

Skipped, with the reason, only when Chromium is not installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from seasalt_log import events as ev
from seasalt_log.replay import steps

from .view_oracle import face_down_shells, hands_visible_to
from .web_oracle import (SPECTATOR, extra_truth, feed_live, hidden_cards_in, hidden_moves, leaked,
                         mid_round, shown_after)

CHROMIUM = os.environ.get("SEASALT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"Chromium is not installed ({CHROMIUM} missing; apt-get install chromium)",
                allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "web"
SEASALT = [str(Path(sys.executable).with_name("seasalt"))]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
# (players, seed) of the simulated games stepped through
GAMES = ((2, 11), (3, 12), (4, 13))
# (players, seed) of the simulated Extra Salt games with the events of Extra Pepper
EXTRA_GAMES = ((2, 15), (4, 16))
REPORTS = ("calls", "duos", "last-chance", "mermaid-wins", "overview", "players",
           "points-by-source", "round-length", "win-rates")


def seasalt(*args: str, cwd: Path):
    """Run a seasalt command in this process (the service alone runs as its own process)."""
    from typer.testing import CliRunner

    from seasalt_cli.main import app
    old = os.getcwd()
    os.chdir(cwd)
    try:
        r = CliRunner().invoke(app, list(args))
    finally:
        os.chdir(old)
    assert r.exit_code == 0, r.output
    return r


def read_jsonl(path: Path) -> dict[str, list[ev.Event]]:
    games: dict[str, list[ev.Event]] = {}
    for line in path.read_bytes().splitlines():
        if line.strip():
            e = ev.decode(line)
            if isinstance(e, ev.GameStarted):
                gid = e.game_id
            games.setdefault(gid, []).append(e)
    return games


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A store with simulated 2-, 3- and 4-player games, what the CLI says of it (read
    before the service holds the store), and ``seasalt serve`` running over it."""
    d = tmp_path_factory.mktemp("web")
    games: dict[str, list[ev.Event]] = {}
    ids = []
    for n, seed in GAMES:
        out = d / f"g{n}.jsonl"
        seasalt("simulate", "--games", "2", "--players", str(n), "--seed", str(seed),
                "--out", str(out), cwd=d)
        got = read_jsonl(out)
        games.update(got)
        ids.append(max(got, key=lambda g: len(got[g])))        # the longer game of the two
        seasalt("import", str(out), "--db", "s.duckdb", cwd=d)
    for n, seed in EXTRA_GAMES:
        out = d / f"x{n}.jsonl"
        seasalt("simulate", "--games", "2", "--players", str(n), "--seed", str(seed),
                "--ruleset", "extra-salt", "--events", "pepper", "--out", str(out), cwd=d)
        got = read_jsonl(out)
        games.update(got)
        ids.append(max(got, key=lambda g: len(got[g])))
        seasalt("import", str(out), "--db", "s.duckdb", cwd=d)
    cli = {name: json.loads(seasalt("stats", name, "--db", "s.duckdb", "--format", "json",
                                    cwd=d).stdout) for name in REPORTS}
    cli["win-rates?players=3"] = json.loads(seasalt("stats", "win-rates", "--players", "3",
                                                    "--db", "s.duckdb", "--format", "json",
                                                    cwd=d).stdout)
    cli["show"] = {gid: json.loads(seasalt("show", gid, "--db", "s.duckdb", "--json", cwd=d).stdout)
                   for gid in ids}
    export = d / "game.html"
    seasalt("export", ids[1], "--html", str(export), "--db", "s.duckdb", cwd=d)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([*SEASALT, "serve", "--db", "s.duckdb", "--port", str(port)], cwd=d,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(url + "/health").status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"seasalt serve did not start: {proc.stderr.read().decode()[-500:]}")
        time.sleep(0.1)
    yield {"url": url, "dir": d, "games": games, "ids": ids, "cli": cli, "export": export}
    proc.terminate()
    proc.wait(20)


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Page:
    """A browser page that records console errors and every response body it loads."""

    def __init__(self, browser, viewport=DESKTOP):
        self.ctx = browser.new_context(viewport=viewport)
        self.page = self.ctx.new_page()
        self.errors: list[str] = []
        self.bodies: list[bytes] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("response", self._response)

    def _response(self, r):
        try:
            self.bodies.append(r.body())
        except Exception:            # a stream still open (server-sent events) has no body yet
            pass

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

    def close(self) -> None:
        assert self.errors == [], f"console errors: {self.errors}"
        self.ctx.close()


# what the page shows of the table, read from the DOM
READ_TABLE = """() => {
  const codes = (root, sel) => Array.from(root.querySelectorAll(sel)).map(e => e.dataset.code || null);
  const seats = Array.from(document.querySelectorAll('#table section.seat')).map(s => ({
    hand: codes(s, '.hand .card'), laid: codes(s, '.laid .card'),
    total: Number(s.querySelector('h3').textContent.match(/total (-?\\d+)/)[1])}));
  const tops = [0, 1].map(i => { const c = document.querySelector(`#table [data-pile="${i}"] .card`);
    return c ? c.dataset.code : null; });
  const ev = document.querySelector('#table [data-table-event]');
  const attr = (s, name) => { const e = s.querySelector(`[data-${name}]`); return e ? e.getAttribute(`data-${name}`) : null; };
  const extra = ev === null ? null : {event: ev.dataset.tableEvent,
    held: Array.from(document.querySelectorAll('#table section.seat')).map(s => attr(s, 'held') || ''),
    effects: Array.from(document.querySelectorAll('#table section.seat')).map(s => attr(s, 'effects') || ''),
    locks: Array.from(document.querySelectorAll('#table section.seat')).map(s => attr(s, 'lock') !== null),
    protected: Array.from(document.querySelectorAll('#table section.seat')).map(s => attr(s, 'protected') !== null),
    face_down: Array.from(document.querySelectorAll('#table section.seat')).map(s => attr(s, 'face-down'))};
  return {seats, tops, extra, deck: Number(document.querySelector('#table .deck').dataset.deck),
          pos: document.getElementById('pos').textContent, said: document.querySelector('#table .said').textContent};
}"""


def truth(state, viewer: int | None = None, shown: frozenset[int] = frozenset()) -> dict:
    """What the table holds in the engine's state (hands sorted, as drawn), and, for a
    viewer, the hands not ``shown`` (the oracle's, R-VIEW) face down (None per card)."""
    t = state.table
    seats = []
    for s in range(state.n):
        hand = sorted(t.hands[s]) if t.hands else []
        if viewer is not None and s not in hands_visible_to(shown, viewer):
            hand = [None] * len(hand)
        laid = [c for pair in (t.laid[s] if t.laid else ()) for c in pair]
        seats.append({"hand": hand, "laid": laid, "total": state.totals[s]})
    tops = [p[-1] if p else None for p in t.piles]
    return {"seats": seats, "tops": tops, "deck": len(t.deck)}


def check_equal(page, state, seq: int, viewer=None, shown=frozenset(), shells=None):
    """The page at ``seq`` against the engine's state; ``shells`` (the face-down shells
    then, view_oracle.face_down_shells) for a game with the expansions."""
    got = page.evaluate(READ_TABLE)
    want = truth(state, viewer, shown)
    if shells is not None:
        assert got["extra"] == extra_truth(state, viewer, shells), f"seq {seq}: the expansions"
    else:
        assert got["extra"] is None
    assert got["deck"] == want["deck"], f"seq {seq}: deck size"
    assert got["tops"] == want["tops"], f"seq {seq}: pile tops"
    for s, (g, w) in enumerate(zip(got["seats"], want["seats"])):
        assert g["hand"] == w["hand"], f"seq {seq}: seat {s} hand"
        assert g["laid"] == w["laid"], f"seq {seq}: seat {s} laid-down cards"
        assert g["total"] == w["total"], f"seq {seq}: seat {s} total"
    assert got["pos"].startswith(f"Event {seq} of "), got["pos"]


@pytest.mark.parametrize("which", range(len(GAMES)), ids=[f"{n}p" for n, _ in GAMES])
def test_step_through_every_event_equals_engine(world, browser, which):
    gid = world["ids"][which]
    events = world["games"][gid]
    states = [st.after for st in steps(events)]
    p = Page(browser)
    p.page.goto(f"{world['url']}/play/{gid}")
    check_equal(p.page, states[0], 1)
    p.shot(f"game-{GAMES[which][0]}p-start-desktop")
    for seq in range(2, len(states) + 1):
        if seq % 2:
            p.page.click("#next")
        else:
            p.page.keyboard.press("ArrowRight")            # the keyboard steps too
        check_equal(p.page, states[seq - 1], seq)
        if seq == len(states) // 2:
            p.shot(f"game-{GAMES[which][0]}p-middle-desktop")
    assert p.page.is_disabled("#next")
    assert p.page.evaluate("location.hash") == f"#seq={len(states)}"
    p.page.keyboard.press("Home")
    check_equal(p.page, states[0], 1)
    p.page.keyboard.press("End")
    check_equal(p.page, states[-1], len(states))
    p.shot(f"game-{GAMES[which][0]}p-end-desktop")
    p.close()


def test_link_with_a_position_opens_there(world, browser):
    gid = world["ids"][1]
    events = world["games"][gid]
    all_steps = list(steps(events))
    p = Page(browser)
    p.page.goto(f"{world['url']}/play/{gid}#seq=57")
    check_equal(p.page, all_steps[56].after, 57)
    # round 2, turn 3: the state after that turn, as `seasalt replay --round 2 --turn 3`
    last = max(st.seq for st in all_steps if st.round == 2 and st.turn == 3)
    p.page.goto(f"{world['url']}/play/{gid}#round=2&turn=3")
    p.page.reload()
    check_equal(p.page, all_steps[last - 1].after, last)
    p.page.fill("#jround", "1")
    p.page.fill("#jturn", "2")
    p.page.click("#jump button")
    last = max(st.seq for st in all_steps if st.round == 1 and st.turn == 2)
    check_equal(p.page, all_steps[last - 1].after, last)
    p.page.focus("#slider")
    p.page.keyboard.press("ArrowRight")                   # the slider steps with the arrows
    check_equal(p.page, all_steps[last].after, last + 1)
    p.close()


def test_a_malformed_position_in_the_link_is_ignored(world, browser):
    """A position is `#seq=N` or `#round=R&turn=T` with whole numbers (docs/HTTP.md, "Web
    pages"); anything else (a mistyped or cut link) is no position: the page opens as it
    does without one, at the first event of an ended game, with no script error."""
    gid = world["ids"][1]
    first = next(iter(steps(world["games"][gid]))).after
    for position in ("seq=abc", "seq=1.5", "seq=2e1", "round=x", "round=2&turn=1.5"):
        p = Page(browser)
        p.page.goto(f"{world['url']}/play/{gid}#{position}")
        check_equal(p.page, first, 1)
        p.close()


def test_player_view_has_no_hidden_card(world, browser):
    gid = world["ids"][1]
    events = world["games"][gid]
    states = [st.after for st in steps(events)]
    names = events[0].players
    viewer = 1
    p = Page(browser, PHONE)
    p.page.goto(f"{world['url']}/play/{gid}?as={names[viewer]}#seq=40")
    p.shot("game-player-view-phone")
    shown = shown_after(events)
    check_equal(p.page, states[39], 40, viewer, shown[39])
    for seq in range(41, len(states) + 1):
        p.page.keyboard.press("ArrowRight")
        check_equal(p.page, states[seq - 1], seq, viewer, shown[seq - 1])
    # everything the page loaded: the page itself carries the frames
    page_html = [b for b in p.bodies if b.startswith(b"<!doctype html>")]
    assert page_html, "the page's HTML was not recorded"
    assert len(p.bodies) == 1                     # the page asked for nothing else
    data = {"frames": p.page.evaluate("window.seasaltViewer.frames")}    # rebuilt from the page
    assert p.bodies[0].decode().count(json.dumps(data["frames"][-1]["text"])) == 1
    assert len(data["frames"]) == len(events)
    assert hidden_cards_in(data["frames"], shown, viewer) == []
    hidden = hidden_moves(events, viewer)
    assert hidden                                 # the game has hidden moves to test
    for seq, card, public in hidden:
        text = data["frames"][seq - 1]["text"]
        assert card not in text or card in public, f"seq {seq}: {text!r} shows {card} to seat {viewer}"
    # the oracle itself can fail: the everyone view does show the hidden hands
    everyone = Page(browser)
    everyone.page.goto(f"{world['url']}/play/{gid}")
    all_data = {"frames": everyone.page.evaluate("window.seasaltViewer.frames")}
    assert hidden_cards_in(all_data["frames"], shown, viewer)
    everyone.close()
    p.close()


def _table_rows(page, selector):
    return page.evaluate(f"""() => Array.from(document.querySelectorAll('{selector} tbody tr')).map(
        tr => Array.from(tr.children).map(td => td.textContent))""")


def _cli_cells(row: dict) -> list[str]:
    return ["" if v is None else str(v) for v in row.values()]


@pytest.mark.parametrize("name", REPORTS + ("win-rates?players=3",))
def test_statistics_pages_equal_the_cli(world, browser, name):
    p = Page(browser)
    report, _, query = name.partition("?")
    p.page.goto(f"{world['url']}/reports/{report}" + (f"?{query}" if query else ""))
    assert _table_rows(p.page, "#report") == [_cli_cells(r) for r in world["cli"][name]]
    if not query:
        p.shot(f"report-{report}-desktop")
    p.close()


def test_statistics_filters_in_the_page(world, browser):
    p = Page(browser, PHONE)
    p.page.goto(f"{world['url']}/reports/win-rates")
    p.page.select_option("select[name=players]", "3")
    p.page.click("form.filters button")
    p.page.wait_for_url("**players=3**")
    assert _table_rows(p.page, "#report") == [_cli_cells(r) for r in world["cli"]["win-rates?players=3"]]
    p.shot("report-win-rates-phone")
    p.close()


def test_calculator_equals_seasalt_score(world, browser):
    hand = ["mermaid:white", "mermaid:white", "octopus:green", "shell:green", "shell:black"]
    laid = "crab:black,crab:yellow"
    cli = json.loads(seasalt("score", *hand, "--laid", laid, "--json", cwd=world["dir"]).stdout)
    p = Page(browser)
    p.page.goto(f"{world['url']}/calculator")
    for code in set(hand):
        p.page.fill(f"input[name='{code}']", str(hand.count(code)))
    p.page.fill("input[name=laid]", laid)
    p.page.click("form.calc button")
    p.page.wait_for_selector("#breakdown")
    rows = dict(_table_rows(p.page, "#breakdown"))
    for field in ("pairs", "collectors", "multipliers", "mermaids", "card_points", "color_bonus"):
        assert rows[field] == str(cli[field]), field
    p.shot("calculator-desktop")
    p.page.goto(f"{world['url']}/calculator?crab:black=3")  # more copies than the deck holds
    assert "deck holds only 1" in p.page.text_content("[role=alert]")
    p.ctx.close()                                              # a 400 page logs a console error


def test_games_list_filters_and_links(world, browser):
    p = Page(browser, PHONE)
    p.page.goto(world["url"] + "/")
    p.shot("games-phone")
    ids = [r[0] for r in _table_rows(p.page, "#games")]
    assert ids == sorted(world["games"])
    # a phone shows each game as a block of labelled cells, every column without a swipe
    table, box = p.page.evaluate("""() => { const t = document.getElementById('games');
      return [t.scrollWidth, t.parentElement.clientWidth]; }""")
    assert table <= box, f"the games list is {table} px wide in a {box} px box"
    labels = p.page.evaluate("""() => Array.from(document.querySelectorAll('#games tbody tr:first-child td'))
      .map(td => getComputedStyle(td, '::before').content)""")
    assert labels == [f'"{h}"' for h in ("game", "players", "ruleset", "rounds", "events", "state",
                                         "winners", "totals")]
    assert p.page.get_by_role("cell", name="base").count() > 0    # still a table to a reader
    wide = Page(browser, DESKTOP)                                   # a wide screen: rows as rows
    wide.page.goto(world["url"] + "/")
    assert wide.page.evaluate("getComputedStyle(document.querySelector('#games thead')).position") == "static"
    wide.close()
    p.page.select_option("select[name=players]", "4")
    p.page.click("form.filters button")
    p.page.wait_for_url("**players=4**")
    four = [r[0] for r in _table_rows(p.page, "#games")]
    assert four and all(len(world["games"][g][0].players) == 4 for g in four)
    p.page.click(f"#games a >> text={four[0]}")
    p.page.wait_for_url(f"**/play/{four[0]}**")
    p.shot("game-4p-phone")
    p.close()


NARROW = {"width": 375, "height": 740}


def test_no_page_scrolls_sideways_on_a_phone(world, browser):
    """Every page at 375 x 740: the document is no wider than the screen, the score sheet
    fits without scrolling, and it gives `seasalt show`'s points and totals."""
    p = Page(browser, NARROW)
    paths = ["/", "/?players=4", "/reports", *(f"/reports/{r}" for r in REPORTS), "/calculator",
             "/calculator?mermaid:white=2&octopus:green=1&laid=crab:black,crab:yellow",
             *(f"/play/{gid}" for gid in world["ids"]),
             f"/play/{world['ids'][4]}?as={world['games'][world['ids'][4]][0].players[2]}",
             "/docs"]
    width = "[document.scrollingElement.scrollWidth, window.innerWidth]"
    for path in paths:
        p.page.goto(world["url"] + path)
        got, screen = p.page.evaluate(width)
        assert got <= screen, f"{path}: {got} px wide on a {screen} px screen"
        if path.startswith("/play/"):
            p.page.keyboard.press("End")                        # the fullest table
            got, screen = p.page.evaluate(width)
            assert got <= screen, f"{path} at its last event: {got} px wide"
            sheet, box = p.page.evaluate("""() => { const t = document.getElementById('score-sheet');
              return [t.scrollWidth, t.parentElement.clientWidth]; }""")
            assert sheet <= box, f"{path}: the score sheet scrolls sideways"
            gid = path.split("/")[2].split("?")[0]
            if gid in world["cli"]["show"]:
                want = [[str(r["round"]), *("" if pt is None else f"{pt} → {t}"
                                                 for pt, t in zip(r["points"], r["totals"]))]
                        for r in world["cli"]["show"][gid]["rounds"]]
                rows = _table_rows(p.page, "#score-sheet")
                assert [[r[0], *r[2:]] for r in rows] == want, path
    p.shot("game-expansions-phone")
    p.close()


def test_exported_file_opens_from_disk_and_replays(world, browser):
    gid = world["ids"][1]
    states = [st.after for st in steps(world["games"][gid])]
    p = Page(browser)
    requests = []
    p.page.on("request", lambda r: requests.append(r.url))
    p.page.goto(world["export"].as_uri())
    check_equal(p.page, states[0], 1)
    for seq in range(2, len(states) + 1):
        p.page.keyboard.press("ArrowRight")
        if seq % 7 == 0 or seq == len(states):
            check_equal(p.page, states[seq - 1], seq)
    assert all(u.startswith("file:") or u.startswith("data:") for u in requests), requests
    p.shot("export-desktop")
    p.close()


@pytest.mark.parametrize("which, viewer", [(3, None), (4, 1)], ids=["2p-table", "4p-seat1"])
def test_step_through_expansion_games_equals_engine(world, browser, which, viewer):
    """Extra Salt with the events of Extra Pepper: every event's table against the engine,
    the events in effect, who holds which, the jellyfish locks, who is protected, trios and
    face-down shells included (their colour hidden from the other seats, R-X-VIEW)."""
    gid = world["ids"][which]
    events = world["games"][gid]
    states = [st.after for st in steps(events)]
    shown, shells = shown_after(events), list(face_down_shells(events))
    assert any(isinstance(e, ev.ShellFaceDown) for e in events) or any(
        isinstance(e, ev.StarfishPlayed) for e in events)       # the game has what to draw
    names = events[0].players
    p = Page(browser)
    p.page.goto(f"{world['url']}/play/{gid}" + ("" if viewer is None else f"?as={names[viewer]}"))
    for seq in range(1, len(states) + 1):
        if seq > 1:
            p.page.keyboard.press("ArrowRight")
        check_equal(p.page, states[seq - 1], seq, viewer, shown[seq - 1], shells[seq - 1])
        if seq == len(states) // 2:
            p.shot(f"game-expansions-{len(names)}p-middle-desktop")
    p.close()


def _record_streams(page) -> None:
    """Keep every server-sent message the page receives in ``window.__sse``."""
    page.add_init_script("""(() => { const ES = window.EventSource; window.__sse = [];
      window.EventSource = function (url, opts) { const s = new ES(url, opts);
        s.addEventListener('message', m => window.__sse.push(m.data)); return s; };
      window.EventSource.prototype = ES.prototype; })()""")


def _loaded(p: Page) -> str:
    """Everything the page loaded: every response body and every streamed message."""
    return "\n".join([b.decode("utf-8", "replace") for b in p.bodies]
                     + p.page.evaluate("window.__sse"))


@pytest.mark.parametrize("kind", ["base", "expansions"])
def test_live_game_pages_hold_no_hidden_card(world, browser, kind):
    """R-VIEW, R-X-VIEW, issue 15 point 1: a game in progress seen by a seat (its token,
    traded for a cookie) and by a spectator (no credential): neither the page nor anything
    it loaded, the live stream's messages included, holds a card that reader could not
    see; the table's page does (so the check can fail)."""
    src = world["games"][world["ids"][0 if kind == "base" else 4]]
    gid = f"live-{kind}"
    upto = mid_round(src, 1, 4)
    tokens, stored = feed_live(world["url"], src, upto, gid)
    pages = {"table": Page(browser), "seat": Page(browser, PHONE), "spectator": Page(browser)}
    for p in pages.values():
        _record_streams(p.page)
    base = f"{world['url']}/play/{gid}"
    pages["table"].page.goto(f"{base}?token={tokens['table_token']}")
    pages["seat"].page.goto(f"{base}?token={tokens['seat_tokens'][1]}")
    pages["spectator"].page.goto(base)
    assert "?token" not in pages["seat"].page.url           # traded for a cookie
    pages["table"].page.wait_for_timeout(300)                # the streams are open
    more = [e for e in src[upto:upto + 12] if not isinstance(e, ev.DERIVED_TYPES)]
    seq = len(stored)
    for e in more:
        seq = _post(f"{world['url']}/games/{gid}/events", json.loads(ev.encode(e)), seq)["seq"]
    for p in pages.values():
        p.page.wait_for_function(f"window.seasaltViewer.frames.length === {seq}", timeout=5000)
    r = httpx.get(f"{world['url']}/games/{gid}/events",
                  headers={"Authorization": "Bearer " + tokens["table_token"]})
    events = [ev.decode(json.dumps(x).encode()) for x in r.json()]
    shown = shown_after(events)
    for who, viewer in (("seat", 1), ("spectator", SPECTATOR)):
        p = pages[who]
        assert leaked(_loaded(p), events, viewer) == set(), who
        assert hidden_cards_in(p.page.evaluate("window.seasaltViewer.frames"), shown, viewer) == []
        check_equal(p.page, [st.after for st in steps(events)][-1], seq, viewer, shown[-1],
                    list(face_down_shells(events))[-1] if kind == "expansions" else None)
    assert leaked(_loaded(pages["table"]), events, SPECTATOR)
    pages["seat"].shot(f"live-{kind}-seat-phone")
    for p in pages.values():
        p.close()


# last: it adds a game to the store, which the statistics above must not see
def _post(url, body, seq=None):
    headers = {"Content-Type": "application/json"}
    if seq is not None:
        headers["If-Match"] = f'"{seq}"'
    r = httpx.post(url, content=json.dumps(body), headers=headers, timeout=30)
    assert r.status_code in (200, 201), r.text
    return r.json()


def test_live_game_updates_an_open_page_within_a_second(world, browser):
    """A game appended through the API updates an open page (everyone's and a player's)."""
    src = world["games"][world["ids"][0]]
    gid = "live-web-1"
    start = ev.GameStarted(players=src[0].players, game_id=gid)
    import msgspec
    tokens = _post(world["url"] + "/games", msgspec.to_builtins(start))
    rest = [e for e in src[1:] if not isinstance(e, (ev.RoundScored, ev.GameEnded))]
    seq = 1
    for e in rest[:6]:
        seq = _post(f"{world['url']}/games/{gid}/events", msgspec.to_builtins(e), seq)["seq"]
    pages = [Page(browser), Page(browser, PHONE)]
    pages[0].page.goto(f"{world['url']}/play/{gid}?token={tokens['table_token']}")
    pages[1].page.goto(f"{world['url']}/play/{gid}?token={tokens['seat_tokens'][1]}")
    for p in pages:
        assert p.page.text_content("#pos").startswith(f"Event {seq} of {seq}")
    p.page.wait_for_timeout(300)                     # the streams are open
    watch = """(want) => { window.seen = null; const pos = document.getElementById('pos');
      new MutationObserver(() => { if (window.seen === null && pos.textContent.startsWith(want))
        window.seen = Date.now(); }).observe(pos, {childList: true, characterData: true, subtree: true}); }"""
    for e in rest[6:10]:
        for p in pages:              # the browser notes when the new event is on the page
            p.page.evaluate(watch, f"Event {seq + 1} of {seq + 1}")
        seq = _post(f"{world['url']}/games/{gid}/events", msgspec.to_builtins(e), seq)["seq"]
        stored = time.time() * 1000                   # the append is committed and answered
        for p in pages:
            p.page.wait_for_function("window.seen !== null", timeout=5000)
            assert p.page.evaluate("window.seen") - stored < 1000, "the page took over a second"
    states = [st.after for st in steps(src[:1] + rest[:10])]
    check_equal(pages[0].page, states[-1], seq)
    shown = shown_after(src[:1] + rest[:10])
    check_equal(pages[1].page, states[-1], seq, 1, shown[-1])
    # the frames the player's page got from its stream hold no hidden card either (R-VIEW)
    got = pages[1].page.evaluate("window.seasaltViewer.frames")
    assert len(got) == seq and hidden_cards_in(got, shown, 1) == []
    assert hidden_cards_in(pages[0].page.evaluate("window.seasaltViewer.frames"), shown, 1)
    pages[0].shot("live-desktop")
    # the rest of the game in one append: the pages say it ended and offer a reload
    _post(f"{world['url']}/games/{gid}/events", [msgspec.to_builtins(e) for e in rest[10:]], seq)
    for p in pages:
        p.page.wait_for_function("document.getElementById('live').textContent"
                                 ".startsWith('The game has ended.')", timeout=10000)
        assert p.page.is_visible("#live a")
        p.close()


def test_a_live_page_whose_stream_is_refused_says_so(world, browser):
    """A live stream the service refuses (a seat token that ended with the run of a service
    without --token, answered 401) is not retried by the browser: the page says the live
    updates stopped and offers a reload, instead of "reconnecting" for ever."""
    src = world["games"][world["ids"][0]]
    gid = "live-web-refused"
    import msgspec
    start = ev.GameStarted(players=src[0].players, game_id=gid)
    tokens = _post(world["url"] + "/games", msgspec.to_builtins(start))
    _post(f"{world['url']}/games/{gid}/events", msgspec.to_builtins(src[1]), 1)
    p = Page(browser, PHONE)
    p.page.route(f"**/play/{gid}/live?*", lambda route: route.fulfill(
        status=401, content_type="text/html", body="<h1>Not a credential</h1>"))
    p.page.goto(f"{world['url']}/play/{gid}?token={tokens['seat_tokens'][0]}")
    p.page.wait_for_function("document.getElementById('live').textContent"
                             ".startsWith('Live updates stopped')", timeout=10000)
    assert p.page.is_visible("#live a")
    p.errors.clear()                # the browser's own note of the refused stream
    p.close()


# what the page draws of a look (R-X-VIEW): per seat, the cards marked as looked at
READ_LOOKED = """() => Array.from(document.querySelectorAll('#table section.seat')).map(s => {
  const l = s.querySelector('[data-looked-at]');
  return l === null ? null : Array.from(l.querySelectorAll('.card')).map(c => c.dataset.code || null);
})"""

# per seat: a look drawn there whose box and cards' boxes lie within the seat's box
LOOK_INSIDE_SEAT = """() => Array.from(document.querySelectorAll('#table section.seat')).map(s => {
  const l = s.querySelector('[data-looked-at]');
  if (l === null) return false;
  const o = s.getBoundingClientRect();
  const within = r => r.width > 0 && r.left >= o.left && r.right <= o.right && r.top >= o.top
    && r.bottom <= o.bottom;
  return within(l.getBoundingClientRect())
    && Array.from(l.querySelectorAll('.card')).every(c => within(c.getBoundingClientRect()));
})"""


def test_the_swimmers_player_alone_sees_the_hand_looked_at(world, browser):
    """R-X-VIEW ("the player sees the chosen player's whole hand"), R-EV-WATER-RODEO-SWIMMERS
    step 2: on Ann's page, at her two swimmers, Ben's whole hand as she looked at it
    (before the swap) is drawn face up beside Ben's seat, while Ben's hand itself stays face
    down (a look is not a reveal); the next event's table hides it again, and going back
    shows it again. Ben's, Cid's and a spectator's pages at the same event draw no look,
    and Cid's and the spectator's no card of Ben's hand."""
    from .rules.test_views_pepper import swimmers_game
    g = swimmers_game()
    g.play(ev.SwimmersPlayed(player=0, cards=("swimmer:black", "swimmer:yellow"), victim=1,
                             gave="octopus:green", got="penguin:purple"),
           ev.TurnEnded(player=0))
    ben = ["boat:dark-blue", "crab:grey", "penguin:purple"]       # sorted, before the swap
    seq = len(g.events) - 1                                       # the swimmers_played
    tokens, stored = feed_live(world["url"], g.events, len(g.events), "rodeo-look")
    states = [st.after for st in steps(stored)]
    shown = shown_after(stored)
    base = f"{world['url']}/play/rodeo-look"
    ann = Page(browser)
    ann.page.goto(f"{base}?token={tokens['seat_tokens'][0]}")
    ann.page.goto(f"{base}#seq={seq}")
    check_equal(ann.page, states[seq - 1], seq, 0, shown[seq - 1], {})
    assert ann.page.evaluate(READ_LOOKED) == [None, ben, None]
    assert "looked at" in ann.page.text_content('#table section.seat[data-seat="1"] .looked')
    ann.shot("game-swimmers-look-desktop")
    ann.page.keyboard.press("ArrowRight")
    check_equal(ann.page, states[seq], seq + 1, 0, shown[seq], {})
    assert ann.page.evaluate(READ_LOOKED) == [None, None, None]
    ann.page.keyboard.press("ArrowLeft")
    assert ann.page.evaluate(READ_LOOKED) == [None, ben, None]
    ann.close()
    # the same frame on a phone: the look is drawn inside Ben's seat, whole, and the page
    # does not scroll sideways
    phone = Page(browser, PHONE)
    phone.page.goto(f"{base}?token={tokens['seat_tokens'][0]}")
    phone.page.goto(f"{base}#seq={seq}")
    assert phone.page.evaluate(READ_LOOKED) == [None, ben, None]
    assert phone.page.evaluate(LOOK_INSIDE_SEAT) == [False, True, False]
    assert phone.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.shot("game-swimmers-look-phone")
    phone.close()
    for seat, token in ((1, tokens["seat_tokens"][1]), (2, tokens["seat_tokens"][2]),
                        (SPECTATOR, None)):
        p = Page(browser)
        if token:
            p.page.goto(f"{base}?token={token}")
        p.page.goto(f"{base}#seq={seq}")
        check_equal(p.page, states[seq - 1], seq, seat, shown[seq - 1], {})
        assert p.page.evaluate(READ_LOOKED) == [None, None, None], seat
        if seat != 1:
            codes = p.page.evaluate("Array.from(document.querySelectorAll('#table [data-code]'))"
                                    ".map(c => c.dataset.code)")
            assert [c for c in ben if c in codes] == [], seat
        p.close()
