"""Scoring (RULES.md §4-6), table-driven: one row per rule case, ids naming the rule id.

Every expected number below was worked out by hand from RULES.md (the arithmetic is in the
comments), never taken from the code's output.
"""

from __future__ import annotations

import pytest

from seasalt_log.scoring import (Breakdown, breakdown, card_points, game_winners,
                                 last_chance_outcome, points_and_bonus, round_points)

SHELLS = ["shell:dark-blue", "shell:light-blue", "shell:black", "shell:yellow", "shell:green",
          "shell:grey"]
OCTOPUSES = ["octopus:light-blue", "octopus:yellow", "octopus:green", "octopus:purple",
             "octopus:grey"]
PENGUINS = ["penguin:purple", "penguin:light-orange", "penguin:pink"]
SAILORS = ["sailor:pink", "sailor:orange"]
BOATS = ["boat:dark-blue", "boat:dark-blue", "boat:light-blue", "boat:light-blue",
         "boat:black", "boat:black", "boat:yellow", "boat:yellow"]
FISH = ["fish:dark-blue", "fish:dark-blue", "fish:light-blue", "fish:black", "fish:black",
        "fish:yellow", "fish:green"]
CRABS = ["crab:dark-blue", "crab:dark-blue", "crab:light-blue", "crab:light-blue",
         "crab:black", "crab:yellow", "crab:yellow", "crab:green", "crab:grey"]
SHARKS = ["shark:dark-blue", "shark:light-blue", "shark:black", "shark:green", "shark:purple"]
SWIMMERS = ["swimmer:dark-blue", "swimmer:light-blue", "swimmer:black", "swimmer:yellow",
            "swimmer:light-orange"]
M = "mermaid:white"
LIGHTHOUSE, SHOAL, COLONY, CAPTAIN = ("lighthouse:purple", "shoal:grey", "colony:green",
                                      "captain:light-orange")


def row(rule, name, hand, laid=(), **expected):
    return pytest.param(hand, laid, expected, id=f"{rule}:{name}")


# ---------------------------------------------------------------- card points, by source

