"""The Water Rodeo swimmers' look through the service (RULES.md §16, R-X-VIEW: "the player
sees the chosen player's whole hand"; docs/LOG_FORMAT.md "Redacted events"): a game
recorded over HTTP, then read back as each reader with ``GET /games/{id}/events`` and
``GET /games/{id}/state``."""

from __future__ import annotations

import httpx
import pytest

from seasalt_log import events as ev
from seasalt_log.http.app import create_app
from seasalt_log.http.server import ServerThread

from .rules.test_views_pepper import swimmers_game

#: Ben's hand when Ann chooses him (R-EV-WATER-RODEO-SWIMMERS step 2), sorted
BEN = ["boat:dark-blue", "crab:grey", "penguin:purple"]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """A service holding the swimmers game of tests/rules/test_views_pepper.py: Ann swaps
    her octopus for Ben's penguin, then ends her turn."""
    db = tmp_path_factory.mktemp("http-swimmers") / "live.duckdb"
    g = swimmers_game()
    g.play(ev.SwimmersPlayed(player=0, cards=("swimmer:black", "swimmer:yellow"), victim=1,
                             gave="octopus:green", got="penguin:purple"),
           ev.TurnEnded(player=0))
    with ServerThread(create_app(db, keepalive=0.5)) as url, httpx.Client(
            base_url=url, timeout=httpx.Timeout(60.0),
            headers={"Content-Type": "application/json"}) as c:
        r = c.post("/games", content=ev.encode(g.events[0]))
        assert r.status_code == 201, r.text
        seq, tokens = r.json()["seq"], r.json()
        table = {"Authorization": f"Bearer {tokens['table_token']}"}
        for e in g.events[1:]:
            r = c.post("/games/scenario/events", content=ev.encode(e),
                       headers={"If-Match": f'"{seq}"', **table})
            assert r.status_code == 200, r.text
            seq = r.json()["seq"]
        # each reader's credential: a seat's token by its name, the table's (None), none
        readers = {None: tokens["table_token"], "spectator": None,
                   **dict(zip(g.names, tokens["seat_tokens"]))}
        yield c, readers


def read(client, path: str, who: str | None, **params) -> httpx.Response:
    """``GET path`` with ``who``'s own credential (``client``: the fixture's pair)."""
    c, readers = client
    token = readers[who]
    r = c.get(path, params=params,
              headers={"Authorization": f"Bearer {token}"} if token else {})
    assert r.status_code == 200, r.text
    return r


def swimmers_as(client, who: str | None) -> dict:
    events = read(client, "/games/scenario/events", who).json()
    (e,) = [x for x in events if x["type"] == "swimmers_played"]
    return e


def test_the_swimmers_player_reads_the_hand_looked_at(client):
    """Ann's stream names Ben's whole hand as she saw it, before the swap; Ben's, Cid's and a
    spectator's do not; the table's is the logged event, with no such member."""
    assert swimmers_as(client, "Ann")["looked_at"] == {"seat": 1, "hand": BEN}
    for who in ("Ben", "Cid", "spectator"):
        seen = swimmers_as(client, who)
        assert "looked_at" not in seen and seen["victim"] == 1
    assert swimmers_as(client, "Cid")["got"] is None
    table = swimmers_as(client, None)
    assert "looked_at" not in table and table["got"] == "penguin:purple"


def test_the_swimmers_player_state_keeps_the_hand_hidden(client):
    """A look is not a reveal (R-LAST-3 alone reveals in a round): Ann's state, after the
    swimmers and after her turn, shows Ben's hand size only."""
    last = len(read(client, "/games/scenario/events", "Ann").json())
    for seq in (last - 1, last):
        view = read(client, "/games/scenario/state", "Ann", seq=seq).json()
        assert view["viewer"] == 0
        assert view["seats"][1]["hand"] is None and view["seats"][1]["hand_size"] == 3


def test_the_redacted_swimmers_copies_match_the_published_schema(client):
    """docs/HTTP.md's OpenAPI document describes a redacted event's members: Ann's copy
    (``looked_at``) and Cid's (``swapped``) validate against ``RedactedEvent``, and a
    ``looked_at`` without its hand would not."""
    jsonschema = pytest.importorskip("jsonschema")
    c, _ = client
    schema = c.get("/openapi.json").json()["components"]["schemas"]["RedactedEvent"]
    ann, cid = swimmers_as(client, "Ann"), swimmers_as(client, "Cid")
    assert cid["swapped"] is True
    for copy in (ann, cid):
        jsonschema.validate(copy, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**ann, "looked_at": {"seat": 1}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**cid, "swapped": "yes"}, schema)
