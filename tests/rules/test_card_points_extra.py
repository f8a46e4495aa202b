"""Card points with the expansions through the engine (RULES.md §12 and the scoring events
of §14.3): R-X-SCORE-DUO, R-X-SCORE-STARFISH, R-X-SCORE-SEAHORSE, R-X-SCORE-CAST,
R-X-SCORE-COLOUR, R-X-SCORE-MERMAIDS, R-EV-KRAKEN, R-EV-TORNADO, R-EV-DANCE-OF-THE-SHELLS,
R-EV-WATER-RODEO, R-EV-DANCE-OF-THE-MERMAIDS.

Most cases are the worked examples of RULES.md §12, held with an anchor of 11 card points
(``sailor:pink``, ``sailor:orange``, ``captain:light-orange``: sailors 5 + captain 3 x 2) so
that seat 0 may call STOP. Two sailors are the sailors' maximum, so the anchor never gives
the seahorse a kind to join (R-X-SCORE-SEAHORSE). Expected points are worked by hand.
"""

from __future__ import annotations

import pytest

from seasalt_log import events as ev

from ..scenario import draw, end
from .test_card_points import holding, refused_call, scored_after_stop

ANCHOR = ["sailor:pink", "sailor:orange", "captain:light-orange"]       # 11
M, SH = "mermaid:white", "seahorse:white"
SHELLS = ["shell:dark-blue", "shell:light-blue", "shell:black", "shell:yellow", "shell:green",
          "shell:grey"]
XS = "extra-salt"


def points(cards, **kw) -> int:
    return scored_after_stop(holding(cards, **kw))[0]


# ---------------------------------------------------------------- §12's worked examples

@pytest.mark.parametrize("cards, expected", [
    # crab + lobster: min(1, 1) + floor(0 / 2) = 1
    (["crab:dark-blue", "lobster:black"], 1),
    # 3 crabs + lobster: 1 + floor(2 / 2) = 2; cast of crabs: 3 crabs (not the lobster) = 3
    (["crab:dark-blue", "crab:light-blue", "crab:yellow", "lobster:black", "castofcrabs:green"], 5),
    # 2 boats 1 + a starfish matched with that pair 2
    (["boat:dark-blue", "boat:light-blue", "starfish:yellow"], 3),
    # 2 starfish, one pair in hand: 2 x min(2, 1) = 2; + 1
    (["boat:dark-blue", "boat:light-blue", "starfish:yellow", "starfish:dark-blue"], 3),
    # the seahorse alone: no collector of a kind below its maximum (sailors are at 2)
    ([SH, "boat:black"], 0),
    # mermaid: white group of 2 (mermaid + seahorse) beats the singles: 2
    ([M, SH, "boat:black"], 2),
    # jellyfish + swimmer + shark: min(W 1, S + J 2) = 1
    (["jellyfish:purple", "swimmer:black", "shark:green"], 1),
], ids=["crab-lobster", "cast", "starfish", "two-starfish", "seahorse-alone", "mermaid-seahorse",
        "jellyfish"])
def test_r_x_score_duo_starfish_seahorse_cast_worked_examples(cards, expected):
    """R-X-SCORE-DUO, R-X-SCORE-STARFISH, R-X-SCORE-SEAHORSE, R-X-SCORE-CAST,
    R-X-SCORE-COLOUR: RULES.md §12's table, 11 from the anchor added."""
    assert points(ANCHOR + cards, ruleset=XS, discard="boat:yellow") == 11 + expected


@pytest.mark.parametrize("cards, expected", [
    # seahorse as a sailor: 2 sailors 5; the captain counts the one real sailor: 3
    ([SH, "sailor:pink", "captain:light-orange", "boat:black", "fish:black"], 8),
    # 5 shells 8; the seahorse as a second octopus: 3 (as a sixth shell only +2): 11
    ([SH] + SHELLS[:5] + ["octopus:green"], 11),
    # 6 shells (the maximum) 10: the seahorse has no kind to join
    ([SH] + SHELLS, 10),
    # the seahorse as a third penguin: 5; the colony counts the 2 real penguins: 4
    ([SH, "penguin:purple", "penguin:pink", "colony:green"], 9),
], ids=["sailor-captain", "shells-octopus", "six-shells", "penguins-colony"])
def test_r_x_score_seahorse_best_kind_and_no_multiplier(cards, expected):
    """R-X-SCORE-SEAHORSE: the best qualifying kind; never counted by a multiplier."""
    assert points(cards, ruleset=XS) == expected


