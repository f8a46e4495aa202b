"""The holding key the card-points memo is keyed on (scoring.holding_key), and the quick
test of legal_decisions for a hand that makes no pair (decisions._may_lay), each against
counts made independently with Counter."""

from __future__ import annotations

import random
from collections import Counter

from seasalt_log.cards import COLOR, EXTRA_SALT_DECK, KIND
from seasalt_log.engine.decisions import _may_lay
from seasalt_log.scoring import HAND_KEY, holding_key
from seasalt_log.sim.evaluate import Holding

from .extra_scoring_oracle import extra_breakdown as oracle

CARDS = sorted(EXTRA_SALT_DECK.elements())
SCORED_IN_HAND = {"crab", "boat", "fish", "swimmer", "shark", "lobster", "jellyfish", "starfish"}


def holdings(n: int, seed: int):
    """``n`` random (hand, laid units) drawn from the Extra Salt deck."""
    rng = random.Random(seed)
    for _ in range(n):
        cards = rng.sample(CARDS, rng.randrange(0, 16))
        units = rng.randrange(0, 1 + len(cards) // 2)
        laid = tuple(tuple(cards[2 * i:2 * i + 2]) for i in range(units))
        yield tuple(cards[2 * units:]), laid


def scored_counts(hand, laid) -> tuple:
    """What the card points depend on: the kinds scored in hand, every kind, every colour,
    the units laid."""
    every = list(hand) + [c for u in laid for c in u]
    in_hand = Counter(KIND[c] for c in hand if KIND[c] in SCORED_IN_HAND)
    return (frozenset(in_hand.items()), frozenset(Counter(KIND[c] for c in every).items()),
            frozenset(Counter(COLOR[c] for c in every).items()), len(laid))


def test_equal_keys_are_equal_counts_and_equal_points():
    by_key: dict[int, tuple] = {}
    points: dict[int, int] = {}
    for hand, laid in holdings(6000, 1):
        key, counts = holding_key(hand, laid), scored_counts(hand, laid)
        assert by_key.setdefault(key, counts) == counts
        p = oracle(hand, laid)["card_points"]
        assert points.setdefault(key, p) == p
    assert len(set(by_key.values())) == len(by_key) > 3000   # different counts, different keys


def test_a_card_added_adds_its_hand_key():
    for hand, laid in holdings(2000, 2):
        for card in ("starfish:yellow", "crab:black", "mermaid:white", "seahorse:white"):
            assert holding_key(hand + (card,), laid) == holding_key(hand, laid) + HAND_KEY[card]


def test_bot_holdings_score_as_the_oracle_through_the_memo():
    """Holding.points answers from the memo shared with the engine once a holding was scored:
    the answer stays the oracle's, card tried and taken back included."""
    for _ in range(2):                          # the second pass answers from the memo
        for hand, laid in holdings(3000, 3):
            h = Holding(hand, laid)
            assert h.key == holding_key(hand, laid)
            assert h.points() == oracle(hand, laid)["card_points"]
            card = "swimmer:black"
            assert h.points_with(card) == oracle(hand + (card,), laid)["card_points"]
            assert h.key == holding_key(hand, laid)


def test_a_hand_without_a_pair_has_nothing_to_lay():
    pairs = [("crab", "crab"), ("boat", "boat"), ("fish", "fish"), ("shark", "swimmer"),
             ("crab", "lobster"), ("jellyfish", "swimmer"), ("swimmer", "swimmer"),
             ("shark", "shark")]
    seen = Counter()
    for hand, _ in holdings(6000, 4):
        kinds = Counter(KIND[c] for c in hand)
        pair = any(kinds[a] >= 2 if a == b else kinds[a] and kinds[b] for a, b in pairs)
        assert _may_lay(hand, frozenset()) == pair
        assert _may_lay(hand, frozenset({"coral-reef"})) == (pair or kinds["shell"] > 0)
        seen[pair] += 1
    assert min(seen.values()) > 500
