"""Card points for bots over count lists (:func:`seasalt_log.scoring.score_counts`), so that
a bot can try a card and take it back cheaply.

A :class:`Holding` is one player's cards as counts (by kind in hand, by kind over hand and
laid pairs, by colour over both); :meth:`Holding.points` is card points (R-SCORE) and
:meth:`Holding.bonus` the colour bonus (R-SCORE-BONUS).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..scoring import CARD_INDEX, KIND_INDEX, counts, score_counts

CRAB, BOAT, FISH, SWIMMER, SHARK, MERMAID = (
    KIND_INDEX[k] for k in ("crab", "boat", "fish", "swimmer", "shark", "mermaid"))

#: card code -> kind index
KI: dict[str, int] = {c: k for c, (k, _) in CARD_INDEX.items()}


class Holding:
    """One player's cards as counts; mutable so a bot can try a card and take it back."""

    __slots__ = ("hand", "kinds", "colors", "laid")

    def __init__(self, hand: Iterable[str] = (), laid: Sequence[Sequence[str]] = ()):
        # hand: kinds in hand; kinds: in hand and laid pairs; colors: over both
        self.hand, self.kinds, self.colors, self.laid = counts(hand, laid)

    def add(self, code: str) -> None:
        """Put ``code`` into the hand."""
        i, c = CARD_INDEX[code]
        self.hand[i] += 1
        self.kinds[i] += 1
        self.colors[c] += 1

    def remove(self, code: str) -> None:
        """Take ``code`` out of the hand."""
        i, c = CARD_INDEX[code]
        self.hand[i] -= 1
        self.kinds[i] -= 1
        self.colors[c] -= 1

    def points(self) -> int:
        """Card points (R-SCORE), colour bonus not included."""
        return sum(score_counts(self.hand, self.kinds, self.colors, self.laid))

    def points_with(self, code: str) -> int:
        """Card points if ``code`` were added to the hand."""
        self.add(code)
        p = self.points()
        self.remove(code)
        return p

    def bonus(self) -> int:
        """The colour bonus: the largest colour group (R-SCORE-BONUS)."""
        return max(self.colors)
