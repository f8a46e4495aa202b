"""The turns read model's card points and colour bonus (R-SCORE, R-SCORE-BONUS; R-X-SCORE
with the events in effect, R-EV-APPLY): a closed turn is scored by counting the seat's
holding on from its last count (``scoring.seat_points_and_bonus``,
``scoring.seat_extra_points_and_bonus``); the whole breakdown of ``player_breakdown`` in
the columns of ``as_breakdown`` is the oracle, for the base game, Extra Salt and Extra Salt
with the Extra Pepper events, closed turns and the turn in play."""

from __future__ import annotations

import pytest

from seasalt_log.engine.core import player_breakdown
from seasalt_log.importers.jsonl import check_game, raw_game
from seasalt_log.scoring import (as_breakdown, points_and_bonus, seat_extra_points_and_bonus,
                                 seat_points_and_bonus)
from seasalt_log.sim import simulate
from seasalt_log.store.projections import project

SETTINGS = [(None, None), ("extra-salt", None), ("extra-salt", "pepper")]


def _checked(ruleset, events):
    return [check_game(raw_game(g)) for players in (2, 3, 4)
            for g in simulate(4, players, 11, None, ruleset, events)]


def _counted_on(counted, state, seat):
    """The seat's (card points, colour bonus) counted on from its last count in ``counted``,
    by the game's scoring (the read models' way of scoring a closed turn)."""
    t, rules = state.table, state.ruleset
    hand, laid = t.hands[seat], t.laid[seat]
    if rules.extra_scoring:
        return seat_extra_points_and_bonus(counted, seat, hand, laid, state.effects(seat),
                                           rules.starfish_in_hand_scores)
    try:
        return seat_points_and_bonus(counted, seat, hand, laid)
    except KeyError:                    # Extra Salt cards in a base-scored hand
        return points_and_bonus(hand, laid)


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


@pytest.mark.parametrize("ruleset,events", SETTINGS)
def test_every_seat_at_every_point_scores_as_the_whole_breakdown_does(ruleset, events):
    checked = 0
    for g in _checked(ruleset, events)[::3]:
        counted: dict = {}          # counted on from one point to the next, as a game goes
        for state in g.states[1:]:
            for seat in range(state.n):
                got = _counted_on(counted, state, seat)      # before the breakdown is memoised
                assert got == _expected(state, seat), (state, seat)
                checked += 1
    assert checked > 1000
