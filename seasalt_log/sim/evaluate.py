"""Card points for bots over count lists (:func:`seasalt_log.scoring.score_counts`,
:func:`seasalt_log.scoring.extra_card_points`), so that a bot can try a card and take it
back cheaply.

A :class:`Holding` is one player's cards as counts (by kind in hand, by kind over hand and
laid units, by colour over both); :meth:`Holding.points` is card points (R-SCORE, or
R-X-SCORE once an Extra Salt card is held) and :meth:`Holding.bonus` the colour bonus
(R-SCORE-BONUS).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..scoring import (CARD_INDEX, KIND_INDEX, X_CARD_INDEX, extra_card_points, extra_counts,
                       score_counts)

CRAB, BOAT, FISH, SWIMMER, SHARK, MERMAID = (
    KIND_INDEX[k] for k in ("crab", "boat", "fish", "swimmer", "shark", "mermaid"))

#: card code -> kind index, the base game's cards
KI: dict[str, int] = {c: k for c, (k, _) in CARD_INDEX.items()}

#: card code -> (kind index, colour index, 1 for an Extra Salt card else 0), every ruleset
_ADDS: dict[str, tuple[int, int, int]] = {
    code: (k, c, int(code not in CARD_INDEX)) for code, (k, c) in X_CARD_INDEX.items()}

_NO_EVENTS: frozenset[str] = frozenset()
#: the base game's kinds come first in the count lists
_BASE_KINDS = len(KIND_INDEX)


class Holding:
    """One player's cards as counts; mutable so a bot can try a card and take it back.

    The counts cover every kind of every ruleset (:data:`seasalt_log.scoring.X_KINDS`, the
    base kinds first). ``extra`` counts the Extra Salt cards in hand, plus one when a laid
    unit holds one or is a trio: while it is not zero the holding is scored by RULES.md §12
    (events left out), else by RULES.md §4 (the same points for base cards)."""

    __slots__ = ("hand", "kinds", "colors", "laid", "trios", "extra")

    def __init__(self, hand: Iterable[str] = (), laid: Sequence[Sequence[str]] = ()):
        self.hand, self.kinds, self.colors, self.laid, self.trios = extra_counts(hand, laid)
        # the Extra Salt cards are exactly those of the kinds after the base ones
        self.extra = sum(self.hand[_BASE_KINDS:])
        if self.trios or sum(self.kinds[_BASE_KINDS:]) > self.extra:   # one laid
            self.extra += 1

    def copy(self) -> "Holding":
        """An independent copy (a bot may change it: :meth:`add`, :meth:`remove`)."""
        h = Holding.__new__(Holding)
        h.hand, h.kinds, h.colors = self.hand[:], self.kinds[:], self.colors[:]
        h.laid, h.trios, h.extra = self.laid, self.trios, self.extra
        return h

    def add(self, code: str) -> None:
        """Put ``code`` into the hand."""
        i, c, x = _ADDS[code]
        self.hand[i] += 1
        self.kinds[i] += 1
        self.colors[c] += 1
        self.extra += x

    def remove(self, code: str) -> None:
        """Take ``code`` out of the hand."""
        i, c, x = _ADDS[code]
        self.hand[i] -= 1
        self.kinds[i] -= 1
        self.colors[c] -= 1
        self.extra -= x

    def points(self) -> int:
        """Card points (R-SCORE, R-X-SCORE), colour bonus not included."""
        if self.extra:
            return extra_card_points(self.hand, self.kinds, self.colors, self.laid, _NO_EVENTS)
        return sum(score_counts(self.hand, self.kinds, self.colors, self.laid))

    def points_with(self, code: str) -> int:
        """Card points if ``code`` were added to the hand."""
        self.add(code)
        p = self.points()
        self.remove(code)
        return p

    def bonus(self) -> int:
        """The colour bonus: the largest colour group (R-SCORE-BONUS, R-X-SCORE-COLOUR)."""
        return max(self.colors)
