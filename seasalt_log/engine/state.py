"""The immutable game state: the table (cards and where they are) apart from the flow
(whose turn, which step, how the round is ending)."""

from __future__ import annotations

from typing import Any, Generic, TypeVar, overload

from msgspec import Struct
from msgspec.structs import replace

from .rulings import BASE, Ruleset

T = TypeVar("T")

Hand = tuple[str, ...]
Pair = tuple[str, ...]   # a laid-down unit: a pair, or a trio (the pair, then the starfish)

# Flow.step values
TAKE = "take"            # the turn's take is due (R-FLOW-TAKE)
BOAT_TAKE = "boat_take"  # the take given by a boat pair is due (R-DUO-BOAT)
PLAY = "play"            # duos, then end the turn
FORCED = "forced"        # a forced turn's take is due (R-X-JELLYFISH-TURN)
FORCED_DONE = "forced_done"  # a forced turn has taken: only turn_ended may follow
ANGEL = "angel"          # the Angelfish take is due (R-EV-ANGELFISH)

# State.phase values
NEW = "new"              # before game_started
BETWEEN = "between"      # a round_started is due (or the first one)
ROUND = "round"          # a round is in play
ENDED = "ended"          # game_ended applied


# States are immutable and hold only tuples, strings and numbers: they can never be part of
# a reference cycle, so the garbage collector need not track them (``gc=False``: cheaper to
# create, and the engine creates one or more per event).


class Table(Struct, frozen=True, gc=False):
    """Where every card is. Piles run bottom to top (the top is the last card).

    The deck is the last :attr:`left` cards of :attr:`dealt`, read as :attr:`deck`: a draw
    from a recorded deck order only counts :attr:`left` down (one small int, not a copy of
    the cards left), and the states of a round share one tuple of its cards."""

    #: the deck as the round dealt it or as last changed (a lobster's shuffle, a draw from
    #: an unseen multiset): top first when ``deck_ordered``; else the unseen multiset
    dealt: Hand = ()
    left: int = 0                   # how many cards are still in the deck: dealt's last ones
    deck_ordered: bool = False
    piles: tuple[Hand, Hand] = ((), ())
    hands: tuple[Hand, ...] = ()
    laid: tuple[tuple[Pair, ...], ...] = ()
    #: per seat, the shell placed face down, if any (R-EV-CORAL-REEF); empty without events
    face_down: tuple[str | None, ...] = ()

    @property
    def deck(self) -> Hand:
        """The cards in the deck, top first when ``deck_ordered`` (else the unseen multiset)."""
        dealt = self.dealt
        return dealt[len(dealt) - self.left:] if self.left < len(dealt) else dealt

    def with_deck(self, deck: Hand, ordered: bool | None = None) -> Table:
        """A copy whose deck is ``deck`` (and ``deck_ordered`` is ``ordered``, if given)."""
        return replace(self, dealt=deck, left=len(deck),
                       deck_ordered=self.deck_ordered if ordered is None else ordered)

    def can_take(self) -> bool:
        """Whether anything can be taken (R-TAKE-4)."""
        return bool(self.left or self.piles[0] or self.piles[1])


class Flow(Struct, frozen=True, gc=False):
    """The turn/round flow (R-FLOW, R-END, R-LAST), and the game's phase: a new phase
    always comes with a new flow (a plain turn's flows, shared, are those of a round in
    play)."""

    round: int = 0
    turn: int = 0
    player: int = 0
    step: str = TAKE
    caller: int | None = None
    call: str | None = None            # "stop" | "last_chance"
    final_left: tuple[int, ...] = ()   # seats still to play a final turn (R-LAST-1)
    revealed: int = 0                  # bitmask of revealed hands (R-LAST-3)
    ender: int | None = None           # who ended the last round (R-SETUP-4)
    due: str | None = None             # derived event owed: "round_scored" | "game_ended"
    ending: str | None = None          # how the last round ended (stop/last_chance/deck_out)
    mermaid_winner: int | None = None  # R-MERMAID-WIN
    locks: int = 0                     # bitmask of seats whose jellyfish lock lasts (R-X-JELLYFISH)
    protected: int = 0                 # bitmask of protected seats (R-EV-PROTECT)
    phase: str = NEW                   # NEW, BETWEEN, ROUND or ENDED (read as State.phase)


