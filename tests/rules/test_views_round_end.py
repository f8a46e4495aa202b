"""What each player can see when a round ends (RULES.md §7, R-VIEW, with R-STOP, R-LAST-3
and R-DECKOUT): the redacted ``round_scored`` against the hands each seat may see."""

from __future__ import annotations

from seasalt_log.view import table_view

from .test_end import deck_out
from .test_views_extra import seen_by


def test_r_view_a_deck_out_reveals_no_card_points():
    """R-VIEW ("another player's hand is hidden ... until it is revealed"; a replay shows
    only what the player could know), R-DECKOUT (nobody scores, nobody reveals): Ben's copy
    of the deck-out's round_scored keeps his own card points and colour bonus and hides
    Ann's, as his table view does."""
    g = deck_out()
    rs = g.derived()[0]
    assert rs.ending == "deck_out"
    assert table_view(g.state, 1).seats[0].card_points is None
    ben = seen_by(g, 1)
    assert tuple(ben["points"]) == (0, 0)
    assert ben["card_points"][1] == rs.card_points[1]
    assert ben["card_points"][0] is None and ben["color_bonus"][0] is None
