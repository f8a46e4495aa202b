"""Every rule id the rule documents (docs/RULES*.md) define has at least one scenario test
here that cites it (in its name or its docstring).

The ids are read from the documents themselves, not from a list kept here and not through
the rulebook module: a rule added to the documents without a test fails this file. A
definition is a bold item (``- **R-TAKE-2.** ...``) or a heading ending in ``(R-...)``.
The only ids let off are those of headings whose section defines other ids: they name a
group (R-TAKE is steps R-TAKE-1..4), and their children are cited one by one. A heading
whose section defines no other id (R-CARDS, R-VIEW, R-X-VIEW, R-EV-CARDS, R-EV-FLOW) is a
rule and needs its own test.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

from .. import rules

DOCS = Path(__file__).resolve().parents[2] / "docs"
ITEM = re.compile(r"^\s*- \*\*((?:R|LOG)-[A-Z0-9]+(?:-[A-Z0-9]+)*)\.\*\*")
HEADING = re.compile(r"^(#+) .*\((R-[A-Z0-9]+(?:-[A-Z0-9]+)*)\)\s*$")


def definitions() -> list[tuple[str, bool]]:
    """``(id, is_group)`` for every id the rule documents define, in document order."""
    found: list[tuple[str, bool]] = []
    for path in sorted(DOCS.glob("RULES*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines):
            if m := ITEM.match(line):
                found.append((m.group(1), False))
            elif m := HEADING.match(line):
                level = len(m.group(1))
                section = []
                for later in lines[n + 1:]:
                    h = re.match(r"^(#+) ", later)
                    if h and len(h.group(1)) <= level:
                        break
                    section.append(later)
                group = any(ITEM.match(s) or HEADING.match(s) for s in section)
                found.append((m.group(2), group))
    return found


DEFINED = definitions()
RULE_IDS = [rule for rule, group in DEFINED if not group]
GROUP_IDS = [rule for rule, group in DEFINED if group]


def scenario_tests():
    for info in pkgutil.iter_modules(rules.__path__):
        if info.name.startswith("test_") and info.name != "test_coverage":
            module = importlib.import_module(f"{rules.__name__}.{info.name}")
            for name, fn in inspect.getmembers(module, inspect.isfunction):
                if name.startswith("test_"):
                    yield name, fn.__doc__ or ""


TESTS = list(scenario_tests())


def citing(rule: str) -> list[str]:
    as_name = rule.lower().replace("-", "_") + "_"
    cited = re.compile(re.escape(rule) + r"(?![-\w])")   # R-X-TRIO is not R-X-TRIO-UNIT
    return [name for name, doc in TESTS if as_name in name + "_" or cited.search(doc)]


@pytest.mark.parametrize("rule", RULE_IDS)
def test_every_rule_has_a_scenario(rule):
    assert citing(rule), f"no scenario test in tests/rules names {rule}"


def test_the_documents_were_read():
    """The parse finds the ids of both kinds of definition, each once, and the known groups."""
    ids = [rule for rule, _ in DEFINED]
    assert len(ids) == len(set(ids)), "an id is defined twice"
    assert {"R-TAKE-2", "LOG-FORMAT", "R-DERIVED", "R-EV-WATER-RODEO-SWIMMERS", "R-CARDS",
            "R-X-VIEW", "R-SCORE-BONUS"} <= set(RULE_IDS)
    assert {"R-SETUP", "R-TAKE", "R-TURN", "R-SCORE", "R-LAST", "R-EV", "R-X-FLOW"} <= set(GROUP_IDS)
    assert len(RULE_IDS) > 90


def test_the_scenario_modules_were_found():
    assert len(TESTS) > 100
