"""HTTP the way clients expect it (issue 15, point 5): RFC 9457 problems, 412 for a failed
If-Match, 304 for If-None-Match, ``Allow`` on every 405, an OpenAPI description that is
valid and matches what the handlers answer, its /docs page, and a client that also sends
the derived events of its log, one per request."""

from __future__ import annotations

import json
import re

import httpx
import msgspec
import pytest

from seasalt_log import events as ev
from seasalt_log.http.bodies import Problem
from seasalt_log.http.problems import TITLES

from .test_http import (body, client, imported_jsonl, inputs, live, random_game,  # noqa: F401
                        record, server, stored_jsonl)

PROBLEM_JSON = "application/problem+json"


@pytest.fixture(scope="module")
def ended(client):  # noqa: F811
    """A whole game recorded through the service (id "proto-1")."""
    record(client, random_game(31, players=3, game_id="proto-1"))
    return "proto-1"


def check_problem(r: httpx.Response, status: int, error: str) -> Problem:
    """``r`` is an RFC 9457 problem of ``status``, kind ``error``, about the request's path."""
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == PROBLEM_JSON
    p = msgspec.json.decode(r.content, type=Problem)       # the members, with their types
    assert p.status == status and p.error == error and p.detail
    assert p.type == f"/docs#{error}" and p.title == TITLES[error]
    assert p.instance == r.request.url.path
    return p


def test_every_error_is_a_problem(server, client, ended):  # noqa: F811
    game = random_game(32, players=2, game_id="proto-2")
    ins = inputs(game)
    assert client.post("/games", content=body(ins[0])).status_code == 201
    url = "/games/proto-2/events"
    check_problem(client.get("/games/nope"), 404, "unknown_game")
    check_problem(client.get("/no/such/endpoint"), 404, "not_found")
    check_problem(client.delete("/games"), 405, "method_not_allowed")
    check_problem(client.post(url, content=b"{", headers={"If-Match": '"1"'}), 400, "bad_request")
    check_problem(client.post(url, content=body(ins[1])), 428, "precondition_required")
    p = check_problem(client.post(url, content=body(ins[0]), headers={"If-Match": '"1"'}),
                      422, "illegal_move")
    assert p.rule == "R-FLOW-GAME" and p.index == 0             # extension members kept
    p = check_problem(client.post(url, content=body(ins[1]), headers={"If-Match": '"5"'}),
                      412, "precondition_failed")
    assert (p.current_seq, p.expected_seq) == (1, 5)
    p = check_problem(client.post(url, content=b'{"expected_seq":5,"events":[%s]}' % body(ins[1])),
                      409, "conflict")
    assert (p.current_seq, p.expected_seq) == (1, 5)
    check_problem(client.post(url, content=body(ins[1]), headers={"If-Match": '"1"',
                                                                 "Content-Type": "text/plain"}),
                  415, "unsupported_media_type")
    check_problem(httpx.get(server + "/games", headers={"Host": "evil.example"}), 421, "bad_host")
    check_problem(client.get(f"/games/{ended}/state", params={"seq": 10_000}), 404, "no_such_point")
    check_problem(client.get("/stats/no-such-report"), 404, "unknown_report")
    check_problem(client.post("/query", content=b'{"sql": "SELECT 1"}'), 403, "forbidden")
    # each kind of problem has its entry on the docs page, where its type points
    page = client.get("/docs").text
    for code in TITLES:
        assert f'id="{code}"' in page, code


def _probe(client, path: str, method: str) -> int:  # noqa: F811
    return client.request(method, path, content=b"{}").status_code


def test_a_405_names_every_method_the_path_serves(client, ended):  # noqa: F811
    """For every route of the app (the API's and the pages'), ``Allow`` on a 405 is exactly
    the set of methods that are not answered 405 when tried."""
    app_routes = client.get("/openapi.json").json()["paths"]
    from seasalt_log.web.routes import WEB_ROUTES
    paths = list(app_routes) + [r.path for r in WEB_ROUTES]
    methods = ("GET", "POST", "PUT", "DELETE", "PATCH")
    for template in paths:
        path = (template.replace("{game_id}", ended).replace("{round}", "1")
                .replace("{report}", "win-rates").replace("{name}", "win-rates"))
        if path.endswith(("/follow", "/live", "/backup")):
            continue                    # a stream and a file copy: tried below by their 405
        served = {m for m in methods if _probe(client, path, m) != 405}
        r = client.request("PUT" if "PUT" not in served else "PATCH", path)
        assert r.status_code == 405, (path, r.status_code)
        allow = {m.strip() for m in r.headers["allow"].split(",")}
        assert allow - {"HEAD"} == served, (path, allow, served)
    for path, allow in ((f"/games/{ended}/follow", {"GET", "HEAD"}), ("/backup", {"POST"})):
        r = client.delete(path)
        assert r.status_code == 405 and set(r.headers["allow"].split(", ")) == allow


