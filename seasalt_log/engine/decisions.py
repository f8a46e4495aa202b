"""Decisions apart from chance, as OpenSpiel separates decision nodes from chance nodes.

:func:`legal_moves` lists every input event the player to act may send, one per possible
deck outcome (thousands of ``deck_drawn`` events when the deck order is not recorded). A
player does not choose among those: they decide, then chance (the deck, the card a shark
pair steals) answers, then they may decide again having seen the cards. This module lists
what the player decides:

- :func:`legal_decisions` - the decisions open to the player to act (small, never a card
  the player cannot see);
- :func:`chance_outcomes` - what chance may answer to a decision, each outcome (a tuple of
  cards) with its weight (the number of ways it happens; its probability is the weight over
  the sum): exactly one outcome, ``()``, when nothing is left to chance, and one when the
  round's deck order is recorded;
- :func:`next_decisions` - the decisions that follow once the outcome is seen (which drawn
  card to keep and where to discard the other, which card to take from the pile a crab pair
  looks through, which card the lobster keeps, the Water Rodeo swap); empty when the
  decision is complete;
- :func:`decision_event` - the log event of a complete decision and its outcome.

Every event :func:`legal_moves` lists is reached by exactly one path
``decision -> outcome [-> next decision -> outcome]`` and every path gives an event the
engine accepts. The kinds of decision (``Decision.kind``):

- ``draw`` (the deck), then ``keep`` (``card`` kept from the two drawn ``cards``, the
  other onto ``pile``; its outcome is the Dolphins' card when they trigger, R-EV-DOLPHINS);
  ``take`` (the top ``card`` of ``pile``); ``angelfish`` (R-EV-ANGELFISH); ``forced`` (a
  forced turn's draw, R-X-JELLYFISH-TURN);
- pairs: ``crab`` on ``pile`` (None: both piles empty, or the Hermit Crab) then
  ``crab_take`` (``card``, or the Hermit Crab's ``takes``); ``boat``; ``fish`` (outcome:
  the card(s) drawn); ``shark`` on ``victim`` (outcome: the card stolen); ``lobster``
  (outcome: the cards seen) then ``lobster_keep`` (``card``; ``other`` the pair; the
  shuffle of the deck, R-X-LOBSTER, is chance left to the caller: :func:`lobster_deck`);
  ``jellyfish``; ``starfish`` (a trio: ``cards`` the pair, ``card`` the starfish);
  ``swimmers`` on ``victim`` then ``swap`` (``cards`` the card given or empty, ``card``
  the card got, ``other`` the pair); ``sharks`` (``other``: the laid pair taken);
  ``shell`` (the face-down ``card``, R-EV-CORAL-REEF);
- ``end``, ``stop``, ``last_chance``; between rounds ``keep_event`` (``card``: the event).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb

from msgspec import Struct

from .. import events as ev
from ..cards import KIND
from ..scoring import X_KIND_INDEX
from .core import player_counts, player_points, shark_targets, sharks_targets, swimmer_targets
from .moves import pairs_in_hand
from .rulings import DOLPHIN_KINDS
from .state import ANGEL, BETWEEN, BOAT_TAKE, FORCED as FORCED_STEP, FORCED_DONE, ROUND, TAKE as \
    TAKE_STEP, State

DRAW = "draw"
TAKE = "take"
KEEP = "keep"
CRAB = "crab"
CRAB_TAKE = "crab_take"
BOAT = "boat"
FISH = "fish"
SHARK = "shark"
END = "end"
STOP = "stop"
LAST_CHANCE = "last_chance"
LOBSTER = "lobster"
LOBSTER_KEEP = "lobster_keep"
JELLYFISH = "jellyfish"
STARFISH = "starfish"
FORCED = "forced"
ANGELFISH = "angelfish"
SHELL = "shell"
SWIMMERS = "swimmers"
SWAP = "swap"
SHARKS = "sharks"
KEEP_EVENT = "keep_event"

#: kinds of the decisions that lay a pair (or a trio) down
PAIRS = frozenset({CRAB, BOAT, FISH, SHARK, LOBSTER, JELLYFISH, STARFISH, SWIMMERS, SHARKS})

#: kinds of the decisions that follow another one (the card(s) seen after committing)
SECOND_PHASE = frozenset({KEEP, CRAB_TAKE, LOBSTER_KEEP, SWAP})

#: kinds of the decisions another one may follow (:func:`next_decisions`; any other is
#: complete with its outcome)
FIRST_PHASE = frozenset({DRAW, CRAB, LOBSTER, SWIMMERS})
#: kinds of the decisions chance may answer (:func:`chance_outcomes`); any other is
#: complete without chance (outcome ``()``), but for the lobster's shuffle (:func:`lobster_deck`)
CHANCE_KINDS = frozenset({DRAW, KEEP, FISH, FORCED, SHARK, LOBSTER})

#: an outcome of chance: the cards it gives (empty: nothing left to chance)
Outcome = tuple[str, ...]


class Decision(Struct, frozen=True, gc=False):
    """One choice open to the player to act, chance left out (see the module doc).

    ``cards``: the pair laid down, the two drawn cards (``keep``), the cards seen
    (``lobster_keep``), the card given (``swap``); ``card``: the pile top (``take``), the
    card kept or taken, the starfish, the shell, the event; ``pile``: the pile taken from,
    discarded onto or looked through; ``victim``: the seat a shark or swimmer pair chooses.
    A decision holds nothing the player may not see. It holds strings, numbers and
    tuples of them, never a reference cycle: the garbage collector need not track it.
    """

    kind: str
    cards: tuple[str, ...] = ()
    card: str | None = None
    pile: int | None = None
    victim: int | None = None
    #: the laid pair a Water Rodeo shark pair takes; the pair of ``lobster_keep``/``swap``
    other: tuple[str, ...] = ()
    #: a Hermit Crab's takes, as (pile, card)
    takes: tuple[tuple[int, str], ...] = ()


@lru_cache(maxsize=None)
def _decision(kind: str, cards: tuple[str, ...], card: str, pile: int) -> Decision:
    """``Decision(kind, cards, card, pile)``, the same object each time (decisions are
    frozen; the takes and keeps of every turn: fewer than 20,000 of these, codes and piles)."""
    return Decision(kind, cards=cards, card=card, pile=pile)


#: per pile, card -> the decision to take it (R-TAKE-2)
_TAKES: tuple[dict[str, Decision], dict[str, Decision]] = ({}, {})


def _take(pile: int, card: str) -> Decision:
    """The decision to take ``card`` off ``pile``, made once (see :data:`_TAKES`)."""
    d = _TAKES[pile][card] = _decision(TAKE, (), card, pile)
    return d


_DRAW = Decision(DRAW)
_END = Decision(END)
_STOP = Decision(STOP)
_LAST = Decision(LAST_CHANCE)
_FORCED = Decision(FORCED)
_NO_CHANCE: list[tuple[Outcome, int]] = [((), 1)]


def _distinct(cards) -> list[str]:
    return sorted(set(cards))


def _pairs_of(cards: list[str]) -> list[tuple[str, str]]:
    """Distinct 2-card combinations of ``cards``, as sorted tuples, sorted."""
    cards = sorted(cards)
    n = len(cards)
    if n == 2:
        return [(cards[0], cards[1])]
    return sorted({(cards[i], cards[j]) for i in range(n) for j in range(i + 1, n)})


# ---------------------------------------------------------------- the decisions

def legal_decisions(state: State) -> list[Decision]:
    """The decisions open to the player to act (or owed an ``event_kept``), in the order of
    the events of :func:`legal_moves` they stand for; empty when no input is theirs."""
    f = state.flow
    if f.phase != ROUND or f.due:
        if f.phase == BETWEEN and state.keep_due is not None and not f.due:
            return [Decision(KEEP_EVENT, card=c) for c in state.held[state.keep_due]]
        return []
    step = f.step
    t = state.table
    if step == ANGEL:                                           # R-EV-ANGELFISH
        return _angelfish_decisions(t.piles)
    if step == TAKE_STEP or step == BOAT_TAKE:                 # R-TAKE-1..4
        out = []
        left = t.left
        if left >= 2 or (left == 1 and state.ruleset.one_card_draw):
            out.append(_DRAW)
        p0, p1 = t.piles
        if p0:
            out.append(_TAKES[0].get(p0[-1]) or _take(0, p0[-1]))
        if p1:
            out.append(_TAKES[1].get(p1[-1]) or _take(1, p1[-1]))
        return out
    if step == FORCED_STEP:
        return [_FORCED]
    if step == FORCED_DONE:
        return [_END]
    effects = state.effects(f.player)
    return _play_decisions(state, effects) + _end_decisions(state, effects)


def _angelfish_decisions(piles: tuple[tuple[str, ...], tuple[str, ...]]) -> list[Decision]:
    """The Angelfish's takes: each pile top, once when both tops are alike (R-EV-ANGELFISH)."""
    p0, p1 = piles
    return [Decision(ANGELFISH, card=piles[i][-1], pile=i)
            for i in (0, 1) if i == 0 or p1[-1] != p0[-1]]


