"""The card catalog against RULES.md §1 (R-CARDS), transcribed here by hand."""

from __future__ import annotations

from collections import Counter

import pytest

from seasalt_log import cards
from seasalt_log.errors import CardCodeError

# RULES.md §1, row by row: kind -> (family, {colour: copies})
TABLE = {
    "crab": ("duo", {"dark-blue": 2, "light-blue": 2, "black": 1, "yellow": 2, "green": 1, "grey": 1}),
    "boat": ("duo", {"dark-blue": 2, "light-blue": 2, "black": 2, "yellow": 2}),
    "fish": ("duo", {"dark-blue": 2, "light-blue": 1, "black": 2, "yellow": 1, "green": 1}),
    "swimmer": ("duo", {"dark-blue": 1, "light-blue": 1, "black": 1, "yellow": 1, "light-orange": 1}),
    "shark": ("duo", {"dark-blue": 1, "light-blue": 1, "black": 1, "green": 1, "purple": 1}),
    "shell": ("collector", {"dark-blue": 1, "light-blue": 1, "black": 1, "yellow": 1, "green": 1, "grey": 1}),
    "octopus": ("collector", {"light-blue": 1, "yellow": 1, "green": 1, "purple": 1, "grey": 1}),
    "penguin": ("collector", {"purple": 1, "light-orange": 1, "pink": 1}),
    "sailor": ("collector", {"pink": 1, "orange": 1}),
    "lighthouse": ("multiplier", {"purple": 1}),
    "shoal": ("multiplier", {"grey": 1}),
    "colony": ("multiplier", {"green": 1}),
    "captain": ("multiplier", {"light-orange": 1}),
    "mermaid": ("mermaid", {"white": 4}),
}
KIND_TOTALS = {"crab": 9, "boat": 8, "fish": 7, "swimmer": 5, "shark": 5, "shell": 6,
               "octopus": 5, "penguin": 3, "sailor": 2, "lighthouse": 1, "shoal": 1,
               "colony": 1, "captain": 1, "mermaid": 4}
COLOR_TOTALS = {"dark-blue": 9, "light-blue": 9, "black": 8, "yellow": 8, "green": 6,
                "white": 4, "purple": 4, "grey": 4, "light-orange": 3, "pink": 2, "orange": 1}


def test_58_cards_14_kinds_11_colours():
    assert cards.DECK_SIZE == 58
    assert sum(cards.FULL_DECK.values()) == 58
    assert len(cards.KINDS) == 14 and set(cards.KINDS) == set(TABLE)
    assert len(cards.COLORS) == 11 and set(cards.COLORS) == set(COLOR_TOTALS)


def test_copies_match_the_rules_table_exactly():
    expected = {f"{kind}:{colour}": n for kind, (_, row) in TABLE.items() for colour, n in row.items()}
    assert dict(cards.COUNT) == expected
    assert set(cards.CODES) == set(expected)
    # distinct codes: 6 + 4 + 5 + 5 + 5 + 6 + 5 + 3 + 2 + 4 multipliers + 1 mermaid
    assert len(cards.CODES) == len(set(cards.CODES)) == 46


@pytest.mark.parametrize("kind", list(KIND_TOTALS))
def test_kind_total(kind):
    assert sum(n for code, n in cards.COUNT.items() if cards.KIND[code] == kind) == KIND_TOTALS[kind]


@pytest.mark.parametrize("colour", list(COLOR_TOTALS))
def test_colour_total(colour):
    assert sum(n for code, n in cards.COUNT.items() if cards.COLOR[code] == colour) == COLOR_TOTALS[colour]


def test_the_listed_totals_add_up_to_58():
    # the transcription of RULES.md is itself consistent
    assert sum(KIND_TOTALS.values()) == sum(COLOR_TOTALS.values()) == 58
    for kind, (_, row) in TABLE.items():
        assert sum(row.values()) == KIND_TOTALS[kind], kind
    per_colour = Counter()
    for _, row in TABLE.values():
        per_colour.update(row)
    assert dict(per_colour) == COLOR_TOTALS


@pytest.mark.parametrize("kind", list(TABLE))
def test_families(kind):
    assert cards.FAMILIES[kind] == TABLE[kind][0]


def test_codes_are_kind_colon_colour():
    for code in cards.CODES:
        kind, colour = code.split(":")
        assert cards.KIND[code] == kind and cards.COLOR[code] == colour


def test_duo_pairs():
    assert cards.DUO_PAIRS == {"crab": ("crab", "crab"), "boat": ("boat", "boat"),
                               "fish": ("fish", "fish"), "shark": ("shark", "swimmer")}


@pytest.mark.parametrize("code", ["crab:dark-blue", "mermaid:white", "captain:light-orange"])
def test_parse_card_accepts_catalog_codes(code):
    assert cards.parse_card(code) == code


@pytest.mark.parametrize("bad, close", [
    ("crab:darkblue", "crab:dark-blue"),
    ("krab:black", "crab:black"),
    ("mermaid:whte", "mermaid:white"),
    ("octopus:blue", "octopus:light-blue"),
])
def test_bad_code_is_named_with_close_suggestions(bad, close):
    with pytest.raises(CardCodeError) as info:
        cards.parse_card(bad)
    err = info.value
    assert err.code == bad
    assert close in err.suggestions
    assert repr(bad) in str(err) and close in str(err)
    assert all(s in cards.COUNT for s in err.suggestions)


def test_bad_code_with_a_known_kind_suggests_that_kind():
    with pytest.raises(CardCodeError) as info:
        cards.parse_card("sailor:zzzzzzzz")
    assert info.value.suggestions
    assert all(s.startswith("sailor:") for s in info.value.suggestions)


def test_a_hopeless_code_has_no_suggestion_but_is_named():
    with pytest.raises(CardCodeError) as info:
        cards.parse_card("qqqq")
    assert info.value.suggestions == []
    assert "'qqqq'" in str(info.value)


def test_check_counts():
    cards.check_counts(["mermaid:white"] * 4 + ["crab:black"])
    with pytest.raises(CardCodeError) as info:
        cards.check_counts(["mermaid:white"] * 5)
    assert info.value.code == "mermaid:white"
    assert "5" in str(info.value) and "4" in str(info.value)
    with pytest.raises(CardCodeError):
        cards.check_counts(["crab:black", "crab:black"])   # only one black crab


def test_code_tables_are_keyed_by_the_decoders_code_objects():
    """KIND, COLOR and COUNT hold the very string objects the log decoder gives for a card
    code, so a look-up of a decoded code hits by identity (no characters compared)."""
    from seasalt_log import events

    line = ('{"type":"discard_taken","player":0,"pile":0,"card":"%s"}')
    for code in cards.ALL_CODES:
        decoded = events.decode(line % code).card
        assert decoded == code
        assert any(k is decoded for k in cards.KIND)
        assert any(k is decoded for k in cards.COLOR)
        assert any(k is decoded for k in (cards.COUNT if code in cards.CODES else cards.KIND))
