"""RULES.md §12 (R-X-SCORE): every worked check of the table, worked by hand, one row each,
plus the breakdown's parts (trios, the seahorse's kind, the cast of crabs, Water Rodeo pairs,
event tables, face-down shells)."""

from __future__ import annotations

import pytest

from seasalt_log.scoring import breakdown, extra_breakdown

# (hand, laid units, events in effect, card points) -- RULES.md §12 "Worked checks"
WORKED = [
    (["crab:black", "lobster:black"], [], [], 1),
    (["crab:black", "crab:yellow", "crab:grey", "lobster:black", "castofcrabs:green"], [], [], 5),
    (["boat:black", "boat:yellow", "starfish:yellow"], [], [], 3),
    (["boat:black", "boat:yellow", "starfish:yellow", "starfish:dark-blue"], [], [], 3),
    (["starfish:yellow"], [("crab:black", "crab:yellow")], [], 1),
    ([], [("fish:black", "fish:green", "starfish:yellow")], [], 3),
    (["seahorse:white"], [], [], 0),
    (["seahorse:white", "sailor:pink", "captain:light-orange"], [], [], 8),
    (["seahorse:white"] + [f"shell:{c}" for c in ("dark-blue", "light-blue", "black", "yellow",
                                                  "green")] + ["octopus:green"], [], [], 11),
    (["seahorse:white"] + [f"shell:{c}" for c in ("dark-blue", "light-blue", "black", "yellow",
                                                  "green", "grey")], [], [], 10),
    (["seahorse:white", "penguin:purple", "penguin:pink", "colony:green"], [], [], 9),
    (["mermaid:white", "seahorse:white", "crab:black"], [], [], 2),
    (["jellyfish:pink", "swimmer:black", "shark:green"], [], [], 1),
    (["swimmer:black", "swimmer:yellow"], [], ["water-rodeo"], 1),
    (["shark:black", "shark:green", "shark:purple", "swimmer:yellow"], [], ["water-rodeo"], 2),
    (["jellyfish:pink", "swimmer:black", "swimmer:yellow", "swimmer:dark-blue"], [],
     ["water-rodeo"], 2),
    (["shell:grey", "shell:black", "shell:green"], [], ["dance-of-the-shells"], 6),
    (["shell:grey", "shell:black", "shell:green", "seahorse:white"], [], ["dance-of-the-shells"], 8),
    (["octopus:green"], [], ["kraken"], 1),
    (["octopus:green", "octopus:grey", "octopus:yellow"], [], ["kraken"], 3),
    (["mermaid:white", "mermaid:white", "fish:light-blue", "crab:light-blue", "boat:light-blue"],
     [], ["tornado"], 0),
]


@pytest.mark.parametrize("hand,laid,effects,points", WORKED)
def test_r_x_score_worked_checks(hand, laid, effects, points):
    """R-X-SCORE-DUO, R-X-SCORE-STARFISH, R-X-SCORE-SEAHORSE, R-X-SCORE-CAST,
    R-X-SCORE-COLOUR, R-EV-DANCE-OF-THE-SHELLS, R-EV-KRAKEN, R-EV-TORNADO, R-EV-WATER-RODEO."""
    assert extra_breakdown(hand, laid, effects).card_points == points


def test_without_the_new_cards_the_extra_scoring_is_the_base_scoring():
    """R-X-SCORE extends R-SCORE: the same holdings of base cards score the same."""
    hands = [
        (["crab:black", "crab:yellow", "shark:green", "swimmer:black", "mermaid:white",
          "shell:grey", "shell:black", "lighthouse:purple", "boat:black"], [("boat:yellow", "boat:dark-blue")]),
        (["penguin:pink", "penguin:purple", "colony:green", "sailor:pink", "captain:light-orange",
          "sailor:orange", "mermaid:white", "mermaid:white"], []),
        (["fish:black", "fish:green", "fish:black", "shoal:grey", "octopus:green"], []),
    ]
    for hand, laid in hands:
        base, extra = breakdown(hand, laid), extra_breakdown(hand, laid)
        assert (extra.card_points, extra.color_bonus) == (base.card_points, base.color_bonus)


def test_breakdown_names_its_parts():
    """R-X-SCORE-SEAHORSE (the kind joined), R-X-SCORE-CAST, R-X-TRIO, R-X-SCORE-COLOUR."""
    b = extra_breakdown(["seahorse:white", "octopus:green", "crab:grey", "castofcrabs:green"],
                        [("crab:black", "crab:yellow", "starfish:yellow")], face_down=1)
    # crab:grey in hand makes no pair; the trio is 1 + 2; octopuses 2 with the seahorse = 3;
    # the cast counts 3 crabs (the trio's two and the hand's one)
    assert (b.pairs, b.trios, b.starfish) == (1, 1, 2)
    assert (b.seahorse, b.seahorse_points, b.collectors) == ("octopus", 3, 3)
    assert (b.cast, b.multipliers) == (3, 3)
    assert b.card_points == 1 + 2 + 3 + 3
    # colours: white 1 (seahorse), green 2 (octopus, cast), yellow 2, black 1, grey 1
    assert b.color_bonus == 2 and b.face_down == 1


