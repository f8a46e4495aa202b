"""``seasalt serve`` records and serves expansion games (RULES.md §9-§18) as it does base ones:
random legal Extra Salt games with Extra Pepper events, recorded over real HTTP one event at
a time and in batches, the derived events (``round_scored``, ``event_awarded``,
``game_ended``) added by the service, and the state, scores and read models read back."""

from __future__ import annotations


import httpx
import msgspec
import pytest

from seasalt_log import events as ev
from seasalt_log import replay
from seasalt_log.rescore import rescore
from seasalt_log.http.app import create_app
from seasalt_log.http.server import ServerThread
from seasalt_log.service import export_lines, import_logs
from seasalt_log.store import Store
from seasalt_log.view import table_view

try:
    from .randomplay import play_random_game
    from .test_http import assert_recorded_like_imported, inputs
except ImportError:      # tests/ run as a plain directory
    from randomplay import play_random_game  # type: ignore[no-redef]
    from test_http import assert_recorded_like_imported, inputs  # type: ignore[no-redef]

TIMEOUT = httpx.Timeout(60.0)
SETTINGS = (("extra-salt", "pepper"), ("base", "pepper"), ("extra-salt", None))


def expansion_game(seed: int, players: int, ruleset: str, events: str | None,
                   game_id: str) -> list[ev.Event]:
    """A whole random legal game of these settings, derived events included, with its id."""
    game = play_random_game(seed, players, target=25, ruleset=ruleset, events=events)
    return [msgspec.structs.replace(game[0], game_id=game_id)] + game[1:]


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    db = tmp_path_factory.mktemp("http-x") / "live.duckdb"
    with ServerThread(create_app(db, keepalive=0.5)) as url:
        yield url, db


@pytest.fixture(scope="module")
def client(live):
    with httpx.Client(base_url=live[0], timeout=TIMEOUT,
                      headers={"Content-Type": "application/json"}) as c:
        yield c


def record(client: httpx.Client, game: list[ev.Event], size: int = 1) -> list[dict]:
    """Post a game's input events ``size`` at a time; the service's answers."""
    ins = inputs(game)
    r = client.post("/games", content=ev.encode(ins[0]))
    assert r.status_code == 201, r.text
    answers = [r.json()]
    gid = answers[0]["game_id"]
    for i in range(1, len(ins), size):
        chunk = ins[i:i + size]
        content = (ev.encode(chunk[0]) if size == 1
                   else b"[" + b",".join(ev.encode(e) for e in chunk) + b"]")
        r = client.post(f"/games/{gid}/events", content=content,
                        headers={"If-Match": f'"{answers[-1]["seq"]}"'})
        assert r.status_code == 200, r.text
        answers.append(r.json())
    return answers


@pytest.mark.parametrize("ruleset,events", SETTINGS)
def test_event_by_event_with_derived_events_added(client, tmp_path, ruleset, events):
    gid = f"x-{ruleset}-{events}"
    game = expansion_game(3, 3, ruleset, events, gid)
    answers = record(client, game)
    appended = [e for a in answers for e in a["appended"]]
    # every event the engine derived (event_awarded included) came back from the service
    assert [msgspec.json.encode(e) for e in appended] == [ev.encode(e) for e in game]
    if events:
        assert any(type(e) is ev.EventAwarded for e in game)
    exported = client.get(f"/games/{gid}/events", params={"format": "jsonl"}).content
    assert exported == ev.encode_lines(game)
    # the same log imported gives the same export
    log = tmp_path / "game.jsonl"
    log.write_bytes(ev.encode_lines(inputs(game)))
    with Store.open(tmp_path / "import.duckdb") as store:
        summary = import_logs(store, [log])
        assert summary.ok, summary
        assert b"".join(export_lines(store, [gid])) == exported
    detail = client.get(f"/games/{gid}").json()
    assert detail["game"]["status"] == "ended"
    assert detail["game"]["totals"] == list(game[-1].totals)


def test_state_and_scores_read_back(client):
    gid = "x-state"
    game = expansion_game(5, 2, "extra-salt", "pepper", gid)
    record(client, game, size=3)
    dec, enc = msgspec.json.decode, msgspec.json.encode
    for seq in (1, 2, 5, len(game) // 3, len(game) // 2, len(game)):
        r = client.get(f"/games/{gid}/state", params={"seq": seq})
        assert r.status_code == 200, r.text
        assert r.json() == dec(enc(table_view(replay.replay(game, seq=seq, game_id=gid))))
    scored = [e for e in game if type(e) is ev.RoundScored]
    for e in scored:
        r = client.get(f"/games/{gid}/rounds/{e.round}/score")
        assert r.status_code == 200, r.text
        assert r.json() == dec(enc(rescore(game, e.round, game_id=gid)))


def test_live_read_models_equal_imported_ones(live, tmp_path):
    """Expansion games recorded concurrently over HTTP leave exactly the rows an import of
    the same logs writes, the expansions' tables included, and verify holds."""
    url, db = live
    games = [expansion_game(40 + i, 2 + i % 3, *SETTINGS[i % 3], f"xm-{i}") for i in range(4)]
    errors: list[str] = []

    def play(game, size):
        try:
            with httpx.Client(base_url=url, timeout=TIMEOUT, headers={"Content-Type": "application/json"}) as c:
                record(c, game, size)
        except AssertionError as exc:
            errors.append(str(exc))

    want = assert_recorded_like_imported(tmp_path, db, games, play, errors, "xm-")
    assert all(want[t] for t in ("round_events", "event_awards", "round_extra",
                                 "event_outcomes"))
