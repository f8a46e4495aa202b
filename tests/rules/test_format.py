"""Errors that are not rules of play (RULES.md §8): LOG-FORMAT, through ``seasalt validate``
on a small log, and the card catalog of §1 (R-CARDS), transcribed here from the table."""

from __future__ import annotations

from collections import Counter

import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.engine.rulings import rules_for
from seasalt_log.errors import LogFormatError

from ..scenario import Game, cards_in_play, crabs, draw, end, take
from ..test_cards import COLOR_TOTALS as COLOUR_TOTALS, KIND_TOTALS as CARDS_COLUMN
from ..test_cards import TABLE as CARD_TABLE

runner = CliRunner()


def good_log() -> list[str]:
    """game_started, round_started, a take from pile 1 by seat 0, turn_ended."""
    g = Game(2).start_round()
    g.play(take(0, 1, g.pile_top(1)), end(0))
    return [ev.encode(e).decode() for e in g.events]


def validate(tmp_path, lines: list[str]):
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return runner.invoke(app, ["validate", str(path)])


def test_log_format_a_well_formed_log_passes(tmp_path):
    """LOG-FORMAT: the legal case: the same log, untouched, checks clean."""
    result = validate(tmp_path, good_log())
    assert result.exit_code == 0, result.output
    assert "LOG-FORMAT" not in result.output


# (line number, old text, new text, JSON path named or None, a word of the reason)
BROKEN = [
    (2, None, '{"type":"round_started"', None, "JSON"),
    (4, '"turn_ended"', '"turn_endded"', "$.type", "turn_endded"),
    (4, '"player":0', '"player":0,"colour":1', "$", "colour"),
    (4, None, '{"type":"turn_ended"}', "$", "player"),
    (4, '"player":0', '"player":"0"', "$.player", "int"),
    (3, '"player":0', '"player":5', "$.player", "5"),
    (3, '"pile":1', '"pile":2', "$.pile", "1"),
    (1, '"players"', '"ruleset":"extra-pepper","players"', "$.ruleset", "extra-pepper"),
    (1, '"players"', '"events":"salt","players"', "$.events", "salt"),
]


@pytest.mark.parametrize("line, old, new, path, word", BROKEN, ids=[
    "not-json", "unknown-type", "unknown-field", "missing-field", "wrong-type",
    "seat-out-of-range", "pile-out-of-range", "ruleset", "events"])
def test_log_format_a_malformed_line_is_named_with_its_line_and_path(tmp_path, line, old, new,
                                                                     path, word):
    """LOG-FORMAT: the error names the file and line, the id and the JSON path."""
    lines = good_log()
    if old is None:
        lines[line - 1] = new
    else:
        assert old in lines[line - 1]
        lines[line - 1] = lines[line - 1].replace(old, new, 1)
    result = validate(tmp_path, lines)
    assert result.exit_code != 0
    assert f"g.jsonl:{line}:" in result.output and "LOG-FORMAT" in result.output
    if path is not None:
        assert f"at {path}" in result.output.replace("\n", " ")
    assert word in result.output


@pytest.mark.parametrize("card", ["crab:pink", "lobster:black", "mermaid"])
def test_log_format_a_card_code_not_in_the_catalog(tmp_path, card):
    """LOG-FORMAT: a card code not in the base catalog (an Extra Salt card in a base game
    included) is a format error at its path, not a rule of play."""
    lines = good_log()
    top = Game(2).start_round().pile_top(1)
    lines[2] = lines[2].replace(f'"card":"{top}"', f'"card":"{card}"')
    assert card in lines[2]
    result = validate(tmp_path, lines)
    assert result.exit_code != 0
    assert "g.jsonl:3:" in result.output and "LOG-FORMAT" in result.output
    assert "$.card" in result.output


def test_log_format_pepper_fields_need_events(tmp_path):
    """LOG-FORMAT: a round_started naming a table event in a game without ``events``."""
    lines = good_log()
    lines[1] = lines[1].replace('"round":1', '"round":1,"event":"kraken"', 1)
    result = validate(tmp_path, lines)
    assert result.exit_code != 0
    assert "g.jsonl:2:" in result.output and "LOG-FORMAT" in result.output


def test_log_format_the_engine_names_an_acting_seat_out_of_range():
    """LOG-FORMAT (§8: a seat out of range is a format error, before any rule)."""
    g = Game(2).start_round()
    with pytest.raises(LogFormatError):
        g.play(take(5, 1, g.pile_top(1)))


# ---------------------------------------------------------------- R-CARDS

#: RULES.md §1, the table, transcribed by hand once (tests/test_cards.py): kind -> {colour:
#: copies}, the "cards" column and the colour totals line
TABLE = {kind: colours for kind, (_, colours) in CARD_TABLE.items()}


def test_r_cards_the_table_adds_up():
    """R-CARDS: the table's rows, its cards column and its colour totals agree: 58 cards."""
    for kind, colours in TABLE.items():
        assert sum(colours.values()) == CARDS_COLUMN[kind], kind
    by_colour = Counter()
    for colours in TABLE.values():
        by_colour.update(colours)
    assert dict(by_colour) == COLOUR_TOTALS
    assert sum(CARDS_COLUMN.values()) == sum(COLOUR_TOTALS.values()) == 58


def test_r_cards_the_base_deck_is_the_table():
    """R-CARDS: the base ruleset's cards are exactly the table's."""
    expected = Counter({f"{k}:{c}": n for k, colours in TABLE.items() for c, n in colours.items()})
    assert Counter(rules_for(None, None).cards) == expected


def test_r_cards_a_round_keeps_all_58_cards():
    """R-CARDS: cards move between deck, piles, hands and laid pairs but never appear or
    vanish: after a deal, a take and a crab pair the table still holds the 58."""
    g = Game(2).start_round(hands={0: ["crab:black", "crab:yellow"]}, then=["boat:yellow",
                                                                           "fish:black"])
    g.play(draw(0, "boat:yellow", "fish:black", pile=1),
           crabs(0, "crab:black", "crab:yellow", 0, g.pile_top(0)), end(0))
    expected = Counter({f"{k}:{c}": n for k, colours in TABLE.items() for c, n in colours.items()})
    assert Counter(cards_in_play(g.state)) == expected