ROWS = [
    # R-SCORE-COLLECT: shells 1..6 -> 0, 2, 4, 6, 8, 10 (nothing else scores: one of each colour)
    *[row("R-SCORE-COLLECT", f"shells-{n}", SHELLS[:n], collectors=v, card_points=v, pairs=0)
      for n, v in zip(range(1, 7), (0, 2, 4, 6, 8, 10))],
    # octopuses 1..5 -> 0, 3, 6, 9, 12
    *[row("R-SCORE-COLLECT", f"octopuses-{n}", OCTOPUSES[:n], collectors=v, card_points=v)
      for n, v in zip(range(1, 6), (0, 3, 6, 9, 12))],
    # penguins 1..3 -> 1, 3, 5
    *[row("R-SCORE-COLLECT", f"penguins-{n}", PENGUINS[:n], collectors=v, card_points=v)
      for n, v in zip(range(1, 4), (1, 3, 5))],
    # sailors 1..2 -> 0, 5
    *[row("R-SCORE-COLLECT", f"sailors-{n}", SAILORS[:n], collectors=v, card_points=v)
      for n, v in zip(range(1, 3), (0, 5))],
    # collectors of different kinds add up: 3 shells (4) + 2 octopuses (3) + 2 penguins (3)
    row("R-SCORE-COLLECT", "mixed", SHELLS[:3] + OCTOPUSES[:2] + PENGUINS[:2],
        collectors=10, card_points=10),

    # R-SCORE-MULT: lighthouse +1 per boat (boats in hand also pair: floor(n/2))
    row("R-SCORE-MULT", "lighthouse-0-boats", [LIGHTHOUSE], multipliers=0, card_points=0),
    row("R-SCORE-MULT", "lighthouse-1-boat", [LIGHTHOUSE, BOATS[0]], multipliers=1, pairs=0,
        card_points=1),
    row("R-SCORE-MULT", "lighthouse-2-boats", [LIGHTHOUSE] + BOATS[:2], multipliers=2, pairs=1,
        card_points=3),
    row("R-SCORE-MULT", "lighthouse-3-boats", [LIGHTHOUSE] + BOATS[:3], multipliers=3, pairs=1,
        card_points=4),
    # laid-down boats count for the lighthouse: pair 1 + 2 boats
    row("R-SCORE-MULT", "lighthouse-laid-pair", [LIGHTHOUSE], [BOATS[:2]], multipliers=2,
        pairs=1, card_points=3),
    # laid pair + one boat in hand: 3 boats -> +3, pairs 1
    row("R-SCORE-MULT", "lighthouse-laid-and-hand", [LIGHTHOUSE, BOATS[2]], [BOATS[:2]],
        multipliers=3, pairs=1, card_points=4),
    # all 8 boats laid in 4 pairs: +8 and 4 pairs
    row("R-SCORE-MULT", "lighthouse-8-boats-laid", [LIGHTHOUSE],
        [BOATS[0:2], BOATS[2:4], BOATS[4:6], BOATS[6:8]], multipliers=8, pairs=4, card_points=12),
    # shoal +1 per fish
    row("R-SCORE-MULT", "shoal-0-fish", [SHOAL], multipliers=0, card_points=0),
    row("R-SCORE-MULT", "shoal-1-fish", [SHOAL, FISH[0]], multipliers=1, card_points=1),
    row("R-SCORE-MULT", "shoal-2-fish", [SHOAL] + FISH[:2], multipliers=2, pairs=1, card_points=3),
    row("R-SCORE-MULT", "shoal-laid-pair", [SHOAL], [FISH[:2]], multipliers=2, pairs=1,
        card_points=3),
    # laid pair + 2 fish in hand: 4 fish -> +4; pairs 1 laid + 1 in hand
    row("R-SCORE-MULT", "shoal-laid-and-hand", [SHOAL] + FISH[2:4], [FISH[:2]],
        multipliers=4, pairs=2, card_points=6),
    # colony +2 per penguin, on top of the penguins' own points
    row("R-SCORE-MULT", "colony-0-penguins", [COLONY], multipliers=0, card_points=0),
    row("R-SCORE-MULT", "colony-1-penguin", [COLONY] + PENGUINS[:1], multipliers=2,
        collectors=1, card_points=3),
    row("R-SCORE-MULT", "colony-2-penguins", [COLONY] + PENGUINS[:2], multipliers=4,
        collectors=3, card_points=7),
    # worked check of §4: 3 penguins + colony: 5 + 6 = 11
    row("R-SCORE-MULT", "colony-3-penguins-worked-check", [COLONY] + PENGUINS, multipliers=6,
        collectors=5, card_points=11),
    # captain +3 per sailor
    row("R-SCORE-MULT", "captain-0-sailors", [CAPTAIN], multipliers=0, card_points=0),
    row("R-SCORE-MULT", "captain-1-sailor", [CAPTAIN, SAILORS[0]], multipliers=3,
        collectors=0, card_points=3),
    # worked check of §4: sailor:pink + sailor:orange + captain: 5 + 6 = 11
    row("R-SCORE-MULT", "captain-2-sailors-worked-check", [CAPTAIN] + SAILORS, multipliers=6,
        collectors=5, card_points=11),
    # a multiplier is never a card of its kind: a lighthouse and one boat are no pair
    row("R-SCORE-MULT", "lighthouse-is-no-boat", [LIGHTHOUSE, BOATS[0]], pairs=0),
    # two multipliers side by side: lighthouse (1 boat) + shoal (1 fish) = 2
    row("R-SCORE-MULT", "two-multipliers", [LIGHTHOUSE, SHOAL, BOATS[0], FISH[0]],
        multipliers=2, card_points=2),

    # R-SCORE-DUO: pairs in hand floor(n/2), laid pairs 1 each
    row("R-SCORE-DUO", "crabs-2-in-hand", CRABS[:2], pairs=1, card_points=1),
    row("R-SCORE-DUO", "crabs-3-in-hand", CRABS[:3], pairs=1, card_points=1),
    row("R-SCORE-DUO", "crabs-4-in-hand", CRABS[:4], pairs=2, card_points=2),
    row("R-SCORE-DUO", "boats-2-in-hand", BOATS[:2], pairs=1, card_points=1),
    row("R-SCORE-DUO", "fish-5-in-hand", FISH[:5], pairs=2, card_points=2),
    row("R-SCORE-DUO", "one-of-each-duo-kind", [CRABS[0], BOATS[0], FISH[0]], pairs=0),
    row("R-SCORE-DUO", "shark-swimmer-in-hand", [SHARKS[0], SWIMMERS[0]], pairs=1, card_points=1),
    row("R-SCORE-DUO", "two-sharks-not-a-pair", SHARKS[:2], pairs=0, card_points=0),
    row("R-SCORE-DUO", "two-swimmers-not-a-pair", SWIMMERS[:2], pairs=0, card_points=0),
    # shark+swimmer count min(sharks, swimmers)
    row("R-SCORE-DUO", "2-sharks-1-swimmer", SHARKS[:2] + SWIMMERS[:1], pairs=1),
    row("R-SCORE-DUO", "3-sharks-2-swimmers", SHARKS[:3] + SWIMMERS[:2], pairs=2),
    row("R-SCORE-DUO", "1-shark-4-swimmers", SHARKS[:1] + SWIMMERS[:4], pairs=1),
    row("R-SCORE-DUO", "laid-crab-pair", [], [CRABS[:2]], pairs=1, card_points=1),
    row("R-SCORE-DUO", "laid-shark-swimmer", [], [(SHARKS[0], SWIMMERS[0])], pairs=1),
    row("R-SCORE-DUO", "laid-three-pairs", [], [CRABS[:2], BOATS[:2], FISH[:2]], pairs=3,
        card_points=3),
    # a laid pair and a pair in hand: 2
    row("R-SCORE-DUO", "laid-and-hand-pairs", CRABS[2:4], [CRABS[:2]], pairs=2),
    # a single crab in hand does not pair with a laid-down crab
    row("R-SCORE-DUO", "laid-pair-plus-single", CRABS[2:3], [CRABS[:2]], pairs=1),
    # duo kinds are not collectors: 4 crabs score only their 2 pairs
    row("R-SCORE-DUO", "duos-collect-nothing", CRABS[:4], collectors=0, multipliers=0),

    # R-SCORE-MERMAID: white is a colour group like any other
    # worked check: a mermaid alone -> 1 (white group of 1)
    row("R-SCORE-MERMAID", "alone-worked-check", [M], mermaids=1, card_points=1),
    # two mermaids alone: white 2, then no group left -> 2 + 0
    row("R-SCORE-MERMAID", "two-alone", [M, M], mermaids=2, card_points=2),
    # four mermaids alone: 4 + 0 + 0 + 0
    row("R-SCORE-MERMAID", "four-alone", [M] * 4, mermaids=4, card_points=4),
    # mermaid + 3 black (crab, boat, shell: no pair, shell 1 -> 0): black 3 -> 3
    row("R-SCORE-MERMAID", "largest-group", [M, "crab:black", "boat:black", "shell:black"],
        mermaids=3, card_points=3),
    # worked check: 2 mermaids + 3 light-blue + 2 green + 1 yellow -> 3 + 2 = 5
    row("R-SCORE-MERMAID", "two-mermaids-worked-check",
        [M, M, "crab:light-blue", "boat:light-blue", "shell:light-blue", "octopus:green",
         "shark:green", "fish:yellow"], mermaids=5, pairs=0, collectors=0, card_points=5),
    # 3 mermaids + 2 black + 1 yellow: white 3, black 2, yellow 1 -> 6
    row("R-SCORE-MERMAID", "three-mermaids-three-groups",
        [M, M, M, "crab:black", "shell:black", "fish:yellow"], mermaids=6, card_points=6),
    # 3 mermaids + 5 black (crab, boat, fish, shell, swimmer): black 5, white 3, none -> 8
    row("R-SCORE-MERMAID", "more-mermaids-than-groups",
        [M, M, M, "crab:black", "boat:black", "fish:black", "shell:black", "swimmer:black"],
        mermaids=8, pairs=0, card_points=8),
    # a colour is never used twice: 2 mermaids + 4 black -> 4 + 2, not 4 + 4
    row("R-SCORE-MERMAID", "colour-used-once",
        [M, M, "crab:black", "boat:black", "fish:black", "shell:black"], mermaids=6),
    # equal group sizes: white 2, black 2, yellow 2 -> 2 + 2 = 4 (no pairs, single shell/octopus)
    row("R-SCORE-MERMAID", "tied-groups",
        [M, M, "shell:black", "fish:black", "boat:yellow", "octopus:yellow"], mermaids=4,
        card_points=4),
    # laid cards are in the colour groups: laid boat:black pair -> black 2; 1 pair + 2 = 3
    row("R-SCORE-MERMAID", "laid-cards-count", [M], [("boat:black", "boat:black")],
        mermaids=2, pairs=1, card_points=3),
    # no mermaid, no mermaid points
    row("R-SCORE-MERMAID", "none", ["crab:black", "boat:black"], mermaids=0),

    # R-SCORE-BONUS: the single largest colour group, white included; never in card points
    row("R-SCORE-BONUS", "empty", [], color_bonus=0, card_points=0),
    row("R-SCORE-BONUS", "largest-group", ["shell:black", "boat:black", "fish:black",
                                           "shell:yellow", "octopus:yellow"], color_bonus=3),
    # black crab, boat, shell: three singles score 0 card points, but the bonus is 3
    row("R-SCORE-BONUS", "not-in-card-points", ["crab:black", "boat:black", "shell:black"],
        color_bonus=3, card_points=0),
    row("R-SCORE-BONUS", "white-counts", [M, M, M, M, "crab:black", "boat:black", "shell:black"],
        color_bonus=4),
    # laid boat:yellow pair + shell:yellow in hand -> yellow 3
    row("R-SCORE-BONUS", "laid-cards-count", ["shell:yellow", "crab:black", "boat:black"],
        [("boat:yellow", "boat:yellow")], color_bonus=3),

    # R-SCORE (all sources together), worked out by hand:
    # crab:dark-blue + crab:yellow -> pair 1; shells dark-blue, yellow, green -> 4;
    # penguin:pink -> 1; sailor:orange -> 0; captain with 1 sailor -> 3;
    # mermaid: groups dark-blue 2, yellow 2, green/pink/orange/light-orange/white 1 -> 2.
    # card points 1 + 5 + 3 + 2 = 11; colour bonus 2
    row("R-SCORE", "everything", ["crab:dark-blue", "crab:yellow", "shell:dark-blue",
                                  "shell:yellow", "shell:green", "penguin:pink", "sailor:orange",
                                  CAPTAIN, M],
        pairs=1, collectors=5, multipliers=3, mermaids=2, card_points=11, color_bonus=2),
    row("R-SCORE", "nothing", [], pairs=0, collectors=0, multipliers=0, mermaids=0,
        card_points=0, color_bonus=0),
]


