"""The rules engine: ``apply(state, event)`` checks one event against every rule and returns
the next state; ``check`` is the same without keeping the result. Pure: no I/O, clock or RNG.

Every refusal is an :class:`IllegalMoveError` naming the rule id of RULES.md.
"""

from __future__ import annotations

from msgspec.structs import replace

from .. import events as ev
from ..cards import FULL_DECK, KIND
from ..errors import IllegalMoveError, LogFormatError
from ..scoring import breakdown, game_winners, round_points
from .rulings import RULESETS
from .state import BETWEEN, BOAT_TAKE, ENDED, NEW, PLAY, ROUND, TAKE, Flow, State, Table
from .table import MERMAID, multiset_diff, replace_at, unseen_after, without, without_all

#: the 58 cards as a sorted tuple: a round's deck plus discards must sort to exactly this
_FULL_SORTED = tuple(sorted(FULL_DECK.elements()))


def illegal(state: State, rule: str, reason: str) -> IllegalMoveError:
    """An error for the event that would be applied next to ``state``."""
    f = state.flow
    return IllegalMoveError(rule, reason, game_id=state.game_id, seq=state.seq + 1,
                            round=f.round or None, turn=f.turn or None)


def seat_name(state: State, seat: int) -> str:
    if 0 <= seat < len(state.players):
        return f"seat {seat} ({state.players[seat]})"
    return f"seat {seat} (no such seat)"


# ---------------------------------------------------------------- game and round set-up

def _game_started(s: State, e: ev.GameStarted) -> State:
    if s.phase != NEW:
        raise illegal(s, "R-FLOW-GAME", "this game has already started; a new game_started "
                                        "begins another game")
    ruleset = RULESETS[e.ruleset or "base"]
    n = len(e.players)
    return replace(s, phase=BETWEEN, game_id=e.game_id, players=tuple(e.players),
                   target=e.target or ruleset.target_for(n), ruleset=ruleset,
                   totals=(0,) * n, last_points=(0,) * n, seq=s.seq + 1)


def _round_started(s: State, e: ev.RoundStarted) -> State:
    _expect_no_derived(s)
    if s.phase != BETWEEN:
        raise illegal(s, "R-FLOW-ROUND", f"round {s.flow.round} is still in play; a round starts "
                                         "only when the previous one has ended")
    f = s.flow
    if e.round != f.round + 1:
        raise illegal(s, "R-FLOW-ROUND", f"the next round is round {f.round + 1}, not {e.round}")
    if f.ender is not None:
        first = (f.ender + 1) % s.n
        if e.first_player != first:
            raise illegal(s, "R-SETUP-4", f"round {e.round} starts with {seat_name(s, first)}, the "
                                          f"seat after the player who ended round {f.round}, not "
                                          f"seat {e.first_player}")
    if e.deck is not None:
        if tuple(sorted((*e.deck, *e.discards))) != _FULL_SORTED:
            missing, extra = multiset_diff((*e.deck, *e.discards), FULL_DECK)
            raise illegal(s, "R-SETUP-3", "the deck and the two discards must be the 58 cards"
                                          f" once each; missing {missing}, extra {extra}")
        deck, ordered = e.deck, True
    else:
        _, extra = multiset_diff(e.discards, FULL_DECK)
        if extra:
            raise illegal(s, "R-SETUP-3", f"the discards hold more copies than the deck has: {extra}")
        deck, ordered = unseen_after(e.discards), False
    n = s.n
    table = Table(deck=deck, deck_ordered=ordered, piles=((e.discards[0],), (e.discards[1],)),
                  hands=((),) * n, laid=((),) * n)
    flow = Flow(round=e.round, turn=1, player=e.first_player, step=TAKE)
    return replace(s, phase=ROUND, flow=flow, table=table, seq=s.seq + 1)


# ---------------------------------------------------------------- shared preambles

