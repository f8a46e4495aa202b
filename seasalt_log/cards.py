"""The card catalog of the Sea Salt & Paper base game (RULES.md §1, R-CARDS).

A card is named by its canonical code ``kind:colour``; cards with the same code are
interchangeable. The catalog is data: everything else derives from :data:`COPIES`.
"""

from __future__ import annotations

import difflib
from collections import Counter
from typing import Iterable

from .errors import CardCodeError

COLORS: tuple[str, ...] = (
    "dark-blue", "light-blue", "black", "yellow", "green", "grey",
    "purple", "light-orange", "orange", "pink", "white",
)

#: kind -> family
FAMILIES: dict[str, str] = {
    "crab": "duo", "boat": "duo", "fish": "duo", "swimmer": "duo", "shark": "duo",
    "shell": "collector", "octopus": "collector", "penguin": "collector", "sailor": "collector",
    "lighthouse": "multiplier", "shoal": "multiplier", "colony": "multiplier",
    "captain": "multiplier", "mermaid": "mermaid",
}
KINDS: tuple[str, ...] = tuple(FAMILIES)

#: (kind, colour) -> number of copies in the deck
COPIES: dict[tuple[str, str], int] = {
    **{("crab", c): n for c, n in (("dark-blue", 2), ("light-blue", 2), ("black", 1),
                                  ("yellow", 2), ("green", 1), ("grey", 1))},
    **{("boat", c): 2 for c in ("dark-blue", "light-blue", "black", "yellow")},
    **{("fish", c): n for c, n in (("dark-blue", 2), ("light-blue", 1), ("black", 2),
                                  ("yellow", 1), ("green", 1))},
    **{("swimmer", c): 1 for c in ("dark-blue", "light-blue", "black", "yellow", "light-orange")},
    **{("shark", c): 1 for c in ("dark-blue", "light-blue", "black", "green", "purple")},
    **{("shell", c): 1 for c in ("dark-blue", "light-blue", "black", "yellow", "green", "grey")},
    **{("octopus", c): 1 for c in ("light-blue", "yellow", "green", "purple", "grey")},
    **{("penguin", c): 1 for c in ("purple", "light-orange", "pink")},
    **{("sailor", c): 1 for c in ("pink", "orange")},
    ("lighthouse", "purple"): 1,
    ("shoal", "grey"): 1,
    ("colony", "green"): 1,
    ("captain", "light-orange"): 1,
    ("mermaid", "white"): 4,
}

#: every valid code, in catalog order
CODES: tuple[str, ...] = tuple(f"{k}:{c}" for k, c in COPIES)
#: code -> kind, code -> colour, code -> copies; keyed by the string objects of
#: :data:`CODES` and :data:`EXTRA_CODES`, which the log decoder gives for the codes (its
#: ``Literal`` of :data:`ALL_CODES`): a look-up of a decoded code hits by identity
KIND: dict[str, str] = {code: k for code, (k, _) in zip(CODES, COPIES)}
COLOR: dict[str, str] = {code: c for code, (_, c) in zip(CODES, COPIES)}
COUNT: dict[str, int] = dict(zip(CODES, COPIES.values()))
#: the full 58-card deck as a multiset
FULL_DECK: Counter[str] = Counter(COUNT)
DECK_SIZE = sum(COUNT.values())

#: Extra Salt (RULES.md §10, R-X-CARDS): kind -> family, and the 8 added cards
EXTRA_FAMILIES: dict[str, str] = {
    "lobster": "duo", "jellyfish": "duo", "starfish": "special", "seahorse": "special",
    "castofcrabs": "multiplier",
}
EXTRA_COPIES: dict[tuple[str, str], int] = {
    ("lobster", "black"): 1,
    ("jellyfish", "purple"): 1, ("jellyfish", "pink"): 1,
    **{("starfish", c): 1 for c in ("dark-blue", "light-blue", "yellow")},
    ("seahorse", "white"): 1,
    ("castofcrabs", "green"): 1,
}
EXTRA_CODES: tuple[str, ...] = tuple(f"{k}:{c}" for k, c in EXTRA_COPIES)
#: every code of every ruleset, base first: what the log decoder accepts (a ruleset then
#: refuses the codes it does not have, RULES.md R-X-CARDS-4)
ALL_CODES: tuple[str, ...] = CODES + EXTRA_CODES
KIND.update({code: k for code, (k, _) in zip(EXTRA_CODES, EXTRA_COPIES)})
COLOR.update({code: c for code, (_, c) in zip(EXTRA_CODES, EXTRA_COPIES)})
#: the 66-card Extra Salt deck as a multiset (R-X-CARDS-1)
EXTRA_SALT_DECK: Counter[str] = FULL_DECK + Counter(dict(zip(EXTRA_CODES, EXTRA_COPIES.values())))

DUO_PAIRS: dict[str, tuple[str, str]] = {
    "crab": ("crab", "crab"),
    "boat": ("boat", "boat"),
    "fish": ("fish", "fish"),
    "shark": ("shark", "swimmer"),
}


def suggest(code: str, n: int = 3, codes: Iterable[str] = CODES) -> list[str]:
    """The valid codes (of ``codes``) closest to ``code`` (for error messages)."""
    codes = list(codes)
    close = difflib.get_close_matches(code, codes, n=n, cutoff=0.5)
    if not close and ":" in code:
        kind = code.split(":", 1)[0]
        close = [c for c in codes if KIND[c] == kind][:n]
    return close


def parse_card(code: str, deck: Counter[str] = FULL_DECK) -> str:
    """Return ``code`` if it names a card of ``deck`` (the base catalog by default), else
    raise :class:`CardCodeError`."""
    if code in deck:
        return code
    raise CardCodeError(code, suggest(code, codes=deck))


def check_counts(cards: Iterable[str], deck: Counter[str] = FULL_DECK) -> None:
    """Raise :class:`CardCodeError` if ``cards`` holds more copies of a code than ``deck``."""
    for code, n in Counter(cards).items():
        if n > deck[code]:
            raise CardCodeError(code, [], f"{n} copies of {code}, but the deck holds only "
                                          f"{deck[code]} (R-CARDS)")
