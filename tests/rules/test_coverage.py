"""Every rule id of RULES.md has at least one scenario test here that cites it (in its name
or its docstring). The list is transcribed from RULES.md; a new rule needs a new test."""

from __future__ import annotations

import importlib
import re
import inspect
import pkgutil

import pytest

from .. import rules

RULE_IDS = [
    "R-SETUP-1", "R-SETUP-2", "R-SETUP-3", "R-SETUP-4",
    "R-TAKE-1", "R-TAKE-2", "R-TAKE-3", "R-TAKE-4",
    "R-DUO-CRAB", "R-DUO-BOAT", "R-DUO-FISH", "R-DUO-SHARK", "R-DUO-PAIR", "R-DUO-NOEFFECT",
    "R-END-1", "R-END-2", "R-END-3", "R-MERMAID-WIN",
    "R-FLOW-PLAYER", "R-FLOW-TAKE", "R-FLOW-ROUND", "R-FLOW-GAME", "R-DRAW",
    "R-STOP", "R-LAST-1", "R-LAST-2", "R-LAST-3", "R-LAST-4", "R-DECKOUT",
    "R-GAME-1", "R-GAME-2", "R-GAME-3", "R-VIEW", "R-DERIVED",
]
#: RULES_EXTRA.md: the rulesets and Extra Salt (R-X-VIEW is tested with the views)
EXTRA_SALT_IDS = [
    "R-X-RULESET-1", "R-X-RULESET-2", "R-X-RULESET-3", "R-X-RULESET-4",
    "R-X-CARDS-1", "R-X-CARDS-2", "R-X-CARDS-3", "R-X-CARDS-4", "R-X-SETUP",
    "R-X-PAIRS", "R-X-LOBSTER", "R-X-LOBSTER-NOTCRAB", "R-X-JELLYFISH", "R-X-JELLYFISH-TURN",
    "R-X-JELLYFISH-SELF", "R-X-JELLYFISH-LAST", "R-X-JELLYFISH-MANY", "R-X-TRIO",
    "R-X-TRIO-UNIT", "R-X-NOEFFECT", "R-X-SCORE-DUO", "R-X-SCORE-STARFISH",
    "R-X-SCORE-SEAHORSE", "R-X-SCORE-CAST", "R-X-SCORE-COLOUR", "R-X-SCORE-MERMAIDS",
    "R-X-DRAW", "R-X-FLOW-FORCED", "R-X-FLOW-EFFECTS",
]
#: RULES_EXTRA.md §5: Extra Pepper, the events
PEPPER_IDS = [
    "R-EV-CARDS", "R-EV-DECK", "R-EV-ROUND", "R-EV-RESHUFFLE", "R-EV-APPLY", "R-EV-PLACE",
    "R-EV-AWARD", "R-EV-HOLD", "R-EV-HERMIT-CRAB", "R-EV-SUNFISH", "R-EV-WATER-RODEO",
    "R-EV-WATER-RODEO-SWIMMERS", "R-EV-WATER-RODEO-SHARKS", "R-EV-DANCE-OF-THE-SHELLS",
    "R-EV-KRAKEN", "R-EV-TORNADO", "R-EV-DANCE-OF-THE-MERMAIDS", "R-EV-TREASURE-CHEST",
    "R-EV-DIODON-FISH", "R-EV-ANGELFISH", "R-EV-DOLPHINS", "R-EV-CORAL-REEF", "R-EV-PROTECT",
    "R-EV-FLOW", "R-EV-VARIANTS",
]


def scenario_tests():
    for info in pkgutil.iter_modules(rules.__path__):
        if info.name.startswith("test_") and info.name != "test_coverage":
            module = importlib.import_module(f"{rules.__name__}.{info.name}")
            for name, fn in inspect.getmembers(module, inspect.isfunction):
                if name.startswith("test_"):
                    yield name, fn.__doc__ or ""


TESTS = list(scenario_tests())


@pytest.mark.parametrize("rule", RULE_IDS + EXTRA_SALT_IDS + PEPPER_IDS)
def test_every_rule_has_a_scenario(rule):
    as_name = rule.lower().replace("-", "_") + "_"
    cited = re.compile(re.escape(rule) + r"(?![-\w])")   # R-X-TRIO is not R-X-TRIO-UNIT
    citing = [name for name, doc in TESTS if as_name in name + "_" or cited.search(doc)]
    assert citing, f"no scenario test names {rule}"


def test_the_scenario_modules_were_found():
    assert len(TESTS) > 100