# The functions called at every step keep their comprehensions in helpers: a variable a
# comprehension reads becomes a cell, made at every call of the function that holds it.

def _play_decisions(state: State, effects: frozenset[str]) -> list[Decision]:
    """The pairs and trios to lay down and the face-down shell (R-DUO-*, R-X-*, R-EV-*);
    ``effects``: the events in effect for the player."""
    hand = state.table.hands[state.flow.player]
    if _PLAY_CARDS.isdisjoint(hand):            # every pair, trio and shell needs one of them
        return []
    if state.ruleset.extra_scoring and not _may_play(player_counts(state, state.flow.player)[0],
                                                     effects):
        return []
    return _plays(state, effects, hand)


def _plays(state: State, effects: frozenset[str], hand: tuple[str, ...]) -> list[Decision]:
    """:func:`_play_decisions` for a hand that may hold something to lay, by grouping it."""
    t, p, rules = state.table, state.flow.player, state.ruleset
    by_kind: dict[str, list[str]] = {}
    kind_of = _PLAY_KIND.get
    for c in hand:
        k = kind_of(c)
        if k is not None:
            if k in by_kind:
                by_kind[k].append(c)
            else:
                by_kind[k] = [c]
    out: list[Decision] = []
    crabs = by_kind.get("crab", [])
    if len(crabs) >= 2:
        hermit = "hermit-crab" in effects
        piles = [i for i in (0, 1) if t.piles[i]]
        for cards in _pairs_of(crabs):
            if hermit or not piles:
                out.append(Decision(CRAB, cards=cards))
            else:
                out += [Decision(CRAB, cards=cards, pile=i) for i in piles]
    boats = by_kind.get("boat", [])
    if len(boats) >= 2:
        out += [Decision(BOAT, cards=cards) for cards in _pairs_of(boats)]
    fish = by_kind.get("fish", [])
    if len(fish) >= 2:
        out += [Decision(FISH, cards=cards) for cards in _pairs_of(fish)]
    sharks, swimmers = by_kind.get("shark", []), by_kind.get("swimmer", [])
    if sharks and swimmers:
        victims: Sequence[int | None] = shark_targets(state) or [None]
        out += [Decision(SHARK, cards=(a, b), victim=v)
                for a in _distinct(sharks) for b in _distinct(swimmers) for v in victims]
    if rules.trios:                                             # Extra Salt (RULES.md §11)
        lobsters = by_kind.get("lobster")
        if lobsters and crabs and rules.pair_kinds("lobster_played"):
            out += [Decision(LOBSTER, cards=(c, lobsters[0])) for c in _distinct(crabs)]
        jellies = by_kind.get("jellyfish")
        if jellies and swimmers and rules.pair_kinds("jellyfish_played"):
            out += [Decision(JELLYFISH, cards=(a, b))
                    for a in _distinct(swimmers) for b in _distinct(jellies)]
        stars = by_kind.get("starfish")
        if stars:
            out += _trios(state, hand, _distinct(stars), effects)
    if state.table_event is None:
        return out
    if "water-rodeo" in effects:                                # R-EV-WATER-RODEO
        if len(swimmers) >= 2:
            victims = swimmer_targets(state) or [None]
            out += [Decision(SWIMMERS, cards=cards, victim=v)
                    for cards in _pairs_of(swimmers) for v in victims]
        if len(sharks) >= 2:
            targets = sharks_targets(state)
            for cards in _pairs_of(sharks):
                if not targets:
                    out.append(Decision(SHARKS, cards=cards))
                for v in targets:
                    laid = sorted({tuple(sorted(u)) for u in t.laid[v] if len(u) == 2})
                    out += [Decision(SHARKS, cards=cards, victim=v, other=pr) for pr in laid]
    if ("coral-reef" in effects and t.face_down[p] is None
            and not state.flow.protected & (1 << p)):           # R-EV-CORAL-REEF
        out += [Decision(SHELL, card=c) for c in _distinct(by_kind.get("shell", ()))]
    return out


