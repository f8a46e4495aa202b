"""Scoring, pure (RULES.md §4-6): card points with a breakdown, colour bonus, round outcome,
game winners. The engine, the CLI's ``score`` and ``rescore`` all use these functions."""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

from msgspec import Struct

from .cards import COLOR, KIND

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


def breakdown(hand: Iterable[str], laid: Iterable[Sequence[str]] = ()) -> Breakdown:
    """Score ``hand`` (card codes) plus ``laid`` (laid-down pairs, each two codes)."""
    held = Counter(hand)
    in_hand: dict[str, int] = {}
    colors: dict[str, int] = {}
    for code, n in held.items():
        k = KIND[code]
        in_hand[k] = in_hand.get(k, 0) + n
        c = COLOR[code]
        colors[c] = colors.get(c, 0) + n
    kinds = dict(in_hand)
    n_laid = 0
    for pair in laid:
        n_laid += 1
        for code in pair:
            k = KIND[code]
            kinds[k] = kinds.get(k, 0) + 1
            c = COLOR[code]
            colors[c] = colors.get(c, 0) + 1
    get = in_hand.get
    # R-SCORE-DUO: laid pairs 1 each; in hand floor(n/2) for crab/boat/fish, shark+swimmer pairs
    pairs = (n_laid + get("crab", 0) // 2 + get("boat", 0) // 2 + get("fish", 0) // 2
             + min(get("shark", 0), get("swimmer", 0)))
    collectors = 0
    for k, table in COLLECTOR_POINTS.items():
        n = kinds.get(k)
        if n:
            collectors += table[min(n, len(table) - 1)]
    multipliers = 0
    for m, (k, per) in MULTIPLIERS.items():
        n = kinds.get(m)
        if n:
            multipliers += n * kinds.get(k, 0) * per
    # R-SCORE-MERMAID: i-th mermaid scores the i-th largest colour group (white included)
    sizes = sorted(colors.values(), reverse=True)
    mermaids = sum(sizes[:kinds.get("mermaid", 0)])
    bonus = sizes[0] if sizes else 0
    return Breakdown(pairs, collectors, multipliers, mermaids,
                     pairs + collectors + multipliers + mermaids, bonus)


def card_points(hand: Iterable[str], laid: Iterable[Sequence[str]] = ()) -> int:
    """Card points only (R-SCORE), colour bonus never included."""
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
