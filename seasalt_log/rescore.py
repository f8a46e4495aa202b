"""Rescore a round: its scoring recomputed by today's engine, next to what the log stored,
with the what-if of the other call (``seasalt rescore``).

:func:`rescore` gives a :class:`RoundReport` (a :class:`PlayerRound` per seat, the
:class:`WhatIf`); :func:`seasalt_log.render.render_report` writes it as text.
"""

from __future__ import annotations

from typing import Sequence

from msgspec import Struct

from . import events as ev
from .errors import UsageError
from .engine.core import player_breakdown
from .narration import per_seat
from .replay import round_steps_of, stream_steps
from .scoring import Breakdown, as_breakdown, effect_notes, last_chance_outcome, round_points

__all__ = ["PlayerRound", "WhatIf", "RoundReport", "rescore"]


class PlayerRound(Struct, frozen=True, omit_defaults=True):
    """One player's result in a :class:`RoundReport`."""

    seat: int
    name: str
    hand: tuple[str, ...]                 # at the end of the round
    laid: tuple[tuple[str, ...], ...]     # pairs, and trios (R-X-TRIO)
    breakdown: Breakdown                  # today's scoring of hand + laid (R-SCORE)
    points: int | None                    # recomputed; None when the round was not scored
    stored_points: int | None             # from the stored round_scored
    total: int | None                     # total before the round + recomputed points
    stored_total: int | None
    what_if_points: int | None            # had the caller made the other call
    #: the events in effect for the player this round (R-EV-APPLY); empty without events
    effects: tuple[str, ...] = ()
    #: what each of them changed in the breakdown (scoring.effect_notes)
    effect_notes: tuple[str, ...] = ()


class WhatIf(Struct, frozen=True):
    """The points had the caller made the other call at the same moment.

    The cards are those held when the call was made: for STOP they are the cards scored;
    for a LAST CHANCE round, STOP would have ended the round before the final turns. For
    STOP turned into LAST CHANCE, the final turns that would have followed are unknown, so
    nobody's cards change.
    """

    call: str                             # the other call: "stop" or "last_chance"
    caller_won: bool | None
    result: str                           # "won"/"tied"/"lost" for last_chance; "stop"
    card_points: tuple[int, ...]          # at the moment of the call
    color_bonus: tuple[int, ...]
    points: tuple[int, ...]


class RoundReport(Struct, frozen=True):
    """A round rescored by today's engine, next to what the log stored (``seasalt rescore``)."""

    game_id: str
    round: int
    ending: str                           # "stop", "last_chance", "deck_out" or "mermaids"
    caller: int | None                    # who called (None for a deck-out or a mermaid win)
    caller_name: str | None
    #: how the round ended: for LAST CHANCE the caller's "won"/"tied"/"lost", else the
    #: ending ("stop", "deck_out", "mermaids"); not the SQL ``outcome``, LAST CHANCE's only
    result: str
    caller_won: bool | None
    ended_by: int                         # the seat whose turn ended the round
    turns: int
    players: tuple[PlayerRound, ...]
    points: tuple[int, ...] | None        # recomputed
    stored_points: tuple[int, ...] | None
    totals: tuple[int, ...] | None        # recomputed, after the round
    stored_totals: tuple[int, ...] | None
    matches: bool | None                  # recomputed == stored (None when not scored)
    what_if: WhatIf | None
    mermaid_winner: int | None = None
    note: str | None = None


