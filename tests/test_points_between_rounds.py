"""Between the rounds of a game with Extra Pepper events, every reader shows a seat's card
points as its round was scored (R-EV-APPLY, R-EV-AWARD): ``event_awarded`` ends the round's
table event and changes the events held, yet the points of the round just played are those
of its ``round_scored``, under the events that were in effect during it. The redaction stays
as it was (R-DECKOUT: after a deck-out a player sees only their own points).

The game is the simulated fixture ``fixtures/sim/simulated-extra-salt-pepper-3p.jsonl``
(seats planner-1, patient-2, patient-3; its events include the derived ones, so a line's
number is its seq):

- round 4, table event The Dance of the Shells (R-EV-DANCE-OF-THE-SHELLS): scored at seq 214
  (LAST CHANCE, every hand shown), awarded to patient-3 at seq 215, who keeps it at seq 216;
- round 5, table event The Diodon Fish, patient-3 holding The Dance of the Shells: a deck-out
  scored at seq 352 and awarded at seq 353.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log import replay
from seasalt_log.engine import State, apply
from seasalt_log.engine.core import player_points
from seasalt_log.sim import simulate
from seasalt_log.view import SPECTATOR, TABLE, scored_card_points, seat_viewer, table_view
from seasalt_log.web.timeline import frames

from .test_http import client, live, record, server  # noqa: F401  (fixtures)

LOG = Path(__file__).resolve().parents[1] / "fixtures" / "sim" / "simulated-extra-salt-pepper-3p.jsonl"
GID = "sim-extra-salt-pepper-7-0"
TEXTS = LOG.read_text().splitlines()
GAME = [ev.decode(t) for t in TEXTS]

# Round 4, patient-2 (seat 1), with The Dance of the Shells in effect (the table event,
# R-EV-APPLY). Hand: boat:yellow, mermaid:white, octopus:grey, octopus:light-blue,
# shell:dark-blue; laid: crab:black + crab:grey, swimmer:light-orange + jellyfish:purple.
#   pairs (R-X-SCORE-DUO): 2 laid pairs = 2; one boat in hand pairs with nothing = 0
#   octopuses, 2 (R-SCORE-COLLECT) = 3
#   shells, 1: R-EV-DANCE-OF-THE-SHELLS scores each shell 2 = 2 (the usual table: 0)
#   the mermaid (R-SCORE-MERMAID): the biggest colour group, grey (octopus, crab) = 2
#   card points 2 + 3 + 2 + 2 = 9 (7 without the event: what the state after
#   event_awarded gave, its table event gone)
DANCE_SEAT, DANCE_POINTS = 1, 9
AWARDED_4, KEPT_4, AWARDED_5 = 215, 216, 353


def _scored(round: int) -> tuple[int, ...]:
    """The logged ``round_scored.card_points`` of ``round`` (checked by the engine on
    import; an independent source: not the view under test)."""
    e = next(e for e in GAME if type(e) is ev.RoundScored and e.round == round)
    return tuple(e.card_points)


def _points(view) -> list[int | None]:
    seats = view["seats"] if isinstance(view, dict) else view.seats
    return [s["card_points"] if isinstance(s, dict) else s.card_points for s in seats]


def test_the_fixture_is_the_case_described():
    assert [type(GAME[k - 1]).__name__ for k in (214, AWARDED_4, KEPT_4, 352, AWARDED_5)] == [
        "RoundScored", "EventAwarded", "EventKept", "RoundScored", "EventAwarded"]
    assert GAME[AWARDED_4 - 1].event == "dance-of-the-shells"
    assert GAME[214 - 1].ending == "last_chance" and GAME[352 - 1].ending == "deck_out"
    assert _scored(4)[DANCE_SEAT] == DANCE_POINTS


@pytest.mark.parametrize("seq", [AWARDED_4, KEPT_4])
def test_after_the_award_every_reader_sees_the_scored_points(seq):
    """R-EV-APPLY, R-EV-AWARD, R-EV-DANCE-OF-THE-SHELLS: after LAST CHANCE every hand is
    shown, so the table, each seat and a spectator see the round's scored points."""
    for state in (replay.replay(GAME, seq=seq), replay.replay_stored(TEXTS, seq=seq)):
        for viewer in (TABLE, SPECTATOR, *map(seat_viewer, range(3))):
            points = _points(table_view(state, viewer))
            assert points[DANCE_SEAT] == DANCE_POINTS, (seq, viewer)
            assert tuple(points) == _scored(4), (seq, viewer)


def test_the_end_of_a_round_is_after_its_award():
    """``replay --round 4`` (the round's last event: event_kept) and its last turn (the
    derived events that follow it: round_scored, event_awarded)."""
    for state in (replay.replay(GAME, round=4), replay.replay_stored(TEXTS, round=4),
                  replay.replay(GAME, round=4, turn=23), replay.replay_stored(TEXTS, round=4, turn=23)):
        assert state.phase == "between" and state.table_event is None
        assert tuple(_points(table_view(state))) == _scored(4)


