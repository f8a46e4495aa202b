"""A seat outside the game is one error, whatever field holds it (RULES.md §8, LOG-FORMAT):
the same one-line message (file, line, game; ``seat N out of range (this game has seats
0..n-1)``; the JSON path) from ``events.validate``, ``seasalt validate``, ``seasalt import``
and the HTTP service's problem answer, for a seat past the game's last, past any game's
(above 3) or below 0.

The seat fields are found in the published JSON Schema of a log line (every value described
as a seat, at any depth: a field, a list of seats, a field of a listed object), not listed
here by hand, so that a seat field added to an event is tested too."""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import httpx
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.errors import LogFormatError
from seasalt_log.http.app import create_app
from seasalt_log.http.server import ServerThread

SCHEMA = ev.json_schema()
DEFS = SCHEMA["$defs"]
#: how the schema describes a seat
SEAT_DESCRIPTION = "0-based seat index into players"
#: seats outside a 3-player game: past its last, past any game's, below the first
OUTSIDE = (3, 4, 7, 255, -1)


def _resolve(node: dict) -> dict:
    while "$ref" in node:
        node = DEFS[node["$ref"].rsplit("/", 1)[1]]
    return node


def _seat_paths(node: dict, path: str) -> Iterator[str]:
    """The JSON paths of the seats a value of the schema ``node`` holds (lists: their
    first item)."""
    node = _resolve(node)
    if node.get("description") == SEAT_DESCRIPTION:
        assert node["type"] == "integer"
        yield path
    for alt in node.get("anyOf", ()):
        yield from _seat_paths(alt, path)
    if node.get("type") == "array" and "items" in node:
        yield from _seat_paths(node["items"], path + "[0]")
    for name, prop in node.get("properties", {}).items():
        yield from _seat_paths(prop, f"{path}.{name}")


def _least(node: dict) -> Any:
    """The least value of the schema ``node``: its required fields only, lists of one item
    (or as many as they must hold), the lowest integer, the first of an enumeration."""
    node = _resolve(node)
    if "anyOf" in node:
        return _least(next(a for a in node["anyOf"] if a.get("type") != "null"))
    if "enum" in node:
        return node["enum"][0]
    kind = node["type"]
    if kind == "object":
        return {name: _least(node["properties"][name]) for name in node.get("required", ())}
    if kind == "array":
        return [_least(node["items"])] * max(node.get("minItems", 1), 1)
    if kind == "integer":
        return node.get("minimum", 0)
    if kind == "boolean":
        return False
    assert kind == "string", node
    return "x" * node.get("minLength", 1)


def _with(value: Any, path: str, seat: int) -> Any:
    """``value`` (JSON) with the seat at ``path`` (of :func:`_seat_paths`) set to ``seat``."""
    steps = re.findall(r"\.(\w+)|\[(0)\]", path[1:])
    assert "".join(f".{n}" if n else "[0]" for n, _ in steps) == path[1:], path

    def put(v: Any, rest: list) -> Any:
        if not rest:
            return seat
        (name, _), more = rest[0], rest[1:]
        if name:
            return {**v, name: put(v[name], more)}
        return [put(v[0], more)]
    return put(value, steps)


def _cases() -> list[tuple[str, str]]:
    """(event type, JSON path) of every seat of every event type."""
    cases = []
    for alt in SCHEMA["anyOf"]:
        node = _resolve(alt)
        tag = node["properties"]["type"]["enum"][0]
        cases.extend((tag, p) for p in _seat_paths(node, "$"))
    return cases


CASES = _cases()


def _line(tag: str, path: str, seat: int) -> bytes:
    node = next(_resolve(a) for a in SCHEMA["anyOf"]
                if _resolve(a)["properties"]["type"]["enum"][0] == tag)
    return json.dumps(_with(_least(node), path, seat), separators=(",", ":")).encode()


def _reason(seat: int) -> str:
    return f"seat {seat} out of range (this game has seats 0..2)"