def test_if_none_match_answers_304_until_the_game_changes(client):  # noqa: F811
    game = random_game(33, players=2, game_id="proto-3")
    ins = inputs(game)
    assert client.post("/games", content=body(ins[0])).status_code == 201
    seq = 1
    for e in ins[1:12]:
        seq = client.post("/games/proto-3/events", content=body(e),
                          headers={"If-Match": f'"{seq}"'}).json()["seq"]
    reads = ["/games/proto-3", "/games/proto-3/events", "/games/proto-3/state",
             "/games/proto-3/state?seq=3", "/games/proto-3/log", "/games/proto-3/turns",
             "/games/proto-3/events?format=jsonl"]
    for path in reads:
        first = client.get(path)
        assert first.status_code == 200, (path, first.text)
        tag = first.headers["etag"]
        assert tag == f'"{seq}"' and "Authorization" in first.headers["vary"]
        for given in (tag, "W/" + tag, f'"0", {tag}', "*"):
            again = client.get(path, headers={"If-None-Match": given})
            assert again.status_code == 304 and again.content == b"", (path, given)
            assert again.headers["etag"] == tag
        assert client.get(path, headers={"If-None-Match": '"0"'}).status_code == 200
    new = client.post("/games/proto-3/events", content=body(ins[12]),
                      headers={"If-Match": f'"{seq}"'}).json()["seq"]
    for path in reads:
        r = client.get(path, headers={"If-None-Match": f'"{seq}"'})
        assert r.status_code == 200 and r.headers["etag"] == f'"{new}"', path


def test_openapi_is_valid_and_describes_what_the_handlers_answer(client, ended):  # noqa: F811
    """The description is valid OpenAPI 3.1, and real answers of each operation validate
    against the schemas it gives for them (generated from the handlers' types)."""
    validator = pytest.importorskip("openapi_spec_validator")
    jsonschema = pytest.importorskip("jsonschema")
    spec = client.get("/openapi.json").json()
    validator.validate(spec)

    def check(path: str, template: str, method: str = "get", status: str = "200",
              **kw) -> None:
        r = client.request(method.upper(), path, **kw)
        assert str(r.status_code) == status, (path, r.text)
        media = r.headers["content-type"].split(";")[0]
        schema = spec["paths"][template][method]["responses"][status]["content"][media]["schema"]
        jsonschema.Draft202012Validator({**schema, "components": spec["components"]}).validate(r.json())

    # a game row always carries every field: a client need not guess the ruleset's default
    row = spec["components"]["schemas"]["GameRow"]
    assert set(row["required"]) == set(row["properties"]) >= {"ruleset", "event_setting"}
    assert set(client.get("/games").json()[0]) == set(row["properties"])
    g = f"/games/{ended}"
    check("/games", "/games")
    check(g, "/games/{game_id}")
    check(g + "/events", "/games/{game_id}/events")
    check(g + "/state?round=1&turn=2", "/games/{game_id}/state")
    check(g + "/state?as=1", "/games/{game_id}/state")
    check(g + "/log", "/games/{game_id}/log")
    check(g + "/turns?round=1", "/games/{game_id}/turns")
    check(g + "/rounds/1/score", "/games/{game_id}/rounds/{round}/score")
    check("/stats", "/stats")
    check("/stats/win-rates", "/stats/{report}")
    check("/health", "/health")
    check("/games/nope", "/games/{game_id}", status="404")
    # a point the game lacks is a 404, a malformed one a 400, each described
    check(g + "/state?round=1&turn=10000", "/games/{game_id}/state", status="404")
    check(g + "/turns?round=1&turn=10000", "/games/{game_id}/turns", status="404")
    check(g + "/turns?round=99", "/games/{game_id}/turns", status="404")
    check(g + "/state?turn=1", "/games/{game_id}/state", status="400")
    check(g + "/events", "/games/{game_id}/events", "post", "412",
          content=b'{"type":"turn_ended","player":0}', headers={"If-Match": '"1"'})
    game = random_game(34, players=2, game_id="proto-4")
    check("/games", "/games", "post", "201", content=body(game[0]))
    check("/games/proto-4/events", "/games/{game_id}/events", "post", "200",
          content=body(game[1]), headers={"If-Match": '"1"'})
    check("/games/proto-4/events", "/games/{game_id}/events", "post", "422",
          content=body(game[0]), headers={"If-Match": '"2"'})