_CRAB, _BOAT, _FISH, _SWIMMER, _SHARK, _LOBSTER, _JELLYFISH, _SHELL = (X_KIND_INDEX[k] for k in (
    "crab", "boat", "fish", "swimmer", "shark", "lobster", "jellyfish", "shell"))


def _may_play(in_hand: list[int], effects: frozenset[str]) -> bool:
    """False when a hand of these kinds in hand (:func:`scoring.extra_counts`) holds no pair
    (so no trio either) and no shell to place face down, with ``effects`` in effect: the
    hand of most play steps, told without grouping it. True may still find nothing."""
    swimmers, sharks = in_hand[_SWIMMER], in_hand[_SHARK]
    if (in_hand[_CRAB] > 1 or in_hand[_BOAT] > 1 or in_hand[_FISH] > 1
            or (sharks and swimmers) or (in_hand[_LOBSTER] and in_hand[_CRAB])
            or (in_hand[_JELLYFISH] and swimmers)):
        return True
    if not effects:
        return False
    return ((in_hand[_SHELL] > 0 and "coral-reef" in effects)           # R-EV-CORAL-REEF
            or ((swimmers > 1 or sharks > 1) and "water-rodeo" in effects))   # R-EV-WATER-RODEO


#: card code -> kind, for the kinds a pair, a trio or a face-down shell is made of
_PLAY_KIND: dict[str, str] = {c: k for c, k in KIND.items() if k in (
    "crab", "boat", "fish", "shark", "swimmer", "lobster", "jellyfish", "starfish", "shell")}
