"""The web app without a browser: the frames a viewer is given (R-VIEW), the frames'
changes, the pages' errors and the live stream over HTTP, and ``export --html``.
The browser tests are in test_web_browser.py."""

from __future__ import annotations

import html
import json
import re

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
from seasalt_log.view import SPECTATOR as SPECTATOR_VIEW
from seasalt_log.web.timeline import deltas, frame_set, frames, last_frame_of_rounds, round_reports

from .web_oracle import (SPECTATOR, feed_live, hidden_cards_in, hidden_moves, leaked, mid_round,
                         shown_after)

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
    ("/calculator?laid=fish:black,crab:black", 400, "crab+fish is not a pair"),
    ("/calculator?shell:black=1&face_down=shell:grey", 400,
     "add --event coral-reef (R-EV-CORAL-REEF)"),
    # a bad filter names its parameter and is refused, never silently dropped
    ("/?status=over", 400, "status must be ended or in_progress, not 'over'"),
    ("/?order=up", 400, "order must be asc or desc, not 'up'"),
    ("/calculator?crab:pink=2", 400, "unknown card code 'crab:pink'"),
    ("/calculator?colour=2", 400, "unknown parameter 'colour': the calculator takes card codes, "
                                  "event, face_down, laid, ruleset"),
    ("/calculator?ruleset=pepper", 400, "ruleset must be base or extra-salt, not 'pepper'"),
    ("/calculator?event=kraken&event=squid", 400, "unknown event 'squid'"),
    # the same rules as the API's: no page 0, no other digits than 0-9, no unknown filter
    ("/?page=0", 400, "page must be at least 1, not '0'"),
    ("/?page=-1", 400, "page must be a whole number, not '-1'"),
    ("/?players=\u00b2", 400, "players must be a whole number, not '\u00b2'"),
    ("/reports/calls?colour=red", 400, "unknown filter 'colour'; reports take player, players"),
    ("/reports/calls?colour=&players=", 400, "unknown filter 'colour'"),
])
def test_pages_answer_html_with_a_clear_error(served, path, status, words):
    r = httpx.get(served + path)
    assert r.status_code == status
    assert r.headers["content-type"].startswith("text/html")
    assert words in html.unescape(r.text)


@pytest.mark.parametrize("path", ["/?page=0", "/play/nope", "/reports/nope"])
def test_an_error_page_is_small(served, path):
    """An error page draws no card: it carries neither the viewer script nor the symbols."""
    r = httpx.get(served + path)
    assert r.status_code >= 400
    assert "<script" not in r.text and "<symbol" not in r.text
    assert len(r.content) < 8_000


@pytest.mark.parametrize("query, games, pages", [
    ({"page": 99}, 9, 3), ({"page": 4, "players": 3}, 3, 1), ({"page": 2, "player": "Nobody"}, 0, 1)])
def test_a_page_past_the_last_says_so_and_links_the_last(served, monkeypatch, query, games, pages):
    """The games list, 4 a page: a page past the last is 404 and says there is no such page
    (never an empty "page 99 of 3"), linking the last page with the same filters; that
    link opens the last page, with the games left over (9 = 4 + 4 + 1)."""
    from seasalt_log.web import pages as web_pages
    monkeypatch.setattr(web_pages, "PAGE_SIZE", 4)
    r = httpx.get(served + "/", params=query)
    assert r.status_code == 404
    text = html.unescape(r.text)
    assert f"No page {query['page']}: {games} game(s) fill {pages} page(s)." in text
    assert "page 99 of" not in text and 'id="games"' not in text
    (link,) = re.findall(r'<a href="([^"]*)" rel="last">The last page \((\d+)\)</a>', text)
    assert link[1] == str(pages)
    last = httpx.get(served + link[0])
    assert last.status_code == 200
    assert f"{games} game(s); page {pages} of {pages}" in html.unescape(last.text)
    assert last.text.count('href="/play/') == (games - 4 * (pages - 1) if games else 0)
    for k, v in query.items():
        if k != "page":
            assert f"{k}={v}" in link[0]


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


