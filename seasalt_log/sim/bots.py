"""Bot strategies. Every bot has one method::

    choose(view: TableView, options: list[Decision], rng: random.Random) -> Decision

``view`` is :func:`seasalt_log.view.table_view` of the bot's own seat (R-VIEW: its own hand,
every laid pair, the pile tops and sizes, hand sizes, revealed hands, totals); ``options``
are the :class:`~seasalt_log.sim.decisions.Decision` values open to it, chance left out
(a second-phase list, ``keep`` or ``crab_take``, shows the cards the player has just seen).
Bots are stateless and get no :class:`~seasalt_log.engine.State`: they cannot see the deck
order or another player's hidden hand. ``rng`` is the bot's own seeded generator.
"""

from __future__ import annotations

import math
import random
from typing import Sequence

from ..view import TableView
from . import decisions as dc
from .decisions import Decision
from .evaluate import (BOAT, CAPTAIN, COLONY, CRAB, FISH, KI, LIGHTHOUSE, MERMAID, OCTOPUS,
                       PENGUIN, SAILOR, SHARK, SHELL, SHOAL, SWIMMER, Holding)


class Bot:
    """The bot interface: a name and :meth:`choose`."""

    name = "bot"

    def choose(self, view: TableView, options: Sequence[Decision], rng: random.Random) -> Decision:
        """Pick one of ``options`` (never empty) from what ``view`` shows."""
        raise NotImplementedError


def holding_of(view: TableView) -> Holding:
    """The viewer's own cards as a :class:`Holding`."""
    me = view.seats[view.viewer]
    return Holding(me.hand, me.laid)


def _first_kind(options: Sequence[Decision], kind: str) -> Decision | None:
    for d in options:
        if d.kind == kind:
            return d
    return None


_DUOS = (dc.CRAB, dc.BOAT, dc.FISH, dc.SHARK)


class RandomBot(Bot):
    """Uniform over the decisions open to it (so also over second-phase choices)."""

    name = "random"

    def choose(self, view, options, rng):
        return options[rng.randrange(len(options))]


class GreedyBot(Bot):
    """Maximises its own card points now: takes a pile top that adds points (else draws),
    keeps the better drawn card, plays every pair, and calls STOP as soon as it may."""

    name = "greedy"

    def choose(self, view, options, rng):
        kind = options[0].kind
        if kind in (dc.DRAW, dc.TAKE):
            h = holding_of(view)
            base = h.points()
            best, gain = None, 0
            for d in options:
                if d.kind == dc.TAKE:
                    g = h.points_with(d.card) - base
                    if g > gain:
                        best, gain = d, g
            return best or _first_kind(options, dc.DRAW) or options[0]
        if kind in dc.SECOND_PHASE:                                 # keep / crab_take
            h = holding_of(view)
            return max(options, key=lambda d: h.points_with(d.card))
        for d in options:
            if d.kind in _DUOS:
                if d.kind == dc.CRAB:
                    return _biggest_pile_crab(view, options, d)
                if d.kind == dc.SHARK:
                    return _richest_victim(view, options, d)
                return d
        return _first_kind(options, dc.STOP) or _first_kind(options, dc.END) or options[0]


def _biggest_pile_crab(view: TableView, options, first: Decision) -> Decision:
    """Among crab decisions with ``first``'s cards, the one on the bigger pile."""
    best = first
    for d in options:
        if d.kind == dc.CRAB and d.cards == first.cards and d.pile is not None:
            if best.pile is None or view.piles[d.pile].size > view.piles[best.pile].size:
                best = d
    return best


def _richest_victim(view: TableView, options, first: Decision) -> Decision:
    """Among shark decisions with ``first``'s cards, the victim with the biggest hand
    (then the highest total)."""
    best, key = first, None
    for d in options:
        if d.kind == dc.SHARK and d.cards == first.cards and d.victim is not None:
            seat = view.seats[d.victim]
            k = (seat.hand_size, seat.total)
            if key is None or k > key:
                best, key = d, k
    return best


BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
}


def make_bots(names: Sequence[str]) -> list[Bot]:
    """One bot per name (see :data:`BOTS`); raises KeyError for an unknown name."""
    return [BOTS[n]() for n in names]