_PLAY_CARDS = frozenset(_PLAY_KIND)


def _trios(state: State, hand, stars: list[str], effects) -> list[Decision]:
    """R-X-TRIO: a pair the player could lay now (the events in effect allowing) and a
    starfish."""
    rules = state.ruleset
    allowed = [entry for entry in rules.pairs if rules.pair_allowed(entry[0], effects)]
    return [Decision(STARFISH, cards=pair, card=star)
            for pair in pairs_in_hand(hand, allowed) for star in stars]


def _end_decisions(state: State, effects: frozenset[str]) -> list[Decision]:
    """End the turn, and the calls when allowed (R-END-1, R-END-2, R-LAST-1, R-EV-*)."""
    t, f, rules = state.table, state.flow, state.ruleset
    if f.call is not None or not (t.left or rules.call_before_deck_out):
        return [_END]
    p = f.player
    if state.table_event is None:
        if player_points(state, p) >= rules.call_threshold:
            return [_END, _STOP, _LAST]
        return [_END]
    if player_points(state, p) < rules.call_threshold_for(effects):
        return [_END]
    return [_END, _STOP, _LAST] if rules.stop_allowed(effects) else [_END, _LAST]


# ---------------------------------------------------------------- chance

def _deck_outcomes(state: State, k: int) -> list[tuple[Outcome, int]]:
    """The next ``k`` cards off the deck, top first, with their weights."""
    deck = state.table.deck
    if state.table.deck_ordered:
        return [(tuple(deck[:k]), 1)]
    return _unordered_outcomes(deck, k)