def _expect_no_derived(s: State) -> None:
    if s.phase == ENDED:
        raise illegal(s, "R-FLOW-GAME", "the game has ended; nothing happens after game_ended")
    if s.flow.due:
        raise illegal(s, "R-DERIVED", f"{s.flow.due} is due here, before any other event")
    if s.phase == NEW:
        raise illegal(s, "R-FLOW-GAME", "the game has not started (game_started expected)")


def _in_turn(s: State, e) -> Flow:
    """Checks common to every turn event: a round in play, the right player. Returns the
    flow."""
    f = s.flow
    if s.phase != ROUND or f.due:
        _expect_no_derived(s)
        raise illegal(s, "R-FLOW-ROUND", "no round is in play (round_started expected)")
    if e.player != f.player:
        raise illegal(s, "R-FLOW-PLAYER", f"it is {seat_name(s, f.player)}'s turn, not "
                                          f"{seat_name(s, e.player)}'s")
    return f


def _take_due(s: State, e) -> Flow:
    f = _in_turn(s, e)
    if f.step == PLAY:
        if not s.table.can_take():
            raise illegal(s, "R-FLOW-TAKE", "the deck and both discard piles are empty: nothing "
                                            "can be taken (R-TAKE-4)")
        raise illegal(s, "R-FLOW-TAKE", "this turn's take is done; another take needs a boat pair")
    return f


def _take_done(s: State, e) -> Flow:
    f = _in_turn(s, e)
    step = f.step
    if step == TAKE:
        raise illegal(s, "R-FLOW-TAKE", "a turn begins with its take (deck_drawn or discard_taken)")
    if step == BOAT_TAKE:
        raise illegal(s, "R-DUO-BOAT", "the boat pair's extra take comes next (deck_drawn or "
                                       "discard_taken)")
    return f


def _after_take(s: State, f: Flow, table: Table) -> State:
    return replace(s, table=table, flow=replace(f, step=PLAY), seq=s.seq + 1)


def _draw_from_deck(s: State, table: Table, cards) -> tuple[str, ...]:
    """The deck after ``cards`` were taken from its top (R-DRAW)."""
    deck = table.deck
    if table.deck_ordered:
        k = len(cards)
        top = deck[:k]
        if top != cards and top != tuple(cards):
            raise illegal(s, "R-DRAW", f"the deck's top card{'s are' if k > 1 else ' is'} "
                                       f"{', '.join(top)} (recorded deck order), not "
                                       f"{', '.join(cards)}")
        return deck[k:]
    for card in cards:
        left = without(deck, card)
        if left is None:
            raise illegal(s, "R-DRAW", f"{card} cannot come from the deck: every copy has "
                                       "already been seen this round")
        deck = left
    return deck


# ---------------------------------------------------------------- step 1: take a card

def _deck_drawn(s: State, e: ev.DeckDrawn) -> State:
    f = _take_due(s, e)
    t = s.table
    left = len(t.deck)
    if not left:
        raise illegal(s, "R-TAKE-1", "the deck is empty; take from a discard pile")
    cards = e.cards
    two = len(cards) == 2
    if left == 1 and s.ruleset.one_card_draw:
        if two or len(cards) != 1 or e.discard_pile is not None:
            raise illegal(s, "R-TAKE-3", "with one card left in the deck, a draw takes that one "
                                         "card and discards nothing (cards: [1 code], no "
                                         "discard_pile)")
    elif not two:
        raise illegal(s, "R-TAKE-1", f"a deck draw takes the top two cards ({left} are left)")
    kept = e.kept
    if kept not in cards:
        raise illegal(s, "R-TAKE-1", f"kept {kept} is not one of the drawn cards {list(cards)}")
    deck = _draw_from_deck(s, t, cards)
    hands = replace_at(t.hands, e.player, t.hands[e.player] + (kept,))
    piles = t.piles
    if two:
        pile = e.discard_pile
        if pile is None:
            raise illegal(s, "R-TAKE-1", "a two-card draw must name discard_pile for the other card")
        p0, p1 = piles
        other = cards[1] if cards[0] == kept else cards[0]
        if pile:
            if p1 and not p0:
                raise illegal(s, "R-TAKE-1", "discard pile 0 is empty, so the discarded card "
                                             "must go there")
            piles = (p0, p1 + (other,))
        else:
            if p0 and not p1:
                raise illegal(s, "R-TAKE-1", "discard pile 1 is empty, so the discarded card "
                                             "must go there")
            piles = (p0 + (other,), p1)
    return _after_take(s, f, Table(deck, t.deck_ordered, piles, hands, t.laid))


