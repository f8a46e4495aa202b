"""Card points and the colour bonus through the engine (RULES.md §4): R-SCORE-DUO,
R-SCORE-COLLECT, R-SCORE-MULT, R-SCORE-MERMAID, R-SCORE-BONUS.

Seat 0 ends its first turn holding the cards of a case (the last one drawn from the deck)
and calls STOP: the call is legal only with 7 card points or more (R-END-2), and
``round_scored`` reports the card points and the colour bonus. Every number is worked out
by hand from the rule text in the comments; a case at 6 by the rule is one that a broken
rule would push to 7 or more, so the refused call catches the breakage too.
"""

from __future__ import annotations

import pytest

from ..scenario import Game, crabs, draw, stop

M = "mermaid:white"
SAILORS = ["sailor:pink", "sailor:orange"]          # 5 (R-SCORE-COLLECT)


def holding(cards: list[str], discard: str = "boat:yellow", ruleset: str | None = None,
            events: str | None = None, **kw) -> Game:
    """A 2-player round in which seat 0 is dealt ``cards[:-1]`` and draws ``cards[-1]``
    (discarding ``discard``); seat 1 is padded to the same size. ``kw`` go to
    :meth:`Game.start_round` (``event``: the table event of a game with ``events``)."""
    g = Game(2, ruleset=ruleset, events=events).start_round(hands={0: cards[:-1]},
                                                           then=[cards[-1], discard], **kw)
    g.play(draw(0, cards[-1], discard, pile=0))
    assert sorted(g.hand(0)) == sorted(cards)
    return g


def scored_after_stop(g: Game) -> tuple[int, int]:
    g.play(stop(0))
    (rs,) = [e for e in g.derived() if type(e).__name__ == "RoundScored"]
    assert rs.points[0] == rs.card_points[0]                        # R-STOP
    return rs.card_points[0], rs.color_bonus[0]


def refused_call(g: Game) -> None:
    assert g.refuse(stop(0)).rule == "R-END-2"


# ---------------------------------------------------------------- R-SCORE-DUO

@pytest.mark.parametrize("cards, points, bonus", [
    # sailors 5 + four crabs floor(4/2) = 2: 7; yellow 2 (two crab:yellow)
    (SAILORS + ["crab:dark-blue", "crab:light-blue", "crab:yellow", "crab:yellow"], 7, 2),
    # sailors 5 + min(2 sharks, 2 swimmers) = 2: 7; six colours once each
    (SAILORS + ["shark:dark-blue", "shark:light-blue", "swimmer:black", "swimmer:yellow"], 7, 1),
    # sailors 5 + boats floor(2/2) 1 + fish floor(2/2) 1: 7; black 2
    (SAILORS + ["boat:black", "boat:dark-blue", "fish:black", "fish:yellow"], 7, 2),
], ids=["crabs", "shark-swimmer", "boats-fish"])
def test_r_score_duo_pairs_in_hand_count_one_each(cards, points, bonus):
    """R-SCORE-DUO: in hand, floor(n/2) for crabs, boats, fish; min(sharks, swimmers)."""
    assert scored_after_stop(holding(cards)) == (points, bonus)


@pytest.mark.parametrize("cards", [
    # 3 crabs: floor(3/2) = 1, not 2 (or 3): sailors 5 + 1 = 6
    SAILORS + ["crab:dark-blue", "crab:light-blue", "crab:yellow"],
    # two sharks are no pair: sailors 5 + boats 1 + sharks 0 = 6
    SAILORS + ["shark:dark-blue", "shark:light-blue", "boat:black", "boat:dark-blue"],
    # two swimmers are no pair: sailors 5 + boats 1 + swimmers 0 = 6
    SAILORS + ["swimmer:black", "swimmer:yellow", "boat:black", "boat:dark-blue"],
    # 3 fish: 1; sailors 5 + 1 + single boat 0 = 6
    SAILORS + ["fish:dark-blue", "fish:black", "fish:yellow", "boat:black"],
], ids=["three-crabs", "two-sharks", "two-swimmers", "three-fish"])
def test_r_score_duo_what_is_not_a_pair_scores_nothing(cards):
    """R-SCORE-DUO: 6 card points by the rule, so the call is refused (R-END-2)."""
    refused_call(holding(cards))