def _unordered_outcomes(deck: tuple[str, ...], k: int) -> list[tuple[Outcome, int]]:
    """:func:`_deck_outcomes` when the deck's order is not recorded: by the cards' counts."""
    counts = Counter(deck)
    if k == 1:
        return [((c,), counts[c]) for c in sorted(counts)]
    out: list[tuple[Outcome, int]] = []
    for a in sorted(counts):
        counts[a] -= 1
        out += [((a, b), (counts[a] + 1) * counts[b]) for b in sorted(counts) if counts[b]]
        counts[a] += 1
    return out


def _deck_after(state: State, drawn: Outcome) -> tuple[str, ...]:
    deck = state.table.deck
    if state.table.deck_ordered:
        return deck[len(drawn):]
    rest = list(deck)
    for c in drawn:
        rest.remove(c)
    return tuple(rest)


def _next_card(state: State, drawn: Outcome) -> list[tuple[Outcome, int]]:
    """The card under ``drawn`` (R-EV-DOLPHINS, R-EV-SUNFISH); ``[((), 1)]`` if none."""
    rest = _deck_after(state, drawn)
    if not rest:
        return _NO_CHANCE
    if state.table.deck_ordered:
        return [((rest[0],), 1)]
    counts = Counter(rest)
    return [((c,), counts[c]) for c in sorted(counts)]


def _lobster_sees(state: State) -> int:
    return min(state.ruleset.lobster_sees, len(state.table.deck))


def chance_outcomes(state: State, d: Decision) -> list[tuple[Outcome, int]]:
    """What chance may answer to ``d``: ``(outcome, weight)`` pairs, the outcome the cards it
    gives (top first), the weight the number of ways it happens. ``[((), 1)]`` when nothing
    is left to chance; one outcome when the round's deck order is recorded.

    ``draw``: the drawn card(s); ``keep``: the Dolphins' card when they trigger; ``fish``:
    the card drawn (two under the Sunfish); ``shark``: the card stolen (uniform over the
    victim's cards); ``lobster``: the cards seen (as a sorted multiset when the deck order
    is not recorded); ``forced``: the card taken."""
    kind, t = d.kind, state.table
    if kind not in CHANCE_KINDS:
        return _NO_CHANCE
    if kind == DRAW:
        return _deck_outcomes(state, 1 if t.left == 1 else 2)
    if kind == KEEP:
        a, b = d.cards
        other = b if a == d.card else a
        if (state.table_event is not None and KIND[other] in DOLPHIN_KINDS
                and "dolphins" in state.effects(state.flow.player)):
            return _next_card(state, d.cards)
        return _NO_CHANCE
    if kind == FISH or kind == FORCED:
        if not t.left:
            return _NO_CHANCE
        firsts = _deck_outcomes(state, 1)
        if kind == FORCED or state.table_event is None \
                or "sunfish" not in state.effects(state.flow.player):
            return firsts
        return _then_next_card(state, firsts)
    if kind == SHARK:
        if d.victim is None:
            return _NO_CHANCE
        return _by_count(t.hands[d.victim])
    if kind == LOBSTER:
        n = _lobster_sees(state)
        if not n:
            return _NO_CHANCE
        if t.deck_ordered:
            return [(tuple(t.deck[:n]), 1)]
        return _lobster_outcomes(t.deck, n)
    return _NO_CHANCE


def _then_next_card(state: State, firsts: list[tuple[Outcome, int]]) -> list[tuple[Outcome, int]]:
    """Each of ``firsts`` followed by the card under it (R-EV-SUNFISH)."""
    return [(o + o2, w * w2) for o, w in firsts for o2, w2 in _next_card(state, o)]


def _by_count(cards: tuple[str, ...]) -> list[tuple[Outcome, int]]:
    """One card of ``cards`` at random: each code with its count as weight."""
    counts = Counter(cards)
    return [((c,), counts[c]) for c in sorted(counts)]