def _discard_taken(s: State, e: ev.DiscardTaken) -> State:
    f = _take_due(s, e)
    t = s.table
    i = e.pile
    pile = t.piles[i]
    if not pile:
        raise illegal(s, "R-TAKE-2", f"discard pile {i} is empty")
    card = e.card
    if pile[-1] != card:
        raise illegal(s, "R-TAKE-2", f"the top of discard pile {i} is {pile[-1]}, not {card}")
    hands = replace_at(t.hands, e.player, t.hands[e.player] + (card,))
    piles = (t.piles[0], pile[:-1]) if i else (pile[:-1], t.piles[1])
    return _after_take(s, f, Table(t.deck, t.deck_ordered, piles, hands, t.laid))


# ---------------------------------------------------------------- step 2: duos

_PAIR_KINDS = {
    ev.CrabsPlayed: ("crab", "crab"),
    ev.BoatsPlayed: ("boat", "boat"),
    ev.FishPlayed: ("fish", "fish"),
    ev.SharkPlayed: ("shark", "swimmer"),
}


def _lay_pair(s: State, e) -> Table:
    """Check the pair (R-DUO-PAIR) and move it from the hand to the laid-down pairs."""
    _take_done(s, e)
    a, b = e.cards
    kinds = _PAIR_KINDS[type(e)]
    ka, kb = KIND[a], KIND[b]
    if (ka, kb) != kinds and (kb, ka) != kinds:
        want = " and ".join(kinds) if kinds[0] != kinds[1] else f"two {kinds[0]}s"
        raise illegal(s, "R-DUO-PAIR", f"{ev.TAGS[type(e)]} needs {want}, not {a} and {b}")
    t = s.table
    player = e.player
    hand = without_all(t.hands[player], e.cards)
    if hand is None:
        raise illegal(s, "R-DUO-PAIR", f"{seat_name(s, player)} does not hold {a} and {b}")
    return Table(t.deck, t.deck_ordered, t.piles, replace_at(t.hands, player, hand),
                 replace_at(t.laid, player, t.laid[player] + ((a, b),)))


def _crabs_played(s: State, e: ev.CrabsPlayed) -> State:
    t = _lay_pair(s, e)
    piles = t.piles
    if not piles[0] and not piles[1]:
        if e.pile is not None or e.took is not None or e.index is not None:
            raise illegal(s, "R-DUO-CRAB", "both discard piles are empty: pile, took and index "
                                           "must be null")
        return replace(s, table=t, seq=s.seq + 1)
    if e.pile is None or e.took is None:
        raise illegal(s, "R-DUO-NOEFFECT", "a discard pile has cards, so the crab pair must take "
                                           "one (pile and took)")
    pile = piles[e.pile]
    if not pile:
        raise illegal(s, "R-DUO-CRAB", f"discard pile {e.pile} is empty; choose a pile that has cards")
    if e.index is not None:
        if e.index >= len(pile):
            raise illegal(s, "R-DUO-CRAB", f"discard pile {e.pile} holds {len(pile)} cards; "
                                           f"index {e.index} is beyond its bottom")
        pos = len(pile) - 1 - e.index
        if pile[pos] != e.took:
            raise illegal(s, "R-DUO-CRAB", f"card {e.index} from the top of discard pile {e.pile} "
                                           f"is {pile[pos]}, not {e.took}")
    else:
        pos = next((i for i in range(len(pile) - 1, -1, -1) if pile[i] == e.took), -1)
        if pos < 0:
            raise illegal(s, "R-DUO-CRAB", f"discard pile {e.pile} holds no {e.took}")
    player = e.player
    t = replace(t, piles=replace_at(piles, e.pile, pile[:pos] + pile[pos + 1:]),
                hands=replace_at(t.hands, player, t.hands[player] + (e.took,)))
    return replace(s, table=t, seq=s.seq + 1)


