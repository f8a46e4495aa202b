"""A seat's closed turns scored on from its last score (``scoring.seat_points_and_bonus``,
``scoring.seat_extra_points_and_bonus``): after random sequences of closed turns (a card
taken, pairs and trios laid, a card stolen, the events in effect changed, a new game on
the same seat, in a base game or an Extra Salt one), every score is the full scorer's
(``breakdown``) and, for Extra Salt, the Counter oracle's of tests/extra_scoring_oracle.py."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from seasalt_log.cards import CODES, EXTRA_CODES, KIND
from seasalt_log.events import EVENT_CODES
from seasalt_log.scoring import (breakdown, points_and_bonus, seat_extra_points_and_bonus,
                                 seat_points_and_bonus, seat_records)

from . import extra_scoring_oracle as oracle

ALL = CODES + EXTRA_CODES
#: kind -> its codes (every ruleset's)
CODES_OF: dict[str, list[str]] = {}
for _code in ALL:
    CODES_OF.setdefault(KIND[_code], []).append(_code)
BASE_KINDS = sorted({KIND[c] for c in CODES})
_step = st.one_of(
    st.tuples(st.just("take"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("take"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("take"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("lay"), st.integers(2, 3)),               # a pair, or a trio
    # a card taken, a pair laid (the card in it or not), a card gained by its effect
    st.tuples(st.just("pair turn"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("steal"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("same"), st.just(0)),                     # scored again unchanged
    st.tuples(st.just("events"), st.sets(st.sampled_from(EVENT_CODES), max_size=3)),
    st.tuples(st.just("starfish"), st.booleans()),
    st.tuples(st.just("new game"), st.booleans()),
)


def _want(extra: bool, hand, laid, effects, hand_starfish) -> tuple[int, int]:
    if not extra:
        b = breakdown(hand, laid)
        assert points_and_bonus(hand, laid) == (b.card_points, b.color_bonus)
        return b.card_points, b.color_bonus
    o = oracle.extra_breakdown(hand, laid, effects, 0, hand_starfish)
    return o["card_points"], o["color_bonus"]


@settings(max_examples=400, deadline=None)
@given(steps=st.lists(st.tuples(st.integers(0, 1), _step), min_size=5, max_size=80),
       extra=st.lists(st.booleans(), min_size=3, max_size=3),
       palette=st.lists(st.sampled_from(sorted(CODES_OF)), min_size=1, max_size=6))
@example(steps=[(0, ("take", 0)), (0, ("take", 1))], extra=[False] * 3,
         palette=["lighthouse", "boat"])
def test_closed_turns_scored_on_give_the_full_scorers_points(steps, extra, palette):
    """The cards taken are of a few kinds (``palette``), so the kinds that score together
    meet often."""
    _play(steps, extra, palette)


def test_long_random_sequences_give_the_full_scorers_points():
    """3,000 seeded random sequences of 40 closed turns on 2 seats, of 2-6 kinds each."""
    import random
    rng = random.Random(18)
    kinds = sorted(CODES_OF)
    for _ in range(3000):
        palette = rng.sample(kinds, rng.randint(2, 6))
        steps = []
        for _ in range(40):
            what = rng.choice(("take",) * 5 + ("lay", "pair turn", "steal", "same", "events",
                                                "starfish", "new game"))
            arg: object = rng.randrange(10 ** 6)
            if what == "lay":
                arg = rng.choice((2, 3))
            elif what == "events":
                arg = set(rng.sample(EVENT_CODES, rng.randint(0, 3)))
            elif what in ("starfish", "new game"):
                arg = rng.random() < 0.5
            steps.append((rng.randint(0, 1), (what, arg)))
        _play(steps, [rng.random() < 0.5 for _ in range(3)], palette)


def _play(steps, extra, palette):
    counted = seat_records(3)   # one thread's records, shared by the seats and both scorers
    base_palette = [k for k in palette if k in BASE_KINDS] or BASE_KINDS
    seats = [[(), (), frozenset(), True] for _ in range(3)]
    for seat, (what, arg) in steps:
        hand, laid, effects, hand_starfish = seats[seat]
        kinds = palette if extra[seat] else base_palette

        def card(arg: int) -> str:
            codes = [c for c in CODES_OF[kinds[arg % len(kinds)]]
                     if extra[seat] or c in CODES]
            return codes[arg // len(kinds) % len(codes)]

        if what == "take":                  # the engine's take: the hand and one card more
            hand = hand + (card(arg),)
        elif what == "lay" and len(hand) >= arg:
            laid = laid + (hand[:arg],)
            hand = hand[arg:]
        elif what == "pair turn" and hand:  # as the engine lays it: each card's first copy
            held = list(hand + (card(arg),))
            pair = (held.pop(arg % len(held)), held.pop(arg // 7 % len(held)))
            laid = laid + (pair,)
            hand = tuple(held) + ((card(arg // 11),) if arg % 3 else ())
        elif what == "steal" and hand:
            i = arg % len(hand)
            hand = hand[:i] + hand[i + 1:]
        elif what == "events":
            effects = frozenset(arg)
        elif what == "starfish":
            hand_starfish = arg
        elif what == "new game":
            hand, laid, effects = (), (), frozenset()
            extra[seat] = arg
        seats[seat] = [hand, laid, effects, hand_starfish]
        if extra[seat]:
            got = seat_extra_points_and_bonus(counted, seat, hand, laid, effects,
                                              hand_starfish)
        else:
            got = seat_points_and_bonus(counted, seat, hand, laid)
        assert got == _want(extra[seat], hand, laid, effects, hand_starfish), (
            seat, what, hand, laid, effects, hand_starfish)


@pytest.mark.parametrize("kind", ["shell", "octopus", "penguin", "sailor"])
def test_more_of_a_collector_than_every_deck_holds_taken_one_by_one(kind):
    """Past the padded collector tables (R-SCORE-COLLECT: that many cards or more score the
    table's last score), with the multiplier counting every card (R-SCORE-MULT)."""
    code = next(c for c in CODES if c.startswith(kind + ":"))
    multiplier = {"shell": "mermaid:white", "octopus": "mermaid:white",
                  "penguin": "colony:green", "sailor": "captain:light-orange"}[kind]
    counted, xcounted = seat_records(1), seat_records(1)
    hand: tuple[str, ...] = (multiplier,)
    for _ in range(160):
        hand = hand + (code,)
        b = breakdown(hand)
        assert seat_points_and_bonus(counted, 0, hand, ()) == (b.card_points, b.color_bonus)
        o = oracle.extra_breakdown(hand, (), frozenset({"dance-of-the-shells", "kraken"}), 0,
                                   True)
        assert seat_extra_points_and_bonus(
            xcounted, 0, hand, (), frozenset({"dance-of-the-shells", "kraken"}), True) == (
            o["card_points"], o["color_bonus"])


def test_a_card_the_base_game_lacks_drops_the_seats_record():
    """A base record met by an Extra Salt card: a KeyError (the engine then scores the
    holding by the breakdown), the record dropped, and the next score counted anew."""
    counted = seat_records(1)
    assert seat_points_and_bonus(counted, 0, ("crab:black",), ()) == (0, 1)
    with pytest.raises(KeyError):
        seat_points_and_bonus(counted, 0, ("crab:black", "lobster:black"), ())
    assert counted[0] is None
    assert seat_points_and_bonus(counted, 0, ("crab:black", "crab:yellow"), ()) == (1, 1)


def test_a_hand_grown_by_one_card_is_scored_on_in_place():
    """A hand taken card by card at its end, with the same laid tuple, is scored on in its
    seat's record (the record kept, not made anew); a hand of the same length plus one that
    is not the last one grown (its first card swapped) or another laid tuple is counted anew;
    one unit more laid, its cards gained, is scored on in an Extra Salt seat's record.
    Each score is the reference's (base: RULES.md §4 written out plainly) or the Counter
    oracle's (Extra Salt)."""
    from .test_scoring import _random_holdings as base_holdings, reference_breakdown
    from .test_scoring_extra import _random_holdings as extra_holdings

    def want(extra, hand, laid, hand_starfish):
        if not extra:
            return tuple(reference_breakdown(hand, laid)[4:])
        o = oracle.extra_breakdown(hand, laid, frozenset(), 0, hand_starfish)
        return o["card_points"], o["color_bonus"]

    def score(extra, counted, hand, laid, hand_starfish):
        if extra:
            return seat_extra_points_and_bonus(counted, 0, hand, laid, frozenset(),
                                               hand_starfish)
        return seat_points_and_bonus(counted, 0, hand, laid)

    holdings = [(False, h, lay, True) for h, lay in base_holdings(5, 300)] + [
        (True, h, lay, hs) for h, lay, _, _, hs in extra_holdings(300, 5)]
    for extra, hand, laid, hand_starfish in holdings:
        hand, laid = tuple(hand), tuple(tuple(u) for u in laid)
        counted = seat_records(1)
        for i in range(len(hand) + 1):          # the hand taken card by card
            part = hand[:i]
            before = counted[0]
            assert score(extra, counted, part, laid, hand_starfish) == want(
                extra, part, laid, hand_starfish), (part, laid)
            if before is not None:
                assert counted[0] is before      # scored on, not anew
            assert score(extra, counted, part, laid, hand_starfish) == want(
                extra, part, laid, hand_starfish)        # the same holding again
        held = counted[0]
        if hand:                # the first card swapped, one more taken: longer, not grown
            swap = "mermaid:white" if hand[0] != "mermaid:white" else "crab:black"
            rest = (swap,) + hand[1:] + ("crab:yellow",)
            assert score(extra, counted, rest, laid, hand_starfish) == want(
                extra, rest, laid, hand_starfish), (rest, laid)
            assert counted[0] is not held
        other = (("crab:black", "crab:yellow"),) + laid + (("boat:black", "boat:yellow"),)
        held = counted[0]                           # another laid tuple: counted anew
        assert score(extra, counted, hand, other, hand_starfish) == want(
            extra, hand, other, hand_starfish), (hand, other)
        assert counted[0] is not held
        # one unit more laid (its cards gained): Extra Salt scores on in the record
        assert score(extra, counted, hand, laid, hand_starfish) == want(
            extra, hand, laid, hand_starfish)
        grown = laid + (("crab:black", "crab:yellow"),)
        held = counted[0]
        assert score(extra, counted, hand, grown, hand_starfish) == want(
            extra, hand, grown, hand_starfish), (hand, grown)
        assert (counted[0] is held) == extra


@pytest.mark.parametrize("extra", [False, True])
def test_a_rounds_first_take_is_scored_on_from_the_empty_holding(extra):
    """A seat's first closed turn of a round, one card and nothing laid, is scored from the
    empty holding's record (made anew, then scored on: the record holds that hand) after a
    longer holding of the round before, for every card and, in Extra Salt, with the events
    in effect; each score is the full scorer's or the Counter oracle's."""
    import random
    rng = random.Random(3)
    codes = ALL if extra else CODES
    for code in codes:
        effects = frozenset(rng.sample(EVENT_CODES, rng.randint(0, 3))) if extra else frozenset()
        counted = seat_records(2)
        before = tuple(rng.sample(codes, 6))          # the round before's last holding
        laid = ((before[0], before[1]),)
        for hand, units in ((before[2:], laid), ((code,), ())):
            if extra:
                got = seat_extra_points_and_bonus(counted, 1, hand, units, effects, True)
            else:
                got = seat_points_and_bonus(counted, 1, hand, units)
            assert got == _want(extra, hand, units, effects, True), (hand, units, effects)
        assert counted[1][0] == (code,) and counted[1][1] == ()
