"""R-EV-PLACE: places come from the game totals after the round, not from the round's
points (Ruling, BGA). Worked by hand; the scenario of round 1 is test_pepper's."""

from __future__ import annotations

from seasalt_log import events as ev

from ..scenario import draw, stop
from .test_pepper import scored_game


def test_r_ev_place_by_game_totals_not_by_the_round():
    """R-EV-PLACE, R-EV-AWARD: round 1 (Sunfish): Ann stops with 7, Ben 0: the Sunfish
    (last place) goes to Ben. Round 2 (Kraken, first place): Ben stops with 11 (3 penguins
    5 + colony 2 x 3, a single boat 0), Ann holds 7 (sailors 5, 2 shells 2). Totals: Ann
    14, Ben 11. By the totals Ann is first and Ben last: the Kraken goes to Ann and Ben
    keeps the Sunfish. (By the round's points Ben would be first: Kraken to Ben, and his
    Sunfish discarded at step 1.)"""
    g = scored_game("sunfish")
    scored, awarded = g.derived()
    assert scored.totals == (7, 0) and awarded.to == 1
    g.start_round(hands={1: ["penguin:purple", "penguin:pink", "penguin:light-orange",
                             "colony:green"],
                         0: ["sailor:pink", "sailor:orange", "shell:black", "shell:grey"]},
                  then=["boat:black", "fish:black"], event="kraken")
    assert g.player == 1
    g.play(draw(1, "boat:black", "fish:black"), stop(1))
    scored, awarded = g.derived()
    assert scored.points == (7, 11) and scored.totals == (14, 11)
    assert awarded == ev.EventAwarded(round=2, event="kraken", to=0, discarded=())
    assert g.state.held == (("kraken",), ("sunfish",))
