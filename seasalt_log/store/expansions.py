"""Read-model rows of the expansions (RULES_EXTRA): the events in effect per seat and round,
the Extra Salt parts of a round's scoring, and what each event did to a round's winners.

Every score here is the engine's own (:func:`seasalt_log.engine.core.player_breakdown`,
:func:`~seasalt_log.engine.core.player_points_and_bonus` and
:func:`seasalt_log.scoring.round_points`; a round without an event is scored by the
functions the engine's own call, :func:`seasalt_log.scoring.extra_points_and_bonus`), so
these rows agree with ``round_scored``.
"""

from __future__ import annotations

from .. import events as ev
from ..engine.core import player_breakdown, player_points_and_bonus
from ..engine.state import State
from ..scoring import (SCORING_EVENTS, ExtraBreakdown, extra_counts, extra_points_and_bonus,
                       round_points)


def round_event_rows(game_id: str, s: State) -> list[list]:
    """The ``round_events`` rows (as lists: ``held_after`` is filled later) of the round that
    ``s`` (the state after its ``round_started``) opens."""
    return [[game_id, s.flow.round, p, s.table_event, list(s.held[p]), sorted(s.effects(p)), None]
            for p in range(s.n)]


def extra_rows(game_id: str, s: State, e: ev.RoundScored) -> list[tuple]:
    """The ``round_extra`` rows of round ``e``, from ``s``, the state before ``round_scored``."""
    out = []
    for p in range(s.n):
        b = player_breakdown(s, p)
        assert isinstance(b, ExtraBreakdown)    # written only under the expansions' scoring
        out.append((game_id, e.round, p, b.trios, b.starfish, b.seahorse, b.seahorse_points,
                    b.cast, b.rodeo_pairs, b.face_down, list(b.tables), b.card_points))
    return out


def _top(points) -> list[int]:
    best = max(points)
    return [p for p, x in enumerate(points) if x == best]


def rescored_points(s: State, e: ev.RoundScored, event: str, scores: list | None = None,
                    held_counts: dict[int, tuple] | None = None) -> list[int]:
    """The round's points (as ``round_scored.points``) had ``event`` been in effect for
    nobody: each seat's card points and colour bonus by the engine's scoring without it,
    combined by the round's ending as the engine does (R-STOP, R-LAST-4, R-DECKOUT). Only
    the seats whose score the event can change are scored again (``scores``: each seat's
    (card points, colour bonus) with the event, if the caller has them; ``held_counts``:
    seat -> its holding's :func:`~seasalt_log.scoring.extra_counts`, filled here, so a round
    rescored for several events counts each holding once). ``e`` is the
    round_scored the engine checked: an event that changes no seat's score leaves its
    points as they are."""
    if event not in SCORING_EVENTS:             # it changes the play, no seat's score
        return list(e.points)
    scores = list(scores) if scores is not None else [player_points_and_bonus(s, p)
                                                      for p in range(s.n)]
    hand_starfish = s.ruleset.starfish_in_hand_scores
    for p in range(s.n):
        effects = s.effects(p)
        if event not in effects:
            continue
        # R-X-SCORE (every game with events) as player_points_and_bonus scores it, less event
        counts = held_counts.get(p) if held_counts is not None else None
        if counts is None:
            counts = extra_counts(s.table.hands[p], s.table.laid[p])
            if held_counts is not None:
                held_counts[p] = counts
        scores[p] = extra_points_and_bonus(counts[0], counts[1], counts[2], counts[3],
                                           effects - {event}, hand_starfish)
    points, _ = round_points(e.ending, e.caller, [c for c, _ in scores], [b for _, b in scores])
    return list(points)


def event_outcomes(game_id: str, s: State, e: ev.RoundScored) -> list[tuple]:
    """The ``event_outcomes`` rows of round ``e`` (``s``: the state before ``round_scored``):
    one per event in effect for some seat, in code order."""
    winners = _top(e.points)
    by_event: dict[str, list[int]] = {}
    for p in range(s.n):
        for code in s.effects(p):
            by_event.setdefault(code, []).append(p)
    scores = [player_points_and_bonus(s, p) for p in range(s.n)]
    held_counts: dict[int, tuple] = {}
    out = []
    for code in sorted(by_event):
        other = _top(rescored_points(s, e, code, scores, held_counts))
        out.append((game_id, e.round, code, by_event[code], winners, other, other != winners))
    return out
