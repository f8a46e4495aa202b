"""Fast card points for bots: the same numbers as :func:`seasalt_log.scoring.breakdown`,
computed over small count lists so that a bot can score many hypothetical hands cheaply.

A :class:`Holding` is one player's cards as counts (by kind in hand, by kind over hand and
laid pairs, by colour over both); :meth:`Holding.points` is card points (R-SCORE) and
:meth:`Holding.bonus` the colour bonus (R-SCORE-BONUS).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..cards import COLOR, COLORS, KIND, KINDS
from ..scoring import COLLECTOR_POINTS

CRAB, BOAT, FISH, SWIMMER, SHARK, SHELL, OCTOPUS, PENGUIN, SAILOR, LIGHTHOUSE, SHOAL, \
    COLONY, CAPTAIN, MERMAID = range(14)
assert KINDS == ("crab", "boat", "fish", "swimmer", "shark", "shell", "octopus", "penguin",
                 "sailor", "lighthouse", "shoal", "colony", "captain", "mermaid")

#: card code -> kind index / colour index
KI: dict[str, int] = {c: KINDS.index(k) for c, k in KIND.items()}
CI: dict[str, int] = {c: COLORS.index(col) for c, col in COLOR.items()}
KCI: dict[str, tuple[int, int]] = {c: (KI[c], CI[c]) for c in KI}

_SHELL = COLLECTOR_POINTS["shell"]
_OCTO = COLLECTOR_POINTS["octopus"]
_PENG = COLLECTOR_POINTS["penguin"]
_SAIL = COLLECTOR_POINTS["sailor"]


class Holding:
    """One player's cards as counts; mutable so a bot can try a card and take it back."""

    __slots__ = ("hand", "kinds", "colors", "laid")

    def __init__(self, hand: Iterable[str] = (), laid: Sequence[Sequence[str]] = ()):
        self.hand = [0] * 14      # kinds in hand
        self.colors = [0] * 11    # colours in hand and laid pairs
        # self.kinds: kinds in hand and laid pairs
        self.laid = len(laid)
        h, col = self.hand, self.colors
        for code in hand:
            i, c = KCI[code]
            h[i] += 1
            col[c] += 1
        k = self.kinds = h[:]
        for a, b in laid:
            i, c = KCI[a]
            k[i] += 1
            col[c] += 1
            i, c = KCI[b]
            k[i] += 1
            col[c] += 1

    def add(self, code: str) -> None:
        """Put ``code`` into the hand."""
        i, c = KCI[code]
        self.hand[i] += 1
        self.kinds[i] += 1
        self.colors[c] += 1

    def remove(self, code: str) -> None:
        """Take ``code`` out of the hand."""
        i, c = KCI[code]
        self.hand[i] -= 1
        self.kinds[i] -= 1
        self.colors[c] -= 1

    def points(self) -> int:
        """Card points (R-SCORE), colour bonus not included."""
        h, k = self.hand, self.kinds
        sh, sw = h[SHARK], h[SWIMMER]
        pts = (self.laid + (h[CRAB] >> 1) + (h[BOAT] >> 1) + (h[FISH] >> 1) + (sh if sh < sw else sw)
               + _SHELL[k[SHELL]] + _OCTO[k[OCTOPUS]] + _PENG[k[PENGUIN]] + _SAIL[k[SAILOR]]
               + k[LIGHTHOUSE] * k[BOAT] + k[SHOAL] * k[FISH] + 2 * k[COLONY] * k[PENGUIN]
               + 3 * k[CAPTAIN] * k[SAILOR])
        m = k[MERMAID]
        if m:
            pts += sum(sorted(self.colors, reverse=True)[:m])
        return pts

    def points_with(self, code: str) -> int:
        """Card points if ``code`` were added to the hand."""
        self.add(code)
        p = self.points()
        self.remove(code)
        return p

    def bonus(self) -> int:
        """The colour bonus: the largest colour group (R-SCORE-BONUS)."""
        return max(self.colors)