def _lobster_outcomes(deck: tuple[str, ...], n: int) -> list[tuple[Outcome, int]]:
    """The ``n`` cards the lobster sees off a deck of unrecorded order, as sorted multisets
    with their weights."""
    counts = Counter(deck)
    out = []
    for seen in combinations_with_replacement(sorted(counts), n):
        k = Counter(seen)
        if all(k[c] <= counts[c] for c in k):
            w = 1
            for c, m in k.items():
                w *= comb(counts[c], m)
            out.append((seen, w))
    return out


# ---------------------------------------------------------------- second decisions

def next_decisions(state: State, d: Decision, outcome: Outcome = ()) -> list[Decision]:
    """The decisions that follow ``d`` once ``outcome`` is seen; empty when ``d`` and its
    outcome make an event (:func:`decision_event`)."""
    kind, t = d.kind, state.table
    if kind == DRAW:
        if len(outcome) < 2:
            return []
        a, b = outcome
        p0, p1 = t.piles
        piles = (1,) if p0 and not p1 else (0,) if p1 and not p0 else (0, 1)
        keeps = []
        for k in ((a,) if a == b else (a, b) if a < b else (b, a)):
            for i in piles:
                keeps.append(_decision(KEEP, outcome, k, i))
        return keeps
    return _after_pair(state, d, outcome)


def _after_pair(state: State, d: Decision, outcome: Outcome) -> list[Decision]:
    """:func:`next_decisions` after a pair (crab, lobster, swimmers) and its outcome."""
    kind, t = d.kind, state.table
    if kind == CRAB:
        if d.pile is not None:
            return [Decision(CRAB_TAKE, cards=d.cards, card=c, pile=d.pile)
                    for c in _distinct(t.piles[d.pile])]
        if (state.table_event is not None
                and "hermit-crab" in state.effects(state.flow.player)):   # R-EV-HERMIT-CRAB
            combos: list[tuple[tuple[int, str], ...]] = [()]
            for i in (0, 1):
                if t.piles[i]:
                    combos = [c + ((i, x),) for c in combos for x in _distinct(t.piles[i])]
            if combos != [()]:
                return [Decision(CRAB_TAKE, cards=d.cards, takes=c) for c in combos]
        return []
    if kind == LOBSTER:
        if not outcome:
            return []
        return [Decision(LOBSTER_KEEP, cards=outcome, card=k, other=d.cards)
                for k in _distinct(outcome)]
    if kind == SWIMMERS:
        if d.victim is None:
            return []
        hand = list(t.hands[state.flow.player])
        hand.remove(d.cards[0])
        hand.remove(d.cards[1])
        out = [Decision(SWAP, victim=d.victim, other=d.cards)]
        out += [Decision(SWAP, cards=(g,), card=c, victim=d.victim, other=d.cards)
                for g in _distinct(hand) for c in _distinct(t.hands[d.victim])]
        return out
    return []


# ---------------------------------------------------------------- the lobster's shuffle

def lobster_deck(state: State, d: Decision) -> tuple[str, ...] | None:
    """The deck after the ``lobster_keep`` decision ``d``, in the order :func:`legal_moves`
    stands for the shuffle with (the rest of the deck, then the cards going back); None when
    nothing goes back or the round's deck order is not recorded (no order to give).

    R-X-LOBSTER shuffles this deck: the shuffle is chance, too many orders to list in
    :func:`chance_outcomes` (which answers ``()``). Whoever owns chance draws the new order
    and passes it to :func:`decision_event` as the outcome (the simulator does); the outcome
    ``()`` gives the order above."""
    if not state.table.deck_ordered or len(d.cards) < 2:
        return None
    back = list(d.cards)
    assert d.card is not None, "a lobster keeps a card"
    back.remove(d.card)
    return state.table.deck[len(d.cards):] + tuple(back)


# ---------------------------------------------------------------- the event

