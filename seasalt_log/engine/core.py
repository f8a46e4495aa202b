"""The rules engine: ``apply(state, event)`` checks one event against every rule and returns
the next state; ``check`` is the same without keeping the result. Pure: no I/O, clock or RNG.

Every refusal is an :class:`IllegalMoveError` naming the rule id of RULES.md.
"""

from __future__ import annotations

from collections import Counter
from operator import add, attrgetter
from typing import Any, Callable, Iterable, Iterator, Sequence

from msgspec.structs import replace

from .. import events as ev
from ..cards import COLOR, KIND
from ..errors import IllegalMoveError, LogFormatError, SeasaltError
from ..scoring import (Breakdown, ExtraBreakdown, card_points, counts_with, extra_card_points,
                       extra_counts, game_winners, holding_breakdown, round_points,
                       score_extra_counts, scoring_effects)
from .rulings import DOLPHIN_CODES, RULESETS, Ruleset, deck_counter, rules_for
from .state import (ANGEL, BETWEEN, BOAT_TAKE, ENDED, FORCED, FORCED_DONE, NEW, PLAY, ROUND,
                    TAKE, Flow, Hand, Pair, State, Table)
from .table import MERMAID, multiset_diff, replace_at, without, without_all


def illegal(state: State, rule: str, reason: str) -> IllegalMoveError:
    """An error for the event that would be applied next to ``state``."""
    return IllegalMoveError(rule, reason, **_place(state))


def _place(s: State) -> dict[str, Any]:
    """Where the event after ``s`` stands, for its error: the game, the seq, the round and,
    while a round is in play, the turn (a round's end, its awards and the game's end belong
    to no turn, LOG_FORMAT.md)."""
    f = s.flow
    return {"game_id": s.game.game_id, "seq": s.seq + 1, "round": f.round or None,
            "turn": (f.turn or None) if f.phase not in (BETWEEN, ENDED) else None}


def seat_name(state: State, seat: int) -> str:
    if 0 <= seat < len(state.game.players):
        return f"seat {seat} ({state.game.players[seat]})"
    return f"seat {seat} (no such seat)"


# ---------------------------------------------------------------- game and round set-up

def _game_started(s: State, e: ev.GameStarted) -> State:
    if s.flow.phase != NEW:
        raise illegal(s, "R-FLOW-GAME", "this game has already started; a new game_started "
                                        "begins another game")
    ruleset = rules_for(e.ruleset, e.events)
    n = len(e.players)
    game = replace(s.game, game_id=e.game_id, players=tuple(e.players),
                   target=e.target or ruleset.target_for(n), ruleset=ruleset,
                   totals=(0,) * n, last_points=(0,) * n)
    if ruleset.events is not None:                              # R-EV-DECK: all 12 events
        game = replace(game, held=((),) * n, event_deck=_EVENT_DECK)
    return replace(s, flow=replace(s.flow, phase=BETWEEN), game=game, seq=s.seq + 1)


_EVENT_DECK = tuple(sorted(ev.EVENT_CODES))


def _round_started(s: State, e: ev.RoundStarted) -> State:
    _expect_no_derived(s)
    if s.flow.phase != BETWEEN:
        raise illegal(s, "R-FLOW-ROUND", f"round {s.flow.round} is still in play; a round starts "
                                         "only when the previous one has ended")
    f = s.flow
    if e.round != f.round + 1:
        raise illegal(s, "R-FLOW-ROUND", f"the next round is round {f.round + 1}, not {e.round}")
    # the errors below are the new round's set-up's, located at it (_located)
    if f.ender is not None:
        first = (f.ender + 1) % s.n
        if e.first_player != first:
            raise illegal(_located(s, e), "R-SETUP-4",
                          f"round {e.round} starts with {seat_name(s, first)}, the seat after "
                          f"the player who ended round {f.round}, not seat {e.first_player}")
    rules = s.game.ruleset
    # a recorded deck that with the discards is the ruleset's cards once each (a sorted tuple
    # compared) holds only known codes, as many as the round's deck: the checks of
    # _known_codes are for the other cases
    whole = False
    if e.deck is not None and len(e.discards) == 2:
        cards = [*e.deck, *e.discards]
        cards.sort()                # in place: one list made, and one tuple to compare
        whole = tuple(cards) == rules.cards
    if whole:
        _known_event(s, e)
    else:
        _known_codes(s, e)
    if e.deck is not None:
        if not whole:
            missing, extra = multiset_diff((*e.deck, *e.discards), deck_counter(rules.cards))
            raise illegal(_located(s, e), rules.setup_rule,
                          f"the deck and the two discards must be the {len(rules.cards)} "
                          f"cards once each; missing {missing}, extra {extra}")
        deck, ordered = e.deck, True
    else:
        full = deck_counter(rules.cards)
        _, extra = multiset_diff(e.discards, full)
        if extra:
            raise illegal(_located(s, e), rules.setup_rule,
                          f"the discards hold more copies than the deck has: {extra}")
        left = full.copy()
        left.subtract(e.discards)
        deck, ordered = tuple(sorted(left.elements())), False
    n = len(s.game.players)
    piles = ((e.discards[0],), (e.discards[1],))
    flow = _plain_take(e.round, 1, e.first_player)
    if rules.events is not None:
        return replace(s, flow=flow, seq=s.seq + 1,
                       table=Table(deck, len(deck), ordered, piles, ((),) * n, ((),) * n,
                                   (None,) * n),
                       game=replace(s.game, event_deck=_event_drawn(s, e), table_event=e.event))
    return replace(s, flow=flow, seq=s.seq + 1,
                   table=Table(deck, len(deck), ordered, piles, ((),) * n, ((),) * n))


def _located(s: State, e: ev.Event) -> State:
    """``s`` as the place of ``e``'s errors: for a ``round_started`` of the round due next,
    the round it starts (no turn yet), whose set-up it is; for anything else (a round number
    that is wrong included, R-FLOW-ROUND) where the game stands."""
    f = s.flow
    if (type(e) is ev.RoundStarted and f.phase == BETWEEN and not f.due
            and e.round == f.round + 1):
        return replace(s, flow=Flow(round=e.round, phase=BETWEEN))
    return s


def _event_drawn(before: State, e: ev.RoundStarted) -> tuple[str, ...]:
    """R-EV-ROUND: the round's table event comes from the event deck; the deck left."""
    event: str = e.event  # type: ignore[assignment]  # R-X-RULESET-2: validated, a game
                          # with events names one
    if before.game.keep_due is not None:
        raise illegal(_located(before, e), "R-EV-AWARD",
                      f"{seat_name(before, before.game.keep_due)} holds two events and must choose "
                      "one first (event_kept)")
    deck = without(before.game.event_deck, event)
    if deck is None:
        raise illegal(_located(before, e), "R-EV-ROUND",
                      f"{event} is not in the event deck "
                      f"({', '.join(before.game.event_deck) or 'empty'})")
    return deck


# ---------------------------------------------------------------- format checks of the game

def _format(s: State, reason: str, path: str | None) -> LogFormatError:
    return LogFormatError(reason, path, **_place(s))


def _known_codes(s: State, e: Any) -> None:
    """R-X-CARDS-4, LOG_FORMAT.md: the round's cards and its event exist in this game."""
    rules = s.game.ruleset
    codes = rules.codes
    for name in ("discards", "deck"):
        for i, code in enumerate(getattr(e, name) or ()):
            if code not in codes:
                raise _format(_located(s, e), _unknown_code(rules, code), f"$.{name}[{i}]")
    if e.deck is not None and len(e.deck) != rules.round_deck_size:
        n = rules.round_deck_size
        raise _format(_located(s, e), f"Expected `array` of length "
                                      f"{'<=' if len(e.deck) > n else '>='} {n}", "$.deck")
    _known_event(s, e)


def _known_event(s: State, e: ev.RoundStarted) -> None:
    """R-X-RULESET-2: a game with events names each round's table event, another none."""
    rules = s.game.ruleset
    if (e.event is None) != (rules.events is None):
        if e.event is None:
            raise _format(_located(s, e), "missing field 'event' (a game with events names "
                                          "each round's table event)", "$")
        raise _format(_located(s, e), "unknown field 'event' (this game has no events)", "$")


def _unknown_in_game(s: State, e: Any) -> LogFormatError | None:
    """The format error of an event naming a type, field or card code this game's ruleset
    does not have (R-X-CARDS-4, LOG_FORMAT.md), or None."""
    rules = s.game.ruleset
    tag = ev.TAGS[type(e)]
    if tag not in rules.tags:
        return _format(s, f"unknown event type {tag!r} (not an event of a {rules.name} game"
                          f"{' with events' if rules.events else ''})", "$.type")
    if rules.events is None:
        for name in _PEPPER_FIELDS:
            if getattr(e, name, None) is not None:
                return _format(s, f"unknown field {name!r} (this game has no events)", "$")
    codes = rules.codes
    for name in e.__struct_fields__:
        value = getattr(e, name)
        values = value if isinstance(value, tuple) else (value,)
        for i, v in enumerate(values):
            if isinstance(v, str) and ":" in v and v not in codes:
                at = f"$.{name}[{i}]" if isinstance(value, tuple) else f"$.{name}"
                return _format(s, _unknown_code(rules, v), at)
    return None


def _unknown_code(rules: Ruleset, code: str) -> str:
    """What is wrong with a card code (a known card's, decoding checks that) the game's
    ruleset does not have: which ruleset has it, as the game's game_started names another."""
    other = " or ".join(r.name for r in RULESETS.values() if code in r.codes)
    return (f"unknown card code {code!r} (not a card of the {rules.name} ruleset"
            + (f": a card of the {other} ruleset, which this game's game_started does not name)"
               if other else ")"))


