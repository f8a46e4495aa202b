"""A chunk of log read in one decoding call (``read_games_data``) when every line is its
event's canonical JSON: the same games, lines and errors as reading it line by line, and
the lines kept as the events' JSON only when they are exactly that."""

from __future__ import annotations

import json

import pytest

from seasalt_log import events as ev
from seasalt_log.importers.jsonl import _lines_within, read_games, read_games_data
from seasalt_log.service import import_logs
from seasalt_log.store import Store

from .reliability_helpers import table_rows, valid_games

GAMES = valid_games(3, seed=5)
LOG = b"".join(ev.encode_lines(g) for g in GAMES)
LINES = LOG.split(b"\n")[:-1]
SECOND = len(GAMES[0])              # index of the second game's game_started line


def _spaced(line: bytes) -> bytes:
    """The same event as JSON with spaces after the separators (not canonical)."""
    return json.dumps(json.loads(line)).encode()


def _with(i: int, line: bytes) -> bytes:
    return b"\n".join([*LINES[:i], line, *LINES[i + 1:]]) + b"\n"


def _seen(games):
    return [(g.source, g.events, list(g.lines), None if g.error is None else str(g.error))
            for g in games]


TURN = next(i for i, line in enumerate(LINES) if b'"turn_ended"' in line)
VARIANTS = {
    "canonical": LOG,
    "no final newline": LOG[:-1],
    "a blank line": _with(TURN, LINES[TURN] + b"\n"),
    "a line of spaces": _with(TURN, LINES[TURN] + b"\n  \t"),
    "spaced JSON": _with(TURN, _spaced(LINES[TURN])),
    "CRLF": _with(TURN, LINES[TURN] + b"\r"),
    "keys in another order": _with(TURN, b'{"player":%d,"type":"turn_ended"}'
                                   % json.loads(LINES[TURN])["player"]),
    # two events on one line, one event over two lines: as many events as lines
    "events across lines": _with(TURN, LINES[TURN] + b" " + LINES[TURN + 1])
    .replace(LINES[TURN + 1] + b"\n", LINES[TURN + 1][:12] + b"\n" + LINES[TURN + 1][12:], 1),
    "meta with spaces": _with(0, LINES[0].replace(b'"meta":{', b'"meta": {  ')),
    "meta null": _with(0, LINES[0][:-1] + b',"meta":null}') if b'"meta"' not in LINES[0]
    else _with(0, LINES[0].split(b',"meta"')[0] + b',"meta":null}'),
    "a seat out of range": _with(TURN, b'{"type":"turn_ended","player":3}'),
    # the player codes: 4 is the code of no player, 300 and -1 are not bytes
    "a seat 4": _with(TURN, b'{"type":"turn_ended","player":4}'),
    "a seat above a byte": _with(TURN, b'{"type":"turn_ended","player":300}'),
    "a negative seat": _with(TURN, b'{"type":"turn_ended","player":-1}'),
    "not JSON": _with(TURN, b'{"type":'),
    "an unknown field": _with(TURN, LINES[TURN][:-1] + b',"x":1}'),
    "no game_started first": b"\n".join(LINES[1:]) + b"\n",
    "a round_scored left out": b"\n".join(
        line for line in LINES if b'"round_scored"' not in line) + b"\n",
    "empty": b"",
}


@pytest.mark.parametrize("name", VARIANTS)
def test_the_same_games_as_line_by_line(name):
    data = VARIANTS[name]
    got = list(read_games_data(data, "log.jsonl", 7))
    expected = list(read_games(data.split(b"\n"), "log.jsonl", 7))
    assert _seen(got) == _seen(expected)
    for g in got:
        if g.texts is not None:        # kept: each is the event's own JSON, its line
            assert g.texts == [ev.encode(e) for e in g.events]
            assert g.texts == [data.split(b"\n")[no - 7] for no in g.lines]


def test_the_lines_are_kept_only_when_every_line_is_canonical():
    assert all(g.texts is not None for g in read_games_data(LOG, "x"))
    assert all(g.texts is not None for g in read_games_data(LOG[:-1], "x"))
    for name in ("a blank line", "spaced JSON", "CRLF", "keys in another order",
                 "events across lines", "meta with spaces", "meta null", "not JSON"):
        assert all(g.texts is None for g in read_games_data(VARIANTS[name], "x")), name


def test_decode_canonical():
    events, lines = ev.decode_canonical(LOG)
    assert lines == LINES
    assert events == [ev.decode(line) for line in LINES]
    assert events == [e for g in GAMES for e in g]
    for name in ("no final newline", "a blank line", "spaced JSON", "events across lines",
                 "meta with spaces", "not JSON", "an unknown field"):
        assert ev.decode_canonical(VARIANTS[name]) is None, name


def test_meta_is_kept_as_decode_keeps_it():
    line = LINES[0].split(b',"meta"')[0].rstrip(b"}") + b',"meta":{"a":1}}'
    events, _ = ev.decode_canonical(line + b"\n")
    assert events[0] == ev.decode(line) and bytes(events[0].meta) == b'{"a":1}'


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_log_not_canonical_stores_the_same_rows(tmp_path, jobs):
    """The stored events' JSON is their canonical encoding whatever the log's spacing."""
    plain, spaced = tmp_path / "plain.jsonl", tmp_path / "spaced.jsonl"
    plain.write_bytes(LOG)
    spaced.write_bytes(b"".join(_spaced(line) + b"\n" for line in LINES))
    rows = []
    for log in (plain, spaced):
        with Store.open(tmp_path / f"{log.stem}.duckdb") as s:
            summary = import_logs(s, [log], jobs=jobs)
            assert summary.new == len(GAMES) and not summary.failed
            rows.append(table_rows(s))
    assert rows[0] == rows[1]
    with Store.open(tmp_path / "spaced.duckdb") as s:
        stored = s.con.execute("SELECT event FROM events ORDER BY game_id, seq").fetchall()
    expected = sorted(((g[0].game_id, i), line) for g in GAMES
                      for i, line in enumerate(ev.encode_each(g)))
    assert [r[0].encode() for r in stored] == [line for _, line in expected]