def decision_event(state: State, d: Decision, outcome: Outcome = ()) -> ev.Event:
    """The input event of a complete decision ``d`` (one :func:`next_decisions` leaves
    nothing after) and its ``outcome`` of :func:`chance_outcomes` (for ``lobster_keep``, the
    deck's new order, see :func:`lobster_deck`). Raises ValueError for a decision that still
    needs a second one."""
    p = state.flow.player
    kind = d.kind
    if kind == TAKE:
        assert d.pile is not None, "a take names its pile"
        return ev.DiscardTaken(player=p, pile=d.pile, card=d.card)
    if kind == DRAW:
        if len(outcome) != 1:
            raise ValueError("a two-card draw is complete with its keep decision")
        return ev.DeckDrawn(player=p, cards=outcome, kept=outcome[0])
    if kind == KEEP:
        return ev.DeckDrawn(player=p, cards=d.cards, kept=d.card, discard_pile=d.pile,
                            dolphins_drew=outcome[0] if outcome else None)
    if kind == END:
        return ev.TurnEnded(player=p)
    if kind == STOP:
        return ev.StopCalled(player=p)
    if kind == LAST_CHANCE:
        return ev.LastChanceCalled(player=p)
    if kind == CRAB:
        if state.table_event is not None and "hermit-crab" in state.effects(p):
            return ev.CrabsPlayed(player=p, cards=d.cards, pile=None, took=None, takes=())
        if d.pile is not None:
            raise ValueError("a crab pair on a pile is complete with its crab_take decision")
        return ev.CrabsPlayed(player=p, cards=d.cards, pile=None, took=None)
    if kind == CRAB_TAKE:
        if d.takes or d.pile is None:
            return ev.CrabsPlayed(player=p, cards=d.cards, pile=None, took=None, takes=tuple(
                ev.HermitTake(pile=i, card=c) for i, c in d.takes))
        return ev.CrabsPlayed(player=p, cards=d.cards, pile=d.pile, took=d.card)
    if kind == BOAT:
        return ev.BoatsPlayed(player=p, cards=d.cards)
    if kind == FISH:
        return ev.FishPlayed(player=p, cards=d.cards, drew=outcome[0] if outcome else None,
                             also_drew=outcome[1] if len(outcome) > 1 else None)
    if kind == SHARK:
        return ev.SharkPlayed(player=p, cards=d.cards, victim=d.victim,
                              stole=outcome[0] if outcome else None)
    if kind == LOBSTER:
        if outcome:
            raise ValueError("a lobster that saw cards is complete with its lobster_keep decision")
        return ev.LobsterPlayed(player=p, cards=d.cards, seen=None, kept=None)
    if kind == LOBSTER_KEEP:
        deck = lobster_deck(state, d)
        if deck is not None and outcome:            # the shuffled order chance gave
            if sorted(outcome) != sorted(deck):
                raise ValueError("a lobster's new deck order must hold the deck's cards")
            deck = outcome
        return ev.LobsterPlayed(player=p, cards=d.other, seen=d.cards, kept=d.card, deck=deck)
    if kind == JELLYFISH:
        return ev.JellyfishPlayed(player=p, cards=d.cards)
    if kind == STARFISH:
        return ev.StarfishPlayed(player=p, cards=d.cards, starfish=d.card)
    if kind == FORCED:
        return ev.ForcedDrawn(player=p, card=outcome[0] if outcome else None)
    if kind == ANGELFISH:
        assert d.pile is not None, "an angelfish names its pile"
        return ev.AngelfishTaken(player=p, pile=d.pile, card=d.card)
    if kind == SHELL:
        return ev.ShellFaceDown(player=p, card=d.card)
    if kind == SWIMMERS:
        if d.victim is not None:
            raise ValueError("a swimmer pair on a victim is complete with its swap decision")
        return ev.SwimmersPlayed(player=p, cards=d.cards, victim=None, gave=None, got=None)
    if kind == SWAP:
        return ev.SwimmersPlayed(player=p, cards=d.other, victim=d.victim,
                                 gave=d.cards[0] if d.cards else None, got=d.card)
    if kind == SHARKS:
        return ev.SharksPlayed(player=p, cards=d.cards, victim=d.victim, pair=d.other or None)
    if kind == KEEP_EVENT:
        assert state.keep_due is not None, "an event is owed"
        return ev.EventKept(player=state.keep_due, event=d.card)
    raise ValueError(f"unknown decision kind {kind!r}")