def rescore(events: Sequence[ev.Event], round: int, *, game_id: str | None = None) -> RoundReport:
    """Rescore ``round`` with today's scoring and compare with the stored ``round_scored``.

    A round ended by a four-mermaid win (R-MERMAID-WIN) has no ``round_scored``: the report
    says so (``ending`` "mermaids", points None) and still shows every player's cards.
    A round still in play raises :class:`UsageError`.
    """
    all_steps, gid = stream_steps(events, game_id)
    round_steps = round_steps_of(all_steps, gid, round)
    end = next((st for st in round_steps if st.after.flow.due and st.before.flow.due is None), None)
    if end is None:
        last = round_steps[-1]
        raise UsageError(f"game {gid}: round {round} is still in play (turn {last.after.flow.turn}); "
                         "it has no result yet")
    s = end.after
    f, t = s.flow, s.table
    names = s.players
    scores = [as_breakdown(player_breakdown(s, p)) for p in range(s.n)]
    effects = [tuple(sorted(s.effects(p))) for p in range(s.n)]
    notes = [effect_notes(t.hands[p], t.laid[p], s.ruleset, s.effects(p),
                          int(bool(t.face_down) and t.face_down[p] is not None))
             for p in range(s.n)]
    card_pts = [b.card_points for b in scores]
    bonus = [b.color_bonus for b in scores]
    totals_before = s.totals
    n_turns = max(st.turn for st in round_steps)
    if f.mermaid_winner is not None:
        w = f.mermaid_winner
        players = tuple(PlayerRound(seat=p, name=names[p], hand=t.hands[p], laid=t.laid[p],
                                    breakdown=scores[p], points=None, stored_points=None,
                                    total=None, stored_total=None, what_if_points=None,
                                    effects=effects[p], effect_notes=notes[p])
                        for p in range(s.n))
        return RoundReport(
            game_id=gid, round=round, ending="mermaids", caller=None, caller_name=None,
            result="mermaids", caller_won=None, ended_by=w, turns=n_turns, players=players,
            points=None, stored_points=None, totals=None, stored_totals=None, matches=None,
            what_if=None, mermaid_winner=w,
            note=(f"round {round} was not scored: {names[w]} held four mermaids at the end of "
                  f"turn {end.turn} and won the game at once (R-MERMAID-WIN); totals stay "
                  + per_seat(names, totals_before)))
    ending = f.ending
    assert ending is not None, "the round has ended"
    caller = None if ending == "deck_out" else f.caller
    points, won = round_points(ending, caller, card_pts, bonus)
    totals = tuple(a + b for a, b in zip(totals_before, points))
    stored = next((st.event for st in round_steps if isinstance(st.event, ev.RoundScored)), None)
    stored_points = tuple(stored.points) if stored else None
    stored_totals = tuple(stored.totals) if stored else None
    if ending == "last_chance":
        assert caller is not None, "LAST CHANCE has a caller"
        result = last_chance_outcome(caller, card_pts)
    else:
        result = ending
    what_if = None
    if caller is not None:
        call_step = next(st for st in round_steps
                         if isinstance(st.event, (ev.StopCalled, ev.LastChanceCalled)))
        at_call = [player_breakdown(call_step.after, p) for p in range(s.n)]
        cp = tuple(b.card_points for b in at_call)
        cb = tuple(b.color_bonus for b in at_call)
        other = "stop" if ending == "last_chance" else "last_chance"
        wpoints, wwon = round_points(other, caller, cp, cb)
        what_if = WhatIf(call=other, caller_won=wwon,
                         result=last_chance_outcome(caller, cp) if other == "last_chance" else "stop",
                         card_points=cp, color_bonus=cb, points=tuple(wpoints))
    players = tuple(PlayerRound(
        seat=p, name=names[p], hand=t.hands[p], laid=t.laid[p], breakdown=scores[p],
        points=points[p], stored_points=stored_points[p] if stored_points else None,
        total=totals[p], stored_total=stored_totals[p] if stored_totals else None,
        what_if_points=what_if.points[p] if what_if else None,
        effects=effects[p], effect_notes=notes[p]) for p in range(s.n))
    note = None
    if stored is None:
        note = f"round {round} has no round_scored event in this stream"
    elif tuple(points) != stored_points or totals != stored_totals:
        note = "today's engine scores this round differently from the stored round_scored"
    return RoundReport(
        game_id=gid, round=round, ending=ending, caller=caller,
        caller_name=names[caller] if caller is not None else None, result=result,
        caller_won=won, ended_by=f.player, turns=n_turns, players=players,
        points=tuple(points), stored_points=stored_points, totals=totals,
        stored_totals=stored_totals,
        matches=(tuple(points) == stored_points and totals == stored_totals) if stored else None,
        what_if=what_if, note=note)
