"""The web app without a browser: the frames a viewer is given (R-VIEW), the frames'
changes, the pages' errors and the live stream over HTTP, and ``export --html``.
The browser tests are in test_web_browser.py."""

from __future__ import annotations

import html
import json

import httpx
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.http.app import create_app
from seasalt_log.http.server import ServerThread
from seasalt_log.replay import steps
from seasalt_log.service import import_logs
from seasalt_log.sim import simulate
from seasalt_log.store import Store
from seasalt_log.web.timeline import deltas, frames, last_frame_of_rounds, round_reports

from .web_oracle import hidden_cards_in, hidden_moves, shown_after

GAMES = [g for n, seed in ((2, 5), (3, 6), (4, 7)) for g in simulate(3, n, seed)]


def plain(x):
    """JSON data as the browser has it (tuples become lists)."""
    return json.loads(json.dumps(x))


def expand(changes):
    """The frames rebuilt from their changes (as the viewer script does)."""
    out = []
    for d in changes:
        if out:
            f = {**out[-1], **d, "seats": [s or p for s, p in zip(d["seats"], out[-1]["seats"])]}
        else:
            f = d
        out.append(f)
    return out


@pytest.mark.parametrize("game", GAMES, ids=[g[0].game_id for g in GAMES])
def test_a_players_frames_hold_no_hidden_card(game):
    """R-VIEW: every seat's frames, against the oracle written from the rules; the
    everyone view shows the hands the oracle says are hidden, so the oracle can fail."""
    shown = shown_after(game)
    assert hidden_cards_in(frames(game), shown, 0)
    for viewer in range(len(game[0].players)):
        fr = frames(game, viewer)
        assert hidden_cards_in(fr, shown, viewer) == []
        for seq, card, public in hidden_moves(game, viewer):
            assert card not in fr[seq - 1]["text"] or card in public, (seq, fr[seq - 1]["text"])
        for rnd, report in round_reports(game, viewer, last_frames=last_frame_of_rounds(fr)).items():
            end = last_frame_of_rounds(fr)[rnd]
            for p in report["players"]:
                if p["seat"] != viewer and end["seats"][p["seat"]]["hand"] is None:
                    assert p["hand"] is None and p["breakdown"] is None
            assert report["what_if"] is None


@pytest.mark.parametrize("game", GAMES[:3], ids=[g[0].game_id for g in GAMES[:3]])
def test_changes_rebuild_the_frames(game):
    fr = frames(game, 1)
    changes = deltas(fr)
    assert plain(expand(changes)) == plain(fr)
    assert len(json.dumps(changes)) < len(json.dumps(fr)) / 2
    assert plain(expand(deltas(fr)[:10] + deltas(fr, 10))) == plain(fr)   # the live stream's way


def test_frames_match_the_engine_in_words_and_numbers():
    game = GAMES[4]
    for st, f in zip(steps(game), frames(game)):
        assert f["seq"] == st.seq and f["deck_size"] == len(st.after.table.deck)
        assert f["type"] == ev.TAGS[type(st.event)]
        assert [s["total"] for s in f["seats"]] == list(st.after.totals)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    d = tmp_path_factory.mktemp("webpages")
    log = d / "g.jsonl"
    log.write_bytes(b"".join(ev.encode(e) + b"\n" for g in GAMES for e in g))
    with Store.open(d / "s.duckdb") as store:
        import_logs(store, [str(log)])
    with ServerThread(create_app(d / "s.duckdb", keepalive=0.5)) as url:
        yield url


@pytest.mark.parametrize("path, status, words", [
    ("/", 200, "Games"), ("/?players=3&status=ended", 200, "3 game(s)"),
    ("/?players=5", 400, "players must be 2, 3 or 4"), ("/?sort=colour", 400, "sort must be"),
    ("/play/nope", 404, "nope"), ("/play/sim-5-0?as=Nobody", 400, "no player 'Nobody'"),
    ("/reports/nope", 404, "no report named 'nope'"), ("/reports/calls?players=x", 400, "players must be"),
    ("/calculator?crab:black=2", 400, "deck holds only 1 (R-CARDS)"),
    ("/calculator?laid=crab:black", 400, "--laid takes two codes"),
])
def test_pages_answer_html_with_a_clear_error(served, path, status, words):
    r = httpx.get(served + path)
    assert r.status_code == status
    assert r.headers["content-type"].startswith("text/html")
    assert words in html.unescape(r.text)


def test_games_sorted_and_filtered(served):
    r = httpx.get(served + "/", params={"sort": "events", "order": "desc", "status": "ended"})
    ids = [line.split(">")[1].split("<")[0] for line in r.text.split('href="/play/')[1:]]
    want = sorted(GAMES, key=lambda g: len(g), reverse=True)
    assert [len(next(g for g in GAMES if g[0].game_id == i)) for i in ids] == [len(g) for g in want]
    assert httpx.get(served + "/", params={"status": "in_progress"}).text.count('href="/play/') == 0


def test_a_player_page_is_computed_for_that_player(served):
    game = GAMES[0]
    r = httpx.get(f"{served}/play/{game[0].game_id}", params={"as": game[0].players[1]})
    raw = r.text.split('<script id="game-data" type="application/json">')[1].split("</script>")[0]
    fr = expand(json.loads(raw)["frames"])
    assert hidden_cards_in(fr, shown_after(game), 1) == []
    assert fr == plain(frames(game, 1))


def test_the_live_stream_of_an_ended_game_sends_the_rest_and_ends(served):
    game = GAMES[1]
    with httpx.stream("GET", f"{served}/play/{game[0].game_id}/live",
                      params={"after": len(game) - 3, "as": "1"}, timeout=10) as r:
        text = "".join(r.iter_text())
    data = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {\"")]
    assert [f["seq"] for f in data[0]["frames"]] == [len(game) - 2, len(game) - 1, len(game)]
    assert "event: end" in text and 'id="score-sheet"' in data[0]["sheet"]


def test_export_html(tmp_path):
    log = tmp_path / "g.jsonl"
    log.write_bytes(b"".join(ev.encode(e) + b"\n" for e in GAMES[0]))
    db = str(tmp_path / "s.duckdb")
    run = CliRunner().invoke
    assert run(app, ["import", str(log), "--db", db]).exit_code == 0
    gid = GAMES[0][0].game_id
    out = tmp_path / "game.html"
    r = run(app, ["export", gid, "--html", str(out), "--db", db])
    assert r.exit_code == 0, r.output
    page = out.read_text()
    assert page.startswith("<!doctype html>") and f"Game {gid}" in page
    assert "http://" not in page and "https://" not in page and " src=" not in page
    raw = page.split('<script id="game-data" type="application/json">')[1].split("</script>")[0]
    assert expand(json.loads(raw)["frames"]) == plain(frames(GAMES[0]))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    for args, words in ((["export", gid, gid, "--html", str(out)], "--html writes one game"),
                        (["export", "nope", "--html", str(tmp_path / "x.html")], "no game with id 'nope'"),
                        (["export", gid, "--html", str(tmp_path / "no" / "x.html")], "cannot write"),
                        (["export", gid, "--html", db], "--html")):      # never onto the store
        r = run(app, [*args, "--db", db])
        assert r.exit_code == 1 and words in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x.html").exists()
    assert run(app, ["export", gid, "--db", db]).exit_code == 0              # the store is intact
