"""A player's view for the simulator's hot loop.

:func:`player_view` returns exactly what :func:`seasalt_log.view.table_view` returns for a
seat during a round (a test compares the two over thousands of states); it only computes
card points with the engine's fast counter instead of the full breakdown.
"""

from __future__ import annotations

from ..engine.moves import card_points
from ..engine.state import ROUND, State
from ..view import PileView, SeatView, TableView, table_view


def player_view(state: State, viewer: int) -> TableView:
    """``table_view(state, viewer)``: what seat ``viewer`` may see (R-VIEW)."""
    if state.phase != ROUND:
        return table_view(state, viewer)
    t, f = state.table, state.flow
    revealed_mask = f.revealed
    stop_caller = f.caller if f.call == "stop" else None
    names, totals = state.players, state.totals
    seats = []
    for s, hand in enumerate(t.hands):
        laid = t.laid[s]
        revealed = bool(revealed_mask & (1 << s)) or stop_caller == s
        if viewer == s or revealed:
            seats.append(SeatView(seat=s, name=names[s], hand_size=len(hand),
                                  hand=tuple(sorted(hand)), laid=laid, revealed=revealed,
                                  card_points=card_points(hand, laid), total=totals[s]))
        else:
            seats.append(SeatView(seat=s, name=names[s], hand_size=len(hand), hand=None,
                                  laid=laid, revealed=revealed, card_points=None,
                                  total=totals[s]))
    p0, p1 = t.piles
    piles = (PileView(pile=0, top=p0[-1] if p0 else None, size=len(p0)),
             PileView(pile=1, top=p1[-1] if p1 else None, size=len(p1)))
    acting = not f.due
    return TableView(
        game_id=state.game_id, seq=state.seq, phase=state.phase, round=f.round, turn=f.turn,
        player=f.player if acting else None, step=f.step if acting else None,
        call=f.call, caller=f.caller, deck_size=len(t.deck), deck=None,
        piles=piles, seats=tuple(seats), totals=totals, target=state.target,
        viewer=viewer, winners=state.winners)