def test_the_live_stream_resumes_after_the_last_event_id(served):
    """A page's EventSource reconnects to the same address (its ``after`` is where the page
    began) sending ``Last-Event-ID``, the id of the last message it got: the stream goes on
    after that, as ``/games/{id}/follow`` does, instead of sending again every frame since
    the page was opened; an id that is not a seq is refused (400)."""
    game = GAMES[1]
    gid = game[0].game_id
    with httpx.stream("GET", f"{served}/play/{gid}/live", params={"after": 1},
                      headers={"Last-Event-ID": str(len(game) - 2)}, timeout=10) as r:
        text = "".join(r.iter_text())
    data = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {\"")]
    assert [f["seq"] for f in data[0]["frames"]] == [len(game) - 1, len(game)]
    r = httpx.get(f"{served}/play/{gid}/live", headers={"Last-Event-ID": "x"})
    assert r.status_code == 400 and "Last-Event-ID" in r.text


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
    for args, words, code in (
            (["export", gid, gid, "--html", str(out)], "--html writes one game", 2),
            (["export", "nope", "--html", str(tmp_path / "x.html")], "no game with id 'nope'", 1),
            (["export", gid, "--html", str(tmp_path / "no" / "x.html")], "cannot write", 1),
            (["export", gid, "--html", db], "--html", 1)):      # never onto the store
        r = run(app, [*args, "--db", db])
        assert r.exit_code == code and words in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x.html").exists()
    assert run(app, ["export", gid, "--db", db]).exit_code == 0              # the store is intact


# ---------------------------------------------------------------- readers (issue 15 point 1)

def _frames_of(page: str) -> list[dict]:
    raw = page.split('<script id="game-data" type="application/json">')[1].split("</script>")[0]
    return expand(json.loads(raw)["frames"])


BASE_LIVE = GAMES[3]                                          # 3 players
EXTRA_LIVE = next(g for g in simulate(4, 3, 21, ruleset="extra-salt", events="pepper")
                  if sum(isinstance(e, ev.RoundStarted) for e in g) >= 2)


@pytest.fixture(scope="module")
def live_world(tmp_path_factory):
    """Two games in progress (8 turns into round 1: hands hold cards nobody else has seen)
    on a service with a token, one base, one with both expansions."""
    d = tmp_path_factory.mktemp("webreaders")
    log = d / "g.jsonl"
    log.write_bytes(b"".join(ev.encode(e) + b"\n" for e in GAMES[0]))
    with Store.open(d / "s.duckdb") as store:
        import_logs(store, [str(log)])
    with ServerThread(create_app(d / "s.duckdb", keepalive=0.5, token="svc")) as url:
        live = {}
        for gid, game in (("live-base", BASE_LIVE), ("live-extra", EXTRA_LIVE)):
            live[gid] = feed_live(url, game, mid_round(game, 1, 8), gid, token="svc")
        yield url, live


@pytest.mark.parametrize("gid", ["live-base", "live-extra"])
def test_a_spectator_page_of_a_live_game_holds_public_cards_only(live_world, gid):
    """R-VIEW, R-X-VIEW: no credential reads a game in progress as a spectator; the page,
    its frames and its live stream hold no card the oracle says is hidden from everyone."""
    url, live = live_world
    tokens, events = live[gid]
    r = httpx.get(f"{url}/play/{gid}")
    assert r.status_code == 200
    assert leaked(r.text, events, SPECTATOR) == set()
    fr = _frames_of(r.text)
    assert len(fr) == len(events)
    assert hidden_cards_in(fr, shown_after(events), SPECTATOR) == []
    assert "Spectator (public cards)" in r.text and "type=\"password\"" in r.text
    # the live stream: its first message holds every frame after 0
    with httpx.stream("GET", f"{url}/play/{gid}/live", timeout=10) as s:
        for line in s.iter_lines():
            if line.startswith("data: {\""):
                break
    assert len(json.loads(line[6:])["frames"]) == len(events)
    assert leaked(line, events, SPECTATOR) == set()
    # the table's view of the same game does hold hidden cards: the check can fail
    r = httpx.get(f"{url}/play/{gid}", headers={"Authorization": "Bearer " + tokens["table_token"]})
    assert leaked(r.text, events, SPECTATOR)


