"""The live service (``seasalt serve``), tested over real HTTP against a server on a loopback
port: uvicorn in a thread for most tests, the ``seasalt serve`` command in a subprocess for
start-up and a clean stop on SIGTERM."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import httpx
import msgspec
import pytest
from typer.testing import CliRunner

from seasalt_log import events as ev
from seasalt_log import replay
from seasalt_log.rescore import rescore
from seasalt_log.cards import CODES, COUNT
from seasalt_log.errors import SeasaltError
from seasalt_log.engine import BETWEEN, ENDED, State, apply, legal_moves, next_derived
from seasalt_log.http.app import ROUTES, create_app
from seasalt_log.http.server import ServerThread, is_loopback
from seasalt_log.service import (GameCache, append_events, export_lines, import_logs,
                                 plan_append, start_game, write_planned)
from seasalt_log.store import Store
from seasalt_log.store.store import connect
from seasalt_log.store.projections import TABLES
from seasalt_log.verify import verify_store
from seasalt_log.view import table_view

try:
    from . import view_oracle
except ImportError:      # tests/ run as a plain directory
    import view_oracle  # type: ignore[no-redef]

NAMES = ("Ann", "Ben", "Cid", "Dee")
DECK = tuple(c for c in CODES for _ in range(COUNT[c]))
CALLS = (ev.StopCalled, ev.LastChanceCalled)
MAX_BODY = 64 * 1024
TIMEOUT = httpx.Timeout(60.0)


# ---------------------------------------------------------------- games to record

def random_game(seed: int, players: int = 3, target: int = 12, game_id: str | None = None
                ) -> list[ev.Event]:
    """A whole game of random legal moves (derived events included), played by the engine."""
    rng = random.Random(seed)
    s, out = State(), []

    def push(e: ev.Event) -> None:
        nonlocal s
        s = apply(s, e)
        out.append(e)

    push(ev.GameStarted(players=NAMES[:players], game_id=game_id or f"http-{seed}", target=target))
    while s.phase != ENDED:
        d = next_derived(s)
        if d is not None:
            push(d)
        elif s.phase == BETWEEN:
            cards = list(DECK)
            rng.shuffle(cards)
            f = s.flow
            first = rng.randrange(players) if f.ender is None else (f.ender + 1) % players
            push(ev.RoundStarted(round=f.round + 1, first_player=first,
                                 discards=(cards[0], cards[1]), deck=tuple(cards[2:])))
        else:
            moves = legal_moves(s)
            calls = [m for m in moves if type(m) in CALLS]
            if calls and rng.random() < 0.5:
                push(rng.choice(calls))
            else:
                push(rng.choice([m for m in moves if type(m) not in CALLS]))
    return out


def inputs(game: list[ev.Event]) -> list[ev.Event]:
    return [e for e in game if type(e) not in ev.DERIVED_TYPES]


def body(e: ev.Event) -> bytes:
    return ev.encode(e)


# ---------------------------------------------------------------- servers

@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """(base URL, store path) of a service in a thread of this process."""
    db = tmp_path_factory.mktemp("http") / "live.duckdb"
    with ServerThread(create_app(db, max_body=MAX_BODY, keepalive=0.5)) as url:
        yield url, db


@pytest.fixture(scope="module")
def server(live):
    return live[0]


@pytest.fixture(scope="module")
def client(server):
    with httpx.Client(base_url=server, timeout=TIMEOUT, headers={"Content-Type": "application/json"}) as c:
        yield c


@pytest.fixture(scope="module")
def token_server(tmp_path_factory):
    db = tmp_path_factory.mktemp("http-token") / "live.duckdb"
    with ServerThread(create_app(db, token="s3cret-token")) as url:
        yield url


def record(client: httpx.Client, game: list[ev.Event]) -> list[dict]:
    """Record a game event by event, as a table would; returns the answers."""
    answers = []
    r = client.post("/games", content=body(game[0]))
    assert r.status_code == 201, r.text
    gid = r.json()["game_id"]
    assert r.headers["location"] == f"/games/{gid}"
    seq = r.json()["seq"]
    answers.append(r.json())
    for e in inputs(game)[1:]:
        r = client.post(f"/games/{gid}/events", content=body(e), headers={"If-Match": f'"{seq}"'})
        assert r.status_code == 200, r.text
        assert r.headers["etag"] == f'"{r.json()["seq"]}"'
        seq = r.json()["seq"]
        answers.append(r.json())
    return answers


def stored_jsonl(client: httpx.Client, gid: str) -> bytes:
    r = client.get(f"/games/{gid}/events", params={"format": "jsonl"})
    assert r.status_code == 200, r.text
    return r.content


def imported_jsonl(tmp_path: Path, game: list[ev.Event]) -> bytes:
    """The export of the same log imported with ``seasalt import`` (derived events left out)."""
    log = tmp_path / "game.jsonl"
    log.write_bytes(ev.encode_lines(inputs(game)))
    with Store.open(tmp_path / "import.duckdb") as store:
        summary = import_logs(store, [log])
        assert summary.ok, summary
        gid = summary.games[0].game_id
        return b"".join(export_lines(store, [gid]))


# ---------------------------------------------------------------- a whole game

def test_whole_game_event_by_event_equals_import(client, tmp_path):
    game = random_game(1, players=3)
    answers = record(client, game)
    gid = answers[0]["game_id"]
    # every answer lists what was stored, derived events included, in order
    appended = [e for a in answers for e in a["appended"]]
    assert [msgspec.json.encode(e) for e in appended] == [ev.encode(e) for e in game]
    assert answers[-1]["seq"] == len(game)
    exported = stored_jsonl(client, gid)
    assert exported == ev.encode_lines(game)
    assert exported == imported_jsonl(tmp_path, game)
    # the JSON array form, and ?after
    r = client.get(f"/games/{gid}/events")
    assert r.headers["content-type"].startswith("application/json")
    assert [msgspec.json.encode(e) for e in r.json()] == [ev.encode(e) for e in game]
    r = client.get(f"/games/{gid}/events", params={"after": len(game) - 2})
    assert [e["type"] for e in r.json()] == [ev.TAGS[type(e)] for e in game[-2:]]
    r = client.get(f"/games/{gid}/events", headers={"Accept": "application/x-ndjson"})
    assert r.content == exported
    # the read models were kept with the events
    r = client.get(f"/games/{gid}")
    assert r.status_code == 200
    detail = r.json()
    assert detail["seq"] == len(game) and r.headers["etag"] == f'"{len(game)}"'
    assert detail["game"]["status"] == "ended"
    assert detail["game"]["totals"] == list(game[-1].totals)
    assert len(detail["rounds"]) == sum(type(e) is ev.RoundStarted for e in game)


def test_batches_and_wrapper_body(client):
    game = random_game(2, players=2, game_id="batched")
    ins = inputs(game)
    r = client.post("/games", content=body(ins[0]))
    assert r.status_code == 201
    seq = 1
    i = 1
    size = 1
    while i < len(ins):
        chunk = ins[i:i + size]
        payload = b"[" + b",".join(body(e) for e in chunk) + b"]"
        if size % 2:
            r = client.post("/games/batched/events", content=payload,
                            headers={"If-Match": f'W/"{seq}"'})
        else:
            r = client.post("/games/batched/events",
                            content=b'{"expected_seq":%d,"events":%s}' % (seq, payload))
        assert r.status_code == 200, r.text
        seq = r.json()["seq"]
        i += len(chunk)
        size = size % 7 + 1
    assert stored_jsonl(client, "batched") == ev.encode_lines(game)


def test_if_match_star_appends_at_the_end(client):
    game = random_game(3, players=2, game_id="star")
    ins = inputs(game)
    assert client.post("/games", content=body(ins[0])).status_code == 201
    for e in ins[1:12]:
        r = client.post("/games/star/events", content=body(e), headers={"If-Match": "*"})
        assert r.status_code == 200, r.text


# ---------------------------------------------------------------- racing clients

def test_sixteen_clients_race_to_append(server, client, tmp_path):
    game = random_game(4, players=4, game_id="race")
    ins = inputs(game)
    r = client.post("/games", content=body(ins[0]))
    assert r.status_code == 201
    table = {"Content-Type": "application/json",
             "Authorization": f"Bearer {r.json()['table_token']}"}
    lock = threading.Lock()
    wins: list[tuple[int, int, int]] = []        # (expected seq, new seq, input index)
    losses: list[tuple[int, int]] = []            # (expected seq, current_seq)
    other: list[str] = []
    start = threading.Barrier(16)

    def racer(k: int) -> None:
        with httpx.Client(base_url=server, timeout=TIMEOUT, headers=table) as c:
            start.wait()
            while True:
                rows = c.get("/games/race/events").json()
                seq = len(rows)
                done = sum(1 for e in rows if e["type"] not in ("round_scored", "game_ended"))
                if done == len(ins):
                    return
                r = c.post("/games/race/events", content=body(ins[done]),
                           headers={"If-Match": f'"{seq}"'})
                with lock:
                    if r.status_code == 200:
                        wins.append((seq, r.json()["seq"], done))
                    elif r.status_code == 412:      # If-Match failed (RFC 9110)
                        losses.append((seq, r.json()["current_seq"]))
                    else:
                        other.append(f"{r.status_code} {r.text}")

    threads = [threading.Thread(target=racer, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not other, other[:3]
    # exactly one winner per position: each input event was stored once, in order
    assert sorted(w[2] for w in wins) == list(range(1, len(ins)))
    assert len({w[0] for w in wins}) == len(wins)
    assert losses, "16 racing clients never collided"
    assert all(cur > exp for exp, cur in losses)
    # the stored game is the legal game, nothing lost, nothing doubled
    exported = stored_jsonl(client, "race")
    assert exported == ev.encode_lines(game)
    assert exported == imported_jsonl(tmp_path, game)


# ---------------------------------------------------------------- errors

def _snapshot(client, gid):
    return stored_jsonl(client, gid)


def test_a_round_starteds_error_is_located_at_the_round_it_starts(client):
    """The next round's round_started with the wrong first seat (R-SETUP-4): the append's
    problem and a replay of the same events name round 2, the round it starts, not round 1's
    last turn."""
    game = random_game(7, players=3, game_id="round-two")
    ins = inputs(game)
    at = [i for i, e in enumerate(ins) if type(e) is ev.RoundStarted][1]
    bad = msgspec.structs.replace(ins[at], first_player=(ins[at].first_player + 1) % 3)
    assert client.post("/games", content=body(ins[0])).status_code == 201
    seq = 1
    for e in ins[1:at]:
        r = client.post("/games/round-two/events", content=body(e), headers={"If-Match": f'"{seq}"'})
        assert r.status_code == 200, r.text
        seq = r.json()["seq"]
    r = client.post("/games/round-two/events", content=body(bad), headers={"If-Match": f'"{seq}"'})
    assert r.status_code == 422 and r.json()["rule"] == "R-SETUP-4"
    assert r.json()["detail"].startswith("game round-two, round 2: R-SETUP-4: round 2 starts with ")
    with pytest.raises(SeasaltError) as info:
        replay.replay([*game[:game.index(ins[at])], bad])
    assert str(info.value) == r.json()["detail"]


def test_error_statuses_and_nothing_changes(client):
    game = random_game(5, players=3, game_id="errors")
    ins = inputs(game)
    r = client.post("/games", content=body(ins[0]))
    assert r.status_code == 201
    table = {"Authorization": f"Bearer {r.json()['table_token']}"}
    r = client.post("/games/errors/events", content=body(ins[1]), headers={"If-Match": '"1"'})
    assert r.status_code == 200
    before = _snapshot(client, "errors")
    seq = r.json()["seq"]
    url = "/games/errors/events"
    ok = {"If-Match": f'"{seq}"'}

    def expect(status, error, response):
        assert response.status_code == status, response.text
        data = response.json()
        # RFC 9457: a problem with its type, title, status, detail and instance
        assert response.headers["content-type"] == "application/problem+json"
        assert data["error"] == error and data["detail"] and data["title"]
        assert data["type"] == f"/docs#{error}" and data["status"] == status
        assert data["instance"] == response.request.url.path
        assert _snapshot(client, "errors") == before
        return data

    # 400: malformed JSON, bad fields, bad card codes, bad bodies, bad If-Match
    d = expect(400, "bad_request", client.post(url, content=b"{not json", headers=ok))
    assert "near byte 1 of the body" in d["detail"], d    # the byte counted in the body
    expect(400, "bad_request", client.post(url, content=b"42", headers=ok))
    expect(400, "bad_request", client.post(url, content=b"[]", headers=ok))
    expect(400, "bad_request", client.post(url, content=b'{"expected": 2}', headers=ok))
    expect(400, "bad_request", client.post(url, content=b'{"events": [], "extra": 1}', headers=ok))
    expect(400, "bad_request", client.post(url, content=b"", headers=ok))
    deep = b"[" * 30_000 + b"]" * 30_000
    expect(400, "bad_request", client.post(url, content=deep, headers=ok))
    expect(400, "bad_request", client.post(url, content=b'{"events":%s}' % deep, headers=ok))
    expect(400, "bad_request", client.post(url, content=b"\xff\xfe{}", headers=ok))
    d = expect(400, "bad_event", client.post(
        url, content=b'{"type":"turn_ended","player":0,"colour":"red"}', headers=ok))
    assert d["rule"] == "LOG-FORMAT" and d["path"] == "$" and "colour" in d["reason"]
    bad = body(ins[2]).replace(b'"player":', b'"player":"x","p":')
    d = expect(400, "bad_event", client.post(url, content=b"[%s,%s]" % (body(ins[2]), bad),
                                             headers=ok))
    assert d["index"] == 1 and d["path"] == "$.player" and d["detail"].endswith("at $.player")
    d = expect(400, "bad_event", client.post(
        url, content=b'{"expected_seq":%d,"events":[{"type":"discard_taken","player":0,'
                     b'"pile":0,"card":"crab:pink"}]}' % seq))
    assert d["path"] == "$.card" and d["index"] == 0 and "crab:pink" in d["reason"]
    d = expect(400, "bad_event", client.post(url, content=b'{"type":"turn_ended","player":3}',
                                             headers=ok))
    assert "seat 3" in d["reason"]
    expect(400, "bad_request", client.post(url, content=body(ins[2]), headers={"If-Match": "soon"}))
    expect(400, "bad_request", client.post(
        url, content=b'{"expected_seq":1,"events":[%s]}' % body(ins[2]), headers=ok))
    expect(400, "bad_request", client.post("/games", content=body(ins[2])))
    # 422: the rules refuse; rule id, reason and the index of the event refused
    wrong_player = msgspec.structs.replace(ins[2], player=(ins[2].player + 1) % 3)
    d = expect(422, "illegal_move", client.post(
        url, content=b"[%s,%s]" % (body(ins[2]), body(wrong_player)), headers=ok))
    assert d["rule"] == "R-FLOW-PLAYER" and d["index"] == 1 and d["reason"]
    d = expect(422, "illegal_move", client.post(url, content=body(ins[0]), headers=ok))
    assert d["rule"] == "R-FLOW-GAME"
    # 412: a failed If-Match; 409: a stale expected_seq in the body (conflict), or an
    # existing game id (game_exists, a title of its own); each with the current seq
    d = expect(412, "precondition_failed", client.post(url, content=body(ins[2]),
                                                       headers={"If-Match": '"1"'}))
    assert d["current_seq"] == seq and d["expected_seq"] == 1
    d = expect(409, "conflict", client.post(
        url, content=b'{"expected_seq":1,"events":[%s]}' % body(ins[2])))
    assert d["current_seq"] == seq and d["expected_seq"] == 1
    d = expect(409, "game_exists", client.post("/games", content=body(ins[0])))
    assert d["current_seq"] == seq and d["title"] == "Game already exists"
    assert d["type"] == "/docs#game_exists" and "already exists" in d["detail"]
    # 428: no expected seq at all
    expect(428, "precondition_required", client.post(url, content=body(ins[2])))
    # 413: a body past the limit, announced or streamed
    big = b'{"expected_seq":%d,"events":[%s]}' % (seq, b",".join([body(ins[2])] * 2000))
    assert len(big) > MAX_BODY
    expect(413, "too_large", client.post(url, content=big))
    expect(413, "too_large", client.post(url, content=iter([big[:40_000], big[40_000:]])))
    # 404: unknown games and endpoints
    for r in (client.post("/games/nope/events", content=body(ins[2]), headers={"If-Match": '"1"'}),
              client.get("/games/nope"), client.get("/games/nope/events"),
              client.get("/games/nope/state"), client.get("/games/nope/follow"),
              client.get("/games/nope/rounds/1/score")):
        assert r.status_code == 404 and r.json()["error"] == "unknown_game", r.text
    assert client.get("/nothing-here").status_code == 404
    assert client.get("/games/errors/state", params={"seq": 999}).status_code == 404
    assert client.get("/games/errors/rounds/7/score").status_code == 404
    assert client.get("/games/errors/state", params={"seq": "x"}).status_code == 400
    assert client.get("/games/errors/state", params={"as": "Zed"}).status_code == 400
    assert client.get("/games/errors/rounds/1/score", headers=table).status_code == 400   # in play
    # a spectator may not rescore a round whose hands were never shown (R-VIEW)
    assert client.get("/games/errors/rounds/1/score").status_code == 403
    assert client.delete("/games/errors").status_code == 405
    # and the legal event still goes in afterwards
    r = client.post(url, content=body(ins[2]), headers=ok)
    assert r.status_code == 200, r.text


def test_a_malformed_event_in_a_list_is_named_one_way(client):
    """In a body of several events, a malformed one is named alike whether the decoder or
    the game's own checks (a seat out of range) find it: ``index`` its place in the
    request, ``path`` within that event (docs/HTTP.md, "Conventions"), and ``detail``
    naming the game first."""
    game = random_game(5, players=3, game_id="listed")
    ins = inputs(game)
    assert client.post("/games", content=body(ins[0])).status_code == 201
    url, ok = "/games/listed/events", {"If-Match": '"1"'}
    far_seat = b'{"type":"turn_ended","player":7}'          # checked against the game
    for content in (b'[%s,{"type":"turn_ended","player":"x"}]' % body(ins[1]),  # decoder
                    b"[%s,%s]" % (body(ins[1]), far_seat),
                    b'{"events":[%s,%s]}' % (body(ins[1]), far_seat),
                    b'{"events":[%s,%s]}' % (body(ins[1]), b'{"type":"turn_ended","player":"x"}')):
        r = client.post(url, content=content, headers=ok)
        assert r.status_code == 400, r.text
        d = r.json()
        assert d["error"] == "bad_event" and d["index"] == 1, d
        assert d["path"].startswith("$") and not d["path"].startswith(("$[", "$.events")), d
        assert d["detail"].endswith(f"at {d['path']}"), d
        assert d["detail"].startswith("game listed: LOG-FORMAT: "), d
    assert client.get("/games/listed").json()["seq"] == 1


def test_a_round_the_game_lacks_says_how_many_it_has(client):
    """404 no_such_point names the rounds the game has: "0 rounds", "1 round", "2 rounds"."""
    game = random_game(57, players=2, game_id="counted")
    starts = [i for i, e in enumerate(game) if type(e) is ev.RoundStarted]
    assert len(starts) >= 3
    record(client, game[:starts[2]])        # rounds 1 and 2 started
    client.post("/games", content=body(ev.GameStarted(players=NAMES[:2], game_id="counted-0")))
    client.post("/games", content=body(ev.GameStarted(players=NAMES[:2], game_id="counted-1")))
    client.post("/games/counted-1/events", content=body(game[1]), headers={"If-Match": '"1"'})
    for gid, have in (("counted-0", "0 rounds"), ("counted-1", "1 round"), ("counted", "2 rounds")):
        for path in (f"/games/{gid}/state?round=9", f"/games/{gid}/turns?round=9",
                     f"/games/{gid}/rounds/9/score"):
            r = client.get(path)
            assert r.status_code == 404 and r.json()["error"] == "no_such_point", r.text
            assert r.json()["detail"] == f"game {gid} has {have}; there is no round 9"


def test_a_point_the_game_lacks_is_404_a_malformed_one_400(client):
    """A well-formed round, turn or seq the game does not have is 404 no_such_point, alike
    for /state and /turns; a value that is no integer, or a point asked for in two ways or
    half, is 400 bad_request."""
    game = random_game(57, players=2, game_id="pointed")
    starts = [i for i, e in enumerate(game) if type(e) is ev.RoundStarted]
    record(client, game[:starts[1]])        # round 1 played out, round 2 not started
    client.post("/games", content=body(ev.GameStarted(players=NAMES[:2], game_id="pointed-0")))
    # a round's turns are at most its events: 10,000 is past any, -1 before the first (0)
    missing = [("pointed", "state", {"round": 1, "turn": 10_000}, "there is no turn 10000"),
               ("pointed", "state", {"round": 1, "turn": -1}, "there is no turn -1"),
               ("pointed", "turns", {"round": 1, "turn": 10_000}, "there is no turn 10000"),
               ("pointed", "turns", {"turn": 10_000}, "there is no turn 10000"),
               ("pointed", "state", {"round": 2, "turn": 1}, "there is no round 2"),
               ("pointed", "turns", {"round": 2}, "there is no round 2"),
               # the words of `seasalt replay --seq` on the store (they said "has seq 1..N")
               ("pointed", "state", {"seq": 10_000},
                f"game pointed has {starts[1]} events (seq 1..{starts[1]}); there is no seq 10000"),
               ("pointed-0", "turns", {}, "no round yet"),
               ("pointed-0", "turns", {"turn": 1}, "no round yet")]
    for gid, what, params, words in missing:
        r = client.get(f"/games/{gid}/{what}", params=params)
        assert r.status_code == 404 and r.json()["error"] == "no_such_point", (params, r.text)
        assert words in r.json()["detail"]
    malformed = [("state", {"round": 1, "turn": "x"}), ("turns", {"turn": "1.5"}),
                 ("state", {"turn": 1}), ("state", {"seq": 3, "round": 1, "turn": 1}),
                 ("state", {"seq": 3, "turn": 1})]
    for what, params in malformed:
        r = client.get(f"/games/pointed/{what}", params=params)
        assert r.status_code == 400 and r.json()["error"] == "bad_request", (params, r.text)
    # the points the game has still answer
    assert client.get("/games/pointed/state", params={"round": 1, "turn": 1}).status_code == 200
    assert client.get("/games/pointed/turns", params={"round": 1, "turn": 0}).status_code == 200


def test_token_protects_writes(token_server):
    game = random_game(6, players=2, game_id="guarded")
    with httpx.Client(base_url=token_server, timeout=TIMEOUT) as c:
        r = c.post("/games", content=body(game[0]))
        assert r.status_code == 401 and r.json()["error"] == "unauthorized"
        assert r.headers["www-authenticate"].startswith("Bearer")
        r = c.post("/games", content=body(game[0]), headers={"Authorization": "Bearer nope"})
        assert r.status_code == 401
        r = c.post("/games", content=body(game[0]), headers={"Authorization": "s3cret-token"})
        assert r.status_code == 401
        assert c.get("/games").json() == []
        auth = {"Authorization": "Bearer s3cret-token"}
        r = c.post("/games", content=body(game[0]), headers=auth)
        assert r.status_code == 201
        tokens = r.json()
        r = c.post("/games/guarded/events", content=body(game[1]), headers={"If-Match": '"1"'})
        assert r.status_code == 401
        # the game's own credentials read it; writes need the service token
        for read_only in (tokens["table_token"], tokens["seat_tokens"][0]):
            r = c.post("/games/guarded/events", content=body(game[1]),
                       headers={"If-Match": '"1"', "Authorization": f"Bearer {read_only}"})
            assert r.status_code == 401
            assert "table and seat tokens only read" in r.json()["detail"], r.text
        r = c.post("/games/guarded/events", content=body(game[1]),
                   headers={"If-Match": '"1"', **auth})
        assert r.status_code == 200
        # reads need no token
        assert c.get("/games/guarded/events").status_code == 200
        assert [g["game_id"] for g in c.get("/games").json()] == ["guarded"]
        # an unknown id names the stored ids it may mean, for the service token too (whose
        # reads skip the seats lookup), after=N or not
        for params in ({}, {"after": 1}):
            for path in ("/games/guardd/events", "/games/guardd/follow"):
                r = c.get(path, params=params, headers=auth)
                assert r.status_code == 404 and r.json()["error"] == "unknown_game", r.text
                assert r.json()["detail"].endswith("; did you mean guarded?"), (path, params)


def test_non_loopback_host_needs_a_token(monkeypatch, tmp_path):
    from seasalt_cli.main import app
    monkeypatch.delenv("SEASALT_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["serve", "--db", str(tmp_path / "x.duckdb"),
                                      "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "without a token" in result.output
    assert not (tmp_path / "x.duckdb").exists()
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert is_loopback("127.8.0.1") and is_loopback("[::1]")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("10.0.0.1")
    assert not is_loopback("example.org")


# ---------------------------------------------------------------- following a game

def follow(url: str, gid: str, out: list, headers: dict | None = None,
           ready: threading.Event | None = None) -> None:
    """Collect (id, data) of a follow stream until its ``end`` event."""
    with httpx.Client(base_url=url, timeout=TIMEOUT) as c:
        with c.stream("GET", f"/games/{gid}/follow", headers=headers or {}) as r:
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/event-stream")
            if ready is not None:
                ready.set()
            msg: dict = {}
            for line in r.iter_lines():
                if line == "":
                    if msg.get("event") == "end":
                        return
                    if "data" in msg:
                        out.append((int(msg["id"]), msg["data"]))
                    msg = {}
                elif not line.startswith(":"):
                    k, _, v = line.partition(":")
                    msg[k] = v[1:] if v.startswith(" ") else v


def test_follower_sees_every_event_in_order(server, client):
    game = random_game(7, players=3, game_id="followed")
    ins = inputs(game)
    r = client.post("/games", content=body(ins[0]))
    assert r.status_code == 201
    table = {"Authorization": f"Bearer {r.json()['table_token']}"}     # the whole truth
    got: list = []
    ready = threading.Event()
    t = threading.Thread(target=follow, args=(server, "followed", got, table, ready))
    t.start()
    assert ready.wait(30)
    seq = 1
    for e in ins[1:]:
        r = client.post("/games/followed/events", content=body(e), headers={"If-Match": f'"{seq}"'})
        assert r.status_code == 200
        seq = r.json()["seq"]
    t.join(60)
    assert not t.is_alive()
    assert [i for i, _ in got] == list(range(1, len(game) + 1))
    assert [d.encode() for _, d in got] == [ev.encode(e) for e in game]
    # resuming with Last-Event-ID: only what came after, then the end
    late: list = []
    follow(server, "followed", late, {"Last-Event-ID": str(len(game) - 3)})
    assert [i for i, _ in late] == [len(game) - 2, len(game) - 1, len(game)]
    late = []
    follow(server, "followed", late, {"Last-Event-ID": str(len(game))})
    assert late == []


def test_follower_wakes_on_append(server, client):
    game = random_game(8, players=2, game_id="woken")
    ins = inputs(game)
    assert client.post("/games", content=body(ins[0])).status_code == 201
    with httpx.Client(base_url=server, timeout=TIMEOUT) as c:
        with c.stream("GET", "/games/woken/follow", params={"after": 1}) as r:
            lines = r.iter_lines()
            assert next(lines).startswith("retry:")
            for line in lines:    # an idle stream gets keep-alive comments, no events
                assert not line.startswith(("id:", "data:")), line
                if line == ": keep-alive":
                    break
            client.post("/games/woken/events", content=body(ins[1]), headers={"If-Match": '"1"'})
            seen = []
            for line in lines:
                seen.append(line)
                if line.startswith("data:"):
                    break
            assert "id: 2" in seen and json.loads(seen[-1][5:])["type"] == "round_started"


# ---------------------------------------------------------------- states, views, scores

def test_states_match_replay_and_player_views_hide_cards(client):
    game = random_game(9, players=3, game_id="viewed")
    record(client, game)
    n_rounds = sum(type(e) is ev.RoundStarted for e in game)
    enc = msgspec.json.encode
    dec = msgspec.json.decode
    # whole truth at points named by seq, by round and turn, and the latest
    for seq in (1, 2, 3, 17, len(game) // 2, len(game)):
        r = client.get("/games/viewed/state", params={"seq": seq})
        assert r.status_code == 200
        assert r.json() == dec(enc(table_view(replay.replay(game, seq=seq, game_id="viewed"))))
    assert client.get("/games/viewed/state").json() == dec(enc(table_view(replay.replay(game))))
    for rnd in range(1, n_rounds + 1):
        for turn in (None, 0, 1, 2):
            params = {"round": rnd} if turn is None else {"round": rnd, "turn": turn}
            r = client.get("/games/viewed/state", params=params)
            want = table_view(replay.replay(game, round=rnd, turn=turn, game_id="viewed"))
            assert r.json() == dec(enc(want)), params
    # a player's view: never another player's hidden hand, never the deck order
    steps = list(replay.steps(game, game_id="viewed"))
    shown = list(view_oracle.shown_hands(game))     # RULES.md §7, worked from the events
    checked = 0
    for st in steps[:: max(1, len(steps) // 40)]:
        s = st.after
        for seat, name in enumerate(s.players):
            who = name if seat != 2 else "2"
            view = client.get("/games/viewed/state", params={"seq": st.seq, "as": who}).json()
            assert view["viewer"] == seat
            assert view["deck"] is None
            assert all(p["cards"] is None for p in view["piles"])
            for other in view["seats"]:
                real = sorted(s.table.hands[other["seat"]]) if s.table.hands else []
                if other["seat"] == seat or other["seat"] in shown[st.seq - 1]:
                    assert other["hand"] == real
                else:
                    assert other["hand"] is None and other["card_points"] is None
                    assert other["hand_size"] == len(real)
                    checked += 1
            assert view == dec(enc(table_view(s, seat)))
    assert checked > 20


def test_round_scores_match_rescore(client):
    game = random_game(10, players=2, game_id="scored")
    record(client, game)
    n_rounds = sum(type(e) is ev.RoundStarted for e in game)
    for rnd in range(1, n_rounds + 1):
        r = client.get(f"/games/scored/rounds/{rnd}/score")
        assert r.status_code == 200, r.text
        want = msgspec.json.decode(msgspec.json.encode(rescore(game, rnd, game_id="scored")))
        assert r.json() == want


def test_list_games_filters(client):
    for gid, players in (("list-a", 2), ("list-b", 3)):
        assert client.post("/games", content=body(random_game(11, players, game_id=gid)[0])
                           ).status_code == 201
    rows = client.get("/games").json()
    ids = [g["game_id"] for g in rows]
    assert "list-a" in ids and "list-b" in ids and ids == sorted(ids)
    three = [g["game_id"] for g in client.get("/games", params={"players": 3}).json()]
    assert "list-b" in three and "list-a" not in three
    assert all(g["n_players"] == 3 for g in client.get("/games", params={"players": 3}).json())
    cid = [g["game_id"] for g in client.get("/games", params={"player": "Cid"}).json()]
    assert "list-b" in cid and "list-a" not in cid
    assert client.get("/games", params={"players": 7}).status_code == 400


def test_game_without_id_gets_the_derived_id(client):
    start = b'{"type":"game_started","players":["Xi","Yu"],"meta":{"venue":"pier"}}'
    r = client.post("/games", content=start)
    assert r.status_code == 201
    gid = r.json()["game_id"]
    assert gid.startswith("g-") and r.headers["location"] == f"/games/{gid}"
    stored = client.get(f"/games/{gid}/events").json()
    assert stored == [{"type": "game_started", "players": ["Xi", "Yu"], "game_id": gid,
                       "meta": {"venue": "pier"}}]
    assert client.post("/games", content=start).status_code == 409


def test_stats_endpoints(client):
    r = client.get("/stats")
    if r.status_code == 501:
        pytest.skip("statistics are not available in this build")
    assert r.status_code == 200
    reports = r.json()
    assert reports and all(x["name"] and x["description"] for x in reports)
    name = reports[0]["name"]
    r = client.get(f"/stats/{name}")
    assert r.status_code == 200, r.text
    assert isinstance(r.json()["columns"], list) and isinstance(r.json()["rows"], list)
    assert client.get(f"/stats/{name}", params={"players": 3}).status_code == 200
    assert client.get("/stats/no-such-report").status_code == 404
    assert client.get(f"/stats/{name}", params={"colour": "red"}).status_code == 400
    # a bad player count is named as the query parameter it is, not as a CLI option
    for bad in ("5", "x"):
        r = client.get(f"/stats/{name}", params={"players": bad})
        assert r.status_code == 400 and r.json()["detail"] == f"players must be 2, 3 or 4, not {bad!r}"


def test_openapi_describes_every_route(client):
    spec = client.get("/openapi.json").json()
    assert spec["openapi"].startswith("3.1")
    for route in ROUTES:
        path = spec["paths"].get(route.path)
        assert path is not None, route.path
        for method in route.methods - {"HEAD"}:
            assert method.lower() in path, (route.path, method)
    documented = {(p, m.upper()) for p, ops in spec["paths"].items() for m in ops}
    served = {(r.path, m) for r in ROUTES for m in r.methods - {"HEAD"}}
    assert documented == served
    schemas = spec["components"]["schemas"]
    for t in ev.EVENT_TYPES:
        assert t.__name__ in schemas
    # every $ref resolves
    text = json.dumps(spec)
    for ref in set(part.split('"')[0] for part in text.split('"$ref": "#/components/schemas/')[1:]):
        assert ref in schemas, ref


# ---------------------------------------------------------------- the service's cache

def test_cached_append_stores_the_same_as_uncached(tmp_path):
    game = random_game(12, players=3)
    ins = inputs(game)
    out = []
    for name, cached in (("plain", False), ("cached", True)):
        with Store.open(tmp_path / f"{name}.duckdb") as store:
            r = start_game(store, ins[0])
            cache = GameCache.load(store, r.game_id) if cached else None
            seq = r.seq
            for e in ins[1:]:
                seq = append_events(store, r.game_id, [e], seq, cached=cache).seq
            out.append(_dump(store))
            if cached:
                assert cache.seq == len(game) and cache.events == game
                assert cache.hash == store.head(r.game_id)[1]
    assert out[0] == out[1]


def _dump(store: Store) -> dict[str, list]:
    """Every row of the events table and of every read model, in a stable order. The game
    numbers are left out (they follow the order games were first written) after checking
    that each game has one, and no other game the same."""
    numbers = store.con.execute("SELECT game_id, list(DISTINCT game) FROM events GROUP BY ALL").fetchall()
    assert all(len(n) == 1 for _, n in numbers)
    assert len({n[0] for _, n in numbers}) == len(numbers)
    return {t: sorted(store.con.execute(f"SELECT * {'EXCLUDE (game) ' if t == 'events' else ''}"
                                        f"FROM {t}").fetchall(), key=repr)
            for t in ("events", *TABLES)}


def test_live_read_models_equal_imported_ones(live, tmp_path):
    """After games recorded over HTTP (appends of one event and of several, several games in
    one commit), the store holds exactly what an import of the same logs writes."""
    server, db = live
    games = [random_game(20 + i, players=2 + i % 3, game_id=f"models-{i}") for i in range(4)]
    errors: list[str] = []

    def play(game, size):
        with httpx.Client(base_url=server, timeout=TIMEOUT, headers={"Content-Type": "application/json"}) as c:
            ins = inputs(game)
            r = c.post("/games", content=body(ins[0]))
            seq = r.json()["seq"]
            for i in range(1, len(ins), size):
                chunk = ins[i:i + size]
                r = c.post(f"/games/{ins[0].game_id}/events", headers={"If-Match": f'"{seq}"'},
                           content=b"[" + b",".join(body(e) for e in chunk) + b"]")
                if r.status_code != 200:
                    errors.append(r.text)
                    return
                seq = r.json()["seq"]

    want = assert_recorded_like_imported(tmp_path, db, games, play, errors, "models-")
    assert all(want[t] for t in ("events", "games", "seats", "rounds", "round_results"))


def assert_recorded_like_imported(tmp_path, db, games, play, errors: list[str],
                                  prefix: str) -> dict[str, list]:
    """Record ``games`` at once, ``play(game, size)`` on a thread each (1 to 3 events a
    request; ``play`` appends to ``errors``), then check that the service's store holds,
    for the games whose ids start with ``prefix``, exactly the rows an import of the same
    logs writes, and that verify holds. Returns the imported rows."""
    threads = [threading.Thread(target=play, args=(g, 1 + k % 3)) for k, g in enumerate(games)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors, errors[:2]
    log = tmp_path / "games.jsonl"
    log.write_bytes(b"".join(ev.encode_lines(inputs(g)) for g in games))
    with Store.open(tmp_path / "imported.duckdb") as store:
        assert import_logs(store, [log]).ok
        want = _dump(store)
    # the service holds the file; in its process a read-write open of the store shares its
    # database (a plain duckdb.connect of the file would not: the store is attached with
    # its own row group size)
    con = connect(db, read_only=False)
    try:
        got = _dump(Store(con, db, read_only=False))
        report = verify_store(Store(con, db, read_only=False), [g[0].game_id for g in games])
        assert report.ok and report.games == len(games), report.differences[:3]
    finally:
        con.close()
    got = {t: [r for r in rows if r[0].startswith(prefix)] for t, rows in got.items()}
    assert got == want
    return want


def test_group_commits_of_many_games_equal_import(tmp_path):
    """Batches holding one event of each of 9 games (the read-model rows of many games
    replaced by key in one statement) store exactly what an import stores."""
    games = [random_game(40 + i, players=2 + i % 3, game_id=f"group-{i}") for i in range(9)]
    with Store.open(tmp_path / "live.duckdb") as store:
        caches = {}
        for g in games:
            start_game(store, g[0])
            caches[g[0].game_id] = GameCache.load(store, g[0].game_id)
        pending = {g[0].game_id: inputs(g)[1:] for g in games}
        while any(pending.values()):
            planned = []
            for gid, left in pending.items():
                if left:
                    size = 1 + len(left) % 3
                    planned.append(plan_append(caches[gid], left[:size], caches[gid].seq))
                    pending[gid] = left[size:]
            write_planned(store, planned)
            for p in planned:
                caches[p.cache.game_id] = p.cache
        got = _dump(store)
    log = tmp_path / "games.jsonl"
    log.write_bytes(b"".join(ev.encode_lines(inputs(g)) for g in games))
    with Store.open(tmp_path / "imported.duckdb") as store:
        assert import_logs(store, [log]).ok
        assert got == _dump(store)


def test_plan_append_leaves_the_cache_alone(tmp_path):
    game = random_game(13, players=2)
    ins = inputs(game)
    with Store.open(tmp_path / "x.duckdb") as store:
        r = start_game(store, ins[0])
        append_events(store, r.game_id, ins[1:3], r.seq)
        cache = GameCache.load(store, r.game_id)
        before = (list(cache.events), cache.hash)
        planned = plan_append(cache, ins[3:5], cache.seq)
        assert (cache.events, cache.hash) == before
        assert planned.cache.seq == cache.seq + len(planned.result.appended)
        with pytest.raises(Exception) as exc:
            plan_append(cache, ins[3:5], cache.seq - 1)
        assert type(exc.value).__name__ == "StreamConflictError"


# ---------------------------------------------------------------- the command, for real

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_seasalt_serve_stops_cleanly_on_sigterm(tmp_path):
    db = tmp_path / "served.duckdb"
    port = _free_port()
    env = {**os.environ, "SEASALT_TOKEN": ""}
    code = "import sys; from seasalt_cli.main import app; sys.exit(app())"
    proc = subprocess.Popen([sys.executable, "-c", code, "serve", "--db", str(db),
                             "--port", str(port)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the service did not start"
            time.sleep(0.05)
        game = random_game(14, players=2, game_id="served")
        with httpx.Client(base_url=url, timeout=TIMEOUT, headers={"Content-Type": "application/json"}) as c:
            ins = inputs(game)
            assert c.post("/games", content=body(ins[0])).status_code == 201
            seq = 1
            for e in ins[1:30]:
                r = c.post("/games/served/events", content=body(e), headers={"If-Match": f'"{seq}"'})
                assert r.status_code == 200
                seq = r.json()["seq"]
            follower = c.stream("GET", "/games/served/follow")
            follower.__enter__()          # an open follow stream must not hold the stop up
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, proc.stderr.read().decode()
        follower.__exit__(None, None, None)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "stopped" in proc.stderr.read().decode()
    with Store.open(db, read_only=True) as store:
        assert store.head("served")[0] == seq
        assert verify_store(store).ok


def test_append_short_way_answers_as_the_routed_way(tmp_path):
    """``POST /games/{id}/events`` skips Starlette's routing and middleware: each answer
    (status, headers, body) is the one the routed way gives for the same request."""
    import asyncio

    from starlette.applications import Starlette

    game = random_game(8, players=2, game_id="short")
    ins = inputs(game)

    async def call(app, routed: bool, path: str, content: bytes, headers: dict):
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
                 "root_path": "", "query_string": b"", "server": ("127.0.0.1", 80),
                 "client": ("127.0.0.1", 1234),
                 "headers": [(k.lower().encode(), v.encode()) for k, v in
                             {**headers, "host": "127.0.0.1",
                              "content-length": str(len(content))}.items()]}
        messages = [{"type": "http.request", "body": content, "more_body": False}]
        sent = []

        async def receive():
            return messages.pop(0) if messages else {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)

        await (Starlette.__call__(app, scope, receive, send) if routed else
               app(scope, receive, send))
        start = sent[0]
        return (start["status"], sorted(start["headers"]),
                b"".join(m.get("body", b"") for m in sent[1:]))

    async def main():
        app = create_app(tmp_path / "short.duckdb", token="t0k", max_body=MAX_BODY)
        live = app.state.live
        await live.start()
        try:
            auth = {"Authorization": "Bearer t0k"}
            r = await call(app, True, "/games", body(ins[0]), auth)
            assert r[0] == 201
            url = "/games/short/events"
            cases = [
                (url, body(ins[1]), {}),                                   # 401
                (url, body(ins[1]), {"Authorization": "Bearer nope"}),     # 401
                (url, b"{not json", {**auth, "If-Match": '"1"'}),          # 400
                (url, body(ins[1]), {**auth, "If-Match": "soon"}),         # 400
                (url, body(ins[1]), auth),                                 # 428
                (url, body(ins[1]), {**auth, "If-Match": '"7"'}),          # 412
                (url, b'{"expected_seq":7,"events":[%s]}' % body(ins[1]), auth),  # 409
                (url, body(ins[0]), {**auth, "If-Match": '"1"'}),          # 422
                ("/games/nope/events", body(ins[1]), {**auth, "If-Match": '"1"'}),   # 404
                (url, b"x" * (MAX_BODY + 1), {**auth, "If-Match": '"1"'}),  # 413
            ]
            for path, content, headers in cases:
                short = await call(app, False, path, content, headers)
                routed = await call(app, True, path, content, headers)
                assert short == routed and short[0] >= 400, (short, routed)
            seq = 1
            for k, routed in ((1, False), (2, True)):
                status, headers, data = await call(app, routed, url, body(ins[k]),
                                                   {**auth, "If-Match": f'"{seq}"'})
                assert status == 200
                got = json.loads(data)
                assert (b"etag", f'"{got["seq"]}"'.encode()) in headers
                seq = got["seq"]
            # paths the short way does not take still reach the routing table
            status, _, data = await call(app, False, "/games/a/b/events", body(ins[1]), auth)
            assert status == 404 and json.loads(data)["error"] == "not_found"
        finally:
            await live.close()

    asyncio.run(main())