def test_the_seahorse_is_never_counted_by_a_multiplier():
    """R-X-SCORE-SEAHORSE: counted as a sailor it gets nothing from the captain."""
    b = extra_breakdown(["seahorse:white", "sailor:orange", "captain:light-orange"])
    assert (b.seahorse, b.collectors, b.multipliers) == ("sailor", 5, 3)


SHELLS = ["shell:dark-blue", "shell:light-blue", "shell:black", "shell:yellow", "shell:green",
          "shell:grey"]
OCTOPUSES = ["octopus:light-blue", "octopus:yellow", "octopus:green", "octopus:purple",
             "octopus:grey"]


@pytest.mark.parametrize("held, points", [
    (["penguin:pink", "penguin:purple", "penguin:light-orange"], 5),   # 3 penguins: 5
    (SHELLS, 10),                                                       # 6 shells: 10
    (OCTOPUSES, 12),                                                    # 5 octopuses: 12
    (["sailor:pink", "sailor:orange"], 5),                              # 2 sailors: 5
], ids=["penguins", "shells", "octopuses", "sailors"])
def test_the_seahorse_needs_a_kind_below_its_maximum(held, points):
    """R-X-SCORE-SEAHORSE: each kind at its maximum (shells 6, octopuses 5, penguins 3,
    sailors 2) is no kind the seahorse may join, so it joins nothing and adds nothing; the
    points are the table's for that many cards alone (RULES.md §4)."""
    b = extra_breakdown(["seahorse:white", *held])
    assert (b.seahorse, b.seahorse_points, b.card_points) == (None, 0, points)


def test_rodeo_pairs_and_tables_are_reported():
    """R-EV-WATER-RODEO, R-EV-KRAKEN, R-EV-TORNADO: the breakdown says what changed."""
    b = extra_breakdown(["swimmer:black", "swimmer:yellow", "octopus:green", "mermaid:white"],
                        effects=["water-rodeo", "kraken", "tornado"])
    assert (b.pairs, b.rodeo_pairs, b.collectors, b.mermaids) == (1, 1, 1, 0)
    assert set(b.tables) == {"kraken", "tornado"}


def _random_holdings(n: int, seed: int):
    """``n`` holdings dealt from the shuffled 66 cards: a hand of 0-14 cards, 0-4 laid units
    (pairs and trios, not always legal ones: the scoring must not care), 0-3 events in
    effect, a face-down shell or not, starfish in hand scoring or not."""
    import random
    from seasalt_log.engine.rulings import rules_for
    from seasalt_log.events import EVENT_CODES
    rng = random.Random(seed)
    cards = list(rules_for("extra-salt").cards)
    for _ in range(n):
        rng.shuffle(cards)
        hand, rest = cards[:rng.randint(0, 14)], cards[14:]
        laid = []
        for _ in range(rng.randint(0, 4)):
            size = rng.choice((2, 3))
            laid.append(tuple(rest[:size]))
            rest = rest[size:]
        yield (hand, laid, rng.sample(EVENT_CODES, rng.randint(0, 3)), rng.randint(0, 1),
               rng.random() < 0.8)


def test_the_count_list_scorer_agrees_with_the_counter_oracle():
    """R-X-SCORE (every rule under it) and the event tables: the engine's scorer, on count
    lists, gives every field of the plain Counter scorer of tests/extra_scoring_oracle.py
    on 20,000 random holdings."""
    from msgspec.structs import asdict
    from . import extra_scoring_oracle as oracle
    seen = set()
    for hand, laid, effects, face_down, hand_starfish in _random_holdings(20_000, 14):
        got = asdict(extra_breakdown(hand, laid, effects, face_down, hand_starfish))
        want = oracle.extra_breakdown(hand, laid, effects, face_down, hand_starfish)
        assert got == want, (hand, laid, effects, face_down, hand_starfish)
        seen.update(k for k in ("seahorse", "cast", "rodeo_pairs", "starfish", "mermaids",
                                "tables") if want[k])
    # the random holdings did reach every part of the scoring
    assert seen == {"seahorse", "cast", "rodeo_pairs", "starfish", "mermaids", "tables"}


def test_the_oracle_scores_the_worked_checks():
    """The oracle itself passes RULES.md §12's worked checks, so agreeing with it means
    something."""
    from . import extra_scoring_oracle as oracle
    for hand, laid, effects, points in WORKED:
        assert oracle.extra_breakdown(hand, laid, effects)["card_points"] == points


def test_an_event_table_scores_as_many_cards_as_the_table_it_replaces():
    """The scorer caps a collector count at the last index of the base game's table, also
    under an event's table (R-EV-DANCE-OF-THE-SHELLS, R-EV-KRAKEN): both tables must be as
    long, one entry per card of the kind and one for none."""
    from seasalt_log.cards import ALL_CODES, KIND
    from seasalt_log.scoring import COLLECTOR_POINTS, EVENT_TABLES
    for kind, table in EVENT_TABLES.values():
        cards = sum(1 for code in ALL_CODES if KIND[code] == kind)
        assert len(table) == len(COLLECTOR_POINTS[kind]) == cards + 1, kind