#: the fields LOG_FORMAT.md adds to base events for games with events
_PEPPER_FIELDS = ("dolphins_drew", "also_drew", "takes")


# ---------------------------------------------------------------- shared preambles

def _expect_no_derived(s: State) -> None:
    f = s.flow
    if f.phase == ENDED:
        raise illegal(s, "R-FLOW-GAME", "the game has ended; nothing happens after game_ended")
    if f.due:
        raise illegal(s, "R-DERIVED", f"{f.due} is due here, before any other event")
    if f.phase == NEW:
        raise illegal(s, "R-FLOW-GAME", "the game has not started (game_started expected)")


def _in_turn(s: State, e: Any) -> Flow:
    """Checks common to every turn event: a round in play, the right player. Returns the
    flow."""
    f = s.flow
    if f.phase != ROUND or f.due:
        _expect_no_derived(s)
        raise illegal(s, "R-FLOW-ROUND", "no round is in play (round_started expected)")
    if e.player != f.player:
        if not 0 <= e.player < s.n:     # a seat of no one: the format's error, as validate's
            raise ev.seat_out_of_range(e.player, s.n, "$.player", **_place(s))
        raise illegal(s, "R-FLOW-PLAYER", f"it is {seat_name(s, f.player)}'s turn, not "
                                          f"{seat_name(s, e.player)}'s")
    return f


def _take_due(s: State, e: Any) -> Flow:
    f = _in_turn(s, e)
    step = f.step
    if step == TAKE or step == BOAT_TAKE:
        return f
    if step == FORCED or step == FORCED_DONE:
        _not_in_forced_turn(s, e)
    if step == ANGEL:
        _angel_due(s, e)
    if f.step == PLAY:
        if not s.table.can_take():
            raise illegal(s, "R-FLOW-TAKE", "the deck and both discard piles are empty: nothing "
                                            "can be taken (R-TAKE-4)")
        raise illegal(s, "R-FLOW-TAKE", "this turn's take is done; another take needs a boat pair")
    return f


def _take_done(s: State, e: Any) -> Flow:
    f = s.flow
    if f.step == PLAY and f.phase == ROUND and not f.due and e.player == f.player:
        return f                                # the common case: every check below passes
    f = _in_turn(s, e)
    step = f.step
    if step == TAKE:
        raise illegal(s, "R-FLOW-TAKE", "a turn begins with its take (deck_drawn or discard_taken)")
    if step == BOAT_TAKE:       # R-FLOW-TAKE names the order: the take right after the boats
        raise illegal(s, "R-FLOW-TAKE", "the boat pair's extra take (R-DUO-BOAT) comes next: "
                                        "deck_drawn or discard_taken")
    if step == FORCED or step == FORCED_DONE:
        _not_in_forced_turn(s, e)
    if step == ANGEL:
        _angel_due(s, e)
    return f


def _angel_due(s: State, e: Any) -> None:
    raise illegal(s, "R-EV-ANGELFISH", f"the Angelfish take is due: both pile tops are "
                                       f"{COLOR[s.table.piles[0][-1]]}, so angelfish_taken comes "
                                       f"next, not {ev.TAGS[type(e)]}")


def _not_in_forced_turn(s: State, e: Any) -> None:
    raise illegal(s, "R-X-JELLYFISH-TURN", f"this is a forced turn (a jellyfish lock): only "
                                           f"forced_drawn, then turn_ended, not "
                                           f"{ev.TAGS[type(e)]}")


def _angelfish_due(s: State, seat: int, piles: tuple[tuple[str, ...], ...]) -> bool:
    """Whether the Angelfish take follows a take step that leaves ``piles`` (R-EV-ANGELFISH:
    both piles have cards, their tops share a colour, and the event is in effect for the
    seat). The take handlers ask only when the Angelfish can be in effect for the seat at
    all, as the table event or an event it holds (R-EV-APPLY): in a game with events, nine
    takes in ten are spared the call."""
    p0, p1 = piles
    if p0 and p1 and COLOR[p0[-1]] == COLOR[p1[-1]]:
        return "angelfish" in s.effects(seat)
    return False


def _draw_from_deck(s: State, ordered: bool, dealt: Hand, left: int,
                    cards: Sequence[str]) -> tuple[Hand, int]:
    """The deck after ``cards`` were taken from its top (R-DRAW, R-X-DRAW), as
    ``Table.dealt`` and ``Table.left``: ``dealt`` and ``left`` are the deck before."""
    top = len(dealt) - left
    if ordered:
        k = len(cards)
        drawn = dealt[top:top + k]
        if drawn != cards and drawn != tuple(cards):
            raise illegal(s, s.game.ruleset.draw_rule,
                          f"the deck's top card{'s are' if k > 1 else ' is'} {', '.join(drawn)} "
                          f"(recorded deck order), not {', '.join(cards)}")
        return dealt, left - k
    deck = dealt[top:]
    for card in cards:
        rest = without(deck, card)
        if rest is None:
            rule = s.game.ruleset.draw_rule
            raise illegal(s, rule, f"{card} cannot come from the deck: " + (
                "every copy has already been seen this round" if rule == "R-DRAW" else
                "no copy of it is in the deck now"))
        deck = rest
    return deck, len(deck)


# ---------------------------------------------------------------- step 1: take a card

def _no_pepper_field(s: State, e: Any, name: str) -> None:
    """A field of LOG_FORMAT.md's events in a game without them is a format error."""
    if s.game.ruleset.events is None and getattr(e, name) is not None:
        raise _format(s, f"unknown field {name!r} (this game has no events)", "$")


_DECK_DRAWN = ev.DeckDrawn


def _take(s: State, e: Any) -> State:
    """A turn's take step: ``deck_drawn`` (R-TAKE-1, R-TAKE-3, R-DRAW, R-EV-DOLPHINS) or
    ``discard_taken`` (R-TAKE-2), then the Angelfish's step when it is due, else the play
    step (a plain turn's is the one kept in :data:`_PLAIN`). One handler for both takes, as
    :func:`_called` is for both calls: the flow after a take is written once, and a take
    runs one Python call (each costs about as much as finding that flow)."""
    drawn = type(e) is _DECK_DRAWN
    f = s.flow
    # e's fields are read in the branch of its type: a read that sees one event type keeps
    # the interpreter's specialised attribute read
    if drawn:
        if e.dolphins_drew is not None:
            _no_pepper_field(s, e, "dolphins_drew")
        player = e.player
    else:
        player = e.player
    try:                                        # _kept, inline: a call less per take
        got = _PLAIN[f.round][f.turn][f.player]
    except IndexError:
        got = None
    if got is None or (got[0] is not f and got[2] is not f):
        got = None                              # no plain turn's take (or boat take) flow
        if (f.phase != ROUND or f.due or player != f.player
                or (f.step != TAKE and f.step != BOAT_TAKE)):
            f = _take_due(s, e)                 # raises the error due
    elif player != f.player:    # a plain flow: its phase, step and due are its own
        _take_due(s, e)                         # raises the error due
    t = s.table
    dealt = t.dealt
    left = t.left
    piles = t.piles
    hands = [*t.hands]                          # replace_at, inline ([*x]: no call of list)
    event = s.game.table_event  # the Dolphins' and the Angelfish's (R-EV-APPLY, as State.effects)
    if drawn:                                   # ---- deck_drawn
        if not left:
            raise illegal(s, "R-TAKE-1", "the deck is empty; take from a discard pile")
        cards = e.cards
        two = len(cards) == 2
        if left == 1 and s.game.ruleset.one_card_draw:
            if two or len(cards) != 1 or e.discard_pile is not None:
                raise illegal(s, "R-TAKE-3", "with one card left in the deck, a draw takes that "
                                             "one card and discards nothing (cards: [1 code], "
                                             "no discard_pile)")
        elif not two:
            raise illegal(s, "R-TAKE-1", f"a deck draw takes the top two cards ({left} are left)")
        kept = e.kept
        if kept not in cards:
            raise illegal(s, "R-TAKE-1", f"kept {kept} is not one of the drawn cards {list(cards)}")
        # the recorded top two, compared in place (a one-card draw: _draw_from_deck)
        top = len(dealt) - left
        if (t.deck_ordered and two and left > 1 and dealt[top] == cards[0]
                and dealt[top + 1] == cards[1]):
            left -= 2
        else:
            dealt, left = _draw_from_deck(s, t.deck_ordered, dealt, left, cards)
        hands[player] = hands[player] + (kept,)     # (not +=: fewer steps)
        dolphins = e.dolphins_drew
        if two:
            pile = e.discard_pile
            if pile is None:
                raise illegal(s, "R-TAKE-1", "a two-card draw must name discard_pile for the "
                                             "other card")
            p0, p1 = piles
            other = cards[1] if cards[0] == kept else cards[0]
            if pile:
                if p1 and not p0:
                    raise illegal(s, "R-TAKE-1", "discard pile 0 is empty, so the discarded "
                                                 "card must go there")
                piles = (p0, p1 + (other,))
            else:
                if p0 and not p1:
                    raise illegal(s, "R-TAKE-1", "discard pile 1 is empty, so the discarded "
                                                 "card must go there")
                piles = (p0 + (other,), p1)
            if event is not None and other in DOLPHIN_CODES \
                    and (event == "dolphins" or "dolphins" in s.game.held[player]):
                dealt, left = _dolphins_drawn(s, e, t.deck_ordered, dealt, left, hands)
                dolphins = None                 # drawn, or rightly null
        if dolphins is not None:
            raise illegal(s, "R-EV-DOLPHINS", "the Dolphins trigger only on a collector or the "
                                              "seahorse discarded by a two-card draw, for a "
                                              "player they are in effect for: dolphins_drew "
                                              "must be absent")
    else:                                       # ---- discard_taken
        i = e.pile
        pile = piles[i]
        if not pile:
            raise illegal(s, "R-TAKE-2", f"discard pile {i} is empty")
        card = e.card
        if pile[-1] != card:
            raise illegal(s, "R-TAKE-2", f"the top of discard pile {i} is {pile[-1]}, not {card}")
        hands[player] = hands[player] + (card,)
        piles = (piles[0], pile[:-1]) if i else (pile[:-1], piles[1])
    # ---- the flow after the take
    if event is not None and (event == "angelfish" or "angelfish" in s.game.held[player]) \
            and _angelfish_due(s, player, piles):
        flow = replace(f, step=ANGEL)
    else:
        flow = got[1] if got is not None else replace(f, step=PLAY)
    return replace(s, table=Table(dealt, left, t.deck_ordered, piles, tuple(hands), t.laid,
                                  t.face_down), flow=flow, seq=s.seq + 1)


