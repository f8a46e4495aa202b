"""The engine against its own earlier self: for every event of 24 random games (every
setting, 2-4 players, with and without the deck order) and for corrupted variants of each
(the next event instead, the previous one again, a changed seat, pile or card, other legal
moves), the same state or the same error (class, rule id, message) as the engine gave
before its speed work. ``tests/engine_outcomes.py`` says how the reference was made."""

from __future__ import annotations

import json

from .engine_outcomes import REFERENCE, digests


def test_the_engine_gives_the_reference_outcomes():
    want = json.loads(REFERENCE.read_text())
    got = digests(len(want) // 2)
    differ = [name for name in want if got.get(name) != want[name]]
    assert not differ, (f"{len(differ)} games differ from the reference, first {differ[0]}: "
                        "compare `python -m tests.engine_outcomes` under both engines")