@pytest.mark.parametrize("hand, laid, expected", ROWS)
def test_breakdown(hand, laid, expected):
    b = breakdown(hand, laid)
    assert isinstance(b, Breakdown)
    got = {name: getattr(b, name) for name in expected}
    assert got == expected
    # the parts always add up to the card points, and card_points() agrees
    assert b.card_points == b.pairs + b.collectors + b.multipliers + b.mermaids
    assert card_points(hand, laid) == b.card_points


def test_hand_order_does_not_matter():
    hand = [M, "crab:black", "shell:black", "shell:yellow", M, "crab:yellow", COLONY, PENGUINS[0]]
    assert breakdown(hand) == breakdown(list(reversed(hand))) == breakdown(sorted(hand))


def test_breakdown_accepts_tuples_and_generators():
    laid = ((BOATS[0], BOATS[1]),)
    assert breakdown(tuple([LIGHTHOUSE]), laid) == breakdown(iter([LIGHTHOUSE]), iter(laid))


# ---------------------------------------------------------------- a round's points

RP = [
    # R-STOP: everybody scores card points, whatever the caller has
    pytest.param("stop", 0, [9, 4, 12], [3, 2, 4], [9, 4, 12], None, id="R-STOP:card-points"),
    pytest.param("stop", 1, [7, 7], [5, 5], [7, 7], None, id="R-STOP:no-bonus"),
    # R-LAST-4 won: caller 1 (9) beats 5 and 7 -> 9+3; others their bonus only
    pytest.param("last_chance", 1, [5, 9, 7], [2, 3, 4], [2, 12, 4], True,
                 id="R-LAST-4:caller-won"),
    # R-LAST-4 tied: the caller wins ties: 8 vs 8 -> caller 8+3, other its bonus 2
    pytest.param("last_chance", 0, [8, 8], [3, 2], [11, 2], True, id="R-LAST-4:tie-to-caller"),
    pytest.param("last_chance", 2, [8, 3, 8], [1, 2, 3], [1, 2, 11], True,
                 id="R-LAST-4:tie-to-caller-3p"),
    # R-LAST-4 lost: caller 0 (7) < 8 -> caller bonus 3 only; others their card points
    pytest.param("last_chance", 0, [7, 8, 2], [3, 1, 2], [3, 8, 2], False, id="R-LAST-4:caller-lost"),
    # losing to one player is enough to lose, in four-player games too
    pytest.param("last_chance", 3, [1, 2, 12, 11], [1, 1, 1, 5], [1, 2, 12, 5], False,
                 id="R-LAST-4:lost-to-one-of-three"),
    # R-DECKOUT: 0 for everyone
    pytest.param("deck_out", None, [9, 4], [2, 3], [0, 0], None, id="R-DECKOUT:zero"),
    pytest.param("deck_out", None, [0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], None,
                 id="R-DECKOUT:zero-4p"),
]