def _dolphins_drawn(s: State, e: ev.DeckDrawn, ordered: bool, dealt: Hand, left: int,
                    hands: list[Hand]) -> tuple[Hand, int]:
    """R-EV-DOLPHINS, in effect for the player whose draw discarded a collector or the
    seahorse: the deck's top card (the deck after the draw: ``dealt``, ``left``, as
    :func:`_draw_from_deck` takes it) goes to their hand too (``hands``, changed in place),
    unless the deck is empty. The deck after it."""
    dolphins = e.dolphins_drew
    if left:
        if dolphins is None:
            other = e.cards[1] if e.cards[0] == e.kept else e.cards[0]
            raise illegal(s, "R-X-NOEFFECT", f"the Dolphins trigger on the discarded "
                                             f"{other}: dolphins_drew must be the "
                                             "deck's top card")
        dealt, left = _draw_from_deck(s, ordered, dealt, left, (dolphins,))
        hands[e.player] += (dolphins,)
    elif dolphins is not None:
        raise illegal(s, "R-EV-DOLPHINS", "the deck is empty: dolphins_drew must be null")
    return dealt, left


# ---------------------------------------------------------------- step 2: duos

#: the rule a pair of the wrong kinds breaks, by event type (RULES.md §17)
_PAIR_RULE = {"lobster_played": "R-X-PAIRS", "jellyfish_played": "R-X-PAIRS"}


def _want(kinds: tuple[str, str]) -> str:
    return " and ".join(kinds) if kinds[0] != kinds[1] else f"two {kinds[0]}s"


def _lay_pair(s: State, e: Any) -> Table:
    """Check the pair (R-DUO-PAIR, R-X-PAIRS) and move it from the hand to the laid-down
    units: the table after it."""
    hands, laid = _laid(s, e)
    t = s.table
    return replace(t, hands=tuple(hands), laid=laid)


def _laid(s: State, e: Any) -> tuple[list[Hand], tuple[tuple[Pair, ...], ...]]:
    """:func:`_lay_pair` as the hands (a list, to change further) and the laid units after
    it: a pair's effect changes them before the one table is built."""
    f = s.flow
    if f.step != PLAY or f.phase != ROUND or f.due or e.player != f.player:
        _take_done(s, e)                        # raises the error due
    cards = e.cards
    a, b = cards
    if (a, b) not in s.game.ruleset.pair_codes[type(e)]:
        tag = ev.TAGS[type(e)]
        allowed = s.game.ruleset.pair_kinds(tag)
        ka, kb = KIND[a], KIND[b]
        kinds = (ka, kb) if ka <= kb else (kb, ka)
        rule = _PAIR_RULE.get(tag, "R-DUO-PAIR")
        if tag == "crabs_played" and kinds == ("crab", "lobster"):
            rule = "R-X-LOBSTER-NOTCRAB"                  # a crab + lobster is no crab pair
        raise illegal(s, rule, f"{tag} needs {' or '.join(_want(k) for k in allowed)}, not "
                               f"{a} and {b}")
    t = s.table
    player = e.player
    hand = without_all(t.hands[player], cards)
    if hand is None:
        raise illegal(s, "R-DUO-PAIR", f"{seat_name(s, player)} does not hold {a} and {b}")
    hands = [*t.hands]                          # replace_at, inline: two calls less
    hands[player] = hand
    laid = [*t.laid]
    laid[player] += ((a, b),)
    return hands, tuple(laid)


def _crabs_played(s: State, e: ev.CrabsPlayed) -> State:
    if e.takes is not None:
        _no_pepper_field(s, e, "takes")
    hands, laid = _laid(s, e)
    t = s.table
    event = s.game.table_event
    if event is not None:           # R-EV-HERMIT-CRAB in effect (R-EV-APPLY, as State.effects)
        if event == "hermit-crab" or "hermit-crab" in s.game.held[e.player]:
            return _hermit_crab(s, e, t, hands, laid)
        if e.takes is not None:
            raise illegal(s, "R-EV-HERMIT-CRAB", "the Hermit Crab is not in effect for "
                                                 f"{seat_name(s, e.player)}: takes must be absent")
    piles = t.piles
    if not piles[0] and not piles[1]:
        if e.pile is not None or e.took is not None or e.index is not None:
            raise illegal(s, "R-DUO-CRAB", "both discard piles are empty: pile, took and index "
                                           "must be null")
        return replace(s, table=replace(t, piles=piles, hands=tuple(hands), laid=laid),
                       seq=s.seq + 1)
    if e.pile is None or e.took is None:
        raise illegal(s, "R-DUO-NOEFFECT", "a discard pile has cards, so the crab pair must take "
                                           "one (pile and took)")
    pile = piles[e.pile]
    if not pile:
        raise illegal(s, "R-DUO-CRAB", f"discard pile {e.pile} is empty; choose a pile that has cards")
    pos = _pile_pos(s, pile, e.pile, e.took, e.index, "R-DUO-CRAB")
    hands[e.player] += (e.took,)
    rest = pile[:pos] + pile[pos + 1:]
    piles = (piles[0], rest) if e.pile else (rest, piles[1])
    return replace(s, table=replace(t, piles=piles, hands=tuple(hands), laid=laid),
                   seq=s.seq + 1)


def _hermit_crab(s: State, e: ev.CrabsPlayed, t: Table, hands: list[Hand],
                 laid: tuple[tuple[Pair, ...], ...]) -> State:
    """R-EV-HERMIT-CRAB: one card of the player's choice from pile 0, then from pile 1, from
    each pile that has cards (``t`` the table before the pair, ``hands`` and ``laid`` after
    it)."""
    if e.pile is not None or e.took is not None or e.index is not None:
        raise illegal(s, "R-EV-HERMIT-CRAB", "under the Hermit Crab the takes are in takes: "
                                             "pile, took and index must be null")
    want = [i for i in (0, 1) if t.piles[i]]
    takes = e.takes or ()
    got = [x.pile for x in takes]
    if got != want:
        if set(want) - set(got) and not (set(got) - set(want)) and len(got) == len(set(got)) \
                and got == sorted(got):
            raise illegal(s, "R-X-NOEFFECT", f"the Hermit Crab takes from every pile that has "
                                             f"cards: piles {want}, pile 0 first")
        raise illegal(s, "R-EV-HERMIT-CRAB", f"the Hermit Crab takes one card from each pile "
                                             f"that has cards, pile 0 first: piles {want}, not "
                                             f"{got}")
    piles = t.piles
    hand = hands[e.player]
    for x in takes:
        pile = piles[x.pile]
        pos = _pile_pos(s, pile, x.pile, x.card, x.index, "R-EV-HERMIT-CRAB")
        left = pile[:pos] + pile[pos + 1:]
        piles = (piles[0], left) if x.pile else (left, piles[1])
        hand = hand + (x.card,)
    hands[e.player] = hand
    return replace(s, table=replace(t, piles=piles, hands=tuple(hands), laid=laid),
                   seq=s.seq + 1)


def _pile_pos(s: State, pile: tuple[str, ...], i: int, card: str, index: int | None, rule: str) -> int:
    """Where ``card`` is in discard pile ``i`` (``index`` from the top, or the copy nearest
    the top), as R-DUO-CRAB reads it."""
    if index is not None:
        if index >= len(pile):
            raise illegal(s, rule, f"discard pile {i} holds {len(pile)} cards; index {index} "
                                   "is beyond its bottom")
        pos = len(pile) - 1 - index
        if pile[pos] != card:
            raise illegal(s, rule, f"card {index} from the top of discard pile {i} is "
                                   f"{pile[pos]}, not {card}")
        return pos
    pos = next((k for k in range(len(pile) - 1, -1, -1) if pile[k] == card), -1)
    if pos < 0:
        raise illegal(s, rule, f"discard pile {i} holds no {card}")
    return pos


def boats_give_take(s: State, t: Table | None = None) -> bool:
    """Whether a boat pair laid now gives its extra take: something can be taken, and it is
    not a final turn or the ruling lets final turns have it (R-DUO-BOAT, R-LAST-1)."""
    t = t or s.table
    return t.can_take() and (s.flow.call is None or s.game.ruleset.boats_in_final_turns)


def _boats_played(s: State, e: ev.BoatsPlayed) -> State:
    hands, laid = _laid(s, e)
    t = s.table                 # the deck and piles after the pair (boats_give_take's)
    f = s.flow
    if boats_give_take(s, t):
        got = _kept(f.round, f.turn, f.player)  # a plain turn's boat flow is shared
        f = got[2] if got is not None and got[1] is f else replace(f, step=BOAT_TAKE)
    return replace(s, table=replace(t, hands=tuple(hands), laid=laid), flow=f, seq=s.seq + 1)


