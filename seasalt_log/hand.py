"""A hand scored from card codes as people type them (``seasalt score`` and the web app's
score calculator): the codes checked against the game's catalog, then the scoring of
RULES.md §4 (:func:`scoring.breakdown`) or, with Extra Salt or events, of RULES.md §12
(:func:`scoring.extra_breakdown`)."""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from .cards import KIND, check_counts, parse_card
from .engine.rulings import EXTRA_SALT, RULESETS, Ruleset, rules_for
from .errors import UsageError
from .events import EVENT_CODES
from .scoring import breakdown, extra_breakdown

#: every card an Extra Salt deck holds, to tell its own cards from mistyped codes
EXTRA_DECK = frozenset(EXTRA_SALT.cards)


def cards_scored(result: dict[str, Any]) -> int:
    """How many cards a :func:`score_hand` result scores: the hand's and the laid-down
    pairs' and trios' (a face-down shell is left out of the score, and of this count)."""
    return len(result["cards"]) + sum(len(u) for u in result["laid"])


def score_hand(cards: Sequence[str], laid: Sequence[str] = (), *, ruleset: str = "base",
               events: Sequence[str] = (), face_down: Sequence[str] = ()) -> dict[str, Any]:
    """The breakdown of the hand ``cards`` with the laid-down pairs or trios ``laid``
    ("A,B" or "A,B,S" each), under ``ruleset`` with ``events`` in effect for the player and
    the shells ``face_down`` (Coral Reef) left out.

    A base hand without events gives ``{"cards", "laid", pairs, collectors, multipliers,
    mermaids, card_points, color_bonus}``; otherwise the fields of
    :class:`scoring.ExtraBreakdown` with ``ruleset``, ``events`` and ``face_down_cards``.
    Raises :class:`CardCodeError` for an unknown code or more copies than the deck holds
    (R-CARDS), :class:`UsageError` for a bad pair, trio, ruleset or event, and for what needs
    a ruleset or event not given: a trio or an Extra Salt card without ``extra-salt``
    (R-X-TRIO, R-X-CARDS-4), a face-down shell without ``coral-reef``, or two of them
    (R-EV-CORAL-REEF)."""
    if ruleset not in RULESETS:
        raise UsageError(f"--ruleset is base or extra-salt, not {ruleset!r}")
    problem = unknown_event(events)
    if problem is not None:
        raise UsageError(problem)
    if face_down and "coral-reef" not in events:
        raise UsageError(f"--face-down {face_down[0].strip()!r}: a shell is placed face down "
                         f"only under the Coral Reef: add --event coral-reef (R-EV-CORAL-REEF)")
    if len(face_down) > 1:
        raise UsageError(f"--face-down given {len(face_down)} times: one face-down shell per "
                         f"player per round at most (R-EV-CORAL-REEF)")
    rules = rules_for(ruleset, "pepper" if events else None)
    deck = Counter(rules.cards)
    hand = [_card(c, deck, "") for c in cards]
    units = []
    for p in laid:
        if p.count(",") == 2 and not rules.trios:
            raise UsageError(f"--laid {p!r}: a trio needs --ruleset extra-salt (R-X-TRIO)")
        codes = [_card(c, deck, f"--laid {p!r}: ") for c in p.split(",")]
        if len(codes) == 3 and KIND[codes[2]] != "starfish":
            raise UsageError(f"--laid {p!r}: a trio's third card is a starfish (R-X-TRIO)")
        if len(codes) not in (2, 3):
            raise UsageError(f"--laid takes two codes joined by a comma (three for a trio), "
                             f"not {p!r}")
        _check_pair(p, codes[0], codes[1], rules, frozenset(events))
        units.append(tuple(codes))
    shells = [c.strip() for c in face_down]
    for c in shells:
        if KIND.get(c, "shell") != "shell":
            raise UsageError(f"--face-down {c!r}: only a shell is placed face down (R-EV-CORAL-REEF)")
        _card(c, deck, "--face-down: ")
    check_counts(hand + [c for u in units for c in u] + shells, deck)
    if not rules.extra_scoring:
        b = breakdown(hand, units)
        return {"cards": hand, "laid": units, **{f: getattr(b, f) for f in b.__struct_fields__}}
    x = extra_breakdown(hand, units, list(events), face_down=len(shells))
    return {"cards": hand, "laid": units, "ruleset": rules.name, "events": list(events),
            "face_down_cards": shells, **{f: getattr(x, f) for f in x.__struct_fields__}}


def unknown_event(events: Sequence[str]) -> str | None:
    """What is wrong with the first of ``events`` that is no Extra Pepper event code, or
    None (the command line and the web calculator say it alike)."""
    for name in events:
        if name not in EVENT_CODES:
            return f"unknown event {name!r}; the events are {', '.join(EVENT_CODES)}"
    return None


def _card(code: str, deck: Counter[str], where: str) -> str:
    """The card ``code`` of ``deck`` (:func:`cards.parse_card`); an Extra Salt card outside an
    Extra Salt deck is a :class:`UsageError` saying to add ``--ruleset extra-salt``
    (R-X-CARDS-4)."""
    code = code.strip()
    if code not in deck and code in EXTRA_DECK:
        raise UsageError(f"{where}{code!r} is an Extra Salt card: add --ruleset extra-salt "
                         f"(R-X-CARDS-4)")
    return parse_card(code, deck)


def _check_pair(text: str, a: str, b: str, rules: Ruleset, effects: frozenset[str]) -> None:
    """Raise :class:`UsageError` unless ``a`` and ``b`` are a pair the player may lay down
    under ``rules`` with ``effects`` in effect (R-DUO-PAIR, R-X-PAIRS, R-EV-WATER-RODEO)."""
    kinds = (KIND[a], KIND[b]) if KIND[a] <= KIND[b] else (KIND[b], KIND[a])
    tags = [tag for tag, allowed in rules.pairs if kinds in allowed]
    if any(rules.pair_allowed(tag, effects) for tag in tags):
        return
    legal = sorted({"+".join(k) for tag, allowed in rules.pairs
                    if rules.pair_allowed(tag, effects) for k in allowed})
    rule = ("R-EV-WATER-RODEO" if tags else "R-X-PAIRS" if rules.trios else "R-DUO-PAIR")
    raise UsageError(f"--laid {text!r}: {'+'.join(kinds)} is not a pair the player may lay "
                     f"down (the pairs: {', '.join(legal)}; {rule})")