@pytest.mark.parametrize("ending, caller, card_pts, bonus, points, won", RP)
def test_round_points(ending, caller, card_pts, bonus, points, won):
    got_points, got_won = round_points(ending, caller, card_pts, bonus)
    assert list(got_points) == points
    assert got_won is won


def test_last_chance_needs_a_caller():
    with pytest.raises(ValueError):
        round_points("last_chance", None, [1, 2], [1, 1])


@pytest.mark.parametrize("caller, card_pts, outcome", [
    pytest.param(0, [9, 8, 3], "won", id="R-LAST-4:won"),
    pytest.param(1, [9, 9], "tied", id="R-LAST-4:tied"),
    pytest.param(2, [9, 1, 8], "lost", id="R-LAST-4:lost"),
])
def test_last_chance_outcome(caller, card_pts, outcome):
    assert last_chance_outcome(caller, card_pts) == outcome


# ---------------------------------------------------------------- the game's winners

@pytest.mark.parametrize("totals, last, winners", [
    pytest.param([41, 30], [10, 5], [0], id="R-GAME-1:highest-total"),
    # several reached the target: the highest total wins, not the last round's best
    pytest.param([45, 41], [0, 20], [0], id="R-GAME-1:highest-total-not-last-round"),
    pytest.param([40, 40], [12, 7], [0], id="R-GAME-1:tie-broken-by-last-round"),
    pytest.param([40, 40], [7, 12], [1], id="R-GAME-1:tie-broken-by-last-round-other-seat"),
    # seat 2's 20 last-round points do not matter: it is not tied for the top
    pytest.param([42, 42, 35], [9, 9, 20], [0, 1], id="R-GAME-1:shared-win"),
    pytest.param([30, 30, 30, 30], [5, 6, 6, 2], [1, 2], id="R-GAME-1:shared-win-4p"),
    pytest.param([30, 12, 30, 29], [0, 9, 3, 30], [2], id="R-GAME-1:tie-break-4p"),
])
def test_game_winners(totals, last, winners):
    assert list(game_winners(totals, last)) == winners


