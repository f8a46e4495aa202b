"""The turns read model's card points and colour bonus (R-SCORE, R-SCORE-BONUS; R-X-SCORE
with the events in effect, R-EV-APPLY): a closed turn is scored by counting the seat's
holding on from its last count (``scoring.seat_points_and_bonus``,
``scoring.seat_extra_points_and_bonus``); the whole breakdown of ``player_breakdown`` in
the columns of ``as_breakdown`` is the oracle, for the base game, Extra Salt and Extra Salt
with the Extra Pepper events, closed turns and the turn in play. (The scorers alone, on
random holdings: tests/test_seat_points.py.)"""

from __future__ import annotations

import pytest

from seasalt_log.engine.core import player_breakdown
from seasalt_log.importers.jsonl import check_game, raw_game
from seasalt_log.scoring import as_breakdown
from seasalt_log.sim import simulate
from seasalt_log.store.projections import project

SETTINGS = [(None, None), ("extra-salt", None), ("extra-salt", "pepper")]


def _checked(ruleset, events):
    return [check_game(raw_game(g)) for players in (2, 3, 4)
            for g in simulate(4, players, 11, None, ruleset, events)]


def _expected(state, seat):
    b = as_breakdown(player_breakdown(state, seat))
    return b.card_points, b.color_bonus


@pytest.mark.parametrize("ruleset,events", SETTINGS)
def test_every_turn_row_scores_the_hand_as_the_whole_breakdown_does(ruleset, events):
    turns = 0
    for g in _checked(ruleset, events):
        for row in project(g.game_id, g.events, g.states)["turns"]:
            seat, last_seq = row[3], row[20]
            assert row[16:18] == _expected(g.states[last_seq - 1], seat), row
            turns += 1
    assert turns > 200


@pytest.mark.parametrize("ruleset,events", SETTINGS)
def test_the_turn_in_play_is_scored_as_the_whole_breakdown_does(ruleset, events):
    g = _checked(ruleset, events)[5]
    checked = 0
    for end in range(len(g.events) // 3, len(g.events), 7):     # cuts mid-turn among them
        row = project(g.game_id, g.events[:end], g.states[:end])["turns"][-1]
        assert row[20] == end or row[13] is not None            # the latest turn row
        assert row[16:18] == _expected(g.states[row[20] - 1], row[3])
        checked += 1
    assert checked > 10


def test_an_imports_type_codes_are_its_events_and_give_the_same_rows():
    """The import hands the read models each event's type code as the log's reader made it
    (``chunks.reader_type_codes``): the codes of the events checked, and the same rows as
    without."""
    from seasalt_log import events as ev
    from seasalt_log.importers.chunks import reader_type_codes
    from seasalt_log.importers.jsonl import read_games_data
    data = b"".join(line + b"\n" for g in simulate(3, 3, 11, None, "extra-salt", "pepper")
                    for line in ev.encode_each(g))
    games = 0
    for raw in read_games_data(data, "sim.jsonl"):
        g = check_game(raw)
        types = reader_type_codes(raw.texts)
        assert types == ev.type_codes(g.events)
        assert project(g.game_id, g.events, g.states, types) == project(
            g.game_id, g.events, g.states)
        games += 1
    assert games == 3
