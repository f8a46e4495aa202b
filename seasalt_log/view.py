"""What each reader may know (RULES.md §7, R-VIEW), decided here and nowhere else.

A :class:`Viewer` is the table (everything), one seat, or a spectator (public information
only). :func:`table_view` gives a state as a viewer sees it; :func:`redact` gives an event
as a viewer sees it (docs/LOG_FORMAT.md "Redacted events"). Both ask the same two
questions: :func:`sees_hand` (may this viewer see that seat's hand now) and
:func:`sees_private` (may this viewer see a card only some seats saw).

A :class:`TableView` is plain data for display and ``--json``; in a player's view every
card that player could not see is absent (``hand`` is None, only ``hand_size`` is given),
and the deck order is never shown.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, Struct, UnsetType

from . import events as ev
from .cards import ALL_CODES
from .engine.core import forced_turn, player_points
from .engine.state import Flow, State


class Viewer(Struct, frozen=True):
    """Who reads: ``table`` (the whole truth), ``seat`` (one player, ``seat`` set) or
    ``spectator`` (public information only)."""

    role: Literal["table", "seat", "spectator"]
    seat: int | None = None

    @property
    def is_table(self) -> bool:
        return self.role == "table"


TABLE = Viewer("table")
SPECTATOR = Viewer("spectator")


def seat_viewer(seat: int) -> Viewer:
    """The viewer of one seat."""
    if 0 <= seat < len(_SEAT_VIEWERS):
        return _SEAT_VIEWERS[seat]
    return Viewer("seat", seat)


#: the viewers of the seats a game may have (R-SETUP-1: 2 to 4), made once
_SEAT_VIEWERS = tuple(Viewer("seat", s) for s in range(4))


def as_viewer(viewer: Viewer | int | None) -> Viewer:
    """A :class:`Viewer` from the older forms: None is the table, an int is a seat."""
    if type(viewer) is int:
        return seat_viewer(viewer)
    if isinstance(viewer, Viewer):
        return viewer
    return TABLE if viewer is None else seat_viewer(viewer)


def sees_private(viewer: Viewer, *seats: int | None) -> bool:
    """Whether ``viewer`` sees a card seen only by ``seats`` (a drawn, taken or stolen card)."""
    return viewer.role == "table" or (viewer.role == "seat" and viewer.seat in seats)


def sees_hand(state: State, viewer: Viewer, seat: int) -> bool:
    """Whether ``viewer`` may see the hand of ``seat`` in ``state`` (R-VIEW, R-LAST-3)."""
    if viewer.role == "table" or (viewer.role == "seat" and viewer.seat == seat):
        return True
    return _all_shown(state) or _revealed(state.flow, seat)


#: the endings after which every hand is shown (R-STOP, R-LAST-4); not a deck-out (R-DECKOUT)
_SHOWN_ENDINGS = ("stop", "last_chance")


def _all_shown(state: State) -> bool:
    """A round scored after STOP or LAST CHANCE shows every hand; nobody reveals after a
    deck-out (R-DECKOUT) or a four-mermaid win (R-MERMAID-WIN: the round is not scored)."""
    f = state.flow
    return (f.phase != "round" and f.mermaid_winner is None
            and f.ending in _SHOWN_ENDINGS)


def _revealed(f: Flow, seat: int) -> bool:
    """Whether ``seat`` has shown its hand to everyone this round (R-LAST-3, R-STOP)."""
    return bool(f.revealed & (1 << seat)) or (f.call == "stop" and f.caller == seat)


def hand_scores_seen(ending: str | None, viewer: Viewer,
                     values: list[int | None]) -> list[int | None]:
    """A scored round's per-seat card points (or colour bonus) as ``viewer`` may know them,
    from the round's ending alone (a read model's row, not a state): after STOP or LAST
    CHANCE every hand was shown; after a deck-out nobody reveals (R-DECKOUT), so a hand's
    points are its own seat's and the table's, as in the redacted ``round_scored``."""
    if viewer.is_table or ending in _SHOWN_ENDINGS:
        return values
    return [v if s == viewer.seat else None for s, v in enumerate(values)]


def scored_card_points(state: State) -> tuple[int, ...] | None:
    """Between rounds, each seat's card points as its round was scored (the round's
    ``round_scored.card_points``), else None (in a round, before the first, and after a
    four-mermaid win, which is not scored: R-MERMAID-WIN). The hands are still the round's,
    but scored again they may differ: ``event_awarded`` has ended the events in effect
    during the round (R-EV-APPLY, R-EV-AWARD)."""
    if state.flow.phase == "round" or state.flow.mermaid_winner is not None:
        return None
    return state.last_card_points or None


# The views hold strings, numbers and other views, never a reference cycle: the garbage
# collector need not track them (gc=False, as the engine's states).
class PileView(Struct, frozen=True, gc=False):
    pile: int
    top: str | None
    size: int
    cards: tuple[str, ...] | None = None   # bottom to top; omitted in a player's view


class SeatView(Struct, frozen=True, gc=False):
    seat: int
    name: str
    hand_size: int
    hand: tuple[str, ...] | None            # None when hidden from the viewer
    laid: tuple[tuple[str, ...], ...]       # pairs, and trios (R-X-TRIO)
    revealed: bool
    card_points: int | None                 # None when the hand is hidden; between rounds
                                            # as scored (scored_card_points)
    total: int


class TableView(Struct, frozen=True, gc=False):
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
    #: the expansions' public table (RULES.md §11, §14); absent from a base game's view
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


def table_view(state: State, viewer: Viewer | int | None = None, *,
               extra: bool = True) -> TableView:
    """The state as ``viewer`` may see it (None or :data:`TABLE`: everything; an int: that
    seat). ``TableView.viewer`` is the seat, None for the table and for a spectator.
    ``extra=False`` leaves the expansions' part (:func:`extra_view`) unset, for a reader
    that does not use it (the simulator's bots)."""
    who = viewer if type(viewer) is Viewer else as_viewer(viewer)
    t, f = state.table, state.flow
    in_round = f.phase == "round"
    # sees_hand, with what holds for every seat asked once for the whole table
    table = who.role == "table"
    everyone = table or (not in_round and _all_shown(state))
    own = who.seat if who.role == "seat" else None
    anyone_revealed = f.revealed or f.call == "stop"
    hands, laid, totals = t.hands, t.laid, state.totals
    scored = scored_card_points(state)
    seats = []
    for s, name in enumerate(state.players):
        hand = hands[s] if hands else ()
        revealed = _revealed(f, s) if anyone_revealed else False
        shown = everyone or s == own or revealed
        if not shown:
            points = None
        elif scored:
            points = scored[s]              # between rounds: as the round was scored
        else:
            points = player_points(state, s) if hands else 0
        # a seat's view is made again only when what it shows changed (compared by value)
        key = (name, hand if shown else len(hand), laid[s] if laid else (), revealed,
               totals[s], points)
        slot = 2 * s + shown
        if slot < 8:
            last = _SEAT_VIEWS[slot]
            if last[0] == key:
                seats.append(last[1])
                continue
        seat = SeatView(s, name, len(hand), tuple(sorted(hand)) if shown else None, key[2],
                        revealed, key[5], key[4])
        if slot < 8:
            _SEAT_VIEWS[slot] = (key, seat)
        seats.append(seat)
    if table:
        piles = (_pile_view(0, t.piles[0], True), _pile_view(1, t.piles[1], True))
    else:
        last_piles = _PILES_SEEN[0]
        if last_piles[0] == t.piles:
            piles = last_piles[1]
        else:
            piles = (_pile_view(0, t.piles[0], False), _pile_view(1, t.piles[1], False))
            _PILES_SEEN[0] = (t.piles, piles)
    acting = in_round and not f.due
    # positional, in the order of TableView's fields (faster than by name)
    return TableView(
        state.game_id, state.seq, f.phase, f.round, f.turn,
        f.player if acting else None, f.step if acting else None, f.call, f.caller,
        t.left, (t.deck if t.deck_ordered else None) if table else None,
        piles, tuple(seats), state.totals, state.target, who.seat, state.winners,
        extra_view(state, who) if extra else UNSET)


#: (what it shows, view) of the last view of each seat, hidden (2 * seat) and shown
#: (2 * seat + 1): a seat's view changes only when its cards, name or total do
_SEAT_VIEWS: list[tuple[tuple[Any, ...], Any]] = [((), None)] * 8
#: (both piles' cards, their views) last seen in a player's view
_PILES_SEEN: list[tuple[Any, tuple[PileView, PileView]]] = [
    ((), (PileView(0, None, 0), PileView(1, None, 0)))]
#: (pile index, cards) -> the last view of that pile in a player's view
_PILE_VIEWS: list[tuple[tuple[str, ...], PileView]] = [((), PileView(0, None, 0)),
                                                       ((), PileView(1, None, 0))]


def _pile_view(i: int, cards: tuple[str, ...], table: bool) -> PileView:
    """Pile ``i`` as seen (its cards only by the table); the last one again when unchanged."""
    if table:
        return PileView(i, cards[-1] if cards else None, len(cards), cards)
    last = _PILE_VIEWS[i]
    if last[0] == cards:
        return last[1]
    v = PileView(i, cards[-1] if cards else None, len(cards))
    _PILE_VIEWS[i] = (cards, v)
    return v


# ---------------------------------------------------------------- events

def _to_builtins(event: ev.Event) -> dict[str, Any]:
    # meta stays its raw JSON text (docs/LOG_FORMAT.md, "meta"), encoded as given
    return msgspec.to_builtins(event, builtin_types=(msgspec.Raw,))


def redact(event: ev.Event, viewer: Viewer, before: State, after: State) -> ev.Event | dict[str, Any]:
    """``event`` as ``viewer`` may see it (docs/LOG_FORMAT.md "Redacted events").

    The table gets the event itself. Anyone else gets its JSON object with every card they
    could not see replaced by ``null`` (never dropped): the deck order, another player's
    drawn and kept card, the card another player's crab pair took (and its ``index``) or
    fish pair drew, a card stolen between two other seats, the card points and colour
    bonus of a hand the round's end does not show (a deck-out); with the expansions, what
    R-X-VIEW keeps private (the lobster's cards, and its new deck order from everyone, a
    forced take, a face-down shell, a swimmers' swap between two other seats, the cards the
    Dolphins, the Sunfish and the Hermit Crab add). When the event makes hands
    visible to this viewer (a call, a last final turn, a scored round), the object gains
    ``"shown": [{"seat": s, "hand": [...]}, ...]``; the swimmers' player's copy of
    ``swimmers_played`` gains ``"looked_at": {"seat": s, "hand": [...]}``, the hand looked
    at (:func:`looked_at`), which is not a reveal. ``before``/``after`` are the states
    around the event.
    """
    if viewer.role == "table":
        return event
    out = _to_builtins(event)
    kind = type(event)
    if type(event) is ev.RoundStarted:
        if event.deck is not None:
            out["deck"] = [None] * len(event.deck)
    elif type(event) is ev.DeckDrawn:
        if not sees_private(viewer, event.player):
            cards = list(event.cards)
            cards[cards.index(event.kept)] = None      # the discarded card stays: public
            out["cards"], out["kept"] = cards, None
    elif type(event) is ev.CrabsPlayed:
        if not sees_private(viewer, event.player):
            out["took"] = None
            if event.index is not None:
                out["index"] = None
    elif type(event) is ev.FishPlayed:
        if event.drew is not None and not sees_private(viewer, event.player):
            out["drew"] = None
    elif type(event) is ev.SharkPlayed:
        if event.stole is not None and not sees_private(viewer, event.player, event.victim):
            out["stole"] = None
    elif type(event) is ev.RoundScored:     # a hand's points tell of it: hidden as it is
        hidden = [s for s in range(after.n) if not sees_hand(after, viewer, s)]  # (R-DECKOUT)
        for key in ("card_points", "color_bonus"):
            out[key] = [None if s in hidden else v for s, v in enumerate(out[key])]
    if kind in _PUBLIC_EXTRA:
        pass                            # R-X-VIEW: jellyfish, trios, the Angelfish, sharks, events
    elif type(event) is ev.LobsterPlayed:
        if not sees_private(viewer, event.player):
            out["kept"] = None
            if event.seen is not None:
                out["seen"] = [None] * len(event.seen)
    elif type(event) is ev.SwimmersPlayed:     # the two cards swapped: the player and the chosen one
        if not sees_private(viewer, event.player, event.victim):
            out["gave"], out["got"] = None, None
            out["swapped"] = event.gave is not None     # whether a swap took place is public
        hand = looked_at(event, viewer, before)
        if hand is not None:
            out["looked_at"] = {"seat": event.victim, "hand": list(hand)}
    elif kind not in _BASE_TYPES and not sees_private(viewer, getattr(event, "player", None)):
        out = _cards_hidden(out)        # a forced take, a face-down shell: every card
    elif not sees_private(viewer, getattr(event, "player", None)):
        for key in _PRIVATE_EXTRA_FIELDS:       # fields the expansions add to base events
            if out.get(key) is not None:
                out[key] = _cards_hidden(out[key])
        for take in out.get("takes") or ():    # a Hermit Crab take's place names its card
            if take.get("index") is not None:   # (R-X-VIEW, as R-DUO-CRAB's index)
                take["index"] = None
    if type(event) is ev.LobsterPlayed and event.deck:     # the new deck order: nobody's (R-X-VIEW)
        out["deck"] = [None] * len(event.deck)
    if kind in _MAY_SHOW:
        hands = after.table.hands
        shown = [{"seat": s, "hand": sorted(hands[s])} for s in range(after.n)
                 if sees_hand(after, viewer, s) and not sees_hand(before, viewer, s)]
        if shown:
            out["shown"] = shown
    return out


def looked_at(event: ev.SwimmersPlayed, viewer: Viewer, before: State
              ) -> tuple[str, ...] | None:
    """The chosen player's whole hand (sorted) as the player of two swimmers saw it when
    choosing, before the swap (R-EV-WATER-RODEO-SWIMMERS step 2; R-X-VIEW: "the player sees
    the chosen player's whole hand"), or None when ``viewer`` did not see it: the chosen
    player, the others, a spectator, and everyone when nobody was chosen. ``before`` is the
    state before the event. A look, not a reveal: the hand stays hidden in the player's
    :func:`table_view` (R-LAST-3 alone reveals a hand during the round)."""
    if event.victim is None or not sees_private(viewer, event.player):
        return None
    return tuple(sorted(before.table.hands[event.victim]))


_BASE_TYPES = frozenset(ev.BASE_TYPES)
#: the expansions' events that R-X-VIEW makes public, cards and all
_PUBLIC_EXTRA = frozenset({ev.JellyfishPlayed, ev.StarfishPlayed, ev.AngelfishTaken,
                           ev.SharksPlayed, ev.EventKept, ev.EventAwarded})
#: cards the expansions add to base events, seen by the acting player only (R-X-VIEW)
_PRIVATE_EXTRA_FIELDS = ("dolphins_drew", "also_drew", "takes")
_CARD_CODES = frozenset(ALL_CODES)


def _cards_hidden(value: Any) -> Any:
    """``value`` (a redacted event's JSON, or a part of it) with every card code as null."""
    if isinstance(value, str):
        return None if value in _CARD_CODES else value
    if isinstance(value, (list, tuple)):
        return [_cards_hidden(v) for v in value]
    if isinstance(value, dict):
        return {k: v if k == "type" else _cards_hidden(v) for k, v in value.items()}
    return value


#: the events after which a hand may become visible (R-STOP, R-LAST-3, a scored round,
#: a game ended by four mermaids)
_MAY_SHOW = frozenset(ev.TURN_TYPES) | {ev.RoundScored, ev.GameEnded}


def _seats(mask: int, n: int) -> tuple[int, ...]:
    return tuple(p for p in range(n) if mask & (1 << p))


def extra_view(state: State, viewer: Viewer | int | None = None) -> "ExtraView | UnsetType":
    """The expansions' part of ``state`` as ``viewer`` may see it (R-X-VIEW), or UNSET in a
    game of a ruleset with neither Extra Salt cards nor events (nothing to show)."""
    who = as_viewer(viewer)
    rules = state.ruleset
    if not rules.trios and rules.events is None:
        return UNSET
    t, f, n = state.table, state.flow, state.n
    placed = t.face_down or (None,) * n
    in_round = f.phase == "round"
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
        face_down_cards=tuple(c if sees_private(who, p) else None
                              for p, c in enumerate(placed)))
