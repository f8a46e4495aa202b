"""Game ids, player names and meta (docs/LOG_FORMAT.md, "Identifiers, limits and meta"):
what the format allows is refused otherwise with LOG-FORMAT (RULES.md §8) on import,
validate and the HTTP service, and meta is given back as it came."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import httpx
import msgspec
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.errors import LogFormatError
from seasalt_log.http.app import create_app
from seasalt_log.http.server import ServerThread
from seasalt_log.importers.jsonl import derive_game_id
from seasalt_log.service import export_lines, import_logs
from seasalt_log.sim import simulate
from seasalt_log.store import Store

from .reliability_helpers import valid_games

runner = CliRunner()
GAME = valid_games(1, seed=3)[0]

GOOD_IDS = ["a", "9", "demo-1", "sim-1-0", "g-0123456789abcdef", "A.b_c:d-e", "2024-05-01T10:00",
            "x" * 64]
BAD_IDS = [".", "..", ".hidden", "-x", "_x", ":x", "a/b", "a b", "a%2Fb", "a?b", "a#b", "é",
           "a\\b", "x" * 65, "a\nb", "a+b", "a~b"]
GOOD_NAMES = ["Ann", "Ann Lee", "O'Brien", "Zoé", "李雷", "🦀", "seat-1", "x" * 100, "1"]
BAD_NAMES = [" Ann", "Ann ", "A\tB", "A\nB", "A\u2028B", "A\u200bB", "A\u202eB", "\u00a0Ann",
             "Ann\u3000", "A\x00B", "x" * 101]


def _start(**fields) -> bytes:
    body = {"type": "game_started", "players": ["Ann", "Ben"], **fields}
    return json.dumps(body, ensure_ascii=False).encode()


def _check(line: bytes) -> ev.Event:
    e = ev.decode(line)
    ev.validate(e, None)
    return e


@pytest.mark.parametrize("gid", GOOD_IDS)
def test_a_game_id_the_format_allows_is_a_url_path_segment_as_it_is(gid):
    assert _check(_start(game_id=gid)).game_id == gid
    # the oracle, RFC 3986: a path segment holds pchar (unreserved, sub-delims, ":", "@")
    # unescaped, and a dot segment ("." or "..") is removed from a path
    assert quote(gid, safe=":@!$&'()*+,;=") == gid and gid not in (".", "..")


@pytest.mark.parametrize("gid", BAD_IDS)
def test_any_other_game_id_is_a_log_format_error_at_game_id(gid):
    with pytest.raises(LogFormatError) as info:
        _check(_start(game_id=gid))
    assert (info.value.rule, info.value.path) == ("LOG-FORMAT", "$.game_id")


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_a_player_name_the_format_allows(name):
    assert _check(_start(players=["Zed", name])).players[1] == name


@pytest.mark.parametrize("name", BAD_NAMES)
def test_any_other_player_name_is_a_log_format_error_at_its_seat(name):
    with pytest.raises(LogFormatError) as info:
        _check(_start(players=["Zed", name]))
    assert (info.value.rule, info.value.path) == ("LOG-FORMAT", "$.players[1]")


def test_simulated_and_derived_ids_and_names_follow_the_rules():
    for players in (2, 3, 4):
        for game in simulate(3, players, 1):
            ev.validate(game[0], None)
    gid = derive_game_id([ev.decode(_start())])
    assert _check(_start(game_id=gid)).game_id == gid


def test_import_and_validate_refuse_a_bad_game_id_naming_file_line_and_rule(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = ev.encode_lines(GAME)
    path.write_bytes(good + _start(game_id="a/b") + b"\n")
    line = len(GAME) + 1
    db = tmp_path / "s.duckdb"
    for cmd in (["import", str(path), "--db", str(db)], ["validate", str(path)]):
        r = runner.invoke(app, cmd)
        assert r.exit_code == 1
        errors = [x for x in r.output.splitlines() if x.startswith("error:")]
        assert errors == [f"error: {path}:{line}: LOG-FORMAT: game_id 'a/b' is not allowed: a "
                          "game_id is 1 to 64 characters among A-Z a-z 0-9 . _ : -, the first "
                          "a letter or a digit at $.game_id"]
    with Store.open(db, read_only=True) as store:
        assert store.game_ids() == [GAME[0].game_id]


def test_the_service_refuses_a_bad_game_id_and_serves_a_good_one(tmp_path):
    with ServerThread(create_app(tmp_path / "live.duckdb")) as url, \
            httpx.Client(base_url=url, timeout=30,
                         headers={"Content-Type": "application/json"}) as client:
        r = client.post("/games", content=_start(game_id="a/b"))
        assert r.status_code == 400
        assert (r.json()["rule"], r.json()["path"]) == ("LOG-FORMAT", "$.game_id")
        r = client.post("/games", content=_start(players=["Ann", "Ben\u202e"]))
        assert (r.status_code, r.json()["path"]) == (400, "$.players[1]")
        r = client.post("/games", content=_start(game_id="A.b_c:d-e"))
        assert r.status_code == 201
        assert client.get("/games/A.b_c:d-e").json()["game"]["game_id"] == "A.b_c:d-e"
        assert client.get(r.headers["location"]).status_code == 200
        # an event over the line limit: the line limit's LOG-FORMAT error, not a 413
        r = client.post("/games", content=_start(meta={"blob": "m" * (1 << 20)}))
        assert r.status_code == 400 and r.json()["rule"] == "LOG-FORMAT"
        assert "at most 1,048,576 bytes" in r.json()["detail"]


# ---------------------------------------------------------------- meta

EXACT = (b'{"a":1E2,"b":1.5e-400,"c":"\\u00e9\\/","n":100000000000000000000000000001,'
         b'"nested":{"x":[1.0,2.50,-0.0,{}]},"z":"last"}')


def _game_with_meta(meta: bytes) -> list[bytes]:
    lines = ev.encode_lines(GAME).splitlines()
    lines[0] = lines[0][:-1] + b',"meta":' + meta + b"}"
    return lines


def _import(tmp_path: Path, lines: list[bytes]):
    path = tmp_path / "meta.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    store = Store.open(tmp_path / "s.duckdb")
    return store, import_logs(store, [path], jobs=1), path


def test_meta_is_exported_byte_for_byte(tmp_path):
    store, summary, _ = _import(tmp_path, _game_with_meta(EXACT))
    with store:
        assert summary.ok, summary.games
        first = next(export_lines(store, [GAME[0].game_id]))
        assert first.rstrip(b"\n").endswith(b',"meta":' + EXACT + b"}")
        stored = store.con.execute("SELECT meta FROM games").fetchone()[0]
        assert stored.encode() == EXACT


def test_meta_whitespace_between_tokens_is_dropped_and_nothing_else(tmp_path):
    spaced = b'{ "a" : 1E2 ,\t"s" : "two  spaces , \\" kept" ,"l":[ 1 , 2 ] }'
    store, summary, _ = _import(tmp_path, _game_with_meta(spaced))
    with store:
        assert summary.ok, summary.games
        first = next(export_lines(store, [GAME[0].game_id]))
        assert b'"meta":{"a":1E2,"s":"two  spaces , \\" kept","l":[1,2]}}' in first


@pytest.mark.parametrize("meta, reason", [
    (b'{"a":1,"b":2,"a":3}', "meta has the key 'a' twice in one object"),
    (b'{"x":{"k":1,"k":1}}', "meta has the key 'k' twice in one object"),
    (b'[1,2]', "meta must be a JSON object"),
    (b'"text"', "meta must be a JSON object"),
    (b'{"x":"\xff"}', "meta is not valid UTF-8"),
    (b'{"x":' + b"[" * 33 + b"]" * 33 + b"}", "meta is nested too deeply (at most 32 levels)"),
])
def test_meta_that_is_not_one_json_object_with_unique_keys_is_refused(tmp_path, meta, reason):
    store, summary, path = _import(tmp_path, _game_with_meta(meta))
    with store:
        (g,) = summary.games
        assert g.status == "failed"
        assert g.error == f"{path}:1: LOG-FORMAT: {reason} at $.meta"
        assert store.game_ids() == []


def test_meta_at_the_depth_limit_is_kept():
    meta = b'{"x":' + b"[" * 31 + b"]" * 31 + b"}"          # 32 levels with the object
    assert bytes(_check(_start()[:-1] + b',"meta":' + meta + b"}").meta) == meta


def test_meta_null_is_no_meta():
    e = _check(_start(meta=None))
    assert e.meta is msgspec.UNSET and b"meta" not in ev.encode(e)


def test_a_game_start_with_bad_meta_after_a_failed_game_is_a_game_of_its_own(tmp_path):
    path = tmp_path / "two.jsonl"
    path.write_bytes(_start(game_id="..") + b"\n"
                     + _start(game_id="ok-2")[:-1] + b',"meta":{"a":1,"a":2}}\n')
    summary = import_logs(None, [path], jobs=1)
    assert [(g.line, g.error.split(": ", 2)[1]) for g in summary.games] == [
        (1, "LOG-FORMAT"), (2, "LOG-FORMAT")]
    assert summary.games[1].error.endswith("meta has the key 'a' twice in one object at $.meta")


def test_outside_meta_a_field_given_twice_counts_once_with_its_last_value():
    e = _check(b'{"type":"game_started","players":["a","b"],"game_id":"x","game_id":"y"}')
    assert e.game_id == "y"
    assert ev.encode(e) == b'{"type":"game_started","players":["a","b"],"game_id":"y"}'
    assert ev.decode(b'{"type":"turn_ended","player":0,"player":1}').player == 1
