"""What can be seen of a state (RULES.md §7, R-VIEW): the whole table, or one player's view.

A :class:`TableView` is plain data for display and ``--json``; in a player's view every
card that player could not see is absent (``hand`` is None, only ``hand_size`` is given),
and the deck order is never shown.
"""

from __future__ import annotations

from msgspec import Struct

from .engine.core import player_points
from .engine.state import State


class PileView(Struct, frozen=True):
    pile: int
    top: str | None
    size: int
    cards: tuple[str, ...] | None = None   # bottom to top; omitted in a player's view


class SeatView(Struct, frozen=True):
    seat: int
    name: str
    hand_size: int
    hand: tuple[str, ...] | None            # None when hidden from the viewer
    laid: tuple[tuple[str, str], ...]
    revealed: bool
    card_points: int | None                 # None when the hand is hidden
    total: int


class TableView(Struct, frozen=True):
    """One moment of a game as someone sees it (``viewer`` None = the whole truth)."""

    game_id: str | None
    seq: int
    phase: str
    round: int
    turn: int
    player: int | None          # the seat to act, None when nobody is
    step: str | None
    call: str | None
    caller: int | None
    deck_size: int
    deck: tuple[str, ...] | None  # top first when ordered; None in a player's view
    piles: tuple[PileView, PileView]
    seats: tuple[SeatView, ...]
    totals: tuple[int, ...]
    target: int
    viewer: int | None = None
    winners: tuple[int, ...] = ()


def table_view(state: State, viewer: int | None = None) -> TableView:
    """The state as ``viewer`` (a seat) may see it, or everything when ``viewer`` is None."""
    t, f = state.table, state.flow
    in_round = state.phase == "round"
    # a round scored after STOP or LAST CHANCE shows every hand; nobody reveals after a
    # deck-out (R-DECKOUT) or a four-mermaid win (R-MERMAID-WIN: the round is not scored)
    scored_shown = (not in_round and f.mermaid_winner is None
                    and f.ending in ("stop", "last_chance"))
    seats = []
    for s in range(state.n):
        hand = t.hands[s] if t.hands else ()
        laid = t.laid[s] if t.laid else ()
        revealed = bool(f.revealed & (1 << s)) or (f.call == "stop" and f.caller == s)
        visible = viewer is None or viewer == s or revealed or scored_shown
        seats.append(SeatView(
            seat=s, name=state.players[s], hand_size=len(hand),
            hand=tuple(sorted(hand)) if visible else None, laid=laid, revealed=revealed,
            card_points=(player_points(state, s) if t.hands else 0) if visible else None,
            total=state.totals[s]))
    piles = tuple(PileView(pile=i, top=p[-1] if p else None, size=len(p),
                           cards=p if viewer is None else None)
                  for i, p in enumerate(t.piles))
    acting = in_round and not f.due
    return TableView(
        game_id=state.game_id, seq=state.seq, phase=state.phase, round=f.round, turn=f.turn,
        player=f.player if acting else None, step=f.step if acting else None,
        call=f.call, caller=f.caller, deck_size=len(t.deck),
        deck=(t.deck if t.deck_ordered else None) if viewer is None else None,
        piles=piles, seats=tuple(seats), totals=state.totals, target=state.target,
        viewer=viewer, winners=state.winners)
