"""The turns read model's card points and colour bonus (R-SCORE, R-SCORE-BONUS; R-X-SCORE
with the events in effect, R-EV-APPLY): a closed turn is scored once through the engine's
``(card points, colour bonus)`` path; the old path, the whole breakdown of
``player_breakdown`` in the columns of ``as_breakdown``, is the oracle, for the base game,
Extra Salt and Extra Salt with the Extra Pepper events, closed turns and the turn in play."""

from __future__ import annotations

import pytest

from seasalt_log.engine.core import player_breakdown, player_points_and_bonus
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


@pytest.mark.parametrize("ruleset,events", SETTINGS)
def test_every_seat_at_every_point_scores_as_the_whole_breakdown_does(ruleset, events):
    checked = 0
    for g in _checked(ruleset, events)[::3]:
        for state in g.states[1:]:
            for seat in range(state.n):
                got = player_points_and_bonus(state, seat)   # before the breakdown is memoised
                assert got == _expected(state, seat), (state, seat)
                checked += 1
    assert checked > 1000


def test_threads_scoring_at_once_each_get_their_own_counts():
    """Two threads scoring closed turns at once (an import's checking thread beside its
    loader, the service's requests), switching as often as Python lets them: each seat's
    holding, counted on from its last count in place, is never counted on from the other
    thread's, so every score is the whole breakdown's."""
    import sys
    import threading

    games = _checked("extra-salt", "pepper") + _checked(None, None)
    work = [[(s, seat) for g in games[k::2] for s in g.states[1:] for seat in range(s.n)]
            for k in (0, 1)]
    want = [[_expected(s, seat) for s, seat in part] for part in work]
    wrong: list[tuple] = []
    start = threading.Barrier(2)

    def score(k: int) -> None:
        start.wait()
        for _ in range(8):
            for (s, seat), w in zip(work[k], want[k]):
                if player_points_and_bonus(s, seat) != w:
                    wrong.append((k, s.seq, seat))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=score, args=(k,)) for k in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert sum(map(len, work)) > 1000
    assert not wrong, wrong[:5]
