"""Scoring, pure (RULES.md §4-6): card points with a breakdown, colour bonus, round outcome,
game winners. The engine, the CLI's ``score`` and ``rescore`` all use these functions."""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Sequence

from msgspec import Struct

from .cards import CODES, COLOR, COLORS, KIND, KINDS

# R-SCORE-COLLECT: points by number held (index = count)
COLLECTOR_POINTS: dict[str, tuple[int, ...]] = {
    "shell": (0, 0, 2, 4, 6, 8, 10),
    "octopus": (0, 0, 3, 6, 9, 12),
    "penguin": (0, 1, 3, 5),
    "sailor": (0, 0, 5),
}
# R-SCORE-MULT: multiplier kind -> (kind it counts, points per card)
MULTIPLIERS: dict[str, tuple[str, int]] = {
    "lighthouse": ("boat", 1),
    "shoal": ("fish", 1),
    "colony": ("penguin", 2),
    "captain": ("sailor", 3),
}
CALL_THRESHOLD = 7  # R-END-2


class Breakdown(Struct, frozen=True):
    """A player's card points by source (R-SCORE-*) and colour bonus (R-SCORE-BONUS)."""

    pairs: int
    collectors: int
    multipliers: int
    mermaids: int
    card_points: int
    color_bonus: int


# index arrays: a count per kind and per colour, in catalog order
KIND_INDEX: dict[str, int] = {k: i for i, k in enumerate(KINDS)}
#: card code -> (kind index, colour index)
CARD_INDEX: dict[str, tuple[int, int]] = {
    code: (KIND_INDEX[KIND[code]], COLORS.index(COLOR[code])) for code in CODES}
_CRAB, _BOAT, _FISH, _SWIMMER, _SHARK, _MERMAID = (
    KIND_INDEX[k] for k in ("crab", "boat", "fish", "swimmer", "shark", "mermaid"))
_COLLECT = tuple((KIND_INDEX[k], table, len(table) - 1) for k, table in COLLECTOR_POINTS.items())
_MULTIPLY = tuple((KIND_INDEX[m], KIND_INDEX[k], per) for m, (k, per) in MULTIPLIERS.items())


def counts(hand: Iterable[str], laid: Iterable[Sequence[str]] = ()
           ) -> tuple[list[int], list[int], list[int], int]:
    """(kinds in hand, kinds in hand and laid pairs, colours of both, pairs laid) as count
    lists indexed by :data:`KIND_INDEX` and colour order; the input of :func:`score_counts`."""
    index = CARD_INDEX
    in_hand = [0] * len(KINDS)
    colors = [0] * len(COLORS)
    for code in hand:
        k, c = index[code]
        in_hand[k] += 1
        colors[c] += 1
    kinds = in_hand[:]
    n_laid = 0
    for pair in laid:
        n_laid += 1
        for code in pair:
            k, c = index[code]
            kinds[k] += 1
            colors[c] += 1
    return in_hand, kinds, colors, n_laid


def score_counts(in_hand: Sequence[int], kinds: Sequence[int], colors: Sequence[int],
                 n_laid: int) -> tuple[int, int, int, int]:
    """(pairs, collectors, multipliers, mermaids) of a holding given as counts."""
    # R-SCORE-DUO: in hand floor(n/2) for crab/boat/fish, shark+swimmer pairs; laid pairs 1 each
    sharks, swimmers = in_hand[_SHARK], in_hand[_SWIMMER]
    pairs = (n_laid + in_hand[_CRAB] // 2 + in_hand[_BOAT] // 2 + in_hand[_FISH] // 2
             + (sharks if sharks < swimmers else swimmers))
    collectors = 0
    for k, table, top in _COLLECT:                                   # R-SCORE-COLLECT
        n = kinds[k]
        if n:
            collectors += table[n if n < top else top]
    multipliers = 0
    for m, k, per in _MULTIPLY:                                      # R-SCORE-MULT
        if kinds[m]:
            multipliers += kinds[m] * kinds[k] * per
    # R-SCORE-MERMAID: i-th mermaid scores the i-th largest colour group (white included)
    mermaids = kinds[_MERMAID]
    if mermaids:
        mermaids = sum(sorted(colors, reverse=True)[:mermaids])
    return pairs, collectors, multipliers, mermaids


def breakdown(hand: Iterable[str], laid: Iterable[Sequence[str]] = ()) -> Breakdown:
    """Score ``hand`` (card codes) plus ``laid`` (laid-down pairs, each two codes)."""
    in_hand, kinds, colors, n_laid = counts(hand, laid)
    pairs, collectors, multipliers, mermaids = score_counts(in_hand, kinds, colors, n_laid)
    # R-SCORE-BONUS: the largest colour group
    return Breakdown(pairs, collectors, multipliers, mermaids,
                     pairs + collectors + multipliers + mermaids, max(colors))


def card_points(hand: Iterable[str], laid: Iterable[Sequence[str]] = ()) -> int:
    """Card points only (R-SCORE), colour bonus never included. Memoised for tuples (the
    engine's hands and pairs): the same hand is scored for a call, for the legal moves and
    for a player's view."""
    if type(hand) is tuple and type(laid) is tuple:
        try:
            return _card_points(hand, laid)
        except TypeError:                   # a pair given as a list: not hashable
            pass
    return breakdown(hand, laid).card_points


@lru_cache(maxsize=4096)
def _card_points(hand: tuple[str, ...], laid: tuple[tuple[str, str], ...]) -> int:
    return breakdown(hand, laid).card_points


def round_points(ending: str, caller: int | None, card_pts: Sequence[int],
                 bonus: Sequence[int]) -> tuple[list[int], bool | None]:
    """Points each seat scores this round, and ``caller_won`` (a bool only for LAST CHANCE).

    R-STOP: everyone scores card points. R-DECKOUT: everyone 0. R-LAST-4: the caller wins
    with at least as many card points as every other player (ties go to the caller).
    """
    n = len(card_pts)
    if ending == "stop":
        return list(card_pts), None
    if ending == "deck_out":
        return [0] * n, None
    if caller is None:
        raise ValueError("a LAST CHANCE round needs its caller")
    won = all(card_pts[caller] >= card_pts[s] for s in range(n) if s != caller)
    if won:
        pts = [bonus[s] for s in range(n)]
        pts[caller] = card_pts[caller] + bonus[caller]
    else:
        pts = list(card_pts)
        pts[caller] = bonus[caller]
    return pts, won


def last_chance_outcome(caller: int, card_pts: Sequence[int]) -> str:
    """``won``, ``tied`` (won on a tie) or ``lost`` for a LAST CHANCE call (R-LAST-4)."""
    others = max(p for s, p in enumerate(card_pts) if s != caller)
    mine = card_pts[caller]
    return "won" if mine > others else "tied" if mine == others else "lost"


def game_winners(totals: Sequence[int], last_points: Sequence[int]) -> list[int]:
    """R-GAME-1: highest total; ties broken by the last round's points; then a shared win."""
    best = max(totals)
    tied = [s for s, t in enumerate(totals) if t == best]
    top = max(last_points[s] for s in tied)
    return [s for s in tied if last_points[s] == top]
