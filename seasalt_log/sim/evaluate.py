"""Card points for bots over count lists (:func:`seasalt_log.scoring.score_counts`), so that
a bot can try a card and take it back cheaply.

A :class:`Holding` is one player's cards as counts (by kind in hand, by kind over hand and
laid pairs, by colour over both); :meth:`Holding.points` is card points (R-SCORE) and
:meth:`Holding.bonus` the colour bonus (R-SCORE-BONUS).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Sequence

from ..scoring import CARD_INDEX, KIND_INDEX, counts, extra_breakdown, score_counts

CRAB, BOAT, FISH, SWIMMER, SHARK, MERMAID = (
    KIND_INDEX[k] for k in ("crab", "boat", "fish", "swimmer", "shark", "mermaid"))

#: card code -> kind index
KI: dict[str, int] = {c: k for c, (k, _) in CARD_INDEX.items()}


class Holding:
    """One player's cards as counts; mutable so a bot can try a card and take it back.

    Extra Salt cards (RULES_EXTRA) are kept aside in ``extra`` (and laid trios in
    ``units``): while there are any, the holding is scored by RULES_EXTRA §3
    (:func:`seasalt_log.scoring.extra_breakdown`, events left out); the counts hold the
    base cards only."""

    __slots__ = ("hand", "kinds", "colors", "laid", "extra", "codes", "units")

    def __init__(self, hand: Iterable[str] = (), laid: Sequence[Sequence[str]] = ()):
        hand = tuple(hand)
        self.codes = list(hand)
        self.units = tuple(tuple(u) for u in laid)
        base = [c for c in hand if c in CARD_INDEX]
        self.extra = len(hand) - len(base)
        plain = [u for u in self.units if len(u) == 2 and u[0] in CARD_INDEX and u[1] in CARD_INDEX]
        if len(plain) < len(self.units):
            self.extra += 1
        # hand: kinds in hand; kinds: in hand and laid pairs; colors: over both
        self.hand, self.kinds, self.colors, self.laid = counts(base, plain)

    def add(self, code: str) -> None:
        """Put ``code`` into the hand."""
        self.codes.append(code)
        if code not in CARD_INDEX:
            self.extra += 1
            return
        i, c = CARD_INDEX[code]
        self.hand[i] += 1
        self.kinds[i] += 1
        self.colors[c] += 1

    def remove(self, code: str) -> None:
        """Take ``code`` out of the hand."""
        self.codes.remove(code)
        if code not in CARD_INDEX:
            self.extra -= 1
            return
        i, c = CARD_INDEX[code]
        self.hand[i] -= 1
        self.kinds[i] -= 1
        self.colors[c] -= 1

    def points(self) -> int:
        """Card points (R-SCORE, R-X-SCORE), colour bonus not included."""
        if self.extra:
            return _extra(tuple(sorted(self.codes)), self.units)[0]
        return sum(score_counts(self.hand, self.kinds, self.colors, self.laid))

    def points_with(self, code: str) -> int:
        """Card points if ``code`` were added to the hand."""
        self.add(code)
        p = self.points()
        self.remove(code)
        return p

    def bonus(self) -> int:
        """The colour bonus: the largest colour group (R-SCORE-BONUS)."""
        if self.extra:
            return _extra(tuple(sorted(self.codes)), self.units)[1]
        return max(self.colors)


@lru_cache(maxsize=65536)
def _extra(hand: tuple[str, ...], units: tuple[tuple[str, ...], ...]) -> tuple[int, int]:
    """(card points, colour bonus) by RULES_EXTRA §3; memoised: bots try the same hands."""
    x = extra_breakdown(hand, units)
    return x.card_points, x.color_bonus