def _fish_played(s: State, e: ev.FishPlayed) -> State:
    if e.also_drew is not None:
        _no_pepper_field(s, e, "also_drew")
    hands, laid = _laid(s, e)
    t = s.table
    if not t.left:
        if e.drew is not None:
            raise illegal(s, "R-DUO-FISH", "the deck is empty: drew must be null")
        if e.also_drew is not None:
            raise illegal(s, "R-EV-SUNFISH", "the deck is empty: also_drew must be null")
        return replace(s, table=replace(t, hands=tuple(hands), laid=laid), seq=s.seq + 1)
    if e.drew is None:
        raise illegal(s, "R-DUO-NOEFFECT", "the deck has cards, so the fish pair must draw one (drew)")
    dealt, left = _draw_from_deck(s, t.deck_ordered, t.dealt, t.left, (e.drew,))
    hands[e.player] += (e.drew,)
    event = s.game.table_event           # R-EV-SUNFISH in effect (R-EV-APPLY, as State.effects)
    if event is not None and (event == "sunfish" or "sunfish" in s.game.held[e.player]):
        if left:
            if e.also_drew is None:
                raise illegal(s, "R-X-NOEFFECT", "under the Sunfish the fish pair draws a "
                                                 "second card (also_drew)")
            dealt, left = _draw_from_deck(s, t.deck_ordered, dealt, left, (e.also_drew,))
            hands[e.player] += (e.also_drew,)
        elif e.also_drew is not None:
            raise illegal(s, "R-EV-SUNFISH", "the deck is empty: also_drew must be null")
    elif e.also_drew is not None:
        raise illegal(s, "R-EV-SUNFISH", "the Sunfish is not in effect for "
                                         f"{seat_name(s, e.player)}: also_drew must be absent")
    return replace(s, table=replace(t, dealt=dealt, left=left, hands=tuple(hands), laid=laid),
                   seq=s.seq + 1)


def shark_targets(s: State, t: Table | None = None) -> list[int]:
    """Seats the player to act may steal from: others, hand not empty, not revealed (R-LAST-3)."""
    t = t or s.table
    f = s.flow
    hidden = f.revealed | f.protected                            # R-LAST-3, R-EV-PROTECT
    return [v for v in range(len(t.hands))
            if v != f.player and t.hands[v] and not hidden & (1 << v)]


def _shark_played(s: State, e: ev.SharkPlayed) -> State:
    v = e.victim
    _victim_seat(s, v)
    hands, laid = _laid(s, e)
    t = s.table                 # the player's own hand aside, the same hands as after the pair
    targets = shark_targets(s, t)
    if v is not None and v != e.player:
        if s.flow.protected & (1 << v):
            raise illegal(s, "R-EV-PROTECT", f"{seat_name(s, v)} is protected by the Coral Reef")
        if s.flow.revealed & (1 << v):      # the rule that names revealed hands, not the duo's
            raise illegal(s, "R-LAST-3", f"{seat_name(s, v)} has revealed their hand: it "
                                         "cannot be stolen from (R-DUO-SHARK)")
    if not targets:
        if e.victim is not None or e.stole is not None:
            raise illegal(s, "R-DUO-SHARK", "no other player has a hand that can be stolen from "
                                            "(empty or revealed): victim and stole must be null")
        return replace(s, table=replace(t, hands=tuple(hands), laid=laid), seq=s.seq + 1)
    if e.victim is None or e.stole is None:
        raise illegal(s, "R-DUO-NOEFFECT", f"seats {targets} can be stolen from, so the shark pair "
                                           "must steal (victim and stole)")
    if v not in targets:
        why = "is the player" if v == e.player else "has an empty hand"
        raise illegal(s, "R-DUO-SHARK", f"{seat_name(s, v)} cannot be stolen from: {why}")  # type: ignore[arg-type]
    hand = without(hands[v], e.stole)
    if hand is None:
        raise illegal(s, "R-DUO-SHARK", f"{seat_name(s, v)} does not hold {e.stole}")
    hands[v] = hand
    hands[e.player] += (e.stole,)
    return replace(s, table=replace(t, hands=tuple(hands), laid=laid), seq=s.seq + 1)


# ---------------------------------------------------------------- Extra Salt (RULES.md §11)

def _allowed(s: State, e: Any) -> None:
    """A type this game's ruleset lacks is a format error (LOG_FORMAT.md)."""
    if s.flow.phase != NEW and ev.TAGS[type(e)] not in s.game.ruleset.tags:
        raise _unknown_in_game(s, e) or _format(s, f"{ev.TAGS[type(e)]} is not an event of "
                                                   "this game", "$")


def _lobster_played(s: State, e: ev.LobsterPlayed) -> State:
    """R-X-LOBSTER: look at the top n cards, keep one, the others go back, shuffled."""
    _allowed(s, e)
    hands, laid = _laid(s, e)
    t = s.table
    rules = s.game.ruleset
    n = min(rules.lobster_sees, t.left)
    given = e.deck
    if not n:                                                       # R-X-NOEFFECT
        if e.seen is not None or e.kept is not None or given:
            raise illegal(s, "R-X-LOBSTER", "the deck is empty: seen and kept must be null "
                                            "and deck absent")
        return replace(s, table=replace(t, hands=tuple(hands), laid=laid), seq=s.seq + 1)
    if e.seen is None or e.kept is None:
        raise illegal(s, "R-X-NOEFFECT", f"the deck has cards, so the lobster must take the "
                                         f"top {n} and keep one (seen and kept)")
    if len(e.seen) != n:
        raise illegal(s, "R-X-LOBSTER", f"the lobster takes the top {n} cards (min of "
                                        f"{rules.lobster_sees} and the deck), not {len(e.seen)}")
    if e.kept not in e.seen:
        raise illegal(s, "R-X-LOBSTER", f"kept {e.kept} is not one of the cards seen "
                                        f"{list(e.seen)}")
    dealt, left = _draw_from_deck(s, t.deck_ordered, t.dealt, t.left, e.seen)  # R-X-DRAW
    back = without(tuple(e.seen), e.kept)
    hands[e.player] += (e.kept,)
    after = replace(t, dealt=dealt, left=left, hands=tuple(hands), laid=laid)
    if not back:                                  # n = 1: nothing went back, no shuffle
        if given:
            raise illegal(s, "R-X-LOBSTER", "nothing went back into the deck: deck must be "
                                            "empty or absent")
        return replace(s, table=after, seq=s.seq + 1)
    rest = after.deck
    if given is not None:
        if sorted(given) != sorted((*rest, *back)):
            # a Counter of its own: deck_counter would keep every deck ever refused
            missing, extra = multiset_diff(given, Counter((*rest, *back)))
            raise illegal(s, "R-X-LOBSTER", f"deck must hold exactly the cards now in the deck;"
                                            f" missing {missing}, extra {extra}")
        deck, ordered = tuple(given), True
    elif t.deck_ordered:
        raise illegal(s, "R-X-DRAW", "the round's deck order was recorded, so the lobster's "
                                     "shuffle must give the new order (deck)")
    else:
        deck, ordered = tuple(sorted((*rest, *back))), False
    return replace(s, table=after.with_deck(deck, ordered), seq=s.seq + 1)


def _jellyfish_played(s: State, e: ev.JellyfishPlayed) -> State:
    """R-X-JELLYFISH: every other player is locked until this player's next turn."""
    _allowed(s, e)
    hands, laid = _laid(s, e)
    t, f = s.table, s.flow
    return replace(s, table=replace(t, hands=tuple(hands), laid=laid),
                   flow=replace(f, locks=f.locks | (1 << e.player)), seq=s.seq + 1)


def _starfish_played(s: State, e: ev.StarfishPlayed) -> State:
    """R-X-TRIO: a pair the player could lay now and a starfish, one unit, no effect."""
    _allowed(s, e)
    _take_done(s, e)
    rules = s.game.ruleset
    a, b = e.cards
    if (a, b) not in rules.free_pair_codes:     # else a pair only an event may make legal
        ka, kb = KIND[a], KIND[b]
        kinds = (ka, kb) if ka <= kb else (kb, ka)
        effects = s.effects(e.player)
        if not any(kinds in allowed and rules.pair_allowed(tag, effects)
                   for tag, allowed in rules.pairs):
            raise illegal(s, "R-X-TRIO", f"{a} and {b} are no pair {seat_name(s, e.player)} "
                                         "could lay down now")
    if KIND[e.starfish] != "starfish":
        raise illegal(s, "R-X-TRIO", f"a trio's third card is a starfish, not {e.starfish}")
    t = s.table
    hand = without_all(t.hands[e.player], (a, b, e.starfish))
    if hand is None:
        if without(t.hands[e.player], e.starfish) is None:
            raise illegal(s, "R-X-TRIO", f"{seat_name(s, e.player)} does not hold {e.starfish}")
        raise illegal(s, "R-DUO-PAIR", f"{seat_name(s, e.player)} does not hold {a} and {b}")
    t = replace(t, hands=replace_at(t.hands, e.player, hand),
                laid=replace_at(t.laid, e.player, t.laid[e.player] + ((a, b, e.starfish),)))
    return replace(s, table=t, seq=s.seq + 1)


