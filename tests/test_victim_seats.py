"""A victim seat outside the game is the same error on every path: the engine alone
(``apply``, for an event that skipped ``events.validate``), an import, and an HTTP append
all refuse it as a LogFormatError, rule LOG-FORMAT (400 ``bad_event`` over HTTP), and
before any rule of the pair, as validate runs before the rules; with the same reason and
JSON path as ``events.validate`` (a seat below 0 or above 3 too: the decoder leaves every
seat to validate; tests/test_seat_fields.py has every other seat field)."""

from __future__ import annotations

import httpx
import pytest
from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log.engine import apply
from seasalt_log.engine.core import fold
from seasalt_log.errors import LogFormatError
from seasalt_log.http.app import create_app
from seasalt_log.http.server import ServerThread
from seasalt_log.service import import_games, import_logs

from .randomplay import play_random_game

OUTSIDE = (-1, 3, 7)        # seats outside a 3-player game
#: RULES.md §8: the one reason every path gives for seat 3 of a 3-player game, at $.victim
SEAT_3 = "seat 3 out of range (this game has seats 0..2)"


def _shark_turn() -> tuple[list[ev.Event], int]:
    """A 3-player game and the index of a shark pair that steals."""
    for seed in range(400):
        game = play_random_game(seed, 3)
        for i, e in enumerate(game):
            if type(e) is ev.SharkPlayed and e.victim is not None:
                return game, i
    raise AssertionError("no shark pair in 400 random games")


@pytest.fixture(scope="module")
def shark_turn():
    return _shark_turn()


@pytest.mark.parametrize("victim", OUTSIDE)
def test_the_engine_alone_refuses_it_as_a_format_error(shark_turn, victim):
    game, i = shark_turn
    s = fold(game[:i])
    with pytest.raises(LogFormatError) as info:
        apply(s, replace(game[i], victim=victim))
    assert info.value.rule == "LOG-FORMAT" and info.value.path == "$.victim"
    assert info.value.reason == f"seat {victim} out of range (this game has seats 0..2)"
    # a wrong pair too: the seat is refused first, as validate would
    wrong = replace(game[i], victim=victim, cards=("crab:black", "crab:black"))
    with pytest.raises(LogFormatError):
        apply(s, wrong)


@pytest.mark.parametrize("victim", OUTSIDE)
def test_an_import_refuses_it_as_a_format_error(shark_turn, victim):
    game, i = shark_turn
    summary = import_games(None, [game[:i] + [replace(game[i], victim=victim)]])
    (outcome,) = summary.games
    assert outcome.status == "failed" and outcome.rule == "LOG-FORMAT", outcome


def test_an_import_of_json_lines_refuses_it_as_a_format_error(shark_turn, tmp_path):
    game, i = shark_turn
    for victim in OUTSIDE:
        lines = [ev.encode(e) for e in game[:i]] + [ev.encode(replace(game[i], victim=victim))]
        log = tmp_path / f"victim{victim}.jsonl"
        log.write_bytes(b"\n".join(lines) + b"\n")
        (outcome,) = import_logs(None, [log], jobs=1).games
        assert outcome.status == "failed" and outcome.rule == "LOG-FORMAT", (victim, outcome)


def test_an_http_append_refuses_it_as_a_format_error(shark_turn, tmp_path):
    game, i = shark_turn
    gid = game[0].game_id
    json = {"Content-Type": "application/json"}
    with ServerThread(create_app(tmp_path / "victim.duckdb")) as url:
        assert httpx.post(url + "/games", content=ev.encode(game[0]),
                          headers=json).status_code == 201
        body = b"[" + b",".join(ev.encode(e) for e in game[1:i]) + b"]"
        r = httpx.post(f"{url}/games/{gid}/events", content=body,
                       headers={**json, "If-Match": '"1"'}, timeout=30)
        assert r.status_code == 200, r.text
        for victim in OUTSIDE:
            r = httpx.post(f"{url}/games/{gid}/events",
                           content=ev.encode(replace(game[i], victim=victim)),
                           headers={**json, "If-Match": f'"{i}"'}, timeout=30)
            assert r.status_code == 400, (victim, r.text)
            p = r.json()
            assert (p["error"], p["rule"]) == ("bad_event", "LOG-FORMAT"), p
            assert p["path"] == "$.victim", p


def test_every_path_gives_the_same_reason(shark_turn, tmp_path):
    """``engine.check``, an import of events and of JSON lines, ``seasalt validate`` and an
    HTTP append: the same rule, reason and path for a victim seat past the last."""
    from typer.testing import CliRunner

    from seasalt_cli.main import app
    from seasalt_log.engine import check

    game, i = shark_turn
    bad = replace(game[i], victim=3)
    with pytest.raises(LogFormatError) as info:
        check(fold(game[:i]), bad)
    assert (info.value.rule, info.value.reason, info.value.path) == ("LOG-FORMAT", SEAT_3, "$.victim")
    expected = f"LOG-FORMAT: {SEAT_3} at $.victim"
    (outcome,) = import_games(None, [game[:i] + [bad]]).games
    assert outcome.rule == "LOG-FORMAT" and outcome.error.endswith(expected), outcome
    log = tmp_path / "victim3.jsonl"
    log.write_bytes(b"\n".join(ev.encode(e) for e in game[:i] + [bad]) + b"\n")
    (outcome,) = import_logs(None, [log], jobs=1).games
    assert outcome.rule == "LOG-FORMAT" and outcome.error.endswith(expected), outcome
    result = CliRunner().invoke(app, ["validate", str(log)])
    assert result.exit_code == 1 and expected in result.output, result.output
    gid = game[0].game_id
    json = {"Content-Type": "application/json"}
    with ServerThread(create_app(tmp_path / "victim.duckdb")) as url:
        httpx.post(url + "/games", content=ev.encode(game[0]), headers=json)
        body = b"[" + b",".join(ev.encode(e) for e in game[1:i]) + b"]"
        httpx.post(f"{url}/games/{gid}/events", content=body,
                   headers={**json, "If-Match": '"1"'}, timeout=30)
        r = httpx.post(f"{url}/games/{gid}/events", content=ev.encode(bad),
                       headers={**json, "If-Match": f'"{i}"'}, timeout=30)
    p = r.json()
    assert r.status_code == 400 and (p["rule"], p["path"]) == ("LOG-FORMAT", "$.victim"), p
    assert p["reason"] == SEAT_3 and p["detail"].endswith(expected), p