def test_every_seat_field_is_found():
    """The walk finds the seat fields the log format documents (LOG_FORMAT*.md), nested
    and listed ones included, and finds one in every event type but game_started."""
    tags = {t for t, _ in CASES}
    assert tags == {ev.TAGS[t] for t in ev.EVENT_TYPES} - {"game_started"}
    for case in [("turn_ended", "$.player"), ("round_started", "$.first_player"),
                 ("shark_played", "$.victim"), ("round_scored", "$.caller"),
                 ("game_ended", "$.winners[0]"), ("event_awarded", "$.to"),
                 ("event_awarded", "$.discarded[0].player"), ("sharks_played", "$.victim")]:
        assert case in CASES


@pytest.mark.parametrize("tag, path", CASES)
def test_validate_gives_one_message_for_every_seat_field(tag, path):
    for seat in OUTSIDE:
        line = _line(tag, path, seat)
        e = ev.decode(line)                 # the decoder leaves the seat to validate
        with pytest.raises(LogFormatError) as info:
            ev.validate(e, 3)
        err = info.value
        assert (err.rule, err.reason, err.path) == ("LOG-FORMAT", _reason(seat), path), line
        assert str(err) == f"LOG-FORMAT: {_reason(seat)} at {path}"
    for seat in (0, 2):                     # the seats of the game: no seat error
        try:
            ev.validate(ev.decode(_line(tag, path, seat)), 3)
        except LogFormatError as exc:
            assert "out of range" not in exc.reason, (tag, path, seat, exc)


def test_a_long_seat_is_cut_short():
    err = ev.seat_out_of_range(10 ** 40, 3, "$.player")
    assert err.reason == "seat 100000000000... (41 digits) out of range (this game has seats 0..2)"


def _log(tmp_path, seat: int):
    """A log of one game per seat field, each a 3-player game_started and the event with
    ``seat`` there; each game's expected message."""
    lines, want = [], []
    for k, (tag, path) in enumerate(CASES):
        gid = f"g-{k}"
        lines.append(json.dumps({"type": "game_started", "players": ["Ann", "Ben", "Cy"],
                                 "game_id": gid}).encode())
        lines.append(_line(tag, path, seat))
        want.append(f"bad.jsonl:{len(lines)}: game {gid}: LOG-FORMAT: {_reason(seat)} at {path}")
    log = tmp_path / "bad.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    return log, want


@pytest.mark.parametrize("seat", [3, 7, -1])
def test_validate_and_import_give_one_message_for_every_seat_field(tmp_path, seat, monkeypatch):
    log, want = _log(tmp_path, seat)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for args in (["validate", "bad.jsonl"],
                 ["import", "--db", str(tmp_path / "s.duckdb"), "bad.jsonl"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1, (args, result.output)
        errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
        assert errors == ["error: " + w for w in want], args


def test_the_http_service_gives_one_problem_for_every_seat_field(tmp_path):
    headers = {"Content-Type": "application/json"}
    with ServerThread(create_app(tmp_path / "seats.duckdb")) as url:
        for k, (tag, path) in enumerate(CASES):
            gid = f"g-{k}"
            r = httpx.post(url + "/games", json={"type": "game_started", "game_id": gid,
                                                 "players": ["Ann", "Ben", "Cy"]})
            assert r.status_code == 201, r.text
            for seat in (3, 7, -1):
                r = httpx.post(f"{url}/games/{gid}/events", content=_line(tag, path, seat),
                               headers={**headers, "If-Match": '"1"'}, timeout=30)
                p = r.json()
                assert r.status_code == 400 and p["error"] == "bad_event", p
                assert (p["rule"], p["reason"], p["path"]) == ("LOG-FORMAT", _reason(seat),
                                                               path), p
                assert p["detail"] == f"game {gid}: LOG-FORMAT: {_reason(seat)} at {path}", p
