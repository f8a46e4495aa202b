"""``scoring.HoldingTally``: a seat's count lists carried from one holding to the next (the
closed turns of the read models) equal the holding counted from scratch, and an independent
count by the card catalogue, over every state of simulated games of the three settings and
over hand-made changes: cards taken, pairs and trios laid, steals, swaps, copies of a code,
a new round, a laid unit taken away, an Extra Salt card in a base count."""

from __future__ import annotations

from collections import Counter

import pytest
from msgspec.structs import replace

from seasalt_log.cards import COLOR, KIND
from seasalt_log.engine import core
from seasalt_log.engine.core import holding_tally, player_points_and_bonus
from seasalt_log.importers.jsonl import check_game, raw_game
from seasalt_log.scoring import (CARD_INDEX, COLORS, KINDS, X_KINDS, HoldingTally, counts,
                                 extra_counts)
from seasalt_log.sim import simulate

SETTINGS = [(None, None), ("extra-salt", None), ("extra-salt", "pepper")]


def _catalogue_counts(hand, laid, kinds_order=X_KINDS):
    """The oracle: the five count lists by the card catalogue's kind and colour of each code."""
    in_hand = Counter(KIND[c] for c in hand)
    held = in_hand + Counter(KIND[c] for unit in laid for c in unit)
    colors = Counter(COLOR[c] for c in (*hand, *(c for unit in laid for c in unit)))
    return ([in_hand[k] for k in kinds_order], [held[k] for k in kinds_order],
            [colors[c] for c in COLORS], len(laid), sum(len(u) == 3 for u in laid))


def _checked(ruleset, events):
    return [check_game(raw_game(g)) for players in (2, 3, 4)
            for g in simulate(3, players, 23, None, ruleset, events)]


@pytest.mark.parametrize("ruleset,events", SETTINGS)
def test_a_tally_fed_every_state_counts_as_from_scratch(ruleset, events):
    seen = Counter()
    for g in _checked(ruleset, events):
        rules = g.states[-1].ruleset
        tallies = [holding_tally(rules) for _ in range(g.states[-1].n)]
        base = not rules.extra_scoring
        for state in g.states[1:]:
            for seat, tally in enumerate(tallies):
                hand, laid = state.table.hands[seat], state.table.laid[seat]
                old_hand, old_laid = tally.hand, tally.laid
                got = tally.counts(hand, laid)
                if base:
                    assert got[:4] == counts(hand, laid), (hand, laid)
                    assert got == _catalogue_counts(hand, laid, KINDS)
                else:
                    assert got == extra_counts(hand, laid), (hand, laid)
                    assert got == _catalogue_counts(hand, laid)
                seen["laid reset" if laid[:len(old_laid)] != old_laid
                     else "laid grew" if laid is not old_laid
                     else "hand not extended" if hand[:len(old_hand)] != old_hand
                     else "hand extended"] += 1
    # every path of the update ran
    assert min(seen[k] for k in ("laid reset", "hand not extended", "laid grew",
                                 "hand extended")) > 5, seen


@pytest.mark.parametrize("ruleset,events", SETTINGS)
def test_points_with_a_tally_are_those_without(ruleset, events):
    """Every seat at every state (the events in effect included): the engine's score of a
    holding counted by the seat's tally is its score counted from scratch."""
    checked = 0
    for g in _checked(ruleset, events)[::2]:
        tallies = [holding_tally(g.states[-1].ruleset) for _ in range(g.states[-1].n)]
        for state in g.states[1:]:
            for seat, tally in enumerate(tallies):
                core._last_scored.clear()   # so neither answer comes from the engine's memo
                assert (player_points_and_bonus(state, seat, tally)
                        == player_points_and_bonus(state, seat)), (state, seat)
                checked += 1
    assert checked > 1000


# hand-made sequences of one seat's holding: (hand, laid units), each counted after the last
CRAB_A, CRAB_B, FISH, SHELL, MERMAID = ("crab:dark-blue", "crab:yellow", "fish:dark-blue",
                                        "shell:grey", "mermaid:white")