def _forced_drawn(s: State, e: ev.ForcedDrawn) -> State:
    """R-X-JELLYFISH-TURN: the forced take, the deck's top card (nothing from an empty deck)."""
    _allowed(s, e)
    f = _in_turn(s, e)
    if f.step == ANGEL:
        _angel_due(s, e)
    if f.step != FORCED:
        raise illegal(s, "R-X-JELLYFISH-TURN", "forced_drawn is only the first event of a "
                                               "forced turn, and this turn is not forced"
                      if f.step != FORCED_DONE else "a forced turn takes one card only")
    t = s.table
    if not t.left:
        if e.card is not None:
            raise illegal(s, "R-X-JELLYFISH-TURN", "the deck is empty: card must be null")
        return replace(s, flow=replace(f, step=FORCED_DONE), seq=s.seq + 1)
    if e.card is None:
        raise illegal(s, "R-X-JELLYFISH-TURN", "the deck has cards: the forced take is its top card")
    dealt, left = _draw_from_deck(s, t.deck_ordered, t.dealt, t.left, (e.card,))
    hands = replace_at(t.hands, e.player, t.hands[e.player] + (e.card,))
    return replace(s, table=replace(t, dealt=dealt, left=left, hands=hands),
                   flow=replace(f, step=FORCED_DONE), seq=s.seq + 1)


def forced_turn(s: State, f: Flow, player: int) -> bool:
    """Whether ``player``'s turn beginning now is forced: a lock by another player lasts
    (R-X-JELLYFISH-TURN, R-X-JELLYFISH-MANY). ``f.locks`` no longer holds their own lock."""
    if f.protected & (1 << player):                             # R-EV-PROTECT
        return False
    return bool(f.locks & ~(1 << player)) if not s.game.ruleset.lock_hits_owner else bool(f.locks)


# ---------------------------------------------------------------- Extra Pepper (RULES.md §14)

def _angelfish_taken(s: State, e: ev.AngelfishTaken) -> State:
    """R-EV-ANGELFISH: one of the two same-colour pile tops, right after the take step."""
    _allowed(s, e)
    f = _in_turn(s, e)
    if f.step == FORCED or f.step == FORCED_DONE:
        _not_in_forced_turn(s, e)
    if f.step != ANGEL:
        raise illegal(s, "R-EV-ANGELFISH", "no Angelfish take is due here (it follows a take "
                                           "step that leaves two same-colour pile tops)")
    t = s.table
    pile = t.piles[e.pile]
    if pile[-1] != e.card:
        raise illegal(s, "R-EV-ANGELFISH", f"the top of discard pile {e.pile} is {pile[-1]}, "
                                           f"not {e.card}")
    t = replace(t, piles=replace_at(t.piles, e.pile, pile[:-1]),
                hands=replace_at(t.hands, e.player, t.hands[e.player] + (e.card,)))
    return replace(s, table=t, flow=replace(f, step=PLAY), seq=s.seq + 1)


def _shell_face_down(s: State, e: ev.ShellFaceDown) -> State:
    """R-EV-CORAL-REEF: a shell from the hand, face down; protected to the round's end."""
    _allowed(s, e)
    f = _take_done(s, e)
    if "coral-reef" not in s.effects(e.player):
        raise illegal(s, "R-EV-CORAL-REEF", f"the Coral Reef is not in effect for "
                                            f"{seat_name(s, e.player)}")
    t = s.table
    if t.face_down[e.player] is not None:               # (Ruling, BGA) one per round
        raise illegal(s, "R-EV-CORAL-REEF", "one face-down shell per player per round (Ruling)")
    if KIND[e.card] != "shell":
        raise illegal(s, "R-EV-CORAL-REEF", f"only a shell is placed face down, not {e.card}")
    hand = without(t.hands[e.player], e.card)
    if hand is None:
        raise illegal(s, "R-EV-CORAL-REEF", f"{seat_name(s, e.player)} does not hold {e.card}")
    t = replace(t, hands=replace_at(t.hands, e.player, hand),
                face_down=replace_at(t.face_down, e.player, e.card))
    return replace(s, table=t, flow=replace(f, protected=f.protected | (1 << e.player)),
                   seq=s.seq + 1)


def _rodeo_pair(s: State, e: Any) -> Table:
    """R-EV-WATER-RODEO: the pair is legal only for a player the event is in effect for."""
    _allowed(s, e)
    _take_done(s, e)
    if not s.game.ruleset.pair_allowed(ev.TAGS[type(e)], s.effects(e.player)):
        raise illegal(s, "R-EV-WATER-RODEO", f"the Water Rodeo is not in effect for "
                                             f"{seat_name(s, e.player)}")
    for c in e.cards:
        if KIND[c] != ("swimmer" if type(e) is ev.SwimmersPlayed else "shark"):
            raise illegal(s, "R-X-PAIRS", f"{ev.TAGS[type(e)]} needs two "
                                          f"{'swimmers' if type(e) is ev.SwimmersPlayed else 'sharks'}"
                                          f", not {e.cards[0]} and {e.cards[1]}")
    return _lay_pair(s, e)


def swimmer_targets(s: State, t: Table | None = None) -> list[int]:
    """R-EV-WATER-RODEO-SWIMMERS: others with a hand, not revealed, not protected."""
    return shark_targets(s, t)


def sharks_targets(s: State, t: Table | None = None) -> list[int]:
    """R-EV-WATER-RODEO-SHARKS: others not revealed, not protected, with a laid-down pair
    (a trio's pair does not count)."""
    t = t or s.table
    f = s.flow
    hidden = f.revealed | f.protected
    return [v for v in range(s.n) if v != f.player and not hidden & (1 << v)
            and any(len(u) == 2 for u in t.laid[v])]


def _victim_seat(s: State, v: int | None) -> None:
    """A victim seat outside the game (an event that skipped :func:`events.validate`, or a
    negative one made in Python) is the LogFormatError (LOG-FORMAT) validate gives, same
    reason and path; checked before any rule, as validate runs before the rules."""
    if v is not None and not 0 <= v < len(s.game.players):
        raise ev.seat_out_of_range(v, s.n, "$.victim", **_place(s))


def _victim_checks(s: State, e: Any, targets: list[int], revealed_rule: str, rule: str) -> None:
    v = e.victim
    if v == e.player:
        raise illegal(s, rule, "the player cannot choose themselves")
    if s.flow.protected & (1 << v):
        raise illegal(s, "R-EV-PROTECT", f"{seat_name(s, v)} is protected by the Coral Reef")
    if s.flow.revealed & (1 << v):
        raise illegal(s, revealed_rule, f"{seat_name(s, v)} has revealed their hand")
    if v not in targets:
        raise illegal(s, rule, f"{seat_name(s, v)} cannot be chosen")


def _swimmers_played(s: State, e: ev.SwimmersPlayed) -> State:
    """R-EV-WATER-RODEO-SWIMMERS: look at a hand, then swap one card or pass."""
    _victim_seat(s, e.victim)
    t = _rodeo_pair(s, e)
    targets = swimmer_targets(s, t)
    rule = "R-EV-WATER-RODEO-SWIMMERS"
    if e.victim is None:
        if targets:
            raise illegal(s, "R-X-NOEFFECT", f"seats {targets} can be chosen, so the swimmer "
                                             "pair must choose one (victim)")
        if e.gave is not None or e.got is not None:
            raise illegal(s, rule, "nobody is chosen: gave and got must be null")
        return replace(s, table=t, seq=s.seq + 1)
    _victim_checks(s, e, targets, "R-LAST-3", rule)
    if (e.gave is None) != (e.got is None):
        raise illegal(s, rule, "gave and got are both null (a pass) or both codes (a swap)")
    if e.gave is None:
        return replace(s, table=t, seq=s.seq + 1)
    mine = without(t.hands[e.player], e.gave)
    if mine is None:
        raise illegal(s, rule, f"{seat_name(s, e.player)} does not hold {e.gave} (after laying "
                               "the swimmers)")
    theirs = without(t.hands[e.victim], e.got)  # type: ignore[arg-type]  # a swap: both codes
    if theirs is None:
        raise illegal(s, rule, f"{seat_name(s, e.victim)} does not hold {e.got}")
    hands = replace_at(t.hands, e.player, mine + (e.got,))
    hands = replace_at(hands, e.victim, theirs + (e.gave,))
    return replace(s, table=replace(t, hands=hands), seq=s.seq + 1)


def _sharks_played(s: State, e: ev.SharksPlayed) -> State:
    """R-EV-WATER-RODEO-SHARKS: one of the victim's laid-down pairs moves to the player."""
    _victim_seat(s, e.victim)
    t = _rodeo_pair(s, e)
    targets = sharks_targets(s, t)
    rule = "R-EV-WATER-RODEO-SHARKS"
    if e.victim is None:
        if targets:
            raise illegal(s, "R-X-NOEFFECT", f"seats {targets} can be chosen, so the shark pair "
                                             "must take a pair (victim and pair)")
        if e.pair is not None:
            raise illegal(s, rule, "nobody is chosen: pair must be null")
        return replace(s, table=t, seq=s.seq + 1)
    _victim_checks(s, e, [v for v in range(s.n) if v != e.player], rule, rule)
    if e.pair is None:
        raise illegal(s, rule, "a victim is chosen: pair names the laid-down pair taken")
    want = sorted(e.pair)
    laid = t.laid[e.victim]
    k = next((i for i, u in enumerate(laid) if len(u) == 2 and sorted(u) == want), None)
    if k is None:
        if any(len(u) == 3 and sorted(u[:2]) == want for u in laid):
            raise illegal(s, "R-X-TRIO-UNIT", f"{e.pair[0]} and {e.pair[1]} are the pair of a "
                                              "trio, which stays one unit")
        raise illegal(s, rule, f"{seat_name(s, e.victim)} has no laid-down pair "
                               f"{e.pair[0]} and {e.pair[1]}")
    unit = laid[k]
    lay = replace_at(t.laid, e.victim, laid[:k] + laid[k + 1:])
    lay = replace_at(lay, e.player, lay[e.player] + (unit,))
    return replace(s, table=replace(t, laid=lay), seq=s.seq + 1)