@pytest.mark.parametrize("gid", ["live-base", "live-extra"])
def test_a_seat_token_opens_that_seat_only(live_world, gid):
    url, live = live_world
    tokens, events = live[gid]
    names = events[0].players
    # ?as= without a credential is refused, as the API refuses it
    r = httpx.get(f"{url}/play/{gid}", params={"as": names[1]})
    assert r.status_code == 403 and "may not read game" in html.unescape(r.text)
    # a wrong token: 401, no cookie
    r = httpx.get(f"{url}/play/{gid}", params={"token": "nope"})
    assert r.status_code == 401 and "set-cookie" not in r.headers
    with httpx.Client(base_url=url) as browser:
        r = browser.get(f"/play/{gid}", params={"token": tokens["seat_tokens"][1], "as": names[1]})
        assert r.status_code == 303 and r.headers["location"] == f"/play/{gid}?as={names[1]}"
        cookie = r.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and f"path=/play/{gid}" in cookie
        r = browser.get(f"/play/{gid}")
        assert r.status_code == 200
        fr = _frames_of(r.text)
        assert hidden_cards_in(fr, shown_after(events), 1) == []
        assert leaked(r.text, events, 1) == set()
        assert fr == plain(frames(events, 1))
        assert f"As {names[1]} (you)" in r.text and f"As {names[0]}" not in r.text
        # seat 1 may not read as seat 0, but may read as a spectator
        assert browser.get(f"/play/{gid}", params={"as": names[0]}).status_code == 403
        r = browser.get(f"/play/{gid}", params={"as": "spectator"})
        assert r.status_code == 200 and leaked(r.text, events, SPECTATOR) == set()
        with browser.stream("GET", f"/play/{gid}/live", timeout=10) as s:
            line = next(x for x in s.iter_lines() if x.startswith("data: {\""))
        assert leaked(line, events, 1) == set()
        # forgetting the token: back to a spectator
        r = browser.get(f"/play/{gid}", params={"token": ""})
        assert r.status_code == 303
        assert browser.get(f"/play/{gid}", params={"as": names[1]}).status_code == 403
    # the table token sees every hand
    with httpx.Client(base_url=url) as browser:
        browser.get(f"/play/{gid}", params={"token": tokens["table_token"]})
        assert _frames_of(browser.get(f"/play/{gid}").text) == plain(frames(events))
        assert browser.get(f"/play/{gid}", params={"as": names[0]}).status_code == 200


def test_an_ended_game_follows_the_public_after_end_option(tmp_path):
    game = GAMES[0]
    gid = game[0].game_id
    log = tmp_path / "g.jsonl"
    log.write_bytes(b"".join(ev.encode(e) + b"\n" for e in game))
    with Store.open(tmp_path / "s.duckdb") as store:
        import_logs(store, [str(log)])
    with ServerThread(create_app(tmp_path / "s.duckdb")) as url:
        assert _frames_of(httpx.get(f"{url}/play/{gid}").text) == plain(frames(game))
    with ServerThread(create_app(tmp_path / "s.duckdb", public_after_end=False)) as url:
        r = httpx.get(f"{url}/play/{gid}")
        assert r.status_code == 200 and "as a spectator" in r.text
        assert leaked(r.text, game, SPECTATOR) == set()
        assert httpx.get(f"{url}/play/{gid}", params={"as": "1"}).status_code == 403


