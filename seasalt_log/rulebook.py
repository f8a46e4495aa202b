"""The project's own documents, RULES.md and LOG_FORMAT.md, and rule look-up by id.

Every rule id an error can print (``R-TAKE-2``, ``R-X-LOBSTER``, ``R-EV-KRAKEN``,
``LOG-FORMAT``, ...) is an anchor of RULES.md: either in brackets at the end of a section
title (``## 4. Card points (R-SCORE)``), which makes the whole section the rule's text, or
in bold at the start of a list item (``- **R-TAKE-2.** ...``), which makes that item, with
everything indented under it, the rule's text.

The documents ship inside the package (``seasalt_log/docs/``, put there when the wheel is
built); in a source checkout they are read from the ``docs/`` folder beside the package.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .errors import SeasaltError, nearest

RULES = "RULES.md"
LOG_FORMAT = "LOG_FORMAT.md"
DOCUMENTS = (RULES, LOG_FORMAT)

#: a rule id: R-TAKE-2, R-X-LOBSTER, R-EV-WATER-RODEO-SHARKS, LOG-FORMAT, R-DERIVED, and
#: CONFLICT (a game met again with another history)
ID = r"(?:(?:R|LOG)-[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*|CONFLICT)"
ID_RE = re.compile(rf"\b{ID}\b")
_HEADING_RE = re.compile(rf"^(#{{2,6}}) (.*?)\s*\(({ID})\)\s*$")
_ITEM_RE = re.compile(rf"^( *)- \*\*({ID})\.?\*\*\.?\s*(.*)$")
_ANY_HEADING_RE = re.compile(r"^(#{1,6}) ")
_LEAD_RE = re.compile(r"^(?:Ruling(?: \([^)]*\))?\.|\((?:Extends|Replaces|First place|Last place)[^)]*\)\.?)\s*")
_TITLE_WIDTH = 72


class UnknownRuleError(SeasaltError, LookupError):
    """A rule id that RULES.md does not define."""


class MissingDocumentError(SeasaltError):
    """The documents were neither installed with the package nor found beside it."""


@dataclass(frozen=True)
class Rule:
    """One rule of RULES.md: its id, a one-line title, where it stands, and its text."""

    id: str
    title: str
    section: str      #: the section titles it stands under, e.g. "3. A turn > Step 1: take a card"
    text: str         #: the rule's Markdown, as in RULES.md
    start: int        #: first line (0-based) of the text in RULES.md
    end: int          #: one past its last line


def document_path(name: str) -> Path:
    """Where the document ``name`` (RULES.md or LOG_FORMAT.md) is read from."""
    if name not in DOCUMENTS:
        raise ValueError(f"no document {name!r}; the documents are {', '.join(DOCUMENTS)}")
    packaged = resources.files("seasalt_log") / "docs" / name
    if packaged.is_file():
        return Path(str(packaged))
    source = Path(__file__).resolve().parent.parent / "docs" / name
    if source.is_file():
        return source
    raise MissingDocumentError(f"{name} is missing from this installation (looked in "
                               f"{Path(str(packaged)).parent} and {source.parent})")


def document(name: str) -> str:
    """The text of RULES.md or LOG_FORMAT.md."""
    return document_path(name).read_text(encoding="utf-8")


def parse(text: str) -> list[Rule]:
    """Every rule anchored in ``text`` (RULES.md), in document order."""
    lines = text.splitlines()
    rules: list[Rule] = []
    titles: list[tuple[int, str]] = []   # the enclosing headings: (level, title)
    for i, line in enumerate(lines):
        heading = _ANY_HEADING_RE.match(line)
        if heading:
            level = len(heading.group(1))
            titles = [t for t in titles if t[0] < level]
            own = _HEADING_RE.match(line)
            name = own.group(2) if own else line[level + 1:].strip()
            if own:
                end = _heading_end(lines, i, level)
                rules.append(Rule(own.group(3), name, _trail(titles), _block(lines, i, end), i, end))
            titles.append((level, name))
            continue
        item = _ITEM_RE.match(line)
        if item:
            indent = len(item.group(1))
            end = _item_end(lines, i, indent)
            rules.append(Rule(item.group(2), _title(lines, i, end, indent, item.group(3)),
                              _trail(titles), _block(lines, i, end, indent), i, end))
    return rules


def _trail(titles: list[tuple[int, str]]) -> str:
    return " > ".join(t for level, t in titles if level >= 2)


def _heading_end(lines: list[str], start: int, level: int) -> int:
    for j in range(start + 1, len(lines)):
        m = _ANY_HEADING_RE.match(lines[j])
        if m and len(m.group(1)) <= level:
            return j
    return len(lines)


def _item_end(lines: list[str], start: int, indent: int) -> int:
    for j in range(start + 1, len(lines)):
        line = lines[j]
        if line.strip() and (len(line) - len(line.lstrip(" ")) <= indent or _ANY_HEADING_RE.match(line)):
            return j
    return len(lines)


def _block(lines: list[str], start: int, end: int, indent: int = 0) -> str:
    """Lines start..end, without trailing blank lines and the first line's indent."""
    block = [line[indent:] for line in lines[start:end]]
    while block and not block[-1].strip():
        block.pop()
    return "\n".join(block)