def places(totals: Sequence[int]) -> tuple[int | None, int | None]:
    """R-EV-PLACE: (first place, last place) by game totals; a tie gives no place."""
    hi, lo = max(totals), min(totals)
    return (totals.index(hi) if totals.count(hi) == 1 else None,
            totals.index(lo) if totals.count(lo) == 1 else None)


def _award(s: State) -> ev.EventAwarded:
    """R-EV-AWARD steps 1 and 2 as the derived ``event_awarded``."""
    g = s.game
    first, last = places(g.totals)
    place = g.ruleset.first_place
    discarded = tuple([ev.EventDiscard(player=p, event=code)
                       for p, held in enumerate(g.held) for code in held
                       if (first if place[code] else last) != p])
    table_event: str = g.table_event  # type: ignore[assignment]  # awarded only when one is in play
    return ev.EventAwarded(round=s.flow.round, event=table_event,
                           to=first if place[table_event] else last, discarded=discarded)


def _award_matches(s: State, e: ev.EventAwarded) -> bool:
    """Whether ``e`` is the ``event_awarded`` due after ``s``, field by field as
    :func:`_check_derived` compares it with :func:`next_derived`'s (R-DERIVED), without
    building that event: :func:`_award`'s steps on ``e``'s own fields."""
    if e.round != s.flow.round or e.event != s.game.table_event:
        return False
    first, last = places(s.game.totals)
    place = s.game.ruleset.first_place
    if e.to != (first if place[e.event] else last):
        return False
    got = e.discarded
    if type(got) is not tuple:      # (not as decoded: _check_derived compares it whole)
        return False
    i, n = 0, len(got)
    for p, held in enumerate(s.game.held):
        for code in held:
            if (first if place[code] else last) != p:
                if (i == n or type(got[i]) is not ev.EventDiscard or got[i].player != p
                        or got[i].event != code):
                    return False
                i += 1
    return i == n


def _event_awarded(s: State, e: ev.EventAwarded) -> State:
    if s.flow.due != "event_awarded" or not _award_matches(s, e):
        _check_derived(s, e)            # names the first field that differs
    held = s.game.held
    gone = [x.event for x in e.discarded]
    if gone:
        held = tuple([tuple([c for c in h if c not in gone]) for h in held])
    if e.to is None:
        gone.append(e.event)
    else:
        held = replace_at(held, e.to, held[e.to] + (e.event,))
    discards = s.game.event_discards + tuple(gone)
    deck = s.game.event_deck
    if not deck:                                                # R-EV-RESHUFFLE (Ruling, BGA)
        deck, discards = tuple(sorted(discards)), ()
    keep = e.to if e.to is not None and len(held[e.to]) == 2 else None
    return replace(s, game=replace(s.game, held=held, event_deck=deck, event_discards=discards,
                                   keep_due=keep, table_event=None),
                   seq=s.seq + 1, flow=replace(s.flow, due=None))


def _event_kept(s: State, e: ev.EventKept) -> State:
    """R-EV-AWARD step 4: the player holding two events keeps one."""
    _allowed(s, e)
    _expect_no_derived(s)
    if s.game.keep_due is None or s.flow.phase != BETWEEN:
        raise illegal(s, "R-EV-AWARD", "nobody holds two events: no event_kept is due")
    if e.player != s.game.keep_due:
        raise illegal(s, "R-EV-AWARD", f"{seat_name(s, s.game.keep_due)} chooses, not "
                                       f"{seat_name(s, e.player)}")
    held = s.game.held[e.player]
    if e.event not in held:
        raise illegal(s, "R-EV-AWARD", f"{seat_name(s, e.player)} holds {', '.join(held)}, not "
                                       f"{e.event}")
    other = held[0] if held[1] == e.event else held[1]
    g = s.game
    return replace(s, game=replace(g, held=replace_at(g.held, e.player, (e.event,)),
                                   keep_due=None, event_discards=g.event_discards + (other,)),
                   seq=s.seq + 1)


# ---------------------------------------------------------------- step 3: end the turn

def _turn_ended(s: State, e: ev.TurnEnded) -> State:
    """The turn ends without a call (R-FLOW): a mermaid win, else the next turn, a final
    turn's end or the round's deck-out. (A call ends its turn in :func:`_end_turn`.)"""
    f = s.flow
    mermaid_check = True
    try:                                        # _kept, inline: a call less per turn
        got = _PLAIN[f.round][f.turn][f.player]
    except IndexError:
        got = None
    if got is None or got[1] is not f or e.player != f.player:
        got = None                              # not a plain turn's play (no call, no lock)
        if f.phase != ROUND or e.player != f.player or f.step != PLAY or f.due:
            if f.phase == ROUND and e.player == f.player and f.step == FORCED_DONE and not f.due:
                # R-X-FLOW-FORCED: a forced turn ends; R-X-JELLYFISH-TURN (Ruling): mermaid
                # win checked
                mermaid_check = s.game.ruleset.mermaid_win_after_forced_turn
            else:
                _take_done(s, e)                # raises the error due
    t = s.table
    player = f.player
    # :func:`_mermaid_win`'s first test here: most hands hold too few mermaids to win
    if mermaid_check and t.hands[player].count(MERMAID) >= s.game.ruleset.fewest_mermaids_to_win:
        won = _mermaid_win(s, None)
        if won is not None:
            return won
    seq = s.seq + 1
    if got is not None or f.call is None or f.call != "last_chance":  # no final turns
        if not t.left:                                                      # R-END-3
            return replace(s, seq=seq, flow=replace(f, ender=player, due="round_scored",
                                                    ending="deck_out"))
        # the deck has cards, so the next turn begins with its take
        player += 1
        if player == len(t.hands):
            player = 0
        if got is not None:                     # a plain turn: so is the next one
            k = _NEXT if player else _NEXT_FIRST
            take = got[k]
            if take is None:
                take = got[k] = _plain_take(f.round, f.turn + 1, player)
            return replace(s, seq=seq, flow=take)
        if f.locks:
            return _next_turn(s, f, player, seq)
        return replace(s, seq=seq, flow=replace(f, player=player, turn=f.turn + 1, step=TAKE))
    # LAST CHANCE called before: a final turn ends
    left = f.final_left[1:]
    f = replace(f, revealed=f.revealed | (1 << player), final_left=left)       # R-LAST-3
    if not left or (s.game.ruleset.deck_out_in_final_turns and not t.left):
        return replace(s, seq=seq, flow=replace(f, ender=f.caller, due="round_scored",
                                                ending="last_chance"))
    return _next_turn(s, f, left[0], seq)


#: the flows of a plain turn, one with nothing in play but its round, turn, player and step
#: (no call, reveal, lock or protection; the other fields as a round starts them): one object
#: each, shared by every state that has it, so that a turn's events find the flow they lead
#: to instead of making it. [round][turn][player] -> [the flow of its take, of its play, after
#: a boat pair that gives a take, then the next plain turn's take flow: the next seat's, seat
#: 0's (None until a turn end asks for it)] or None; a flow is one of them if it is the object
#: kept (the take flows of the next turn are those kept for it)
_PLAIN: list[list[list[list[Any] | None]]] = [[] for _ in range(32)]
_NEXT, _NEXT_FIRST = 3, 4


def _kept(round: int, turn: int, player: int) -> list[Any] | None:
    """The flows of that plain turn kept in :data:`_PLAIN`, if any."""
    try:
        return _PLAIN[round][turn][player]
    except IndexError:
        return None


def _plain_take(round: int, turn: int, player: int) -> Flow:
    """The flow of a plain turn whose take is due, ``Flow(round, turn, player, TAKE)``: the
    one kept in :data:`_PLAIN` (kept with its next flows for rounds < 32, turns < 256 and
    seats < 8; any other is made anew, a negative seat too, which the checks refuse)."""
    if not (0 < round < len(_PLAIN) and 0 < turn < 256 and 0 <= player < 8):
        return Flow(round=round, turn=turn, player=player, step=TAKE, phase=ROUND)
    got = _kept(round, turn, player)
    if got is not None:
        kept: Flow = got[0]
        return kept
    take = Flow(round=round, turn=turn, player=player, step=TAKE, phase=ROUND)
    row = _PLAIN[round]
    while len(row) <= turn:
        row.append([None] * 8)
    row[turn][player] = [take, replace(take, step=PLAY), replace(take, step=BOAT_TAKE), None, None]
    return take


def _called(s: State, e: Any) -> State:
    _take_done(s, e)
    f, t = s.flow, s.table
    call = "stop" if type(e) is ev.StopCalled else "last_chance"
    if f.call is not None:
        raise illegal(s, "R-LAST-1", f"nobody may call during the final turns of LAST CHANCE "
                                     f"(called by {seat_name(s, f.caller)})")  # type: ignore[arg-type]
    if not t.left and not s.game.ruleset.call_before_deck_out:
        raise illegal(s, "R-END-3", "the deck is empty: the round ends in a deck-out")
    rules = s.game.ruleset
    # R-X-SCORE: the caller's whole breakdown, which the round's end the call brings (or
    # the caller's last turn ends) finds unchanged in _breakdown's memo
    pts = (_breakdown(s, e.player).card_points if rules.extra_scoring
           else player_points(s, e.player))
    need = rules.call_threshold
    if pts < need:
        raise illegal(s, "R-END-2", f"{call.upper().replace('_', ' ')} needs at least {need} card "
                                    f"points; {seat_name(s, e.player)} has {pts}")
    if s.game.table_event is not None:
        effects = s.effects(e.player)
        need = rules.call_threshold_for(effects)
        if pts < need:
            raise illegal(s, "R-EV-TREASURE-CHEST", f"under the Treasure Chest a call needs at "
                                                    f"least {need} card points; "
                                                    f"{seat_name(s, e.player)} has {pts}")
        if call == "stop" and not rules.stop_allowed(effects):
            raise illegal(s, "R-EV-DIODON-FISH", "under the Diodon Fish the player may not "
                                                 "call STOP (LAST CHANCE is allowed)")
    return _end_turn(s, call)