PAIR = (CRAB_A, CRAB_B)
SEQUENCES = {
    "takes": [((), ()), ((SHELL,), ()), ((SHELL, FISH), ()), ((SHELL, FISH, MERMAID), ())],
    "pair laid, then a take": [
        ((FISH, CRAB_A, CRAB_B), ()), ((FISH,), (PAIR,)), ((FISH, SHELL), (PAIR,))],
    "pair laid with the card just taken": [
        ((CRAB_A, SHELL), ()), ((SHELL,), ((CRAB_B, CRAB_A),))],
    "stolen from the middle": [((SHELL, FISH, MERMAID), ()), ((SHELL, MERMAID), ())],
    "a swap": [((SHELL, FISH), (PAIR,)), ((SHELL, CRAB_A), (PAIR,))],
    "one of two copies gone": [
        ((MERMAID, FISH, MERMAID), ()), ((FISH, MERMAID), ()), ((MERMAID,), ())],
    "the same holding again, and an equal one": [
        ((SHELL, FISH), (PAIR,)), ((SHELL, FISH), (PAIR,)), (tuple([SHELL, FISH]), (tuple(PAIR),))],
    "the hand reordered": [((SHELL, FISH, MERMAID), ()), ((MERMAID, SHELL, FISH), ())],
    "a new round": [((SHELL, FISH), (PAIR,)), ((), ()), ((FISH,), ())],
    "a laid unit taken away": [
        ((SHELL,), (PAIR, ("fish:black", "fish:green"))), ((SHELL,), (PAIR,)),
        ((SHELL, FISH), ((CRAB_B, CRAB_A),))],
    "everything changed": [((SHELL, FISH, CRAB_A), (PAIR,)), ((MERMAID,), (("boat:black",
                                                                           "boat:yellow"),))],
}
EXTRA_SEQUENCE = [  # trios, lobsters, the seahorse
    (("starfish:yellow", "boat:black", "boat:yellow"), ()),
    ((), (("boat:black", "boat:yellow", "starfish:yellow"),)),
    (("lobster:black", "seahorse:white"), (("boat:black", "boat:yellow", "starfish:yellow"),)),
    (("seahorse:white",), (("boat:black", "boat:yellow", "starfish:yellow"),
                           ("lobster:black", CRAB_A))),
    (("seahorse:white",), (("lobster:black", CRAB_A),)),
]


@pytest.mark.parametrize("name", SEQUENCES)
def test_hand_made_changes_are_counted_as_from_scratch(name):
    base, extra = HoldingTally(CARD_INDEX), HoldingTally()
    for hand, laid in SEQUENCES[name]:
        assert base.counts(hand, laid) == _catalogue_counts(hand, laid, KINDS), (hand, laid)
        assert extra.counts(hand, laid) == _catalogue_counts(hand, laid), (hand, laid)


def test_trios_and_the_extra_salt_cards_are_counted_as_from_scratch():
    tally = HoldingTally()
    for hand, laid in EXTRA_SEQUENCE:
        assert tally.counts(hand, laid) == _catalogue_counts(hand, laid), (hand, laid)


def test_worked_counts():
    """One holding counted by hand: crabs laid, a shell and a fish in hand."""
    tally = HoldingTally(CARD_INDEX)
    tally.counts((CRAB_A, CRAB_B, SHELL), ())
    in_hand, kinds, colors, n_units, trios = tally.counts((SHELL, FISH), (PAIR,))
    crab, fish, shell = KINDS.index("crab"), KINDS.index("fish"), KINDS.index("shell")
    assert [(i, n) for i, n in enumerate(in_hand) if n] == [(fish, 1), (shell, 1)]
    assert [(i, n) for i, n in enumerate(kinds) if n] == [(crab, 2), (fish, 1), (shell, 1)]
    assert {COLORS[i]: n for i, n in enumerate(colors) if n} == {
        "dark-blue": 2, "yellow": 1, "grey": 1}
    assert (n_units, trios) == (1, 0)


def test_a_code_outside_a_base_tally_raises_and_leaves_it_whole():
    tally = HoldingTally(CARD_INDEX)
    tally.counts((SHELL, FISH), (PAIR,))
    for hand, laid in [((SHELL, FISH, "seahorse:white"), (PAIR,)),
                       ((SHELL,), (PAIR, ("starfish:yellow", "boat:black", "boat:yellow")))]:
        with pytest.raises(KeyError):
            tally.counts(hand, laid)
        assert tally.counts((SHELL, FISH), (PAIR,)) == _catalogue_counts(
            (SHELL, FISH), (PAIR,), KINDS)


def test_an_extra_salt_card_in_a_base_game_is_scored_as_without_a_tally():
    """A base-ruleset state holding an Extra Salt card (the engine refuses one; scored by
    RULES_EXTRA §3 as ``points_and_bonus`` scores it): the tally's KeyError falls back."""
    g = _checked(None, None)[0]
    state = g.states[len(g.states) // 2]
    t = state.table
    hands = (t.hands[0] + ("seahorse:white", "sailor:pink", "captain:light-orange"),
             *t.hands[1:])
    odd = replace(state, table=replace(t, hands=hands))
    tally = holding_tally(state.ruleset)
    core._last_scored.clear()
    assert player_points_and_bonus(odd, 0, tally) == player_points_and_bonus(odd, 0)
    core._last_scored.clear()
    assert player_points_and_bonus(state, 0, tally) == player_points_and_bonus(state, 0)
