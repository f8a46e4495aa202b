"""A hand scored from card codes as people type them (``seasalt score`` and the web app's
score calculator): the codes checked against the catalog, then :func:`scoring.breakdown`."""

from __future__ import annotations

from typing import Any, Sequence

from .cards import check_counts, parse_card
from .errors import UsageError
from .scoring import breakdown


def score_hand(cards: Sequence[str], laid: Sequence[str] = ()) -> dict[str, Any]:
    """``{"cards", "laid", pairs, collectors, multipliers, mermaids, card_points,
    color_bonus}`` for the hand ``cards`` and the laid-down pairs ``laid`` ("A,B" each).

    Raises :class:`CardCodeError` for an unknown code or more copies than the deck holds
    (R-CARDS), :class:`UsageError` for a pair that is not two codes."""
    hand = [parse_card(c.strip()) for c in cards]
    pairs = []
    for p in laid:
        codes = [parse_card(c.strip()) for c in p.split(",")]
        if len(codes) != 2:
            raise UsageError(f"--laid takes two codes joined by a comma, not {p!r}")
        pairs.append(tuple(codes))
    check_counts(hand + [c for p in pairs for c in p])
    b = breakdown(hand, pairs)
    return {"cards": hand, "laid": pairs, **{f: getattr(b, f) for f in b.__struct_fields__}}