_NO_EFFECTS: frozenset[str] = frozenset()
#: table event -> events held -> the events in effect: one set each, asked for on every turn
#: (fewer than 2,000 of them: 12 table events, and held is empty, one event or two)
_EFFECTS: dict[str, dict[tuple[str, ...], frozenset[str]]] = {}


def _new_effects(event: str, held: tuple[str, ...]) -> frozenset[str]:
    got = _EFFECTS.setdefault(event, {})[held] = frozenset((event, *held))
    return got


class Game(Struct, frozen=True, gc=False):
    """What a game's turns leave as it is: who plays, the scores, how the game ended and
    the events held; set as the game and each round start and end."""

    game_id: str | None = None
    players: tuple[str, ...] = ()
    target: int = 0
    ruleset: Ruleset = BASE
    totals: tuple[int, ...] = ()
    last_points: tuple[int, ...] = ()
    #: per seat, the card points of the last round scored (its ``round_scored``): what the
    #: views show between rounds, when ``event_awarded`` has ended that round's events
    last_card_points: tuple[int, ...] = ()
    rounds_played: int = 0
    winners: tuple[int, ...] = ()
    reason: str | None = None
    # ---- Extra Pepper (RULES.md §14); empty in a game without events
    #: per seat, the events held (one between rounds, two until event_kept)
    held: tuple[tuple[str, ...], ...] = ()
    #: the event deck as a set (sorted; its order is secret) and the event discard pile
    event_deck: tuple[str, ...] = ()
    event_discards: tuple[str, ...] = ()
    #: the round's table event (R-EV-ROUND)
    table_event: str | None = None
    #: the seat that must send event_kept (R-EV-AWARD step 4)
    keep_due: int | None = None


_GAME_FIELDS = frozenset(Game.__struct_fields__)


class _FromGame(Generic[T]):
    """A field of :class:`Game` read on a :class:`State` (``state.players`` is
    ``state.game.players``), typed as the field."""

    __slots__ = ("name",)

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, state: None, owner: type) -> _FromGame[T]: ...
    @overload
    def __get__(self, state: State, owner: type) -> T: ...
    def __get__(self, state: State | None, owner: type) -> T | _FromGame[T]:
        if state is None:
            return self
        value: T = getattr(state.game, self.name)
        return value