def test_games_list_filters_by_ruleset(live_world):
    url, _ = live_world
    def ids(**params):
        r = httpx.get(url + "/", params=params)
        assert r.status_code == 200
        return [line.split(">")[1].split("<")[0] for line in r.text.split('href="/play/')[1:]]
    assert ids(ruleset="pepper") == ["live-extra"] == ids(ruleset="extra-salt")
    assert sorted(ids(ruleset="base")) == sorted(["live-base", GAMES[0][0].game_id])
    assert sorted(ids(ruleset="no-events")) == sorted(ids(ruleset="base"))
    assert len(ids()) == 3
    # the rules in the words of `seasalt show` (GameRow.rules_words), not "+ events"
    page = httpx.get(url + "/", params={"ruleset": "pepper"}).text
    assert ">extra-salt with pepper events<" in page and "+ events" not in page
    r = httpx.get(url + "/", params={"ruleset": "salty"})
    assert r.status_code == 400 and "ruleset must be one of" in html.unescape(r.text)


@pytest.mark.parametrize("args", [
    ["shell:black", "shell:green", "octopus:green", "--ruleset", "extra-salt",
     "--laid", "crab:black,crab:yellow,starfish:yellow", "--event", "kraken"],
    ["mermaid:white", "seahorse:white", "penguin:pink", "--ruleset", "extra-salt",
     "--face-down", "shell:grey", "--event", "coral-reef", "--event", "dance-of-the-shells"],
])
def test_calculator_takes_ruleset_events_and_face_down_shells(served, args):
    """The calculator's breakdown equals `seasalt score`'s for the expansions' options."""
    cli = CliRunner().invoke(app, ["score", *args, "--json"])
    assert cli.exit_code == 0, cli.output
    want = json.loads(cli.output)
    params: list[tuple[str, str]] = []
    cards = [a for i, a in enumerate(args) if not a.startswith("--")
             and (i == 0 or not args[i - 1].startswith("--"))]
    for code in set(cards):
        params.append((code, str(cards.count(code))))
    flags = {"--ruleset": "ruleset", "--laid": "laid", "--event": "event", "--face-down": "face_down"}
    params += [(flags[a], args[i + 1]) for i, a in enumerate(args) if a in flags]
    r = httpx.get(served + "/calculator", params=params)
    assert r.status_code == 200, html.unescape(r.text)
    table = r.text.split('id="breakdown"')[1].split("</table>")[0]
    rows = dict(re.findall(r"<tr><td>([a-z_]+)</td><td class=n>([^<]*)</td></tr>", table))
    for field in ("pairs", "trios", "starfish", "collectors", "multipliers", "mermaids",
                  "card_points", "color_bonus", "face_down"):
        assert rows[field] == str(want[field]), field
    # the cards scored, as `seasalt score` counts them: a face-down shell is left out
    laid = sum(len(a.split(",")) for i, a in enumerate(args) if i and args[i - 1] == "--laid")
    caption = re.search(r"<caption>([^<]*)</caption>", table)
    assert caption and caption.group(1) == f"{len(cards) + laid} cards", table


@pytest.mark.parametrize("game", [GAMES[1], EXTRA_LIVE], ids=["base", "expansions"])
def test_a_frame_set_extended_event_by_event_equals_one_made_at_once(game):
    """A live page's frames grow with the game (routes keep and extend them): extended after
    every event, or every 7, they are what the whole game gives, round reports included
    (a round's report made before its round_scored arrived is made again)."""
    gid = game[0].game_id
    for viewer in (None, 1, SPECTATOR_VIEW):
        for step in (1, 7):
            fs = None
            for n in [*range(1, len(game), step), len(game)]:
                fs = frame_set(game[:n], viewer, game_id=gid, prev=fs)
            whole = frames(game, viewer, game_id=gid)
            assert fs.frames == whole and fs.changes == deltas(whole)
            assert fs.reports == round_reports(game, viewer, game_id=gid,
                                               last_frames=last_frame_of_rounds(whole))


# ---------------------------------------------------------------- the swimmers' look (R-X-VIEW)

