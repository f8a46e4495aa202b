"""``legal_moves(state)``: every input event the player to act may send next.

Moves that differ only in interchangeable cards are listed once. Chance is explicit: a
deck draw without a recorded deck order lists every unseen outcome, and a shark pair lists
each card the victim could lose (a bot picks the victim; the simulator picks the card).
"""

from __future__ import annotations

from itertools import combinations

from .. import events as ev
from ..cards import KIND
from ..scoring import breakdown
from .core import shark_targets
from .state import BOAT_TAKE, ROUND, TAKE, State


def _distinct(cards) -> list[str]:
    return sorted(set(cards))


def _pairs_of(hand, kind_a: str, kind_b: str) -> list[tuple[str, str]]:
    """Distinct (a, b) card pairs in ``hand`` of the two kinds (a pair of one kind if equal)."""
    if kind_a == kind_b:
        cards = sorted(c for c in hand if KIND[c] == kind_a)
        return sorted(set(combinations(cards, 2)))
    aa = _distinct(c for c in hand if KIND[c] == kind_a)
    bb = _distinct(c for c in hand if KIND[c] == kind_b)
    return [(a, b) for a in aa for b in bb]


def _deck_outcomes(state: State, k: int) -> list[tuple[str, ...]]:
    deck = state.table.deck
    if state.table.deck_ordered:
        return [deck[:k]]
    if k == 1:
        return [(c,) for c in _distinct(deck)]
    out = []
    for a in _distinct(deck):
        rest = list(deck)
        rest.remove(a)
        out.extend((a, b) for b in _distinct(rest))
    return out


def take_moves(state: State) -> list[ev.Event]:
    """The takes open to the player to act (R-TAKE-1..4)."""
    t, p = state.table, state.flow.player
    moves: list[ev.Event] = []
    left = len(t.deck)
    if left == 1 and state.ruleset.one_card_draw:
        moves += [ev.DeckDrawn(player=p, cards=c, kept=c[0]) for c in _deck_outcomes(state, 1)]
    elif left >= 2:
        empty = [i for i in (0, 1) if not t.piles[i]]
        piles = empty if len(empty) == 1 else [0, 1]
        for cards in _deck_outcomes(state, 2):
            for kept in _distinct(cards):
                moves += [ev.DeckDrawn(player=p, cards=cards, kept=kept, discard_pile=i)
                          for i in piles]
    for i in (0, 1):
        if t.piles[i]:
            moves.append(ev.DiscardTaken(player=p, pile=i, card=t.piles[i][-1]))
    return moves


def duo_moves(state: State) -> list[ev.Event]:
    """Every duo the player to act may lay down, with each possible effect (R-DUO-*)."""
    t, p = state.table, state.flow.player
    hand = t.hands[p]
    moves: list[ev.Event] = []
    for cards in _pairs_of(hand, "crab", "crab"):
        options = [(i, c) for i in (0, 1) for c in _distinct(t.piles[i])]
        moves += [ev.CrabsPlayed(player=p, cards=cards, pile=i, took=c) for i, c in options]
        if not options:
            moves.append(ev.CrabsPlayed(player=p, cards=cards, pile=None, took=None))
    moves += [ev.BoatsPlayed(player=p, cards=cards) for cards in _pairs_of(hand, "boat", "boat")]
    for cards in _pairs_of(hand, "fish", "fish"):
        draws = [d[0] for d in _deck_outcomes(state, 1)] if t.deck else [None]
        moves += [ev.FishPlayed(player=p, cards=cards, drew=d) for d in draws]
    sharks = _pairs_of(hand, "shark", "swimmer")
    if sharks:
        targets = shark_targets(state)
        steals = [(v, c) for v in targets for c in _distinct(t.hands[v])] or [(None, None)]
        moves += [ev.SharkPlayed(player=p, cards=cards, victim=v, stole=c)
                  for cards in sharks for v, c in steals]
    return moves


def end_moves(state: State) -> list[ev.Event]:
    """turn_ended, and the calls when allowed (R-END-1, R-END-2, R-LAST-1)."""
    t, f = state.table, state.flow
    p = f.player
    moves: list[ev.Event] = [ev.TurnEnded(player=p)]
    rs = state.ruleset
    if (f.call is None and (t.deck or rs.call_before_deck_out)
            and breakdown(t.hands[p], t.laid[p]).card_points >= rs.call_threshold):
        moves += [ev.StopCalled(player=p), ev.LastChanceCalled(player=p)]
    return moves


def legal_moves(state: State) -> list[ev.Event]:
    """Every input event the player to act may send now; empty when none is theirs to send
    (before a round starts, while a derived event is due, after the game)."""
    if state.phase != ROUND or state.flow.due:
        return []
    if state.flow.step in (TAKE, BOAT_TAKE):
        return take_moves(state)
    return duo_moves(state) + end_moves(state)
