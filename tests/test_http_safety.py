"""The live service against browsers and hostile clients (docs/HTTP.md "Browser safety",
"Hostile clients"), over real sockets."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from seasalt_log import events as ev
from seasalt_log.http.app import create_app
from seasalt_log.http.server import ServerThread

START = ev.encode(ev.GameStarted(players=("Ann", "Ben"), target=12))
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def open_service(tmp_path_factory):
    db = tmp_path_factory.mktemp("safety") / "open.duckdb"
    app = create_app(db, cors_origins=("https://table.example",))
    with ServerThread(app, header_timeout=1.0, max_connections=200) as url:
        yield url


def test_cross_site_writes_are_refused_without_a_token(open_service):
    with httpx.Client(base_url=open_service, timeout=30) as c:
        # a form or fetch with text/plain needs no preflight: refused
        r = c.post("/games", content=START, headers={"Content-Type": "text/plain"})
        assert r.status_code == 415 and r.json()["error"] == "unsupported_media_type"
        r = c.post("/games", content=START,
                   headers={**JSON, "Origin": "https://evil.example"})
        assert r.status_code == 403 and r.json()["error"] == "forbidden_origin"
        # same origin, or an allowed one, may write
        r = c.post("/games", content=START, headers={**JSON, "Origin": open_service})
        assert r.status_code == 201, r.text
        r = c.post("/games", content=ev.encode(ev.GameStarted(players=("A", "B"), game_id="x")),
                   headers={**JSON, "Origin": "https://table.example"})
        assert r.status_code == 201, r.text
        assert r.headers["access-control-allow-origin"] == "https://table.example"


def test_dns_rebinding_is_refused(open_service):
    with httpx.Client(base_url=open_service, timeout=30) as c:
        assert c.get("/health").status_code == 200
        port = open_service.rsplit(":", 1)[1]
        assert c.get("/health", headers={"Host": f"localhost:{port}"}).status_code == 200
        r = c.get("/games", headers={"Host": f"attacker.example:{port}"})
        assert r.status_code == 421 and r.json()["error"] == "bad_host"
        r = c.post("/games", content=START, headers={**JSON, "Host": "attacker.example"})
        assert r.status_code == 421


def test_cors_preflight(open_service):
    with httpx.Client(base_url=open_service, timeout=30) as c:
        pre = {"Access-Control-Request-Method": "POST",
               "Access-Control-Request-Headers": "content-type, authorization"}
        r = c.options("/games", headers={**pre, "Origin": "https://table.example"})
        assert r.status_code == 204
        assert r.headers["access-control-allow-origin"] == "https://table.example"
        assert "POST" in r.headers["access-control-allow-methods"]
        assert "Authorization" in r.headers["access-control-allow-headers"]
        r = c.options("/games", headers={**pre, "Origin": "https://evil.example"})
        assert r.status_code == 403 and "access-control-allow-origin" not in r.headers
        # a plain read from a page not allowed gets no CORS header (the browser hides it)
        r = c.get("/games", headers={"Origin": "https://evil.example"})
        assert r.status_code == 200 and "access-control-allow-origin" not in r.headers


def test_cors_is_off_by_default(tmp_path):
    with ServerThread(create_app(tmp_path / "s.duckdb")) as url:
        r = httpx.options(url + "/games", headers={"Origin": "https://table.example",
                                                   "Access-Control-Request-Method": "POST"})
        assert r.status_code == 403 and "access-control-allow-origin" not in r.headers


def test_utf8_tokens_compare(tmp_path):
    token = "sel de mer – 塩 🧂"
    with ServerThread(create_app(tmp_path / "t.duckdb", token=token)) as url:
        ok = {**JSON, "Authorization": b"Bearer " + token.encode("utf-8")}
        assert httpx.post(url + "/games", content=START, headers=ok).status_code == 201
        bad = {**JSON, "Authorization": b"Bearer " + "sel de mer – 塩 🧂x".encode("utf-8")}
        assert httpx.post(url + "/games", content=START, headers=bad).status_code == 401
        # the service token reads everything; a seat token only its game, as that seat
        gid = httpx.get(url + "/games").json()[0]["game_id"]
        assert httpx.get(f"{url}/games/{gid}/events", headers=ok).status_code == 200
        wrong = {"Authorization": "Bearer not-a-token"}
        assert httpx.get(f"{url}/games/{gid}/events", headers=wrong).status_code == 401


def test_malformed_parameters_are_400(open_service):
    with httpx.Client(base_url=open_service, timeout=30) as c:
        gid = c.get("/games").json()[0]["game_id"]
        assert c.get(f"/games/{gid}/state", params={"as": "\u00b2"}).status_code == 400
        assert c.get(f"/games/{gid}/events", params={"after": "\u00b2"}).status_code == 400
        with c.stream("GET", f"/games/{gid}/follow",
                      headers={"Last-Event-ID": "\u00b2".encode("utf-8")}) as r:
            assert r.status_code == 400


def test_games_are_paged_with_a_link_header(open_service):
    with httpx.Client(base_url=open_service, timeout=30, headers=JSON) as c:
        for i in range(5):
            c.post("/games", content=ev.encode(ev.GameStarted(players=("A", "B"),
                                                                game_id=f"page-{i}")))
        every = [g["game_id"] for g in c.get("/games").json()]
        seen, url = [], "/games?limit=2"
        while url:
            r = c.get(url)
            seen += [g["game_id"] for g in r.json()]
            link = r.headers.get("link")
            url = link[1:link.index(">")] if link else None
        assert seen == every and len(every) >= 5


def test_slow_clients_do_not_lock_others_out(tmp_path):
    """A slowloris crowd: 1,100 connections that send a few header bytes and stall; a
    normal client is still served within a second, and the stalled ones are closed."""
    app = create_app(tmp_path / "slow.duckdb")
    with ServerThread(app, header_timeout=2.0, max_connections=512) as url:
        port = int(url.rsplit(":", 1)[1])
        slow = []
        for _ in range(1100):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            slow.append(s)
        try:
            t0 = time.monotonic()
            r = httpx.get(url + "/health", timeout=5)
            assert r.status_code == 200
            assert time.monotonic() - t0 < 1.0
            time.sleep(2.5)                       # past the header timeout: all closed
            closed = 0
            for s in slow:
                s.settimeout(0.5)
                try:
                    closed += s.recv(1) == b""
                except (ConnectionResetError, socket.timeout):
                    closed += 1
            assert closed == len(slow)
        finally:
            for s in slow:
                s.close()


def _post_in_parts(port: int, path: str, body: bytes, pause: float | None) -> bytes:
    """POST ``body`` on a raw socket: the headers and the first half of the body, then,
    ``pause`` seconds later, the rest (None: all in one write); the response's first
    bytes."""
    half = len(body) if pause is None else len(body) // 2
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                  f"\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body[:half])
        time.sleep(pause or 0)
        try:
            s.sendall(body[half:])
        except OSError:                      # already answered and closed
            pass
        return s.recv(4096)


def test_request_bodies_in_pieces_and_too_slow_ones(tmp_path):
    """A body that comes in two pieces is read whole (201); one whose rest comes after the
    body timeout gets 408, and a body sent with its headers is read at once."""
    app = create_app(tmp_path / "pieces.duckdb", body_timeout=0.5)
    with ServerThread(app) as url:
        port = int(url.rsplit(":", 1)[1])
        first = ev.encode(ev.GameStarted(players=("Ann", "Ben"), game_id="pieces-1", target=12))
        assert _post_in_parts(port, "/games", first, 0.05).startswith(b"HTTP/1.1 201")
        second = ev.encode(ev.GameStarted(players=("Ann", "Ben"), game_id="pieces-3", target=12))
        assert _post_in_parts(port, "/games", second, None).startswith(b"HTTP/1.1 201")
        late = ev.encode(ev.GameStarted(players=("Ann", "Ben"), game_id="pieces-2", target=12))
        answer = _post_in_parts(port, "/games", late, 1.5)
        assert answer.startswith(b"HTTP/1.1 408") and b"too slowly" in answer
        with httpx.Client(base_url=url, timeout=30, headers=JSON) as c:
            assert c.get("/games/pieces-2").status_code == 404       # nothing stored
            assert c.post("/games", content=START).status_code == 201


def test_rate_limit_answers_429(tmp_path):
    with ServerThread(create_app(tmp_path / "r.duckdb", rate_limit=2)) as url:
        with httpx.Client(base_url=url, timeout=30) as c:
            codes = [c.get("/health") for _ in range(12)]
        assert codes[0].status_code == 200
        limited = [r for r in codes if r.status_code == 429]
        assert limited and int(limited[0].headers["retry-after"]) >= 1


def test_query_endpoint_reads_only_for_the_table(tmp_path):
    token = "q-token"
    with ServerThread(create_app(tmp_path / "q.duckdb", token=token)) as url:
        auth = {**JSON, "Authorization": f"Bearer {token}"}
        assert httpx.post(url + "/games", content=START, headers=auth).status_code == 201

        def q(sql, headers=auth):
            return httpx.post(url + "/query", json={"sql": sql}, headers=headers)

        r = q("SELECT count(*) AS n FROM games")
        assert r.status_code == 200 and r.json()["rows"] == [[1]], r.text
        # a JSON column's cells are JSON values, not strings holding JSON (docs/HTTP.md)
        r = q("""SELECT '{"a": [1, 2.5], "b": "é"}'::JSON AS j, NULL::JSON AS n, 'x' AS s""")
        assert r.json()["types"] == ["JSON", "JSON", "VARCHAR"], r.text
        assert r.json()["rows"] == [[{"a": [1, 2.5], "b": "é"}, None, "x"]], r.text
        assert q("SELECT 1", JSON).status_code == 401
        for bad in ("DELETE FROM games", "SELECT * FROM read_text('/etc/hostname')",
                    "COPY games TO 'out.csv'", "SELECT 1; SELECT 2"):
            r = q(bad)
            assert r.status_code == 400 and r.json()["error"] == "query_refused", (bad, r.text)
            assert r.json()["title"] == "Query refused", r.text
        # a failing query is titled as the CLI words it ("query failed: ..."), not "SQL ..."
        r = q("SELECT no_such_column FROM games")
        assert (r.status_code, r.json()["error"], r.json()["title"]) == (
            400, "query_error", "Query failed"), r.text
        assert r.json()["detail"].startswith("query failed: Binder Error"), r.text
        r = q("SELECT * FROM range(20000)")
        assert len(r.json()["rows"]) == 10_000 and r.json()["truncated"] is True
        # the store is unchanged and still takes appends
        assert q("SELECT count(*) FROM games").json()["rows"] == [[1]]


def test_query_needs_a_token(open_service):
    r = httpx.post(open_service + "/query", json={"sql": "SELECT 1"})
    assert r.status_code == 403


def test_cli_reads_a_running_service(tmp_path):
    """`seasalt games --url` and `seasalt query --url` ask the service that holds the store."""
    from typer.testing import CliRunner

    from seasalt_cli.main import app

    token = "cli-token"
    with ServerThread(create_app(tmp_path / "c.duckdb", token=token)) as url:
        auth = {**JSON, "Authorization": f"Bearer {token}"}
        for i in range(3):
            body = ev.encode(ev.GameStarted(players=("Ann", "Ben"), game_id=f"cli-{i}"))
            assert httpx.post(url + "/games", content=body, headers=auth).status_code == 201
        runner = CliRunner()
        r = runner.invoke(app, ["games", "--url", url, "--json"])
        assert r.exit_code == 0, r.output
        assert [g["game_id"] for g in __import__("json").loads(r.stdout)] == ["cli-0", "cli-1", "cli-2"]
        r = runner.invoke(app, ["show", "cli-1", "--url", url, "--json"])
        assert r.exit_code == 0, r.output
        assert __import__("json").loads(r.stdout)["game"]["players"] == ["Ann", "Ben"]
        r = runner.invoke(app, ["query", "--url", url, "--token", token, "--format", "csv",
                                "SELECT count(*) AS n FROM games"])
        assert r.exit_code == 0, r.output
        assert r.stdout.splitlines() == ["n", "3"]
        r = runner.invoke(app, ["query", "--url", url, "--token", "wrong", "SELECT 1"])
        assert r.exit_code != 0 and "401" in r.output


def test_a_full_disk_is_507():
    import errno

    import duckdb

    from seasalt_log.http.errors import error_for
    for exc in (OSError(errno.ENOSPC, "No space left on device"),
                duckdb.IOException('IO Error: Could not write file "x.wal": No space left on device')):
        e = error_for(exc)
        assert e.status == 507 and e.error == "insufficient_storage"
    assert error_for(RuntimeError("boom")).status == 500