class State(Struct, frozen=True, gc=False):
    """A whole game at one point of its stream; ``seq`` events have been applied.

    Most events change only the fields here; the rest are in :attr:`game`, one object that
    the states of a round share (a copy of a struct costs by its fields, and the engine
    makes one or more per event). ``state.players`` and the other fields of :class:`Game`
    read through (the engine's handlers read ``s.game.players``: a read-through is a call)."""

    # the fields every event changes come first: ``replace`` finds a field it is given by
    # looking through the fields in order
    seq: int = 0
    flow: Flow = Flow()
    table: Table = Table()
    game: Game = Game()

    @property
    def phase(self) -> str:
        """NEW, BETWEEN (a round_started is due, or the first one), ROUND or ENDED: the
        flow's (:attr:`Flow.phase`)."""
        return self.flow.phase

    # the fields of :class:`Game`, read through (``state.players`` is ``state.game.players``)
    game_id = _FromGame[str | None]()
    players = _FromGame[tuple[str, ...]]()
    target = _FromGame[int]()
    ruleset = _FromGame[Ruleset]()
    totals = _FromGame[tuple[int, ...]]()
    last_points = _FromGame[tuple[int, ...]]()
    last_card_points = _FromGame[tuple[int, ...]]()
    rounds_played = _FromGame[int]()
    winners = _FromGame[tuple[int, ...]]()
    reason = _FromGame[str | None]()
    held = _FromGame[tuple[tuple[str, ...], ...]]()
    event_deck = _FromGame[tuple[str, ...]]()
    event_discards = _FromGame[tuple[str, ...]]()
    table_event = _FromGame[str | None]()
    keep_due = _FromGame[int | None]()

    def changed(self, **changes: Any) -> State:
        """A copy with ``changes``, to fields of the state and of its :attr:`game` alike,
        and to its :attr:`phase` (``msgspec.structs.replace`` takes the state's own fields
        only). For the odd copy: its keyword arguments cost some six times the two
        ``replace`` calls it makes, which the engine's handlers write out."""
        game = {name: changes.pop(name) for name in _GAME_FIELDS & changes.keys()}
        if game:
            if "game" in changes:
                raise TypeError(f"changed() takes a new game or changes to its fields "
                                f"({', '.join(sorted(game))}), not both")
            changes["game"] = replace(self.game, **game)
        if "phase" in changes:
            changes["flow"] = replace(changes.get("flow", self.flow), phase=changes.pop("phase"))
        return replace(self, **changes)

    def effects(self, seat: int) -> frozenset[str]:
        """The events in effect for ``seat`` this round (R-EV-APPLY)."""
        g = self.game
        event = g.table_event
        if event is None:
            return _NO_EFFECTS
        held = g.held[seat]
        try:                    # two look-ups: cheaper than one keyed by a new tuple
            return _EFFECTS[event][held]
        except KeyError:
            return _new_effects(event, held)

    @property
    def n(self) -> int:
        """The number of players."""
        return len(self.game.players)

    def __repr__(self) -> str:
        """One line: ``<State demo-1, round 2, after turn 5: Ben (seat 1) to take; totals
        Ann 12, Ben 9 (target 40); deck 31; seq 37>`` (the position in the words of
        :func:`position_words`; every field: ``msgspec.structs.asdict(state)``, and
        ``asdict(state.game)``)."""
        f = self.flow
        acting = f.phase == ROUND and not f.due
        text = f"<State {self.game_id or '(no id)'}, " + position_words(
            self.phase, f.round, f.turn, f.player if acting else None, f.step if acting else None)
        if acting and f.player < len(self.players):
            text += f": {self.players[f.player]} (seat {f.player}) to {f.step}"
        keeper = self.keep_due if self.phase == BETWEEN and not f.due else None
        if keeper is not None:                                  # R-EV-AWARD step 4
            text += f": {self.players[keeper]} (seat {keeper}) to keep an event"
        if self.phase == ROUND and f.call is not None:
            text += f"; {f.call} called"
        if self.phase == ENDED:
            text += ", won by " + ", ".join(self.players[w] for w in self.winners)
        totals = ", ".join(f"{p} {t}" for p, t in zip(self.players, self.totals))
        text += f"; totals {totals} (target {self.target})" if totals else ""
        if self.phase == ROUND:
            text += f"; deck {self.table.left}"
        return text + f"; seq {self.seq}>"


def named(states: list[State], game_id: str) -> list[State]:
    """``states`` (a game's, in order) with ``game_id`` for their game's id: the states that
    shared a :class:`Game` share its copy."""
    out: list[State] = []
    old = new = None
    for s in states:
        if s.game is not old:
            old, new = s.game, replace(s.game, game_id=game_id)
        out.append(replace(s, game=new))
    return out


def position_words(phase: str, round: int, turn: int, player: int | None,
                   step: str | None) -> str:
    """Where a state stands, in the words every face uses (``render.position``, a
    :class:`State`'s repr): "before round 1", "round 2, before turn 1", "round 2, after
    turn 5" (turn 6 not begun), "round 2, during turn 6" (part of it played), "after round
    2", "after round 3: game over". ``player``/``step``: who acts and how (None when
    nobody does: the round's result is due)."""
    if phase == NEW or round == 0:
        return "before round 1"
    if phase == ENDED:
        return f"after round {round}: game over"
    if phase != ROUND:
        return f"after round {round}"
    if player is not None and step in (TAKE, FORCED):      # nothing of it played yet
        return f"round {round}, before turn 1" if turn <= 1 else f"round {round}, after turn {turn - 1}"
    if player is None:                                      # the round's result is due
        return f"round {round}, after turn {turn}"
    return f"round {round}, during turn {turn}"


INITIAL = State()
