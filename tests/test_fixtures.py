"""The fixture corpus (fixtures/MANIFEST.json, built by fixtures/tools/build_rule_fixtures.py).

Every legal fixture must pass the engine and show the facts its manifest entry states; every
illegal fixture must fail with the stated error class, rule id and line. The corpus must cover
every rule id of RULES.md and every ruling.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from seasalt_log import events as ev
from seasalt_log.errors import IllegalMoveError, LogFormatError
from seasalt_log.importers.jsonl import check_game, read_games
from seasalt_log.view import table_view

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MANIFEST: list[dict] = json.loads((FIXTURES / "MANIFEST.json").read_text(encoding="utf-8"))

#: every rule id of RULES.md (the section ids R-SETUP, R-TURN, R-FLOW, R-SCORE, R-ROUND and
#: R-GAME only group the rules below them), and the two error kinds of its section 8
RULE_IDS = [
    "R-CARDS",
    "R-SETUP-1", "R-SETUP-2", "R-SETUP-3", "R-SETUP-4",
    "R-TAKE-1", "R-TAKE-2", "R-TAKE-3", "R-TAKE-4",
    "R-DUO-CRAB", "R-DUO-BOAT", "R-DUO-FISH", "R-DUO-SHARK", "R-DUO-PAIR", "R-DUO-NOEFFECT",
    "R-END-1", "R-END-2", "R-END-3", "R-MERMAID-WIN",
    "R-FLOW-PLAYER", "R-FLOW-TAKE", "R-FLOW-ROUND", "R-FLOW-GAME", "R-DRAW",
    "R-SCORE-DUO", "R-SCORE-COLLECT", "R-SCORE-MULT", "R-SCORE-MERMAID", "R-SCORE-BONUS",
    "R-STOP", "R-LAST-1", "R-LAST-2", "R-LAST-3", "R-LAST-4", "R-DECKOUT",
    "R-GAME-1", "R-GAME-2", "R-GAME-3",
    "R-VIEW",
    "LOG-FORMAT", "R-DERIVED",
]

#: RULES.md §9-§18 ids with a fixture (legal or illegal) in the corpus
EXTRA_RULE_IDS = [
    "R-X-RULESET-1", "R-X-CARDS-1", "R-X-CARDS-4", "R-X-SETUP", "R-X-PAIRS", "R-X-LOBSTER",
    "R-X-LOBSTER-NOTCRAB", "R-X-JELLYFISH", "R-X-JELLYFISH-TURN", "R-X-TRIO", "R-X-TRIO-UNIT",
    "R-X-NOEFFECT", "R-X-DRAW", "R-X-FLOW-FORCED", "R-X-FLOW-EFFECTS",
    "R-EV-CARDS", "R-EV-DECK", "R-EV-ROUND", "R-EV-PLACE", "R-EV-AWARD", "R-EV-HERMIT-CRAB",
    "R-EV-TREASURE-CHEST", "R-EV-DIODON-FISH", "R-EV-ANGELFISH", "R-EV-DOLPHINS",
    "R-EV-CORAL-REEF", "R-EV-PROTECT", "R-EV-FLOW",
]
#: RULES.md §9-§18 rules whose illegal case has an error fixture naming exactly that id
EXTRA_FORBIDDING = ["R-X-SETUP", "R-X-PAIRS", "R-X-LOBSTER", "R-X-LOBSTER-NOTCRAB",
                    "R-X-JELLYFISH-TURN", "R-X-TRIO", "R-X-NOEFFECT", "R-X-DRAW",
                    "R-EV-ROUND", "R-EV-TREASURE-CHEST", "R-EV-DIODON-FISH", "R-EV-ANGELFISH",
                    "R-EV-PROTECT"]

#: each ruling of RULES.md (marked **Ruling**) and the legal fixture that shows it
RULINGS = {
    "R-TAKE-3: one card left, a deck draw takes it and discards nothing":
        "rules/one-card-deck-draw.jsonl",
    "R-TAKE-4: deck and piles empty, the take is skipped":
        "rules/nothing-to-take-skip.jsonl",
    "R-DUO-NOEFFECT: crab with both piles empty": "rules/crab-no-effect-both-piles-empty.jsonl",
    "R-DUO-NOEFFECT: fish with an empty deck": "rules/fish-empty-deck.jsonl",
    "R-DUO-NOEFFECT: boat and shark with nothing to take or steal":
        "rules/nothing-to-take-skip.jsonl",
    "R-DUO-NOEFFECT: shark with every other hand revealed": "rules/shark-in-final-turns.jsonl",
    "R-END-3: a call on the deck-emptying turn comes first":
        "rules/call-on-deck-emptying-turn.jsonl",
    "R-LAST-1: a boat pair in a final turn still gives its extra take":
        "rules/boat-in-final-turn.jsonl",
    "R-LAST-2: no deck-out during the final turns": "rules/final-turns-empty-deck.jsonl",
}

#: rules whose illegal case is an error fixture expecting exactly that rule id (R-DUO-BOAT
#: gives a take; leaving it out is R-FLOW-TAKE's, RULES.md §8)
FORBIDDING = ["R-SETUP-3", "R-SETUP-4", "R-TAKE-1", "R-TAKE-2", "R-TAKE-3", "R-DUO-CRAB",
              "R-DUO-FISH", "R-DUO-SHARK", "R-DUO-PAIR", "R-DUO-NOEFFECT",
              "R-END-2", "R-FLOW-PLAYER", "R-FLOW-TAKE", "R-FLOW-ROUND", "R-FLOW-GAME",
              "R-DRAW", "R-LAST-1", "R-LAST-3", "LOG-FORMAT", "R-DERIVED"]

ERROR_CLASS = {"LOG-FORMAT": LogFormatError}


def _param(entry: dict):
    marks = [pytest.mark.xfail(strict=True, reason=entry["xfail"])] if "xfail" in entry else []
    return pytest.param(entry, id=entry["file"], marks=marks)


def _games(entry: dict) -> list:
    return list(read_games(FIXTURES / entry["file"], name=entry["file"]))


def _match(actual, expected, where: str) -> None:
    """``expected`` is a partial description: dict keys checked one by one, None in a list
    meaning 'any value for this seat'."""
    if isinstance(expected, dict):
        for key, value in expected.items():
            _match(actual[key] if isinstance(actual, dict) else getattr(actual, key), value,
                   f"{where}.{key}")
    elif isinstance(expected, list) and isinstance(actual, (list, tuple)):
        assert len(actual) == len(expected), f"{where}: {list(actual)} != {expected}"
        for i, (a, x) in enumerate(zip(actual, expected)):
            if x is not None:
                _match(a, x, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def _as_lists(value):
    if isinstance(value, tuple):
        return [_as_lists(v) for v in value]
    return value


def _check_facts(checked, facts: dict, where: str) -> None:
    scored = [e for e in checked.events if isinstance(e, ev.RoundScored)]
    ended = [e for e in checked.events if isinstance(e, ev.GameEnded)]
    final = checked.states[-1]
    if "game_id" in facts:
        assert checked.game_id == facts["game_id"]
    if "rounds" in facts:
        assert len(scored) == len(facts["rounds"]), f"{where}: {len(scored)} round_scored"
        for i, (e, want) in enumerate(zip(scored, facts["rounds"])):
            _match({k: _as_lists(getattr(e, k)) for k in e.__struct_fields__}, want,
                   f"{where} round_scored #{i + 1}")
    if "game_ended" in facts:
        if facts["game_ended"] is None:
            assert not ended, f"{where}: the game should still be in progress"
        else:
            assert len(ended) == 1, f"{where}: no game_ended"
            _match({k: _as_lists(getattr(ended[0], k)) for k in ended[0].__struct_fields__},
                   facts["game_ended"], f"{where} game_ended")
    if "table" in facts:
        t = final.table
        actual = {"piles": _as_lists(t.piles), "hands": [sorted(h) for h in t.hands],
                  "laid": _as_lists(t.laid), "deck_size": len(t.deck)}
        want = dict(facts["table"])
        if "hands" in want:
            want["hands"] = [None if h is None else sorted(h) for h in want["hands"]]
        _match(actual, want, f"{where} table")
    for viewer, seats in facts.get("visible_hands", {}).items():
        view = table_view(final, viewer=int(viewer))
        visible = [s.seat for s in view.seats if s.hand is not None]
        assert visible == seats, f"{where}: seat {viewer} sees the hands of {visible}"


@pytest.mark.parametrize("entry", [_param(e) for e in MANIFEST if e["expect"] == "ok"])
def test_legal_fixture(entry):
    games = _games(entry)
    facts = entry.get("games", [entry])
    assert len(games) == len(facts), f"{entry['file']} holds {len(games)} games"
    for raw, want in zip(games, facts):
        checked = check_game(raw)
        _check_facts(checked, want, entry["file"])


@pytest.mark.parametrize("entry", [_param(e) for e in MANIFEST if e["expect"] == "error"])
def test_illegal_fixture(entry):
    games = _games(entry)
    assert len(games) == 1
    with pytest.raises((LogFormatError, IllegalMoveError)) as info:
        check_game(games[0])
    exc = info.value
    assert isinstance(exc, ERROR_CLASS.get(entry["rule"], IllegalMoveError)), repr(exc)
    assert exc.rule == entry["rule"], str(exc)
    assert exc.line == entry["line"], str(exc)
    assert exc.file == entry["file"]
    assert str(exc).startswith(f"{entry['file']}:{entry['line']}:")


def test_every_fixture_file_is_in_the_manifest():
    listed = [e["file"] for e in MANIFEST]
    assert len(listed) == len(set(listed)), "a file is listed twice"
    on_disk = sorted(str(p.relative_to(FIXTURES)).replace("\\", "/")
                     for d in ("rules", "logs") for p in (FIXTURES / d).glob("*.jsonl"))
    assert sorted(listed) == on_disk


def test_manifest_entries_are_well_formed():
    for e in MANIFEST:
        assert e["expect"] in ("ok", "error"), e
        assert e["rules"] and set(e["rules"]) <= set(RULE_IDS + EXTRA_RULE_IDS), e["file"]
        is_illegal = e["file"].endswith(".illegal.jsonl")
        assert is_illegal == (e["expect"] == "error"), e["file"]
        if e["expect"] == "error":
            assert e["rule"] in e["rules"] and isinstance(e["line"], int), e["file"]


def test_rule_fixtures_are_one_game_named_after_the_file():
    for e in MANIFEST:
        if not e["file"].startswith("rules/"):
            continue
        games = _games(e)
        assert len(games) == 1, e["file"]
        first = games[0].events[0] if games[0].events else None
        if isinstance(first, ev.GameStarted):
            assert first.game_id == Path(e["file"]).name.removesuffix(".jsonl"), e["file"]


def test_every_rule_id_is_covered():
    covered = {r for e in MANIFEST for r in e["rules"]}
    assert [r for r in RULE_IDS + EXTRA_RULE_IDS if r not in covered] == []


def test_every_forbidding_rule_has_an_illegal_fixture():
    expected = {e["rule"] for e in MANIFEST if e["expect"] == "error"}
    assert [r for r in FORBIDDING + EXTRA_FORBIDDING if r not in expected] == []


def test_every_ruling_has_a_legal_fixture():
    ok = {e["file"] for e in MANIFEST if e["expect"] == "ok" and "xfail" not in e}
    assert {k: f for k, f in RULINGS.items() if f not in ok} == {}


def test_logs_without_deck_or_derived_events():
    by_file = {e["file"]: e for e in MANIFEST}
    no_deck = _games(by_file["logs/no-deck-order.jsonl"])
    assert all(e.deck is None for g in no_deck for e in g.events
               if isinstance(e, ev.RoundStarted))
    no_derived = _games(by_file["logs/no-derived-events.jsonl"])
    assert not [e for g in no_derived for e in g.events if type(e) in ev.DERIVED_TYPES]
    for raw in no_derived:
        checked = check_game(raw)
        assert isinstance(checked.events[-1], ev.GameEnded)
    assert len(_games(by_file["logs/multi-game.jsonl"])) >= 2


def test_fixtures_are_what_the_builder_writes():
    """The committed fixtures are exactly what fixtures/tools/build_rule_fixtures.py writes."""
    path = FIXTURES / "tools" / "build_rule_fixtures.py"
    spec = importlib.util.spec_from_file_location("build_rule_fixtures", path)
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    stale = [p for p, data in builder.build().items() if (FIXTURES / p).read_bytes() != data]
    assert stale == [], "run: python fixtures/tools/build_rule_fixtures.py"
