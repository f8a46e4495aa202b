"""The decisions bots choose among: :mod:`seasalt_log.engine.decisions`, re-exported under
the name the bots use (``dc.DRAW``, ``dc.Decision``...). A bot gets the decisions of its
player only; the simulator resolves chance (:func:`~seasalt_log.engine.chance_outcomes`)
and turns the decision into the log's event (:func:`~seasalt_log.engine.decision_event`).
"""

from ..engine.decisions import (  # noqa: F401
    ANGELFISH, BOAT, CRAB, CRAB_TAKE, DRAW, END, FISH, FORCED, JELLYFISH, KEEP, KEEP_EVENT,
    LAST_CHANCE, LOBSTER, LOBSTER_KEEP, PAIRS, SECOND_PHASE, SHARK, SHARKS, SHELL, STARFISH,
    STOP, SWAP, SWIMMERS, TAKE, Decision)