def test_r_x_score_starfish_a_laid_trio_is_three():
    """R-X-SCORE-STARFISH / R-X-TRIO: a laid fish + fish + starfish trio scores 1 + 2."""
    g = holding(ANCHOR + ["fish:dark-blue", "fish:black", "starfish:yellow"], ruleset=XS)
    g.play(ev.StarfishPlayed(player=0, cards=("fish:dark-blue", "fish:black"),
                             starfish="starfish:yellow"))
    assert scored_after_stop(g)[0] == 11 + 3


def test_r_x_score_starfish_unmatched_scores_nothing():
    """R-X-SCORE-STARFISH: 2 sailors 5, a single boat 0, a starfish with no pair in hand 0:
    5 card points, the call is refused (a starfish scoring 2 alone would make 7)."""
    refused_call(holding(["sailor:pink", "sailor:orange", "boat:black", "starfish:yellow"],
                         ruleset=XS))


def test_r_x_score_cast_the_lobster_and_the_cast_are_no_crabs():
    """R-X-SCORE-CAST: sailors 5, crab + lobster pair in hand 1, cast of crabs 1 x 1 crab:
    7, not 8 (the lobster is no crab); and sailors 5, cast 0 crabs, single crab... = 6."""
    assert points(["sailor:pink", "sailor:orange", "crab:dark-blue", "lobster:black",
                   "castofcrabs:green"], ruleset=XS) == 7
    refused_call(holding(["sailor:pink", "sailor:orange", "lobster:black", "castofcrabs:green",
                          "boat:black"], ruleset=XS))


# ---------------------------------------------------------------- R-X-SCORE-MERMAIDS

def test_r_x_score_mermaids_the_seahorse_is_no_mermaid_for_the_win():
    """R-X-SCORE-MERMAIDS: three mermaids and the seahorse at the end of the turn do not
    win (only mermaid cards count); the round goes on."""
    g = holding([M, M, SH, M], ruleset=XS)
    g.play(end(0))
    assert g.derived() == [] and g.player == 1


def test_r_x_score_mermaids_under_the_dance_two_mermaids_and_the_seahorse_do_not_win():
    """R-X-SCORE-MERMAIDS, R-EV-DANCE-OF-THE-MERMAIDS: three are enough under the event,
    but the seahorse is not one of them."""
    g = holding([M, SH, M], ruleset=XS, events="pepper", event="dance-of-the-mermaids")
    g.play(end(0))
    assert g.derived() == [] and g.player == 1


def test_r_ev_dance_of_the_mermaids_two_are_not_enough():
    """R-EV-DANCE-OF-THE-MERMAIDS: 2 mermaids do not win; 3 do (the legal case)."""
    g = holding([M, "boat:black", M], events="pepper", event="dance-of-the-mermaids")
    g.play(end(0))
    assert g.derived() == []
    g3 = holding([M, M, M], events="pepper", event="dance-of-the-mermaids", discard="boat:black")
    g3.play(end(0))
    (ended,) = g3.derived()
    assert type(ended) is ev.GameEnded and ended.winners == (0,)


# ---------------------------------------------------------------- scoring events

@pytest.mark.parametrize("event, cards, expected", [
    ("kraken", ["octopus:green"], 1),                                   # 1 each, not 0
    ("kraken", ["octopus:green", "octopus:yellow", "octopus:grey"], 3),  # not 6
    ("kraken", ["octopus:green", "octopus:yellow", "octopus:grey", "octopus:purple",
                "octopus:light-blue"], 5),                              # not 12
    ("dance-of-the-shells", SHELLS[:3], 6),                             # 2 each, not 4
    ("dance-of-the-shells", SHELLS, 12),                                # not 10
    ("sunfish", SHELLS[:3], 4),                                         # the usual table
    ("sunfish", ["octopus:green", "octopus:yellow", "octopus:grey"], 6),
], ids=["kraken-1", "kraken-3", "kraken-5", "shells-3", "shells-6", "plain-shells",
        "plain-octopuses"])