def test_r_score_duo_a_laid_pair_counts_one():
    """R-SCORE-DUO: the laid crab pair counts 1: sailors 5 + penguin 1 + laid pair 1 +
    single shell 0 + single octopus 0 (taken by the crabs) = 7. Colours: pink, orange,
    purple, dark-blue, light-blue, grey, yellow: bonus 1."""
    g = holding(SAILORS + ["penguin:purple", "crab:dark-blue", "crab:light-blue", "shell:grey"],
                discards=["shell:black", "octopus:yellow"])
    g.play(crabs(0, "crab:dark-blue", "crab:light-blue", 1, "octopus:yellow"))
    assert scored_after_stop(g) == (7, 1)


# ---------------------------------------------------------------- R-SCORE-COLLECT

SHELLS = ["shell:dark-blue", "shell:light-blue", "shell:black", "shell:yellow", "shell:green",
          "shell:grey"]
OCTOPUSES = ["octopus:light-blue", "octopus:yellow", "octopus:green", "octopus:purple",
             "octopus:grey"]
PENGUINS = ["penguin:purple", "penguin:light-orange", "penguin:pink"]


@pytest.mark.parametrize("cards, points, bonus", [
    (SHELLS, 10, 1),                                     # 6 shells: 10, not 12
    (SHELLS[:5] + ["penguin:purple"], 9, 1),             # 8 + 1
    (OCTOPUSES, 12, 1),                                  # 5 octopuses: 12
    (OCTOPUSES[:3] + ["penguin:purple"], 7, 1),          # 6 + 1
    (PENGUINS + SAILORS, 10, 2),                         # 5 + 5; pink 2
    (SHELLS[:4] + PENGUINS[:2], 9, 1),                   # 6 + 3
    # 10 + 12 = 22; light-blue, yellow, green, grey: 2 each
    (SHELLS + OCTOPUSES, 22, 2),
], ids=["6-shells", "5-shells", "5-octopuses", "3-octopuses", "penguins-sailors",
        "4-shells-2-penguins", "shells-octopuses"])
def test_r_score_collect_the_tables(cards, points, bonus):
    """R-SCORE-COLLECT: shells 0,2,4,6,8,10; octopuses 0,3,6,9,12; penguins 1,3,5;
    sailors 0,5."""
    assert scored_after_stop(holding(cards)) == (points, bonus)


@pytest.mark.parametrize("cards", [
    # shells 2 + octopuses 3 + single sailor 0 + single penguin 1 = 6
    SHELLS[:2] + OCTOPUSES[:2] + ["sailor:pink", "penguin:purple"],
    # single shell 0, single octopus 0, one sailor 0, two penguins 3, boats 1... = 4
    [SHELLS[0], OCTOPUSES[0], "sailor:orange", "penguin:purple", "penguin:pink", "boat:black",
     "boat:dark-blue"],
], ids=["6", "4"])
def test_r_score_collect_below_seven(cards):
    """R-SCORE-COLLECT: a single shell, octopus or sailor scores 0; the call is refused."""
    refused_call(holding(cards))


# ---------------------------------------------------------------- R-SCORE-MULT