def _end_turn(s: State, call: str) -> State:
    """The turn's end by a call: mermaid win, else the call (R-STOP, R-LAST-1)."""
    f = s.flow
    player = f.player
    won = _mermaid_win(s, call)
    if won is not None:
        return won
    seq = s.seq + 1
    if call == "stop":                                                      # R-STOP
        return replace(s, seq=seq, flow=replace(f, caller=player, call=call, ender=player,
                                                due="round_scored", ending="stop"))
    left = _seats_after(player, len(s.table.hands))                         # R-LAST-1
    f = replace(f, caller=player, call=call, revealed=f.revealed | (1 << player),
                final_left=left)
    return _next_turn(s, f, left[0], seq)


def _mermaid_win(s: State, call: str | None) -> State | None:
    """R-MERMAID-WIN at the end of the turn in play (``call``: the call that ends it, if
    any): the state after it if the player's mermaids win, else None."""
    f = s.flow
    player = f.player
    if (s.table.hands[player].count(MERMAID) >= s.game.ruleset.fewest_mermaids_to_win
            and _mermaids_win(s, player)):
        # a call that ends the turn still reveals the caller's hand (R-END-2)
        shown = f.revealed | (1 << player) if call is not None else f.revealed
        return replace(s, seq=s.seq + 1, flow=replace(f, due="game_ended",
                                                      mermaid_winner=player, revealed=shown))
    return None


def _mermaids_win(s: State, seat: int) -> bool:
    """R-MERMAID-WIN with R-EV-DANCE-OF-THE-MERMAIDS: whether the seat's mermaids win now.
    (A hand with fewer than ``Ruleset.fewest_mermaids_to_win`` never does: an event only
    lowers the count needed.)"""
    rules = s.game.ruleset
    mermaids = s.table.hands[seat].count(MERMAID)
    return mermaids >= (rules.mermaids_to_win if s.game.table_event is None
                        else rules.mermaids_to_win_for(s.effects(seat)))


def _seats_after(player: int, n: int) -> tuple[int, ...]:
    """The other seats of ``n`` in turn order after ``player`` (the final turns, R-LAST-1)."""
    return tuple((player + i) % n for i in range(1, n))


def _next_turn(s: State, f: Flow, player: int, seq: int) -> State:
    if f.locks:
        f = replace(f, locks=f.locks & ~(1 << player))   # the player's own lock ends
        if forced_turn(s, f, player):
            return replace(s, seq=seq, flow=replace(f, player=player, turn=f.turn + 1,
                                                    step=FORCED))
    step = TAKE if s.table.can_take() or not s.game.ruleset.skip_impossible_take else PLAY
    if (step is TAKE and f.caller is None and f.call is None and not f.final_left
            and not f.revealed and f.ender is None and f.due is None and f.ending is None
            and f.mermaid_winner is None and not f.locks and not f.protected):
        turn = f.turn + 1                       # a plain turn again (a lock ended)
        return replace(s, seq=seq, flow=_plain_take(f.round, turn, player))
    return replace(s, seq=seq, flow=replace(f, player=player, turn=f.turn + 1, step=step))


# ---------------------------------------------------------------- scoring a player

#: seat -> (state, its breakdown) last scored by :func:`player_breakdown` (the same state's
#: seat asked for again; states are immutable and kept here, so the same object is the same
#: state). A round's end has its own memo, :func:`round_breakdowns`.
_last_scored: dict[int, tuple[State, Breakdown | ExtraBreakdown]] = {}


def player_breakdown(s: State, seat: int) -> Breakdown | ExtraBreakdown:
    """The seat's card points and colour bonus now, by the game's scoring (R-SCORE, or
    R-X-SCORE with the events in effect for the seat): :func:`scoring.holding_breakdown`."""
    last = _last_scored.get(seat)
    if last is not None and last[0] is s:
        return last[1]
    b = _breakdown(s, seat)
    _last_scored[seat] = (s, b)
    return b


def _breakdown(s: State, seat: int) -> Breakdown | ExtraBreakdown:
    """:func:`player_breakdown`, scored. By RULES.md §12, the seat's last breakdown is
    given again for the same holding and events (a call's, at the round's end it brings),
    and a holding that :func:`player_points` counted last for the seat is scored from those
    counts, as :func:`scoring.holding_breakdown` scores."""
    t, rules = s.table, s.game.ruleset
    hand, laid = t.hands[seat], t.laid[seat]
    if not rules.extra_scoring:
        return holding_breakdown(hand, laid, rules)
    if s.game.table_event is None:
        effects, face_down = _NO_EFFECTS, 0
    else:
        effects = s.effects(seat)
        face_down = 0 if t.face_down[seat] is None else 1
    got = _last_breakdown.get(seat)
    if (got is not None and got[0] is hand and got[1] is laid and got[2] is effects
            and got[3] == face_down and got[4] is rules):
        same: ExtraBreakdown = got[5]
        return same
    last = _last_points.get(seat)
    if last is not None and last[0] is hand and last[1] is laid and last[6] is not None:
        in_hand, kinds, colors, units, trios = last[6]
    else:
        in_hand, kinds, colors, units, trios = extra_counts(hand, laid)
    b = score_extra_counts(in_hand, kinds, colors, units, trios, effects, face_down,
                           rules.starfish_in_hand_scores)
    _last_breakdown[seat] = (hand, laid, effects, face_down, rules, b)
    return b


#: seat -> (hand, laid, the events in effect, face-down shells, ruleset, breakdown) of the
#: last RULES.md §12 :func:`_breakdown` (compared by identity: kept here, these objects
#: stay alive): a call's, found again at the round's end it brings
_last_breakdown: dict[int, tuple[Any, ...]] = {}


def player_points(s: State, seat: int) -> int:
    """The seat's card points now (what R-END-2 compares with the threshold)."""
    last = _last_points.get(seat)
    if last is not None and last[8] is s:       # the same state: the call check, then the view
        same: int = last[5]
        return same
    t, rules = s.table, s.game.ruleset
    hand, laid = t.hands[seat], t.laid[seat]
    held = s.game.held[seat] if s.game.held else None
    # the same hand, laid units and events as the seat's last call: the same objects, as
    # the engine's states share a seat's tuples until they change (the player's view, then
    # the next events of the turn)
    if (last is not None and last[0] is hand and last[1] is laid and last[2] is rules
            and last[3] == s.game.table_event and last[4] is held):
        _last_points[seat] = last[:8] + (s,)
        same = last[5]
        return same
    counts = None
    effects = _NO_EFFECTS
    if not rules.extra_scoring:                 # R-SCORE: memoised, the same points
        pts = card_points(hand, laid)
    else:                                       # R-X-SCORE
        if (last is not None and last[1] is laid and last[6] is not None
                and len(hand) == len(last[0]) + 1 and hand[:-1] == last[0]):
            counts = counts_with(last[6], hand[-1])  # a take: one card more than last time
        else:
            counts = extra_counts(hand, laid)
        if s.game.table_event is not None:           # the same events as last time: a round long
            if last is not None and last[4] is held and last[3] == s.game.table_event:
                effects = last[7]
            else:
                effects = scoring_effects(s.effects(seat))
        pts = extra_card_points(counts[0], counts[1], counts[2], counts[3], effects,
                                rules.starfish_in_hand_scores)
    _last_points[seat] = (hand, laid, rules, s.game.table_event, held, pts, counts, effects, s)
    return pts


def player_counts(s: State, seat: int) -> tuple[list[int], list[int], list[int], int, int]:
    """The seat's holding as the count lists of :func:`scoring.extra_counts`, in a game
    scored by RULES.md §12 (``Ruleset.extra_scoring``): those :func:`player_points` scored
    (read only: they are kept for the next call)."""
    player_points(s, seat)
    counts: tuple[list[int], list[int], list[int], int, int] = _last_points[seat][6]
    return counts


#: seat -> (hand, laid, ruleset, table event, events held, card points, count lists or
#: None, the events in effect that change the scoring, the state) of the last
#: :func:`player_points` call (compared by identity: kept here, these objects stay alive);
#: :func:`_breakdown` scores a round's end from its counts when the hand and units are these
_last_points: dict[int, tuple[Any, ...]] = {}
_NO_EFFECTS: frozenset[str] = frozenset()


# ---------------------------------------------------------------- derived events

#: id of a round end's table -> (that table, the events held, the ruleset, the table event,
#: every seat's breakdown): :func:`round_breakdowns`' memo. The engine's check of
#: ``round_scored`` fills it and the read models take the same breakdowns; kept objects keep
#: their ids. Cleared when full (a game's round ends are read soon after they are checked).
_round_ends: dict[int, tuple[Any, ...]] = {}
ROUND_ENDS_KEPT = 256