#: Ben's whole hand when Ann's two swimmers choose him, sorted: as R-EV-WATER-RODEO-SWIMMERS
#: step 2 has her look at it, before the swap (the penguin she takes in, her octopus not)
BEN = ["boat:dark-blue", "crab:grey", "penguin:purple"]


def swimmers_events() -> list[ev.Event]:
    """tests/rules/test_views_pepper.py's three-player Water Rodeo round: Ann swaps her
    octopus for Ben's penguin, then ends her turn."""
    from .rules.test_views_pepper import swimmers_game
    g = swimmers_game()
    g.play(ev.SwimmersPlayed(player=0, cards=("swimmer:black", "swimmer:yellow"), victim=1,
                             gave="octopus:green", got="penguin:purple"),
           ev.TurnEnded(player=0))
    return g.events


def test_the_swimmers_player_frame_holds_the_hand_looked_at():
    """R-X-VIEW ("the player sees the chosen player's whole hand"): Ann's frame of her
    swimmers names Ben's hand as she looked at it, the seat beside it; Ben's hand stays
    hidden in that frame's table, and her next frame has no look (a look is not a reveal,
    R-LAST-3). Ben's, Cid's, a spectator's and the table's frames have none, and Cid's and
    the spectator's frame holds no card of Ben's hand. Sent as changes, the next frame
    clears it."""
    events = swimmers_events()
    k = next(i for i, e in enumerate(events) if isinstance(e, ev.SwimmersPlayed))
    assert k == len(events) - 2
    ann = frames(events, 0)
    assert plain(ann[k]["looked_at"]) == {"seat": 1, "hand": BEN}
    assert ann[k]["seats"][1]["hand"] is None and ann[k]["seats"][1]["hand_size"] == 3
    assert [f["seq"] for f in ann if f["looked_at"] is not None] == [k + 1]
    assert ann[k + 1]["seats"][1]["hand"] is None
    for viewer in (1, 2, SPECTATOR_VIEW, None):
        assert [f["seq"] for f in frames(events, viewer) if f["looked_at"] is not None] == []
    for viewer in (2, SPECTATOR_VIEW):
        text = json.dumps(frames(events, viewer)[k])
        assert [c for c in BEN if c in text] == []
    changes = deltas(ann)
    assert plain(changes[k]["looked_at"]) == {"seat": 1, "hand": BEN}
    assert "looked_at" in changes[k + 1] and changes[k + 1]["looked_at"] is None
    assert plain(expand(changes)) == plain(ann)


def test_the_swimmers_look_on_the_pages_of_each_reader(tmp_path):
    """The same game recorded through the service: the page Ann's seat token opens carries
    the look in that frame alone; Ben's, Cid's and a spectator's pages carry none, and
    Cid's and the spectator's no card of Ben's hand; no page holds a card its reader could
    not see (by the oracle, tests/web_oracle.py, which knows of the look)."""
    events = swimmers_events()
    k = len(events) - 2
    with ServerThread(create_app(tmp_path / "s.duckdb", keepalive=0.5, token="svc")) as url:
        tokens, stored = feed_live(url, events, len(events), "rodeo", token="svc")
        assert len(stored) == len(events)

        def page_frames(token):
            headers = {"Authorization": "Bearer " + token} if token else {}
            r = httpx.get(f"{url}/play/rodeo", headers=headers)
            assert r.status_code == 200
            return r.text, _frames_of(r.text)

        text, ann = page_frames(tokens["seat_tokens"][0])
        assert leaked(text, stored, 0) == set()
        assert [(f["seq"], f["looked_at"]) for f in ann if f.get("looked_at")] == [
            (k + 1, {"seat": 1, "hand": BEN})]
        for seat, token in ((1, tokens["seat_tokens"][1]), (2, tokens["seat_tokens"][2]),
                            (SPECTATOR, None)):
            text, fr = page_frames(token)
            assert [f["seq"] for f in fr if f.get("looked_at")] == []
            if seat != 1:
                assert leaked(text, stored, seat) == set()
                assert [c for c in BEN if c in json.dumps(fr[k])] == []