def _title(lines: list[str], start: int, end: int, indent: int, first: str) -> str:
    """The first sentence of a list item, without Markdown and leading markers, cut short."""
    words = [first]
    for line in lines[start + 1:end]:
        stripped = line.strip()
        if not stripped or stripped.startswith(("- ", "|", "```")) or re.match(r"\d+\. ", stripped):
            break
        words.append(stripped)
    text = re.sub(r"[*`]", "", " ".join(words)).strip()
    while (lead := _LEAD_RE.match(text)) and lead.end() < len(text):
        text = text[lead.end():]
    sentence = re.split(r"(?<=[A-Za-z0-9)])\. ", text, maxsplit=1)[0].rstrip(".:")
    if len(sentence) > _TITLE_WIDTH:
        sentence = sentence[:_TITLE_WIDTH - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return sentence


@lru_cache(maxsize=1)
def rules() -> tuple[Rule, ...]:
    """Every rule of the installed RULES.md, in document order."""
    return tuple(parse(document(RULES)))


def ids() -> list[str]:
    """Every rule id of RULES.md, in document order."""
    return [r.id for r in rules()]


def lookup(query: str, book: tuple[Rule, ...] | None = None) -> list[Rule]:
    """The rules ``query`` names: the one with that id, else every rule whose id starts with
    it (case does not matter), leaving out those already inside another match's text.
    Raises :class:`UnknownRuleError` when none does."""
    book = rules() if book is None else book
    want = query.strip().upper()
    exact = [r for r in book if r.id == want]
    if exact:
        return exact
    found: list[Rule] = []
    for r in book:
        if want and r.id.startswith(want) and not any(f.start <= r.start < f.end for f in found):
            found.append(r)
    if not found and not _id_shaped(want):
        raise UnknownRuleError(f"{query.strip()!r} is not a rule id (ids look like R-TAKE-2, "
                               "LOG-FORMAT or CONFLICT; seasalt rules lists every id)")
    if not found:
        hint = nearest(want, (r.id for r in book), cutoff=0.6)
        raise UnknownRuleError(f"no rule {query.strip()!r} in RULES.md{hint} "
                               "(seasalt rules lists every id)")
    return found


def _id_shaped(text: str) -> bool:
    """``text`` (upper case) is a rule id or the start of one as :data:`ID` writes them;
    ``SQL`` or ``QUERY`` is not."""
    return any(text.startswith(start) or start.startswith(text)
               for start in ("R-", "LOG-", "CONFLICT"))