def _events_with(i: int, line: bytes) -> list:
    return [ev.decode(x) for x in (*LINES[:i], line, *LINES[i + 1:])]


def test_game_starts_checks_each_seat_against_its_own_game():
    events = [e for g in GAMES for e in g]
    third = SECOND + len(GAMES[1])
    assert [len(g[0].players) for g in GAMES] == [4, 2, 3]
    assert ev.game_starts(events) == [0, SECOND, third]
    assert ev.game_starts([]) == []
    # seat 3: in range in the first game (4 players), not in the second (2) or third (3)
    turn_in = [next(i for i in range(a, b) if type(events[i]) is ev.TurnEnded)
               for a, b in ((0, SECOND), (SECOND, third), (third, len(events)))]
    seat3 = b'{"type":"turn_ended","player":3}'
    assert ev.game_starts(_events_with(turn_in[0], seat3)) == [0, SECOND, third]
    assert ev.game_starts(_events_with(turn_in[1], seat3)) is None
    # past the first fault, the games are still found (a log's games are compared one by one)
    assert ev._scan(_events_with(turn_in[1], seat3)) == ([0, SECOND, third], False)
    assert ev.game_starts(_events_with(turn_in[2], seat3)) is None
    assert ev.game_starts(_events_with(turn_in[2], b'{"type":"turn_ended","player":2}')) \
        == [0, SECOND, third]
    # the checks beyond the player seat: a per-seat list, the winners, before any game
    scored = next(i for i in range(SECOND, third) if type(events[i]) is ev.RoundScored)
    three = json.loads(LINES[scored])
    three["points"] = [*three["points"], 0]
    assert ev.game_starts(_events_with(scored, json.dumps(three).encode())) is None
    ended = third - 1
    assert type(events[ended]) is ev.GameEnded
    won = json.loads(LINES[ended])
    won["winners"] = [2]
    assert ev.game_starts(_events_with(ended, json.dumps(won).encode())) is None
    won["winners"] = [1]
    assert ev.game_starts(_events_with(ended, json.dumps(won).encode())) == [0, SECOND, third]
    assert ev.game_starts(events[1:]) is None
    assert ev.game_starts([events[turn_in[0]]]) is None      # no game_started at all
    started = json.loads(LINES[SECOND])
    started["players"] = [started["players"][0]] * 2
    assert ev.game_starts(_events_with(SECOND, json.dumps(started).encode())) is None


def _decoded_line_by_line(data: bytes):
    """The oracle of decode_canonical: each line decoded alone, accepted only if every line
    (ending in a newline) is exactly its event's encoding."""
    lines = data.split(b"\n")
    if lines.pop() or not all(lines):
        return None
    try:
        events = [ev.decode(line) for line in lines]
    except ev.LogFormatError:
        return None
    return (events, lines) if all(ev.encode(e) == line for e, line in zip(events, lines)) else None


_META_OVER_LINES = _with(0, LINES[0].replace(b'"meta":{', b'"meta":\n{')).replace(
    LINES[TURN] + b"\n", LINES[TURN], 1)       # one line more, one less: as many as events


@pytest.mark.parametrize("data", [*VARIANTS.values(), _META_OVER_LINES,
                                  _with(SECOND, LINES[SECOND].replace(b'"meta":{', b'"meta": {')),
                                  _with(SECOND, LINES[SECOND].split(b',"meta"')[0] + b',"meta":null}'),
                                  LINES[SECOND] + b"\n" + LOG],
                         ids=[*VARIANTS, "meta over two lines", "a later game's meta spaced",
                              "a later game's meta null", "a game_started first and later"])
def test_decode_canonical_is_each_line_decoded_alone(data):
    """Every game_started of the log is found (its meta kept as decode keeps it), wherever
    it lies; a meta over two lines is no canonical log."""
    assert b'"meta"' in LINES[SECOND]
    assert ev.decode_canonical(data) == _decoded_line_by_line(data)
    assert ev.decode_canonical(_META_OVER_LINES) is None


@pytest.mark.parametrize("most", [4, 5, 6, 7, 10])
def test_lines_within_is_the_longest_line_measured(most):
    """The short way (a newline in each block of most // 2 bytes) never accepts a line
    longer than ``most``, and the lines are measured whenever it cannot tell."""
    for lengths in ([0], [most], [most + 1], [1, most, 2], [most - 1, most + 1], [3] * 9,
                    [most + 5, 0], [0, 0, most * 3], [most - 2] * 4):
        lines = [b"x" * n for n in lengths]
        data = b"".join(line + b"\n" for line in lines)
        assert _lines_within(data, most) == (max(lengths) <= most), lengths
    assert _lines_within(b"", most)


def test_the_games_lines_carry_their_events_codes():
    """Each game's lines give its events' type and player codes, made once for the log."""
    games = list(read_games_data(LOG, "log"))
    assert len(games) == len(GAMES)
    for g in games:
        assert g.texts.codes() == ev.event_codes(g.events)
    assert ev.event_codes([ev.TurnEnded(player=300)]) is None
