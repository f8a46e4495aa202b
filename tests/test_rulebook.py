"""The project's own rulebook: every rule id the code, the tests and the fixtures name is
documented in docs/RULES.md and printable by ``seasalt rules``; every id the documents
mention resolves; the documents ship in the wheel; the command's error path."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import rulebook

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: a rule id, written here rather than imported from the module under test; not the stem
#: of a pattern such as ``R-X-…``, ``R-DUO-*``, ``R-X-SCORE-*`` or ``R-EV-<NAME>`` (nor a
#: shorter part of one: an id is never followed by another ``-`` part)
ID = re.compile(r"\b(?:(?:R|LOG)-[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*|CONFLICT)\b(?!-[A-Z0-9…*<])")

#: The ids of the Extra Salt and Extra Pepper rules (R-X-..., R-EV-...), transcribed from
#: the expansions' rule texts, so they are covered before the engine raises any of them.
EXPANSION_IDS = [
    "R-X-RULESET", "R-X-RULESET-1", "R-X-RULESET-2", "R-X-RULESET-3", "R-X-RULESET-4",
    "R-X-CARDS", "R-X-CARDS-1", "R-X-CARDS-2", "R-X-CARDS-3", "R-X-CARDS-4", "R-X-SETUP",
    "R-X-DUO", "R-X-PAIRS", "R-X-LOBSTER", "R-X-LOBSTER-NOTCRAB",
    "R-X-JELLYFISH", "R-X-JELLYFISH-TURN", "R-X-JELLYFISH-SELF", "R-X-JELLYFISH-LAST",
    "R-X-JELLYFISH-MANY", "R-X-TRIO", "R-X-TRIO-UNIT", "R-X-NOEFFECT",
    "R-X-SCORE", "R-X-SCORE-DUO", "R-X-SCORE-STARFISH", "R-X-SCORE-SEAHORSE", "R-X-SCORE-CAST",
    "R-X-SCORE-COLOUR", "R-X-SCORE-MERMAIDS", "R-X-DRAW",
    "R-X-FLOW", "R-X-FLOW-FORCED", "R-X-FLOW-EFFECTS", "R-X-VIEW",
    "R-EV", "R-EV-CARDS", "R-EV-DECK", "R-EV-ROUND", "R-EV-RESHUFFLE", "R-EV-APPLY", "R-EV-PLACE",
    "R-EV-AWARD", "R-EV-HOLD", "R-EV-HERMIT-CRAB", "R-EV-SUNFISH", "R-EV-WATER-RODEO",
    "R-EV-WATER-RODEO-SWIMMERS", "R-EV-WATER-RODEO-SHARKS", "R-EV-DANCE-OF-THE-SHELLS",
    "R-EV-KRAKEN", "R-EV-TORNADO", "R-EV-DANCE-OF-THE-MERMAIDS", "R-EV-TREASURE-CHEST",
    "R-EV-DIODON-FISH", "R-EV-ANGELFISH", "R-EV-DOLPHINS", "R-EV-CORAL-REEF", "R-EV-PROTECT",
    "R-EV-FLOW", "R-EV-VARIANTS",
]

runner = CliRunner()


def run(*args):
    return runner.invoke(app, ["rules", *args])


def ids_in_project() -> set[str]:
    """Every rule id written in the library, the CLI, the tests and the fixtures."""
    found = set()
    for top in ("seasalt_log", "cli", "tests", "fixtures"):
        for path in (ROOT / top).rglob("*"):
            if path.suffix in (".py", ".json", ".jsonl", ".txt", ".md") and path != Path(__file__):
                found |= set(ID.findall(path.read_text(encoding="utf-8", errors="replace")))
    return found


PROJECT_IDS = sorted(ids_in_project())


def test_the_scan_finds_the_ids_errors_print():
    # the engine, the format errors and the derived-event checks, at least
    assert {"R-TAKE-2", "R-FLOW-PLAYER", "R-DUO-NOEFFECT", "LOG-FORMAT", "R-DERIVED",
            "CONFLICT"} <= set(PROJECT_IDS)
    assert len(PROJECT_IDS) > 40


@pytest.mark.parametrize("rule_id", sorted(set(PROJECT_IDS) | set(EXPANSION_IDS)))
def test_every_id_named_anywhere_is_documented_and_printable(rule_id):
    assert [r.id for r in rulebook.lookup(rule_id)] == [rule_id]
    result = run(rule_id)
    assert result.exit_code == 0, result.output
    first, _, body = result.output.partition("\n\n")
    assert first.startswith(f"{rule_id} (RULES.md")
    # the rule's own anchor: a bold item or a section title ending in (ID)
    assert body.startswith(f"- **{rule_id}") or body.splitlines()[0].endswith(f"({rule_id})")


def test_the_checked_list_covers_both_expansions_in_the_documents():
    documented = {r.id for r in rulebook.rules()}
    assert {i for i in documented if i.startswith(("R-X-", "R-EV-"))} | {"R-EV"} == set(EXPANSION_IDS)


def test_every_anchor_is_unique():
    anchors = rulebook.ids()
    assert len(anchors) == len(set(anchors))
    assert len(anchors) > 100


@pytest.mark.parametrize("name", rulebook.DOCUMENTS)
def test_every_id_the_documents_mention_resolves(name):
    defined = set(rulebook.ids())
    mentioned = set(ID.findall((DOCS / name).read_text(encoding="utf-8")))
    assert mentioned - defined == set()


def test_each_anchor_prints_its_own_text():
    for r in rulebook.rules():
        (only,) = rulebook.lookup(r.id)
        assert only.text == r.text
        assert f"**{r.id}" in r.text.splitlines()[0] or r.text.splitlines()[0].endswith(f"({r.id})")
        assert r.title and "**" not in r.title and "`" not in r.title


def test_one_rule_and_nothing_after_it():
    out = run("R-TAKE-2").output
    assert "Take the top card of one of the two discard piles" in out
    assert "R-TAKE-3" not in out and "R-TAKE-1." not in out
    assert "3. A turn > Step 1: take a card" in out.splitlines()[0]


def test_a_rule_keeps_what_is_indented_under_it():
    out = run("R-EV-WATER-RODEO").output
    # its two sub-rules are part of its text, once each, and the next event is not
    assert out.count("**R-EV-WATER-RODEO-SWIMMERS.**") == 1
    assert out.count("**R-EV-WATER-RODEO-SHARKS.**") == 1
    assert "R-EV-DANCE-OF-THE-SHELLS" not in out


def test_a_section_id_prints_the_whole_section():
    out = run("R-LAST").output
    for n in (1, 2, 3, 4):
        assert f"**R-LAST-{n}.**" in out
    assert "R-DECKOUT." not in out and "R-STOP." not in out


def test_prefix_and_case():
    out = run("r-take-").output
    starts = [line.split()[0] for line in out.splitlines() if line.startswith("R-TAKE-")]
    assert starts == ["R-TAKE-1", "R-TAKE-2", "R-TAKE-3", "R-TAKE-4"]
    assert run("r-take-2").output == run("R-TAKE-2").output


def test_prefix_does_not_repeat_nested_rules():
    out = run("R-EV-WATER-R").output
    assert out.count("**R-EV-WATER-RODEO-SHARKS.**") == 1
    assert out.splitlines()[0].startswith("R-EV-WATER-RODEO (")


@pytest.mark.parametrize("bad, says", [("R-TAKE-9", "no rule "), ("R-TAKEE-2", "no rule "),
                                       ("", "no rule "), ("take", "'take' is not a rule id"),
                                       ("SQL", "'SQL' is not a rule id"),
                                       ("query", "'query' is not a rule id")])
def test_unknown_id_is_one_line_and_exit_1(bad, says):
    result = run(bad)
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {says}")
    assert "Traceback" not in result.output


def test_unknown_id_suggests_the_near_one():
    assert "did you mean R-TAKE-2" in run("R-TAKEE-2").stderr


def test_the_list_has_every_id_once_with_a_title():
    lines = run().stdout.splitlines()
    assert [line.split()[0] for line in lines] == rulebook.ids()
    assert all(len(line.split(None, 1)) == 2 for line in lines)
    assert any(line.split(None, 1) == ["R-TAKE-2", "Take the top card of one of the two discard piles"]
               for line in lines)


def test_where_names_the_documents_it_reads():
    paths = run("--where").stdout.splitlines()
    assert [Path(p).name for p in paths] == list(rulebook.DOCUMENTS)
    assert all(Path(p).is_file() for p in paths)


def test_where_with_an_id_is_refused():
    r = run("R-TAKE-2", "--where")
    assert r.exit_code == 2 and r.stdout == "", r.output
    assert "--where prints where the documents are: give R-TAKE-2 or --where, not both" in r.stderr


def test_the_wheel_carries_the_documents_where_the_rulebook_looks():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    included = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert included["docs"] == "seasalt_log/docs"
    # in this checkout there is no packaged copy: the rulebook reads docs/ itself
    assert not (ROOT / "seasalt_log" / "docs").exists()
    assert rulebook.document_path("RULES.md") == DOCS / "RULES.md"


def test_parse_small_book():
    text = "\n".join([
        "# Book",
        "## 1. Alpha (R-A)",
        "Intro.",
        "- **R-A-1.** **Ruling.** First rule. More words.",
        "  continued here",
        "  - **R-A-1-SUB.** Nested: kept inside R-A-1.",
        "- **R-A-2.** (Extends R-A-1.) Second rule",
        "  on two lines.",
        "",
        "A paragraph after the list.",
        "### 1.1 Deeper (R-A-DEEP)",
        "Deep text.",
        "## 2. Beta (R-B)",
        "Beta text.",
    ])
    book = {r.id: r for r in rulebook.parse(text)}
    assert list(book) == ["R-A", "R-A-1", "R-A-1-SUB", "R-A-2", "R-A-DEEP", "R-B"]
    assert book["R-A"].text.splitlines()[-1] == "Deep text."       # up to the next ## title
    assert book["R-A-1"].text.splitlines()[-1] == "  - **R-A-1-SUB.** Nested: kept inside R-A-1."
    assert book["R-A-2"].text.splitlines()[-1] == "  on two lines."  # not the paragraph after
    assert book["R-A-1"].title == "First rule"
    assert book["R-A-2"].title == "Second rule on two lines"
    assert book["R-A"].title == "1. Alpha"
    assert book["R-A-DEEP"].section == "1. Alpha"
    assert book["R-A-1-SUB"].section == "1. Alpha"
    assert book["R-B"].text == "## 2. Beta (R-B)\nBeta text."
    assert [r.id for r in rulebook.lookup("r-a-", tuple(book.values()))] == ["R-A-1", "R-A-2", "R-A-DEEP"]


def test_an_installed_copy_is_read_first(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "RULES.md").write_text("## 1. Only (R-ONLY)\n", encoding="utf-8")
    monkeypatch.setattr(rulebook.resources, "files", lambda package: tmp_path)
    assert rulebook.document_path("RULES.md") == tmp_path / "docs" / "RULES.md"
    assert [r.id for r in rulebook.parse(rulebook.document("RULES.md"))] == ["R-ONLY"]


def test_missing_documents_are_one_line_and_exit_1(tmp_path, monkeypatch):
    monkeypatch.setattr(rulebook.resources, "files", lambda package: tmp_path)
    monkeypatch.setattr(rulebook, "__file__", str(tmp_path / "pkg" / "rulebook.py"))
    rulebook.rules.cache_clear()
    try:
        result = run("R-TAKE-2")
    finally:
        rulebook.rules.cache_clear()
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "RULES.md is missing from this installation" in lines[0]
