"""The closed turns' one-call scorers (``scoring.points_and_bonus``,
``scoring.holding_points_and_bonus``) against the breakdown functions and the Counter oracle
of tests/extra_scoring_oracle.py, under every set of the events that change the scoring, and
on holdings worked by hand from RULES.md §4 and RULES.md §12."""

from __future__ import annotations

from itertools import combinations

import pytest

from seasalt_log.scoring import (SCORING_EVENTS, breakdown, extra_breakdown,
                                 holding_points_and_bonus, points_and_bonus)

from . import extra_scoring_oracle as oracle
from .test_scoring import _random_holdings as base_holdings, reference_breakdown
from .test_scoring_extra import _random_holdings as extra_holdings

#: every set of the scoring events (R-EV-DANCE-OF-THE-SHELLS, R-EV-KRAKEN, R-EV-TORNADO,
#: R-EV-WATER-RODEO), each with and without an event that changes only the play
_EVENT_SETS = [frozenset(c) | extra for n in range(len(SCORING_EVENTS) + 1)
               for c in combinations(sorted(SCORING_EVENTS), n)
               for extra in (frozenset(), frozenset({"treasure-chest"}))]


def test_every_set_of_scoring_events_gives_the_oracles_points():
    """1,500 random Extra Salt holdings, each under all 32 event sets: the one-call scorer
    gives the oracle's card points and colour bonus, and :func:`extra_breakdown`'s."""
    for hand, laid, _, _, hand_starfish in extra_holdings(1_500, 19):
        for effects in _EVENT_SETS:
            got = holding_points_and_bonus(hand, laid, effects, hand_starfish)
            want = oracle.extra_breakdown(hand, laid, effects, 0, hand_starfish)
            assert got == (want["card_points"], want["color_bonus"]), (hand, laid, effects)
            b = extra_breakdown(hand, laid, effects, 0, hand_starfish)
            assert got == (b.card_points, b.color_bonus)


def test_base_holdings_give_the_reference_points():
    """3,000 random base holdings: the base one-call scorer gives the plain reference's card
    points and colour bonus, and the expansion's scorer gives the same for base cards."""
    for cards, laid in base_holdings(7, 3000):
        want = reference_breakdown(cards, laid)[4:]
        assert points_and_bonus(cards, laid) == want, (cards, laid)
        assert holding_points_and_bonus(cards, laid) == want, (cards, laid)


def _shells(n: int) -> list[str]:
    return ["shell:dark-blue"] * n


@pytest.mark.parametrize("hand,laid,effects,points,bonus", [
    # R-SCORE-COLLECT: six shells 10 (shells make no pairs)
    (_shells(6), (), (), 10, 6),
    # R-EV-DANCE-OF-THE-SHELLS: six shells 12
    (_shells(6), (), ("dance-of-the-shells",), 12, 6),
    # more cards of a kind than any deck holds: the table's last score (the scorers' own
    # bound, past the padded tables)
    (_shells(150), (), (), 10, 150),
    (_shells(150), (), ("dance-of-the-shells",), 12, 150),
    # ... with the multipliers counting every card held: 300 penguins 5 and a colony +2
    # each (600), 300 sailors 5 and a captain +3 each (900); 300 shells 10 beside two
    # octopuses 3, within their table
    (["penguin:purple"] * 300 + ["colony:green"] + ["sailor:orange"] * 300
     + ["captain:light-orange"], (), (), 5 + 600 + 5 + 900, 300),
    (_shells(300) + ["octopus:light-blue"] * 2, (), (), 10 + 3, 300),
    # R-SCORE-COLLECT: penguins 1..3 -> 1, 3, 5; sailors 2 (or more) -> 5; R-SCORE-MULT:
    # captain +3 per sailor, colony +2 per penguin; a laid unit 1
    (["penguin:purple", "penguin:purple", "penguin:purple", "colony:green"], (), (), 5 + 6, 3),
    (["sailor:orange", "captain:light-orange"], [("sailor:orange", "sailor:orange")], (),
     1 + 5 + 3 * 3, 3),
    # R-X-SCORE-SEAHORSE: one octopus, one penguin: the octopus gains 3 (0 -> 3), the
    # penguin 2 (1 -> 3): octopus, 1 + 3; under R-EV-KRAKEN the octopus gains 1 (1 -> 2):
    # penguin, 1 + 1 + 2
    (["octopus:light-blue", "penguin:purple", "seahorse:white"], (), (), 1 + 3, 1),
    (["octopus:light-blue", "penguin:purple", "seahorse:white"], (), ("kraken",), 1 + 1 + 2, 1),
    # R-X-SCORE-SEAHORSE: five shells and the seahorse: 8 -> 10, under the dance 10 -> 12;
    # six shells are at the maximum: the seahorse adds nothing
    (_shells(5) + ["seahorse:white"], (), (), 10, 5),
    (_shells(5) + ["seahorse:white"], (), ("dance-of-the-shells",), 12, 5),
    (_shells(6) + ["seahorse:white"], (), (), 10, 6),
    # R-X-SCORE-DUO: crab+lobster is a pair; three crabs and the lobster: 2 pairs
    (["crab:black", "lobster:black"], (), (), 1, 2),
    (["crab:black", "crab:yellow", "crab:grey", "lobster:black"], (), (), 2, 2),
    (["crab:black"], (), (), 0, 1),
])
def test_hand_worked_holdings(hand, laid, effects, points, bonus):
    """Holdings worked by hand from the rules: the collector tables at their top and past
    it, the event tables with the seahorse, the multipliers, the lobster's pairs."""
    assert holding_points_and_bonus(hand, list(laid), frozenset(effects)) == (points, bonus)
    if not effects and all(not c.startswith(("lobster", "seahorse")) for c in hand):
        assert points_and_bonus(hand, list(laid)) == (points, bonus)
        assert (breakdown(hand, laid).card_points, breakdown(hand, laid).color_bonus) == (
            points, bonus)