def boats_give_take(s: State, t: Table | None = None) -> bool:
    """Whether a boat pair laid now gives its extra take: something can be taken, and it is
    not a final turn or the ruling lets final turns have it (R-DUO-BOAT, R-LAST-1)."""
    t = t or s.table
    return t.can_take() and (s.flow.call is None or s.ruleset.boats_in_final_turns)


def _boats_played(s: State, e: ev.BoatsPlayed) -> State:
    t = _lay_pair(s, e)
    f = s.flow
    return replace(s, table=t, flow=replace(f, step=BOAT_TAKE) if boats_give_take(s, t) else f,
                   seq=s.seq + 1)


def _fish_played(s: State, e: ev.FishPlayed) -> State:
    t = _lay_pair(s, e)
    if not t.deck:
        if e.drew is not None:
            raise illegal(s, "R-DUO-FISH", "the deck is empty: drew must be null")
        return replace(s, table=t, seq=s.seq + 1)
    if e.drew is None:
        raise illegal(s, "R-DUO-NOEFFECT", "the deck has cards, so the fish pair must draw one (drew)")
    deck = _draw_from_deck(s, t, (e.drew,))
    t = replace(t, deck=deck, hands=replace_at(t.hands, e.player, t.hands[e.player] + (e.drew,)))
    return replace(s, table=t, seq=s.seq + 1)


def shark_targets(s: State, t: Table | None = None) -> list[int]:
    """Seats the player to act may steal from: others, hand not empty, not revealed (R-LAST-3)."""
    t = t or s.table
    f = s.flow
    return [v for v in range(s.n)
            if v != f.player and t.hands[v] and not f.revealed & (1 << v)]


def _shark_played(s: State, e: ev.SharkPlayed) -> State:
    t = _lay_pair(s, e)
    targets = shark_targets(s, t)
    if not targets:
        if e.victim is not None or e.stole is not None:
            raise illegal(s, "R-DUO-SHARK", "no other player has a hand that can be stolen from "
                                            "(empty or revealed): victim and stole must be null")
        return replace(s, table=t, seq=s.seq + 1)
    if e.victim is None or e.stole is None:
        raise illegal(s, "R-DUO-NOEFFECT", f"seats {targets} can be stolen from, so the shark pair "
                                           "must steal (victim and stole)")
    v = e.victim
    if v not in targets:
        why = ("is the player" if v == e.player else "has revealed their hand (R-LAST-3)"
               if s.flow.revealed & (1 << v) else "has an empty hand")
        raise illegal(s, "R-DUO-SHARK", f"{seat_name(s, v)} cannot be stolen from: {why}")
    hand = without(t.hands[v], e.stole)
    if hand is None:
        raise illegal(s, "R-DUO-SHARK", f"{seat_name(s, v)} does not hold {e.stole}")
    hands = replace_at(t.hands, v, hand)
    hands = replace_at(hands, e.player, hands[e.player] + (e.stole,))
    return replace(s, table=replace(t, hands=hands), seq=s.seq + 1)


# ---------------------------------------------------------------- step 3: end the turn

def _turn_ended(s: State, e: ev.TurnEnded) -> State:
    _take_done(s, e)
    return _end_turn(s, None)