def test_after_a_deck_out_award_each_seat_sees_only_its_own_scored_points():
    """R-DECKOUT: nobody reveals, so a seat sees its own points only, a spectator none;
    R-EV-DANCE-OF-THE-SHELLS held by patient-3 during round 5 (R-EV-APPLY) counted as
    scored, though the award ended the round's events."""
    state = replay.replay(GAME, seq=AWARDED_5)
    scored = _scored(5)
    assert _points(table_view(state, TABLE)) == list(scored)
    for seat in range(3):
        assert _points(table_view(state, seat_viewer(seat))) == [
            v if s == seat else None for s, v in enumerate(scored)]
    assert _points(table_view(state, SPECTATOR)) == [None] * 3


@pytest.mark.parametrize("ruleset,events", [(None, None), ("extra-salt", None),
                                            (None, "pepper"), ("extra-salt", "pepper")])
def test_without_an_award_the_shown_points_are_the_hands_scored_now(ruleset, events):
    """Where nothing has ended a round's events (every state of a game without events, and
    a game with events up to its awards), the points kept as scored are the hands' points
    now (``player_points``, what the views showed before): nothing else changes."""
    compared = 0
    for game in simulate(4, 3, 11, None, ruleset, events):
        s = State()
        for e in game:
            s = apply(s, e)
            if events and s.table_event is None:    # after event_awarded (or before round 1)
                continue
            scored = scored_card_points(s)
            if scored is not None:
                assert scored == tuple(player_points(s, p) for p in range(s.n)), s
                compared += 1
    assert compared >= 4


# ---------------------------------------------------------------- the other readers

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("between") / "store.duckdb"
    r = runner.invoke(app, ["import", str(LOG), "--db", str(path)])
    assert r.exit_code == 0, r.output
    return path


@pytest.mark.parametrize("who", [None, "patient-2", "patient-3", "spectator"])
def test_replay_cli_text_and_json(db, who):
    """``seasalt replay --seq`` after the award, as the table, two seats and a spectator."""
    as_ = ["--as", who] if who else []
    r = runner.invoke(app, ["replay", GID, "--seq", str(AWARDED_4), "--json", *as_, "--db", str(db)])
    assert r.exit_code == 0, r.output
    assert tuple(_points(msgspec.json.decode(r.stdout))) == _scored(4)
    r = runner.invoke(app, ["replay", GID, "--seq", str(AWARDED_4), *as_, "--db", str(db)])
    assert r.exit_code == 0, r.output
    assert f"patient-2 (seat 1)  total 24  card points {DANCE_POINTS}" in r.stdout


def test_replay_cli_after_a_deck_out_award(db):
    r = runner.invoke(app, ["replay", GID, "--seq", str(AWARDED_5), "--json", "--as", "patient-3",
                            "--db", str(db)])
    assert r.exit_code == 0, r.output
    assert _points(msgspec.json.decode(r.stdout)) == [None, None, _scored(5)[2]]


def test_http_state_of_a_recorded_game(client):  # noqa: F811
    """``GET /games/{id}/state`` (the live service's states, and its replay of a round)."""
    record(client, GAME)
    for params, seat in (({"seq": AWARDED_4}, None), ({"seq": KEPT_4, "as": "1"}, 1),
                         ({"round": 4}, None), ({"seq": AWARDED_4, "as": "spectator"}, None)):
        r = client.get(f"/games/{GID}/state", params=params)
        assert r.status_code == 200, r.text
        assert tuple(_points(r.json())) == _scored(4), params
    r = client.get(f"/games/{GID}/state", params={"seq": AWARDED_5, "as": "2"})
    assert _points(r.json()) == [None, None, _scored(5)[2]]


@pytest.mark.parametrize("viewer", [TABLE, seat_viewer(1), SPECTATOR])
def test_web_viewer_frames(viewer):
    """The replay viewer's frames of the award and the kept event."""
    got = frames(GAME, viewer)
    for seq in (AWARDED_4, KEPT_4):
        frame = got[seq - 1]
        assert frame["seq"] == seq
        assert tuple(_points(frame)) == _scored(4)


def test_a_round_turn_by_turn_ends_with_its_scored_points(db, client):  # noqa: F811
    """``seasalt replay --follow --json`` and ``GET /games/{id}/turns``: the table after the
    round's last turn (its result and award included), as the table and as patient-2."""
    r = runner.invoke(app, ["replay", GID, "--round", "4", "--follow", "--json", "--as",
                            "patient-2", "--db", str(db)])
    assert r.exit_code == 0, r.output
    last = msgspec.json.decode(r.stdout)[-1]
    assert last["state"]["phase"] == "between"
    assert tuple(_points(last["state"])) == _scored(4)
    if not client.get(f"/games/{GID}/state").is_success:
        record(client, GAME)
    r = client.get(f"/games/{GID}/turns", params={"round": 4})
    assert r.status_code == 200, r.text
    assert tuple(_points(r.json()[-1]["state"])) == _scored(4)