# ---------------------------------------------------------------- against a reference

def reference_breakdown(hand, laid):
    """RULES.md §4 written out plainly (slow and obvious), to compare with breakdown()."""
    everything = list(hand) + [c for pair in laid for c in pair]
    kind = lambda c: c.split(":")[0]          # noqa: E731
    colour = lambda c: c.split(":")[1]        # noqa: E731
    held = [kind(c) for c in hand]
    allk = [kind(c) for c in everything]
    pairs = len(laid) + sum(held.count(k) // 2 for k in ("crab", "boat", "fish"))
    pairs += min(held.count("shark"), held.count("swimmer"))
    tables = {"shell": [0, 0, 2, 4, 6, 8, 10], "octopus": [0, 0, 3, 6, 9, 12],
              "penguin": [0, 1, 3, 5], "sailor": [0, 0, 5]}
    collectors = sum(tables[k][allk.count(k)] for k in tables)
    mult = {"lighthouse": ("boat", 1), "shoal": ("fish", 1), "colony": ("penguin", 2),
            "captain": ("sailor", 3)}
    multipliers = sum(allk.count(m) * allk.count(k) * per for m, (k, per) in mult.items())
    groups = {}
    for c in everything:
        groups[colour(c)] = groups.get(colour(c), 0) + 1
    left = dict(groups)
    mermaids = 0
    for _ in range(allk.count("mermaid")):
        if not left:
            break
        best = max(left, key=left.get)
        mermaids += left.pop(best)
    bonus = max(groups.values(), default=0)
    return (pairs, collectors, multipliers, mermaids,
            pairs + collectors + multipliers + mermaids, bonus)


def _random_holdings(seed: int, n: int = 3000):
    """``n`` random holdings of base cards: a hand and some of its pairs laid down."""
    import random

    from seasalt_log.cards import CODES, COUNT, DUO_PAIRS, KIND

    rng = random.Random(seed)
    deck = [c for c in CODES for _ in range(COUNT[c])]
    for _ in range(n):
        cards = rng.sample(deck, rng.randint(0, 30))
        laid = []
        for kind, (ka, kb) in DUO_PAIRS.items():   # lay down some of the pairs held
            while rng.random() < 0.5:
                i = next((i for i, c in enumerate(cards) if KIND[c] == ka), None)
                j = next((j for j, c in enumerate(cards) if KIND[c] == kb and j != i), None)
                if i is None or j is None:
                    break
                laid.append((cards[i], cards[j]))
                cards = [c for k, c in enumerate(cards) if k not in (i, j)]
        yield cards, laid


def test_breakdown_matches_the_reference_on_random_holdings():
    for cards, laid in _random_holdings(2024):
        b = breakdown(cards, laid)
        got = (b.pairs, b.collectors, b.multipliers, b.mermaids, b.card_points, b.color_bonus)
        assert got == reference_breakdown(cards, laid), (cards, laid)


def test_points_and_bonus_match_the_reference_on_random_holdings():
    """``points_and_bonus`` counts and scores a holding in one call (the pairs in hand read
    before the laid pairs join its list of kinds): the reference's two numbers."""
    laid_seen = 0
    for cards, laid in _random_holdings(18):
        assert points_and_bonus(cards, laid) == reference_breakdown(cards, laid)[4:], (cards, laid)
        laid_seen += bool(laid)
    assert laid_seen > 1000


@pytest.mark.parametrize("hand, laid, expected", ROWS)
def test_points_and_bonus_of_the_worked_rows(hand, laid, expected):
    if "card_points" in expected and "color_bonus" in expected:
        assert points_and_bonus(hand, laid) == (expected["card_points"], expected["color_bonus"])
    assert points_and_bonus(hand, laid) == (card_points(hand, laid), breakdown(hand, laid).color_bonus)


@pytest.mark.parametrize("hand, laid, points, bonus", [
    # R-SCORE-DUO: a crab in hand and a laid crab pair: the laid pair only (1); the colours
    # grey, black, yellow one each (R-SCORE-BONUS 1)
    (["crab:grey"], [("crab:black", "crab:yellow")], 1, 1),
    # R-SCORE-MULT counts laid boats: the pair 1, the lighthouse 3 boats; four colours, one each
    ([LIGHTHOUSE, "boat:black"], [("boat:dark-blue", "boat:yellow")], 1 + 3, 1),
    # a shark in hand, a swimmer+shark pair laid: 1; black 2, green 1
    (["shark:green"], [("swimmer:black", "shark:black")], 1, 2),
    # R-SCORE-MERMAID counts laid cards' colours: dark-blue 2 -> the pair 1 + the mermaid 2
    ([M, "crab:dark-blue"], [("crab:dark-blue", "crab:light-blue")], 1 + 2, 2),
    # an Extra Salt card: RULES.md §12 without events (R-X-SCORE-DUO crab+lobster: 1)
    (["lobster:black", "crab:black"], [], 1, 2),
])
def test_points_and_bonus_read_the_hand_before_the_laid_pairs(hand, laid, points, bonus):
    assert points_and_bonus(hand, laid) == (points, bonus)
    assert points_and_bonus(tuple(hand), tuple(laid)) == (points, bonus)
