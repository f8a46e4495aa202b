"""table_view hands out a seat's or a pile's last view again when what it shows is unchanged
(view.py, ``_SEAT_VIEWS``, ``_PILE_VIEWS``): it must give, state after state and viewer
after viewer, exactly the view built afresh from the state (the construction it replaced,
written out here: R-VIEW, R-LAST-3, RULES.md §7)."""

from __future__ import annotations

import pytest

from seasalt_log.engine import State, apply
from seasalt_log.engine.core import player_points
from seasalt_log.sim import simulate
from seasalt_log.view import (SPECTATOR, TABLE, PileView, SeatView, as_viewer,
                              scored_card_points, sees_hand, table_view)


def fresh_parts(state: State, viewer) -> tuple[tuple[SeatView, ...], tuple[PileView, ...]]:
    """The seats and piles of ``viewer``'s view, every one built anew (R-VIEW)."""
    who = as_viewer(viewer)
    t, f = state.table, state.flow
    seats = []
    scored = scored_card_points(state)     # between rounds: as scored (test_points_between_rounds)
    for s, name in enumerate(state.players):
        hand = t.hands[s] if t.hands else ()
        laid = t.laid[s] if t.laid else ()
        revealed = bool(f.revealed & (1 << s)) or (f.call == "stop" and f.caller == s)
        if sees_hand(state, who, s):
            seats.append(SeatView(s, name, len(hand), tuple(sorted(hand)), laid, revealed,
                                  scored[s] if scored else player_points(state, s) if t.hands
                                  else 0, state.totals[s]))
        else:
            seats.append(SeatView(s, name, len(hand), None, laid, revealed, None,
                                  state.totals[s]))
    table = who.role == "table"
    piles = tuple(PileView(i, p[-1] if p else None, len(p), p if table else None)
                  for i, p in enumerate(t.piles))
    return tuple(seats), piles


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("ruleset,events", [(None, None), ("extra-salt", None),
                                            ("extra-salt", "pepper"), (None, "pepper")])
def test_views_reused_equal_fresh_ones(players, ruleset, events):
    checked = 0
    for game in simulate(3, players, 5, None, ruleset, events):
        s = State()
        for e in game:
            s = apply(s, e)
            # every seat, then the table and a spectator, then the first seat again: the
            # reused views cross viewers, states and games
            for viewer in (*range(players), TABLE, SPECTATOR, 0):
                v = table_view(s, viewer, extra=False)
                assert (v.seats, v.piles) == fresh_parts(s, viewer), (s, viewer)
                checked += 1
    assert checked > 100 * players