@pytest.mark.parametrize("cards, points, bonus", [
    # sailors 5 + captain 3 x 2: 11 (RULES.md's example)
    (SAILORS + ["captain:light-orange"], 11, 1),
    # 3 penguins 5 + colony 2 x 3: 11
    (PENGUINS + ["colony:green"], 11, 1),
    # 2 penguins 3 + colony 2 x 2: 7, not 11 (the colony is no penguin)
    (PENGUINS[:1] + ["penguin:pink", "colony:green"], 7, 1),
    # penguins 3 + boats floor(3/2) 1 + lighthouse 1 x 3: 7; purple 2
    (["penguin:purple", "penguin:pink", "lighthouse:purple", "boat:dark-blue",
      "boat:light-blue", "boat:black"], 7, 2),
    # penguins 3 + fish 1 + shoal 1 x 3: 7
    (["penguin:purple", "penguin:pink", "shoal:grey", "fish:dark-blue", "fish:black",
      "fish:yellow"], 7, 1),
], ids=["captain", "colony", "colony-2", "lighthouse", "shoal"])
def test_r_score_mult_multipliers(cards, points, bonus):
    """R-SCORE-MULT: lighthouse +1 per boat, shoal +1 per fish, colony +2 per penguin,
    captain +3 per sailor, on top of pairs and collections."""
    assert scored_after_stop(holding(cards)) == (points, bonus)


@pytest.mark.parametrize("cards", [
    # single sailor 0 + captain 3 + 2 penguins 3 + single boat 0 = 6 (the captain is no sailor)
    ["sailor:pink", "captain:light-orange", "penguin:purple", "penguin:pink", "boat:black"],
    # sailors 5 + single boat 0 + lighthouse 1 = 6 (the lighthouse is no boat)
    SAILORS + ["lighthouse:purple", "boat:dark-blue"],
], ids=["captain-is-no-sailor", "lighthouse-is-no-boat"])
def test_r_score_mult_a_multiplier_is_not_of_its_kind(cards):
    """R-SCORE-MULT: 6 card points, the call is refused."""
    refused_call(holding(cards))


# ---------------------------------------------------------------- R-SCORE-MERMAID

@pytest.mark.parametrize("cards, points, bonus", [
    # RULES.md's example: light-blue 3, then white 2 (or green 2): 5; sailors 5: 10
    ([M, M, "crab:light-blue", "boat:light-blue", "fish:light-blue", "shell:green",
      "octopus:green", "swimmer:yellow"] + SAILORS, 10, 3),
    # white is a colour group: white 3, green 2, pink 1: 3 + 2 + 1 = 6; sailors 5: 11
    ([M, M, M, "octopus:green", "shell:green"] + SAILORS, 11, 3),
    # yellow 4, then white 3, then no group left: 4 + 3 + 0 = 7
    ([M, M, M, "crab:yellow", "boat:yellow", "fish:yellow", "swimmer:yellow"], 7, 4),
], ids=["example", "white-counts", "no-group-left"])
def test_r_score_mermaid_biggest_groups_in_turn(cards, points, bonus):
    """R-SCORE-MERMAID: each mermaid scores the biggest colour group left; no colour twice."""
    assert scored_after_stop(holding(cards, discard="boat:black")) == (points, bonus)


def test_r_score_mermaid_no_colour_serves_twice():
    """R-SCORE-MERMAID: light-blue 3, white 2: 3 + 2 = 5 (not 3 + 3), penguin 1: 6."""
    refused_call(holding([M, M, "crab:light-blue", "boat:light-blue", "fish:light-blue",
                          "penguin:purple"]))


# ---------------------------------------------------------------- R-SCORE-BONUS

def test_r_score_bonus_is_never_card_points():
    """R-SCORE-BONUS: sailors 5 and four single yellow cards: 5 card points (bonus 4 not
    added): the call is refused."""
    refused_call(holding(SAILORS + ["crab:yellow", "boat:yellow", "fish:yellow",
                                    "swimmer:yellow"], discard="boat:black"))


def test_r_score_bonus_biggest_group_white_counted():
    """R-SCORE-BONUS: white 3 (three mermaids) against green 2: bonus 3; card points
    white 3 + green 2 + pink 1 = 6 from the mermaids, sailors 5: 11."""
    assert scored_after_stop(holding([M, M, M, "octopus:green", "shell:green"] + SAILORS,
                                     discard="boat:black")) == (11, 3)
