"""The deterministic rules engine (RULES.md): pure functions over an immutable :class:`State`.

- :func:`apply` checks an event against every rule and returns the next state;
- :func:`check` only checks; :func:`fold` applies a whole stream;
- :func:`legal_moves` lists what the player to act may send, one event per chance outcome;
- :func:`legal_decisions` lists what the player decides, chance apart
  (:func:`chance_outcomes`, :func:`next_decisions`, :func:`decision_event`);
- :func:`next_derived` computes the derived event (``round_scored`` / ``game_ended``) due.
"""

from .core import (apply, boats_give_take, check, fold, next_derived, shark_targets,
                   with_derived)
from .decisions import (Decision, chance_outcomes, decision_event, legal_decisions,
                        next_decisions)
from .moves import legal_moves
from .rulings import BASE, RULESETS, Ruleset
from .state import BETWEEN, ENDED, NEW, ROUND, Flow, Game, State, Table

__all__ = ["apply", "check", "fold", "next_derived", "with_derived", "legal_moves",
           "legal_decisions", "chance_outcomes", "next_decisions", "decision_event", "Decision",
           "shark_targets", "boats_give_take", "State", "Game", "Table", "Flow", "Ruleset", "BASE",
           "RULESETS", "NEW", "BETWEEN", "ROUND", "ENDED"]