def test_the_docs_page_lists_every_operation_and_fetches_nothing(client):  # noqa: F811
    r = client.get("/docs")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    page = r.text
    spec = client.get("/openapi.json").json()
    for path, ops in spec["paths"].items():
        for method in ops:
            assert f'id="{method}-{path}"' in page, (method, path)
    for name in spec["components"]["schemas"]:
        assert f'id="schema-{name}"' in page
    # self-contained: no script, stylesheet, image or frame from anywhere
    # (its icon is an empty data: URL, so that the browser asks for no /favicon.ico)
    assert not re.search(r"<(script|link|img|iframe)\b", page.replace('<link rel="icon" href="data:,">', ""))
    assert "http://" not in page and "https://" not in page
    # the descriptions' `code` is set as code, not shown with its backticks (the schemas'
    # JSON, in <pre>, is shown as it is)
    assert "`" not in re.sub(r"<pre>.*?</pre>", "", page, flags=re.S)
    assert "<code>/docs#bad_request</code>" in page.split("<h2>")[0]


def test_a_log_replayed_one_event_per_request_with_its_derived_events(client, tmp_path):  # noqa: F811
    """docs/HTTP.md "Derived events": a client that sends every event of its log, derived
    ones included, one per request with the ETag of the last answer as If-Match, gets each
    derived event the service already added answered as stored (nothing appended); the game
    is stored as an import of the same log stores it."""
    game = random_game(35, players=3, game_id="proto-5")
    assert any(type(e) is ev.RoundScored for e in game)
    r = client.post("/games", content=body(game[0]))
    tag = r.headers["etag"]
    derived_seen = 0
    for e in game[1:]:
        r = client.post("/games/proto-5/events", content=body(e), headers={"If-Match": tag})
        assert r.status_code == 200, r.text
        if type(e) in ev.DERIVED_TYPES:
            derived_seen += 1
            assert r.json()["appended"] == [] and r.headers["etag"] == tag
        tag = r.headers["etag"]
    assert derived_seen >= 2
    assert stored_jsonl(client, "proto-5") == imported_jsonl(tmp_path, game)


def test_a_different_derived_event_is_refused_and_changes_nothing(client):  # noqa: F811
    game = random_game(36, players=2, game_id="proto-6")
    first = next(i for i, e in enumerate(game) if type(e) is ev.RoundScored)
    assert client.post("/games", content=body(game[0])).status_code == 201
    r = None
    seq = 1
    for e in inputs(game[:first]):
        if type(e) is ev.GameStarted:
            continue
        r = client.post("/games/proto-6/events", content=body(e), headers={"If-Match": f'"{seq}"'})
        seq = r.json()["seq"]
    before = client.get("/games/proto-6/events").content
    scored = game[first]
    wrong = msgspec.structs.replace(scored, points=tuple(p + 1 for p in scored.points))
    r = client.post("/games/proto-6/events", content=body(wrong), headers={"If-Match": f'"{seq}"'})
    p = check_problem(r, 422, "illegal_move")
    assert p.rule == "R-DERIVED" and p.index == 0 and "points" in p.detail
    # the right one again, but at the seq before the service added it: a failed If-Match
    r = client.post("/games/proto-6/events", content=body(scored),
                    headers={"If-Match": f'"{seq - 1}"'})
    check_problem(r, 412, "precondition_failed")
    assert client.get("/games/proto-6/events").content == before
    # and right: accepted as already stored
    r = client.post("/games/proto-6/events", content=body(scored), headers={"If-Match": f'"{seq}"'})
    assert r.status_code == 200 and r.json() == {"game_id": "proto-6", "seq": seq, "appended": []}
    assert client.get("/games/proto-6/events").content == before


def test_the_clients_read_the_problems_detail(tmp_path):
    """The library's own clients (`seasalt backup --service`, the reading commands' --url)
    quote the problem's ``detail`` in their one-line error."""
    from seasalt_log.errors import SeasaltError
    from seasalt_log.http.app import create_app
    from seasalt_log.http.client import remote_query
    from seasalt_log.http.server import ServerThread
    from seasalt_log.store.backup import backup_from_service

    with ServerThread(create_app(tmp_path / "p.duckdb", token="right")) as url:
        with pytest.raises(SeasaltError, match="refused the backup: wrong token"):
            backup_from_service(url, tmp_path / "copy.duckdb", token="wrong")
        with pytest.raises(SeasaltError, match="answered 401: wrong token"):
            remote_query(url, "wrong", "SELECT 1")
        with pytest.raises(SeasaltError, match="answered 400: query refused"):
            remote_query(url, "right", "DROP TABLE events")