def test_r_ev_kraken_and_r_ev_dance_of_the_shells_tables(event, cards, expected):
    """R-EV-KRAKEN: octopuses 1 to 5 score 1 to 5; R-EV-DANCE-OF-THE-SHELLS: shells 2 each;
    another table event leaves the tables alone."""
    assert points(ANCHOR + cards, events="pepper", event=event) == 11 + expected


def test_r_ev_dance_of_the_shells_after_the_seahorse():
    """R-EV-DANCE-OF-THE-SHELLS, R-X-SCORE-SEAHORSE: 3 shells and the seahorse are 4 shells
    under the event: 8."""
    assert points(ANCHOR + SHELLS[:3] + [SH], ruleset=XS, events="pepper",
                  event="dance-of-the-shells") == 11 + 8


def test_r_ev_tornado_mermaids_score_nothing_colours_unchanged():
    """R-EV-TORNADO: 2 mermaids and 3 light-blue singles: the mermaids score 0 (5 without
    the event: light-blue 3, then white 2); the colour bonus is still light-blue 3."""
    cards = ANCHOR + [M, M, "crab:light-blue", "boat:light-blue", "fish:light-blue"]
    assert scored_after_stop(holding(cards, events="pepper", event="tornado")) == (11, 3)
    assert scored_after_stop(holding(cards, events="pepper", event="kraken")) == (16, 3)


@pytest.mark.parametrize("event, cards, expected", [
    ("water-rodeo", ["swimmer:black", "swimmer:yellow"], 1),
    # min(J 0, W 1) + floor((1 + 3) / 2) = 2
    ("water-rodeo", ["shark:black", "shark:green", "shark:purple", "swimmer:black"], 2),
    # without the event: two swimmers 0; 3 sharks + a swimmer min(1, 3) = 1
    ("kraken", ["swimmer:black", "swimmer:yellow"], 0),
    ("kraken", ["shark:black", "shark:green", "shark:purple", "swimmer:black"], 1),
], ids=["rodeo-swimmers", "rodeo-sharks", "plain-swimmers", "plain-sharks"])
def test_r_ev_water_rodeo_pairs_count_in_hand(event, cards, expected):
    """R-EV-WATER-RODEO, R-X-SCORE-DUO (Ruling, text not BGA): the new pairs count in hand."""
    assert points(ANCHOR + cards, events="pepper", event=event) == 11 + expected


def test_r_x_score_duo_water_rodeo_with_the_jellyfish():
    """R-X-SCORE-DUO: jellyfish and 3 swimmers under the Water Rodeo: min(1, 3) +
    floor((3 - 1 + 0) / 2) = 2."""
    assert points(ANCHOR + ["jellyfish:purple", "swimmer:black", "swimmer:yellow",
                            "swimmer:dark-blue"], ruleset=XS, events="pepper",
                  event="water-rodeo") == 11 + 2


def test_r_ev_apply_a_held_event_changes_its_holders_points_only():
    """R-EV-APPLY: Ann holds the Kraken after round 1 (first place, R-EV-AWARD); in round 2
    (table event: the Sunfish) her 2 octopuses score 2 (Kraken: 1 each), Ben's 3 score 6
    (the usual table). Ann: octopuses 2 + penguins 5 + colony 2 x 3 = 13; Ben calls STOP
    with the anchor 11 + octopuses 6 + a single boat 0 = 17."""
    from .test_pepper import scored_game
    g = scored_game("kraken")
    assert g.derived()[1] == ev.EventAwarded(round=1, event="kraken", to=0, discarded=())
    ann = ["octopus:purple", "octopus:light-blue", "penguin:purple", "penguin:pink",
           "penguin:light-orange", "colony:green"]
    ben = ANCHOR + ["octopus:green", "octopus:yellow", "octopus:grey"]
    g.start_round(hands={0: ann, 1: ben}, then=["boat:black", "fish:black"], event="sunfish")
    assert g.player == 1
    g.play(draw(1, "boat:black", "fish:black"), ev.StopCalled(player=1))
    scored = g.derived()[0]
    assert scored.card_points == (13, 17)
