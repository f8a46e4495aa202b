"""Seeded simulator and bots: the only part of the project that owns an RNG.

- :func:`simulate` yields complete games of events, each played through the engine;
- :mod:`.bots` holds the strategies (``random``, ``greedy``, ``planner``, ``patient``);
- :mod:`.decisions` names the decisions bots choose among (the engine's, chance apart);
- :mod:`.tournament` plays them against each other with seats rotated;
- :mod:`.stats` counts the situations (rules, edge cases) a batch of games went through.
"""

from .bots import BOTS, Bot, make_bots
from .decisions import Decision
from .runner import DEFAULT_BOTS, SimulationError, lineup, play_game, simulate

__all__ = ["simulate", "play_game", "lineup", "Bot", "BOTS", "make_bots", "Decision",
           "DEFAULT_BOTS", "SimulationError"]