def _called(s: State, e) -> State:
    _take_done(s, e)
    f, t = s.flow, s.table
    call = "stop" if type(e) is ev.StopCalled else "last_chance"
    if f.call is not None:
        raise illegal(s, "R-LAST-1", f"nobody may call during the final turns of LAST CHANCE "
                                     f"(called by {seat_name(s, f.caller)})")
    if not t.deck and not s.ruleset.call_before_deck_out:
        raise illegal(s, "R-END-3", "the deck is empty: the round ends in a deck-out")
    pts = breakdown(t.hands[e.player], t.laid[e.player]).card_points
    need = s.ruleset.call_threshold
    if pts < need:
        raise illegal(s, "R-END-2", f"{call.upper().replace('_', ' ')} needs at least {need} card "
                                    f"points; {seat_name(s, e.player)} has {pts}")
    return _end_turn(s, call)


def _end_turn(s: State, call: str | None) -> State:
    """The turn's last event: mermaid win, then the call, final turns or deck-out."""
    f, t = s.flow, s.table
    n = len(t.hands)
    player = f.player
    seq = s.seq + 1
    if t.hands[player].count(MERMAID) >= s.ruleset.mermaids_to_win:        # R-MERMAID-WIN
        # a call that ends the turn still reveals the caller's hand (R-END-2)
        shown = f.revealed | (1 << player) if call is not None else f.revealed
        return replace(s, seq=seq, flow=replace(f, due="game_ended", mermaid_winner=player,
                                                revealed=shown))
    if call == "stop":                                                      # R-STOP
        return replace(s, seq=seq, flow=replace(f, caller=player, call=call, ender=player,
                                                due="round_scored", ending="stop"))
    if call == "last_chance":                                               # R-LAST-1
        left = tuple((player + i) % n for i in range(1, n))
        f = replace(f, caller=player, call=call, revealed=f.revealed | (1 << player),
                    final_left=left)
        return _next_turn(s, f, left[0], seq)
    if f.call == "last_chance":
        left = f.final_left[1:]
        f = replace(f, revealed=f.revealed | (1 << player), final_left=left)   # R-LAST-3
        if not left or (s.ruleset.deck_out_in_final_turns and not t.deck):
            return replace(s, seq=seq, flow=replace(f, ender=f.caller, due="round_scored",
                                                    ending="last_chance"))
        return _next_turn(s, f, left[0], seq)
    if not t.deck:                                                          # R-END-3
        return replace(s, seq=seq, flow=replace(f, ender=player, due="round_scored",
                                                ending="deck_out"))
    # the deck has cards, so the next turn begins with its take
    player += 1
    return replace(s, seq=seq, flow=replace(f, player=player if player < n else 0,
                                            turn=f.turn + 1, step=TAKE))


def _next_turn(s: State, f: Flow, player: int, seq: int) -> State:
    step = TAKE if s.table.can_take() or not s.ruleset.skip_impossible_take else PLAY
    return replace(s, seq=seq, flow=replace(f, player=player, turn=f.turn + 1, step=step))


# ---------------------------------------------------------------- derived events

def next_derived(s: State) -> ev.Event | None:
    """The derived event due after ``s`` (``round_scored`` / ``game_ended``), or None."""
    f = s.flow
    if f.due == "round_scored":
        t = s.table
        scores = [breakdown(t.hands[p], t.laid[p]) for p in range(s.n)]
        card_pts = [b.card_points for b in scores]
        bonus = [b.color_bonus for b in scores]
        caller = None if f.ending == "deck_out" else f.caller
        points, won = round_points(f.ending, caller, card_pts, bonus)
        totals = [a + b for a, b in zip(s.totals, points)]
        return ev.RoundScored(round=f.round, ending=f.ending, caller=caller, caller_won=won,
                              card_points=tuple(card_pts), color_bonus=tuple(bonus),
                              points=tuple(points), totals=tuple(totals))
    if f.due == "game_ended":
        if f.mermaid_winner is not None:
            return ev.GameEnded(reason="mermaids", winners=(f.mermaid_winner,), totals=s.totals)
        return ev.GameEnded(reason="target", winners=tuple(game_winners(s.totals, s.last_points)),
                            totals=s.totals)
    return None


