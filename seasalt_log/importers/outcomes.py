"""What an import does with each game (:class:`GameOutcome`: new, extended, unchanged or
failed), the :class:`ImportSummary` of them all, and how a game of a log is compared with
the stream stored (or met earlier in the same log) under its id.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

from msgspec import Struct

from .. import events as ev
from ..errors import SeasaltError, Where


class GameOutcome(Struct):
    """What an import did with one game."""

    game_id: str | None
    status: str                 # "new" | "extended" | "unchanged" | "failed"
    events: int = 0             # events appended (new/extended) or in the log
    source: str = "-"
    line: int = 0
    error: str | None = None
    rule: str | None = None


class ImportSummary(Struct):
    """The closing summary of an import or a validate."""

    new: int = 0
    extended: int = 0
    unchanged: int = 0
    failed: int = 0
    events_stored: int = 0
    written: bool = True
    games: list[GameOutcome] = []

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def tally(self) -> "ImportSummary":
        """Count the outcomes (kept in input order in ``games``)."""
        for status in ("new", "extended", "unchanged", "failed"):
            setattr(self, status, sum(g.status == status for g in self.games))
        self.events_stored = sum(g.events for g in self.games if g.status != "failed")
        return self


def failed_outcome(exc: SeasaltError, source: str, line: int) -> GameOutcome:
    """The outcome of a game that failed with ``exc``."""
    return GameOutcome(game_id=getattr(exc, "game_id", None), status="failed", source=source,
                       line=getattr(exc, "line", None) or line, error=str(exc),
                       rule=getattr(exc, "rule", None))


def conflict(outcome: GameOutcome, reason: str) -> None:
    """Make ``outcome`` a conflict, its message located like every import error's
    (``file:line: game id: CONFLICT: reason``, the line where the game starts)."""
    at = Where()
    at.locate(file=outcome.source, line=outcome.line or None, game_id=outcome.game_id)
    outcome.status, outcome.rule = "failed", "CONFLICT"
    outcome.error = f"{at.where()}: CONFLICT: {reason}"


def compare(events: list[bytes], stored_json: list[bytes]) -> tuple[str, str | None]:
    """("new"/"extended"/"unchanged"/"failed", reason) of a game against its stored stream
    (the reason is located by :func:`conflict`)."""
    for i, (old, new) in enumerate(zip(stored_json, events)):
        if old != new:
            a, b = _around_difference(old.decode(), new.decode())
            return "failed", ("a different history is stored under this id; "
                              f"event seq {i + 1} differs (stored {a}, log {b})")
    return ("extended", None) if len(events) > len(stored_json) else ("unchanged", None)


def _around_difference(a: str, b: str, limit: int = 600) -> tuple[str, str]:
    """Two JSON texts for a message: whole when short, else cut around where they differ
    (a message quotes the input, it does not echo all of it)."""
    if len(a) <= limit and len(b) <= limit:
        return _printable(a), _printable(b)
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, k - 80)

    def cut(t: str) -> str:
        part = _printable(t[start:start + 240])
        return ("..." if start else "") + part + ("..." if start + 240 < len(t) else "")
    return cut(a), cut(b)


def _printable(text: str) -> str:
    """JSON text with every unprintable character (line separators included) written as
    its ``\\uXXXX`` escape, so that a message quoting it stays on one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape(c) for c in text)


def _escape(c: str) -> str:
    o = ord(c)
    if o < 0x10000:
        return f"\\u{o:04x}"
    o -= 0x10000
    return f"\\u{0xD800 + (o >> 10):04x}\\u{0xDC00 + (o & 0x3FF):04x}"


def fingerprints(events: Sequence[ev.Event]) -> bytes:
    """8 bytes per event: a sha256 chain over the encoded events (prefix ``k`` of a game is
    identified by bytes ``8k-8 .. 8k``)."""
    h = hashlib.sha256()
    out = bytearray()
    for e in events:
        h.update(ev.encode(e))
        h.update(b"\n")
        out += h.copy().digest()[:8]
    return bytes(out)


def compare_digest(mine: bytes, n: int, prints: bytes) -> tuple[str, str | None]:
    """:func:`compare` of a game (its :func:`fingerprints`) against one met earlier in the
    same validation, known by its length and fingerprints (validating keeps no events)."""
    k = min(n, len(mine) // 8)
    if k and mine[8 * k - 8:8 * k] != prints[8 * k - 8:8 * k]:
        return "failed", ("a different history is given earlier in this log under this id; "
                          f"event seq {_first_difference(mine, prints, k)} differs")
    return ("extended", None) if len(mine) // 8 > n else ("unchanged", None)


def _first_difference(mine: bytes, prints: bytes, k: int) -> int:
    """The first seq (1-based) at which two chains of :func:`fingerprints`, known to differ
    at seq ``k``, differ: once two prefixes differ, every longer one does."""
    lo, hi = 1, k               # the answer lies in lo..hi
    while lo < hi:
        mid = (lo + hi) // 2
        if mine[8 * mid - 8:8 * mid] != prints[8 * mid - 8:8 * mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo
