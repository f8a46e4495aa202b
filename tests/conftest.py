"""Fixtures shared by several test modules, made once per test run."""

from __future__ import annotations

import os

import pytest

from seasalt_log import events as ev

#: simulated games of the expansions for the property tests: at least this many
#: (``SEASALT_SIM_EXPANSION_GAMES``), split evenly over :data:`EXPANSION_SETTINGS` and 2, 3
#: and 4 players
EXPANSION_GAMES = int(os.environ.get("SEASALT_SIM_EXPANSION_GAMES", "2000"))
#: (ruleset, events): Extra Salt without and with events, the base cards with events
EXPANSION_SETTINGS = (("extra-salt", None), ("extra-salt", "pepper"), (None, "pepper"))


@pytest.fixture(scope="session")
def expansion_games() -> list[list[ev.Event]]:
    """:data:`EXPANSION_GAMES` (rounded up to a multiple of 9) games played by the default
    bots, each setting of :data:`EXPANSION_SETTINGS` with 2, 3 and 4 players."""
    from seasalt_log.sim import simulate
    per = -(-EXPANSION_GAMES // (3 * len(EXPANSION_SETTINGS)))
    out = []
    for k, (ruleset, events) in enumerate(EXPANSION_SETTINGS):
        for players in (2, 3, 4):
            out.extend(simulate(per, players, 500 + 10 * k + players, None, ruleset, events))
    return out
