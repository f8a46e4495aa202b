"""Small pure helpers over tuples of card codes (hands, piles, the deck)."""

from __future__ import annotations

from collections import Counter
from typing import Iterable, TypeVar

from ..cards import ALL_CODES, FULL_DECK

#: each card code as the one string object the log decoder gives for it (its ``Literal`` of
#: :data:`cards.ALL_CODES`): a table keyed by these objects finds a decoded code, and a
#: tuple of them compares with one, by identity, without comparing characters
CODE: dict[str, str] = {code: code for code in ALL_CODES}
MERMAID = CODE["mermaid:white"]
T = TypeVar("T")


def without(cards: tuple[str, ...], card: str) -> tuple[str, ...] | None:
    """``cards`` less one copy of ``card`` (the first found), or None if it holds none."""
    try:
        i = cards.index(card)
    except ValueError:
        return None
    return cards[:i] + cards[i + 1:]


def without_all(cards: tuple[str, ...], remove: Iterable[str]) -> tuple[str, ...] | None:
    """``cards`` less one copy of each card of ``remove``, or None if one is missing."""
    left = [*cards]             # one list for every removal: cheaper than a tuple each time
    try:
        for card in remove:
            left.remove(card)   # the first copy, as :func:`without` takes it
    except ValueError:
        return None
    return tuple(left)


def unseen_after(discards: Iterable[str]) -> tuple[str, ...]:
    """The deck as a sorted multiset: the 58 cards less ``discards``."""
    left = FULL_DECK - Counter(discards)
    return tuple(sorted(left.elements()))


def multiset_diff(cards: Iterable[str], expected: Counter[str]) -> tuple[list[str], list[str]]:
    """(missing, extra) codes of ``cards`` against the multiset ``expected``."""
    got = Counter(cards)
    missing = sorted((expected - got).elements())
    extra = sorted((got - expected).elements())
    return missing, extra


def replace_at(seq: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """``seq`` with item ``i`` replaced."""
    items = [*seq]             # for the short tuples here, faster than slicing three times
    items[i] = value
    return tuple(items)
