"""Read-model rows of the expansions (RULES.md §9-§18): the events in effect per seat and round,
and what each event did to a round's winners (the Extra Salt parts of a round's scoring,
``round_extra``, are made with its ``round_results`` rows, from the same breakdowns).

Every score here is the engine's own (:func:`seasalt_log.engine.core.round_breakdowns`,
the breakdowns its check of ``round_scored`` scored, and
:func:`seasalt_log.scoring.round_points`; a round without an event is scored by
:func:`seasalt_log.scoring.holding_points_and_bonus`, which scores as the engine's own
functions do), so these rows agree with ``round_scored``.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from .. import events as ev
from ..cards import KIND
from ..engine.core import round_breakdowns
from ..engine.state import State
from ..scoring import (EVENT_TABLES, MERMAIDS_SCORE_NOTHING, RODEO, SCORING_EVENTS,
                       holding_points_and_bonus,
                       round_points, seat_extra_points_and_bonus)


def seat_effects(s: State) -> list[frozenset[str]]:
    """Each seat's events in effect in ``s``'s round (R-EV-APPLY), by seat."""
    return [s.effects(p) for p in range(s.n)]


def round_event_rows(game_id: str, s: State, effects: list[frozenset[str]] | None = None
                     ) -> list[list]:
    """The ``round_events`` rows (as lists: ``held_after`` is filled later) of the round that
    ``s`` (the state after its ``round_started``) opens; ``effects``: each seat's events in
    effect (``s.effects``), if known."""
    rnd, event = s.flow.round, s.game.table_event
    if effects is None:
        effects = seat_effects(s)
    return [[game_id, rnd, p, event, list(held), sorted(effects[p]), None]
            for p, held in enumerate(s.game.held)]


#: a scoring event that changes only how the cards of one kind score -> the codes of that
#: kind (R-EV-DANCE-OF-THE-SHELLS, R-EV-KRAKEN: a collector table, and the seahorse joining
#: it; R-EV-TORNADO: the mermaids): a holding without them scores the same without the event
_SCORED_CODES: dict[str, frozenset[str]] = {
    code: frozenset(c for c, k in KIND.items() if k == kind)
    for code, kind in [*((code, kind) for code, (kind, _) in EVENT_TABLES.items()),
                       (MERMAIDS_SCORE_NOTHING, "mermaid")]}


def _top(points) -> list[int]:
    """The seats with the most ``points``, ascending."""
    best = max(points)
    if points.count(best) == 1:             # one winner: most rounds
        return [points.index(best)]
    return [p for p, x in enumerate(points) if x == best]


def _rescored(s: State, event: str, seats: list[int], effects: list[frozenset[str]],
              scores: list[tuple[int, int]], counted: list[Any] | None
              ) -> list[tuple[int, int]] | None:
    """Each seat's (card points, colour bonus) had the scoring ``event`` been in effect for
    nobody, or None if that changes no seat's: the ``seats`` it is in effect for scored by
    R-X-SCORE (every game with events) as
    :func:`~seasalt_log.scoring.holding_points_and_bonus` scores them, less ``event``
    (``effects``, ``scores``: every seat's events in effect and score with it; ``counted``:
    as for :func:`event_outcomes`). An event changes the card points only: the colour bonus
    is the largest colour group whatever the events (R-X-SCORE-COLOUR).

    The Water Rodeo changes a holding's hand pairs only (R-EV-WATER-RODEO; the starfish
    read them): a seat whose breakdown has no pair only the rodeo makes (``rodeo_pairs``,
    :func:`~seasalt_log.engine.core.round_breakdowns`) scores the same without it, and is
    not rescored; nor is a seat that holds no card of the kind the other scoring events
    score (:data:`_SCORED_CODES`)."""
    hand_starfish = s.game.ruleset.starfish_in_hand_scores
    hands, laid = s.table.hands, s.table.laid
    parts = round_breakdowns(s) if event == RODEO else None
    scored = _SCORED_CODES.get(event)
    out = None
    for p in seats:
        if parts is not None and not parts[p].rodeo_pairs:   # type: ignore[union-attr]
            continue
        if scored is not None and scored.isdisjoint(chain(hands[p], *laid[p])):
            continue
        without = effects[p] - {event}
        if counted is None:
            points = holding_points_and_bonus(hands[p], laid[p], without, hand_starfish)[0]
        else:
            points = seat_extra_points_and_bonus(counted, p, hands[p], laid[p], without,
                                                 hand_starfish)[0]
        if points != scores[p][0]:
            if out is None:
                out = scores[:]
            out[p] = (points, scores[p][1])
    return out


def event_outcomes(game_id: str, s: State, e: ev.RoundScored,
                   scores: list[tuple[int, int]] | None = None,
                   counted: list[Any] | None = None,
                   effects: list[frozenset[str]] | None = None) -> list[tuple]:
    """The ``event_outcomes`` rows of round ``e`` (``s``: the state before ``round_scored``):
    one per event in effect for some seat, in code order. ``scores``: each seat's (card
    points, colour bonus) in ``s``, if known (else scored here). ``counted``: the records of
    the seats' holdings that the closed turns' scoring keeps
    (:func:`~seasalt_log.scoring.seat_extra_points_and_bonus`), if any: a holding already
    counted there is rescored from its counts, not counted again (its record is left
    scored without the event, still a record of that holding). ``effects``: each seat's
    events in effect this round (``s.effects``), if known.

    The round's points had an event been in effect for nobody are ``e.points`` (the engine
    checked them against its scoring of ``s``) unless the event changes some seat's card
    points; an event outside :data:`~seasalt_log.scoring.SCORING_EVENTS` changes the play,
    never a score, and after a deck-out every seat scores 0 whatever its card points
    (R-DECKOUT). Otherwise the seats' scores without it are combined by the round's ending
    as the engine does (R-STOP, R-LAST-4)."""
    winners = _top(e.points)
    if effects is None:
        effects = seat_effects(s)
    by_event: dict[str, list[int]] = {}
    for p, codes in enumerate(effects):
        for code in codes:
            seats = by_event.get(code)
            if seats is None:
                by_event[code] = [p]
            else:
                seats.append(p)
    rescore = e.ending != "deck_out"
    rnd = e.round
    out = []
    for code in sorted(by_event):
        seats, other = by_event[code], winners
        if rescore and code in SCORING_EVENTS:
            if scores is None:
                scores = [(b.card_points, b.color_bonus) for b in round_breakdowns(s)]
            rescored = _rescored(s, code, seats, effects, scores, counted)
            if rescored is not None:
                points, _ = round_points(e.ending, e.caller, [c for c, _ in rescored],
                                         [b for _, b in rescored])
                other = _top(points)
        out.append((game_id, rnd, code, seats, winners, other, other != winners))
    return out
