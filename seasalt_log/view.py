"""What can be seen of a state (RULES.md §7, R-VIEW): the whole table, or one player's view.

A :class:`TableView` is plain data for display and ``--json``; in a player's view every
card that player could not see is absent (``hand`` is None, only ``hand_size`` is given),
and the deck order is never shown.
"""

from __future__ import annotations

from msgspec import UNSET, Struct, UnsetType

from .engine.core import forced_turn, player_points
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
    #: the expansions' public table (RULES_EXTRA §2, §5); absent from a base game's view
    extra: "ExtraView | UnsetType" = UNSET


class ExtraView(Struct, frozen=True):
    """What the expansions add to the table, as ``viewer`` may see it (R-X-VIEW): the events
    in play, who holds which, the jellyfish locks and who is protected are public; a
    face-down shell's colour is seen by its owner only."""

    table_event: str | None                 # the round's table event (R-EV-ROUND)
    held: tuple[tuple[str, ...], ...]       # per seat, the events held (R-EV-HOLD)
    effects: tuple[tuple[str, ...], ...]    # per seat, the events in effect (R-EV-APPLY)
    event_deck_size: int                    # its order is secret (R-EV-DECK)
    event_discards: tuple[str, ...]
    keep_due: int | None                    # the seat to choose an event (R-EV-AWARD step 4)
    locks: tuple[int, ...]                  # seats whose jellyfish lock lasts (R-X-JELLYFISH)
    locked: tuple[int, ...]                 # seats whose next turn would be forced now
    protected: tuple[int, ...]              # R-EV-PROTECT
    face_down: tuple[bool, ...]             # per seat, a shell placed face down (R-EV-CORAL-REEF)
    face_down_cards: tuple[str | None, ...]  # the shell itself, None when hidden from the viewer


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
        viewer=viewer, winners=state.winners, extra=extra_view(state, viewer))


def _seats(mask: int, n: int) -> tuple[int, ...]:
    return tuple(p for p in range(n) if mask & (1 << p))


def extra_view(state: State, viewer: int | None = None) -> "ExtraView | UnsetType":
    """The expansions' part of ``state`` as ``viewer`` may see it (R-X-VIEW), or UNSET in a
    game of a ruleset with neither Extra Salt cards nor events (nothing to show)."""
    rules = state.ruleset
    if not rules.trios and rules.events is None:
        return UNSET
    t, f, n = state.table, state.flow, state.n
    placed = t.face_down or (None,) * n
    in_round = state.phase == "round"
    return ExtraView(
        table_event=state.table_event,
        held=state.held or ((),) * n,
        effects=tuple(tuple(sorted(state.effects(p))) for p in range(n)),
        event_deck_size=len(state.event_deck), event_discards=state.event_discards,
        keep_due=state.keep_due, locks=_seats(f.locks, n),
        locked=tuple(p for p in range(n) if in_round and forced_turn(state, f, p)),
        protected=_seats(f.protected, n),
        face_down=tuple(c is not None for c in placed),
        # R-X-VIEW: the colour stays hidden for the whole round, even when hands are shown
        face_down_cards=tuple(c if viewer is None or viewer == p else None
                              for p, c in enumerate(placed)))