def round_breakdowns(s: State) -> tuple[Breakdown | ExtraBreakdown, ...]:
    """Every seat's :func:`player_breakdown` in ``s`` (a round's end, R-SCORE / R-X-SCORE):
    scored once per round end, for the derived ``round_scored``, its check and the read
    models. Memoised by what the breakdowns depend on (the table, the events held, the
    ruleset and the table event), so a copy of ``s`` with another ``game_id`` finds it."""
    t, g = s.table, s.game
    got = _round_ends.get(id(t))
    if (got is not None and got[0] is t and got[1] is g.held and got[2] is g.ruleset
            and got[3] == g.table_event):
        scores: tuple[Breakdown | ExtraBreakdown, ...] = got[4]
        return scores
    scores = tuple([_breakdown(s, p) for p in range(len(t.hands))])
    if len(_round_ends) >= ROUND_ENDS_KEPT:
        _round_ends.clear()
    _round_ends[id(t)] = (t, g.held, g.ruleset, g.table_event, scores)
    return scores


def _round_scores(s: State) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(card points, colour bonus) per seat of :func:`round_breakdowns`."""
    scores = round_breakdowns(s)
    return tuple(map(_CARD_POINTS, scores)), tuple(map(_COLOR_BONUS, scores))


_CARD_POINTS, _COLOR_BONUS = attrgetter("card_points"), attrgetter("color_bonus")


def next_derived(s: State) -> ev.Event | None:
    """The derived event due after ``s`` (``round_scored`` / ``game_ended``), or None."""
    f = s.flow
    if f.due == "round_scored":
        card_pts, bonus = _round_scores(s)
        caller = None if f.ending == "deck_out" else f.caller
        ending: Any = f.ending          # set with the round's end, before round_scored is due
        points, won = round_points(ending, caller, card_pts, bonus)
        totals = [a + b for a, b in zip(s.game.totals, points)]
        return ev.RoundScored(round=f.round, ending=ending, caller=caller, caller_won=won,
                              card_points=card_pts, color_bonus=bonus,
                              points=tuple(points), totals=tuple(totals))
    if f.due == "event_awarded":
        return _award(s)
    if f.due == "game_ended":
        g = s.game
        if f.mermaid_winner is not None:
            return ev.GameEnded(reason="mermaids", winners=(f.mermaid_winner,), totals=g.totals)
        return ev.GameEnded(reason="target", winners=tuple(game_winners(g.totals, g.last_points)),
                            totals=g.totals)
    return None


def _round_scored_matches(s: State, e: ev.RoundScored) -> bool:
    """Whether ``e`` is the ``round_scored`` due after ``s``, field by field as
    :func:`next_derived` computes it, without building that event (R-DERIVED)."""
    f = s.flow
    ending: Any = f.ending
    caller = None if ending == "deck_out" else f.caller
    if e.round != f.round or e.ending != ending or e.caller != caller:
        return False
    card_pts, bonus = _round_scores(s)
    if e.card_points != card_pts or e.color_bonus != bonus:
        return False
    points, won = round_points(ending, caller, card_pts, bonus)
    return (e.caller_won == won and e.points == tuple(points)
            and e.totals == tuple(map(add, s.game.totals, points)))


def _check_derived(s: State, e: ev.Event) -> None:
    expected = next_derived(s)
    tag = ev.TAGS[type(e)]
    if expected is None or type(expected) is not type(e):
        if s.flow.phase == ENDED:
            raise illegal(s, "R-FLOW-GAME", "the game has ended; nothing happens after game_ended")
        want = ev.TAGS[type(expected)] if expected is not None else "an input event"
        raise illegal(s, "R-DERIVED", f"{tag} is out of place here ({want} expected)")
    for name in expected.__struct_fields__:
        if name != "at" and getattr(e, name) != getattr(expected, name):
            raise illegal(s, "R-DERIVED", f"{tag}.{name} is {_show(getattr(e, name))}, but the "
                                          f"engine computes {_show(getattr(expected, name))}")


def _show(value: object) -> str:
    return str(list(value)) if isinstance(value, tuple) else repr(value)


def _round_scored(s: State, e: ev.RoundScored) -> State:
    f = s.flow
    if f.due != "round_scored" or not _round_scored_matches(s, e):
        _check_derived(s, e)            # names the first field that differs
    totals, points = tuple(e.totals), tuple(e.points)
    g = s.game
    ended = max(totals) >= g.target                                         # R-GAME-1
    due = "game_ended" if ended else "event_awarded" if g.ruleset.events else None  # R-EV-AWARD
    game = replace(g, totals=totals, last_points=points, last_card_points=tuple(e.card_points),
                   rounds_played=g.rounds_played + 1)
    return replace(s, game=game, seq=s.seq + 1,
                   flow=Flow(round=f.round, turn=f.turn, ender=f.ender, ending=f.ending,
                             due=due, phase=BETWEEN))


def _game_ended_matches(s: State, e: ev.GameEnded) -> bool:
    """Whether ``e`` is the ``game_ended`` due after ``s``, field by field as
    :func:`next_derived` computes it, without building that event (R-DERIVED)."""
    f, g = s.flow, s.game
    if f.due != "game_ended" or e.totals != g.totals:
        return False
    if f.mermaid_winner is not None:
        return e.reason == "mermaids" and e.winners == (f.mermaid_winner,)
    return e.reason == "target" and e.winners == tuple(game_winners(g.totals, g.last_points))


def _game_ended(s: State, e: ev.GameEnded) -> State:
    if not _game_ended_matches(s, e):
        _check_derived(s, e)            # names the first field that differs
    return replace(s, game=replace(s.game, winners=tuple(e.winners), reason=e.reason),
                   seq=s.seq + 1, flow=replace(s.flow, due=None, phase=ENDED))


#: each event type's rules: what :func:`apply` runs (a caller applying many events may call
#: them itself, raising :func:`refusal` of what they raise)
HANDLERS: dict[type[ev.Event], Callable[[State, Any], State]] = {
    ev.AngelfishTaken: _angelfish_taken,
    ev.ShellFaceDown: _shell_face_down,
    ev.SwimmersPlayed: _swimmers_played,
    ev.SharksPlayed: _sharks_played,
    ev.EventKept: _event_kept,
    ev.EventAwarded: _event_awarded,
    ev.LobsterPlayed: _lobster_played,
    ev.JellyfishPlayed: _jellyfish_played,
    ev.StarfishPlayed: _starfish_played,
    ev.ForcedDrawn: _forced_drawn,
    ev.GameStarted: _game_started,
    ev.RoundStarted: _round_started,
    ev.DeckDrawn: _take,
    ev.DiscardTaken: _take,
    ev.CrabsPlayed: _crabs_played,
    ev.BoatsPlayed: _boats_played,
    ev.FishPlayed: _fish_played,
    ev.SharkPlayed: _shark_played,
    ev.TurnEnded: _turn_ended,
    ev.StopCalled: _called,
    ev.LastChanceCalled: _called,
    ev.RoundScored: _round_scored,
    ev.GameEnded: _game_ended,
}


def apply(state: State, event: ev.Event) -> State:
    """Check ``event`` against every rule and return the state after it.

    Raises :class:`IllegalMoveError` (with the rule id and the event's position) and leaves
    ``state`` as it was: states are immutable. An event that skipped
    :func:`seasalt_log.events.validate` (a seat or card outside the game) raises
    :class:`LogFormatError`.
    """
    try:
        return HANDLERS[type(event)](state, event)
    except (IndexError, KeyError, IllegalMoveError) as exc:
        raise refusal(state, event, exc) from None


def refusal(state: State, event: ev.Event, exc: Exception) -> SeasaltError:
    """The error :func:`apply` raises when ``event``'s rules (:data:`HANDLERS`) raised
    ``exc`` on ``state``: an :class:`IllegalMoveError` as it is, unless the event names a
    card, field or type the game lacks, a format error (LOG_FORMAT.md, RULES.md §17);
    an IndexError or KeyError, a seat, pile or card outside the game."""
    if isinstance(exc, IllegalMoveError):
        if state.flow.phase != NEW:
            bad = _unknown_in_game(_located(state, event), event)
            if bad is not None:
                return bad
        return exc
    return _malformed(state, event, exc)


def check(state: State, event: ev.Event) -> None:
    """Raise :class:`IllegalMoveError` if ``event`` may not follow ``state``."""
    apply(state, event)


def fold(events: Iterable[ev.Event], state: State | None = None) -> State:
    """Apply ``events`` in order, starting from ``state`` (a new game by default)."""
    s = state if state is not None else State()
    try:
        for e in events:
            s = HANDLERS[type(e)](s, e)
    except (IndexError, KeyError, IllegalMoveError) as exc:
        raise refusal(s, e, exc) from None
    return s


def _malformed(state: State, event: ev.Event, exc: Exception) -> LogFormatError:
    if type(event) not in HANDLERS:
        return LogFormatError(f"{type(event).__name__} is not an event of the log format")
    return _format(_located(state, event), f"{ev.TAGS[type(event)]}: a seat, pile or card "
                                           f"outside this game ({type(exc).__name__}: {exc})",
                   None)


def with_derived(events: Iterable[ev.Event]) -> Iterator[tuple[ev.Event, State]]:
    """Yield ``(event, state_after)`` for ``events``, adding each derived event the log leaves
    out right where the engine computes it; given derived events must match (R-DERIVED)."""
    s = State()
    for e in events:
        if type(e) not in _DERIVED:
            while (d := next_derived(s)) is not None:
                s = HANDLERS[type(d)](s, d)
                yield d, s
        s = apply(s, e)
        yield e, s
    while (d := next_derived(s)) is not None:
        s = HANDLERS[type(d)](s, d)
        yield d, s


_DERIVED = frozenset(ev.DERIVED_TYPES)