def test_scoring_events_are_the_events_that_change_a_score():
    """``SCORING_EVENTS`` (the read models skip rescoring a round without any other event)
    holds exactly the events after which some holding scores otherwise, by the oracle."""
    import random

    from seasalt_log.cards import EXTRA_SALT_DECK
    from seasalt_log.events import EVENT_CODES
    from seasalt_log.scoring import SCORING_EVENTS

    from .extra_scoring_oracle import extra_breakdown as oracle

    rng = random.Random(14)
    deck = list(EXTRA_SALT_DECK.elements())
    holdings = [rng.sample(deck, rng.randint(1, 12)) for _ in range(3000)]
    changes = set()
    for code in EVENT_CODES:
        for hand in holdings:
            if oracle(hand, (), [code])["card_points"] != oracle(hand, (), [])["card_points"]:
                changes.add(code)
                break
    assert changes == SCORING_EVENTS


@pytest.mark.parametrize("hand,laid,effects,points", WORKED)
def test_a_holding_counted_and_scored_in_one_call_gives_the_worked_checks(hand, laid, effects,
                                                                           points):
    """``holding_points_and_bonus`` (every closed turn of an expansion game): RULES.md §9-§18
    §3's worked checks, and the colour bonus of the oracle."""
    from seasalt_log.scoring import holding_points_and_bonus
    from . import extra_scoring_oracle as oracle
    bonus = oracle.extra_breakdown(hand, laid, effects)["color_bonus"]
    assert holding_points_and_bonus(hand, laid, frozenset(effects)) == (points, bonus)


def test_a_holding_counted_and_scored_in_one_call_agrees_with_the_count_lists():
    """``holding_points_and_bonus`` reads the hand's pairs and starfish before the laid
    units join its one list of kinds: the same two numbers as the count lists' scorer
    (``extra_counts``, ``extra_points_and_bonus``) and the Counter oracle, on 20,000 random
    holdings (events, laid pairs and trios, starfish in hand scoring or not)."""
    from seasalt_log.scoring import (X_KIND_INDEX, extra_counts, extra_points_and_bonus,
                                     holding_points_and_bonus)
    from . import extra_scoring_oracle as oracle
    star = X_KIND_INDEX["starfish"]
    laid_starfish = hand_starfish_off = 0
    for hand, laid, effects, _, hand_starfish in _random_holdings(20_000, 18):
        effects = frozenset(effects)
        got = holding_points_and_bonus(hand, laid, effects, hand_starfish)
        in_hand, kinds, colors, n_units, _ = extra_counts(hand, laid)
        assert got == extra_points_and_bonus(in_hand, kinds, colors, n_units, effects,
                                             hand_starfish), (hand, laid, effects)
        want = oracle.extra_breakdown(hand, laid, effects, 0, hand_starfish)
        assert got == (want["card_points"], want["color_bonus"]), (hand, laid, effects)
        laid_starfish += kinds[star] > in_hand[star]
        hand_starfish_off += not hand_starfish and in_hand[star] > 0
    assert laid_starfish > 1000 and hand_starfish_off > 500


def test_hand_pairs_are_read_before_the_laid_units_join_the_kinds():
    """Cards laid never make a pair in hand (R-X-SCORE-DUO) nor match a starfish in hand
    (R-X-SCORE-STARFISH), but count for the multipliers and the colours: worked by hand."""
    from seasalt_log.scoring import holding_points_and_bonus
    # one crab in hand, a crab pair laid: 1 (the laid pair); the crab in hand makes none;
    # the cast counts all 3 crabs: 3. Colours: one card of each of four colours.
    assert holding_points_and_bonus(["crab:grey", "castofcrabs:green"],
                                    [("crab:black", "crab:yellow")]) == (1 + 3, 1)
    # a starfish in hand, the only pair laid: it matches no pair in hand (1 + 0)
    assert holding_points_and_bonus(["starfish:yellow"], [("boat:black", "boat:yellow")]) == (1, 2)
    # a lobster in hand, a crab laid in a pair: no crab+lobster pair in hand; lighthouse
    # counts the laid boats: the pair 1, the lighthouse 2; black 2, yellow 1, purple 1
    assert holding_points_and_bonus(["lobster:black", "lighthouse:purple"],
                                    [("boat:black", "boat:yellow")]) == (1 + 2, 2)
    # a trio laid with its starfish (1 + 2) and a starfish in hand over one hand pair of
    # fish (1 + 2): 6; starfish in hand not scoring: 4
    hand, trio = ["starfish:dark-blue", "fish:black", "fish:green"], [
        ("boat:black", "boat:yellow", "starfish:yellow")]
    assert holding_points_and_bonus(hand, trio)[0] == 6
    assert holding_points_and_bonus(hand, trio, hand_starfish=False)[0] == 4