def _check_derived(s: State, e: ev.Event) -> None:
    expected = next_derived(s)
    tag = ev.TAGS[type(e)]
    if expected is None or type(expected) is not type(e):
        if s.phase == ENDED:
            raise illegal(s, "R-FLOW-GAME", "the game has ended; nothing happens after game_ended")
        want = ev.TAGS[type(expected)] if expected is not None else "an input event"
        raise illegal(s, "R-DERIVED", f"{tag} is out of place here ({want} expected)")
    for name in expected.__struct_fields__:
        if name != "at" and getattr(e, name) != getattr(expected, name):
            raise illegal(s, "R-DERIVED", f"{tag}.{name} is {_show(getattr(e, name))}, but the "
                                          f"engine computes {_show(getattr(expected, name))}")


def _show(value) -> str:
    return str(list(value)) if isinstance(value, tuple) else repr(value)


def _round_scored(s: State, e: ev.RoundScored) -> State:
    _check_derived(s, e)
    f = s.flow
    totals, points = tuple(e.totals), tuple(e.points)
    ended = max(totals) >= s.target                                         # R-GAME-1
    return replace(s, phase=BETWEEN, totals=totals, last_points=points,
                   rounds_played=s.rounds_played + 1, seq=s.seq + 1,
                   flow=Flow(round=f.round, turn=f.turn, ender=f.ender, ending=f.ending,
                             due="game_ended" if ended else None))


def _game_ended(s: State, e: ev.GameEnded) -> State:
    _check_derived(s, e)
    return replace(s, phase=ENDED, winners=tuple(e.winners), reason=e.reason, seq=s.seq + 1,
                   flow=replace(s.flow, due=None))


_HANDLERS = {
    ev.GameStarted: _game_started,
    ev.RoundStarted: _round_started,
    ev.DeckDrawn: _deck_drawn,
    ev.DiscardTaken: _discard_taken,
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
        return _HANDLERS[type(event)](state, event)
    except (IndexError, KeyError) as exc:
        raise _malformed(state, event, exc) from None


def check(state: State, event: ev.Event) -> None:
    """Raise :class:`IllegalMoveError` if ``event`` may not follow ``state``."""
    apply(state, event)


def fold(events, state: State | None = None) -> State:
    """Apply ``events`` in order, starting from ``state`` (a new game by default)."""
    s = state if state is not None else State()
    try:
        for e in events:
            s = _HANDLERS[type(e)](s, e)
    except (IndexError, KeyError) as exc:
        raise _malformed(s, e, exc) from None
    return s


def _malformed(state: State, event: ev.Event, exc: Exception) -> LogFormatError:
    if type(event) not in _HANDLERS:
        return LogFormatError(f"{type(event).__name__} is not an event of the log format")
    return LogFormatError(f"{ev.TAGS[type(event)]}: a seat, pile or card outside this game "
                          f"({type(exc).__name__}: {exc})", game_id=state.game_id,
                          seq=state.seq + 1, round=state.flow.round or None,
                          turn=state.flow.turn or None)


def with_derived(events):
    """Yield ``(event, state_after)`` for ``events``, adding each derived event the log leaves
    out right where the engine computes it; given derived events must match (R-DERIVED)."""
    s = State()
    for e in events:
        if type(e) not in _DERIVED:
            while (d := next_derived(s)) is not None:
                s = _HANDLERS[type(d)](s, d)
                yield d, s
        s = _HANDLERS[type(e)](s, e)
        yield e, s
    while (d := next_derived(s)) is not None:
        s = _HANDLERS[type(d)](s, d)
        yield d, s


_DERIVED = frozenset(ev.DERIVED_TYPES)
