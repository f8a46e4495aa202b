"""Bot strategies. Every bot has one method::

    choose(view: TableView, options: list[Decision], rng: random.Random) -> Decision

``view`` is :func:`seasalt_log.view.table_view` of the bot's own seat (R-VIEW: its own hand,
every laid pair, the pile tops and sizes, hand sizes, revealed hands, totals); ``options``
are the :class:`~seasalt_log.sim.decisions.Decision` values open to it, chance left out
(a second-phase list, ``keep`` or ``crab_take``, shows the cards the player has just seen).
Bots are stateless and get no :class:`~seasalt_log.engine.State`: they cannot see the deck
order or another player's hidden hand. ``rng`` is the bot's own seeded generator. A bot
whose :attr:`Bot.reads_view` is False (the random bot) gets None for ``view``: the
simulator does not build a view nobody reads.
"""

from __future__ import annotations

import math
import random
from typing import Sequence

from ..view import SeatView, TableView
from . import decisions as dc
from .decisions import Decision
from .evaluate import BOAT, CRAB, FISH, KI, MERMAID, SHARK, SWIMMER, Holding


class Bot:
    """The bot interface: a name and :meth:`choose`."""

    name = "bot"
    #: False for a bot that never reads its view: the simulator then gives it None
    reads_view = True

    def choose(self, view: TableView, options: Sequence[Decision], rng: random.Random) -> Decision:
        """Pick one of ``options`` (never empty) from what ``view`` shows."""
        raise NotImplementedError


def holding_of(view: TableView) -> Holding:
    """The viewer's own cards as a :class:`Holding` (a new one: the caller may change it)."""
    return _holding(view).copy()


def _holding(view: TableView) -> Holding:
    """The viewer's own cards as the :class:`Holding` kept for them: a caller may try a
    card (:meth:`Holding.add`) but must take it back (:meth:`Holding.remove`)."""
    seat = view.viewer
    assert seat is not None, "a bot sees the table from its seat"
    me = view.seats[seat]
    hand, laid = me.hand, me.laid
    assert hand is not None, "the viewer's own hand is shown"
    last = _LAST.get(seat)
    if last is not None and last[0] is hand and last[1] is laid:   # the same seat view
        return last[2]
    key = (hand, laid)
    h = _HOLDINGS.get(key)
    if h is None:
        if len(_HOLDINGS) >= 4096:
            _HOLDINGS.clear()
        # most often the seat's last holding and the card it kept (a turn later)
        if last is not None and last[1] == laid and len(hand) == len(last[0]) + 1:
            card = _added(last[0], hand)
            if card is not None:
                h = last[2].copy()
                h.add(card)
        if h is None:
            h = Holding(hand, laid)
        _HOLDINGS[key] = h
    _LAST[seat] = (hand, laid, h)
    return h


def _added(old: tuple[str, ...], new: tuple[str, ...]) -> str | None:
    """The card ``new`` holds besides ``old`` (both sorted, ``new`` one card longer), or
    None when ``new`` is not ``old`` and one more card."""
    for i, c in enumerate(old):
        if new[i] != c:
            return new[i] if new[i + 1:] == old[i:] else None
    return new[-1]


#: the holdings of the hands bots saw last, as counts: a hand is seen again and again
#: (from the take to the keep of a turn, from the end of a turn to the next take)
_HOLDINGS: dict[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]], Holding] = {}
#: seat -> (hand, laid, holding) the bot at that seat saw last
_LAST: dict[int, tuple[tuple[str, ...], tuple[tuple[str, ...], ...], Holding]] = {}


def my_seat(view: TableView) -> SeatView:
    """The viewer's own seat (a bot sees the table from its seat)."""
    seat = view.viewer
    assert seat is not None, "a bot sees the table from its seat"
    return view.seats[seat]


def my_points(view: TableView) -> int:
    """The viewer's card points, as the view shows them."""
    points = my_seat(view).card_points
    assert points is not None, "the viewer's own hand is shown"
    return points


def _calls(options) -> tuple[Decision | None, Decision, Decision | None]:
    """(STOP, end the turn, LAST CHANCE) among the options of the end of a turn: the first
    of each kind (the first option when none ends the turn), in one pass."""
    stop = end = last = None
    for d in options:
        k = d.kind
        if k == dc.END:
            if end is None:
                end = d
        elif k == dc.STOP:
            if stop is None:
                stop = d
        elif k == dc.LAST_CHANCE and last is None:
            last = d
    return stop, end or options[0], last


def _first_kind(options: Sequence[Decision], kind: str) -> Decision | None:
    for d in options:
        if d.kind == kind:
            return d
    return None


_DUOS = dc.PAIRS


def expansion_choice(view: TableView, options: Sequence[Decision],
                     rng: random.Random) -> Decision | None:
    """The choice of the expansions' own steps (RULES.md §9-§18), shared by the bots that
    plan: the Angelfish take, the card the lobster keeps, the Water Rodeo swap and the
    Hermit Crab takes worth most to the hand, the event kept (at random: the bot cannot
    tell which rounds it will place in). None when ``options`` are none of these."""
    kind = options[0].kind
    if kind not in _EXPANSION_STEPS:
        return None
    return _expansion_step(view, options, rng, kind)


# The functions called at every choice keep their lambdas in helpers: a variable a lambda
# reads becomes a cell, made at every call of the function that holds it.

def _expansion_step(view: TableView, options: Sequence[Decision], rng: random.Random,
                    kind: str) -> Decision | None:
    """:func:`expansion_choice` for the options of one of the expansions' steps."""
    if kind in (dc.ANGELFISH, dc.LOBSTER_KEEP):
        return _best_card(_holding(view), options)
    if kind == dc.SWAP:
        return max(options, key=lambda d: _swap_value(holding_of(view), d))
    if kind == dc.CRAB_TAKE and options[0].takes:
        return max(options, key=lambda d: _with_all(holding_of(view), [c for _, c in d.takes]))
    if kind == dc.KEEP_EVENT:
        return options[rng.randrange(len(options))]
    if kind == dc.FORCED:
        return options[0]
    return None


_EXPANSION_STEPS = frozenset({dc.ANGELFISH, dc.LOBSTER_KEEP, dc.SWAP, dc.CRAB_TAKE,
                             dc.KEEP_EVENT, dc.FORCED})


def _best_card(h: Holding, options: Sequence[Decision]) -> Decision:
    """The first of ``options`` whose card adds the most card points to ``h``."""
    def points(d: Decision) -> int:
        assert d.card is not None, "each option names its card"
        return h.points_with(d.card)
    return max(options, key=points)


def _swap_value(h: Holding, d: Decision) -> int:
    if d.cards:
        h.remove(d.cards[0])
    return _with_all(h, [d.card] if d.card else [])


def _with_all(h: Holding, cards: list[str]) -> int:
    for c in cards:
        h.add(c)
    return h.points()


def _expansion_pair(view: TableView, options: Sequence[Decision]) -> Decision | None:
    """A pair or trio of the expansions to lay down, else a face-down shell when the hand is
    big enough to be worth protecting (R-EV-CORAL-REEF)."""
    shell = None
    for d in options:
        if d.kind in _EXPANSION_PAIRS:
            return d
        if d.kind == dc.SHELL and shell is None and my_seat(view).hand_size >= 6:
            shell = d
    return shell


_EXPANSION_PAIRS = frozenset({dc.LOBSTER, dc.JELLYFISH, dc.SWIMMERS, dc.SHARKS, dc.STARFISH})


def _generic(card: str) -> float:
    """What ``card`` is worth to whoever takes it next (1 for the Extra Salt cards)."""
    k = KI.get(card)
    return 1.0 if k is None else _GENERIC[k]


class RandomBot(Bot):
    """Uniform over the decisions open to it (so also over second-phase choices)."""

    name = "random"
    reads_view = False

    def choose(self, view, options, rng):
        return options[rng.randrange(len(options))]


class GreedyBot(Bot):
    """Maximises its own card points now: takes a pile top that adds points (else draws),
    keeps the better drawn card, plays every pair, and calls STOP as soon as it may."""

    name = "greedy"

    def choose(self, view, options, rng):
        kind = options[0].kind
        x = expansion_choice(view, options, rng)
        if x is not None:
            return x
        if kind in (dc.DRAW, dc.TAKE):
            h = _holding(view)
            base = my_points(view)
            best, gain = None, 0
            for d in options:
                if d.kind == dc.TAKE:
                    g = h.points_with(d.card) - base
                    if g > gain:
                        best, gain = d, g
            return best or _first_kind(options, dc.DRAW) or options[0]
        if kind in dc.SECOND_PHASE:                                 # keep / crab_take
            return _best_card(_holding(view), options)
        trio = _first_kind(options, dc.STARFISH)      # R-X-TRIO: the starfish scores laid
        if trio is not None:
            return trio
        for d in options:
            if d.kind in _DUOS:
                if d.kind == dc.CRAB:
                    return _biggest_pile_crab(view, options, d)
                if d.kind == dc.SHARK:
                    return _richest_victim(view, options, d)
                return d
        shell = _first_kind(options, dc.SHELL)
        if shell is not None and view.seats[view.viewer].hand_size >= 6:
            return shell
        return _first_kind(options, dc.STOP) or _first_kind(options, dc.END) or options[0]


def _biggest_pile_crab(view: TableView, options, first: Decision) -> Decision:
    """Among crab decisions with ``first``'s cards, the one on the bigger pile."""
    best = first
    for d in options:
        if d.kind == dc.CRAB and d.cards == first.cards and d.pile is not None:
            if best.pile is None or view.piles[d.pile].size > view.piles[best.pile].size:
                best = d
    return best


def _richest_victim(view: TableView, options, first: Decision) -> Decision:
    """Among shark decisions with ``first``'s cards, the victim with the biggest hand
    (then the highest total)."""
    best, key = first, None
    for d in options:
        if d.kind == dc.SHARK and d.cards == first.cards and d.victim is not None:
            seat = view.seats[d.victim]
            k = (seat.hand_size, seat.total)
            if key is None or k > key:
                best, key = d, k
    return best


# ---------------------------------------------------------------- the planner

#: what a card is worth to whoever takes it next, by kind (for choosing which top to bury)
_GENERIC = (1.0, 1.0, 1.0, 0.9, 0.9, 1.2, 1.4, 1.2, 1.6, 0.7, 0.7, 0.9, 1.2, 3.0)


def hidden_points(hand_size: int) -> float:
    """Expected card points of a hidden hand of ``hand_size`` cards (measured on simulated
    games: players keep the cards that score, so a card is worth about one point)."""
    points = 1.15 * hand_size - 1.4
    return points if points > 0.0 else 0.0      # not max(): its argument parsing costs more


class PlannerBot(Bot):
    """A stronger bot that plans from what it can see.

    Cards: it takes the pile top that adds the most card points now (at least one),
    otherwise draws; it keeps the drawn card worth more and buries the more useful pile top
    under the other. Ties between cards go to the promise of unfinished pairs (a lone crab,
    a shark without a swimmer...), which counts only while the round goes on.
    Duos: it plays every pair (a pair scores the same laid down, and the effect is a free
    card), steals from the biggest hand, looks through the bigger pile.
    Calls: it estimates every other player's card points from their laid pairs and hand
    size (exact once revealed) and weighs STOP, LAST CHANCE (its chance of beating them
    after their final turns, the colour bonus at stake) and waiting (deck size, the risk of
    a deck-out or of someone else calling first), with the race to the target score.
    """

    name = "planner"

    #: card points a pile top must add for the bot to take it rather than draw
    take_gain = 1
    #: expected card points another player gains in a final turn
    final_gain = 1.0
    #: spread of the estimate of a hidden hand, in points
    spread = 1.6
    #: card points gained on the others per own turn of waiting
    wait_edge = 0.15
    #: risk of waiting, per point the best other hand is estimated above ``risk_from``
    wait_risk = 0.5
    risk_from = 5.0

    def choose(self, view, options, rng):
        kind = options[0].kind
        x = expansion_choice(view, options, rng)
        if x is not None:
            return x
        if kind in (dc.DRAW, dc.TAKE):
            return self._take(view, options, _holding(view))
        if kind == dc.KEEP:
            return self._keep(view, options, _holding(view))
        if kind == dc.CRAB_TAKE:
            return self._crab_take(view, options)
        if kind == dc.END:              # the pairs come first: none to lay, only the calls
            return self._end(view, options)
        duo = self._duo(view, options)
        if duo is not None:
            return duo
        return self._end(view, options)

    # -- cards

    #: weight of the promise of unfinished pairs, used to break ties between cards
    promise = 0.1

    @staticmethod
    def _potential(h: Holding) -> float:
        """The promise of a hand beyond its card points: cards waiting for their pair (a
        lone crab, boat or fish; a shark without a swimmer or the reverse). Measured in
        tournaments: promising collectors instead makes the bot slower to reach a call."""
        hand = h.hand
        return ((hand[CRAB] & 1) + (hand[BOAT] & 1) + (hand[FISH] & 1)
                + (0.8 if hand[SHARK] != hand[SWIMMER] else 0.0))

    def _value_with(self, h: Holding, card: str, w: float) -> tuple[int, float]:
        """(card points, promise) of the hand with ``card`` added."""
        h.add(card)
        v = (h.points(), w * self._potential(h))
        h.remove(card)
        return v

    def _weight(self, view) -> float:
        """The promise only counts while the round goes on (not in final turns)."""
        return 0.0 if view.call is not None else self.promise

    def _crab_take(self, view, options) -> Decision:
        """The card taken from the pile worth most to the hand (points and promise)."""
        h, w = _holding(view), self._weight(view)
        return max(options, key=lambda d: sum(self._value_with(h, d.card, w)))

    def _take(self, view, options, h: Holding) -> Decision:
        """A pile top that adds card points now (the best one), else the deck."""
        w = self._weight(view)
        base = my_points(view)
        draw = _first_kind(options, dc.DRAW)
        best, key = None, None
        for d in options:
            if d.kind == dc.TAKE:
                pts, promise = self._value_with(h, d.card, w)
                k = (pts - base + promise, -_generic(d.card))
                if pts - base >= self.take_gain and (key is None or k > key):
                    best, key = d, k
        return best or draw or options[0]

    def _keep(self, view, options, h: Holding) -> Decision:
        """The drawn card worth more; the other one buries the more useful pile top."""
        w = self._weight(view)
        piles = view.piles

        values: dict[str, float] = {}
        best, key = options[0], None        # options is never empty
        for d in options:
            v = values.get(d.card)
            if v is None:
                pts, promise = self._value_with(h, d.card, w)
                v = values[d.card] = pts + promise
            top = piles[d.pile].top
            k = (v, _generic(top) if top is not None else 0.0)
            if key is None or k > key:
                best, key = d, k
        return best

    def _duo(self, view, options) -> Decision | None:
        trio = _first_kind(options, dc.STARFISH)      # R-X-TRIO: the starfish scores laid
        if trio is not None:
            return trio
        crab = boat = fish = shark = None
        for d in options:
            k = d.kind
            if k == dc.SHARK:
                if shark is None:
                    shark = _richest_victim(view, options, d)
            elif k == dc.FISH:
                fish = fish or d
            elif k == dc.CRAB:
                if crab is None:
                    crab = _biggest_pile_crab(view, options, d)
            elif k == dc.BOAT:
                boat = boat or d
        return shark or fish or crab or boat or _expansion_pair(view, options)

    # -- calls

    def _end(self, view, options) -> Decision:
        stop, end, last = _calls(options)
        if stop is None:
            return end
        me = view.viewer
        mine = my_points(view)
        bonus = _holding(view).bonus()
        others, est = others_estimated(view)
        best_other = max(est)
        mean_other = sum(est) / len(est)
        # chance that LAST CHANCE is won: beat every other player after their final turn
        p_win = 1.0
        for e in est:
            p_win *= 1.0 / (1.0 + math.exp(-(mine - e - self.final_gain + 0.5) / self.spread))
        other_bonus = sum(1.0 + 0.35 * s.hand_size + len(s.laid) * 0.5 for s in others) / len(others)
        ev_stop = mine - mean_other
        ev_last = (p_win * (mine + bonus - other_bonus)
                   + (1 - p_win) * (bonus - mean_other - self.final_gain))
        # the race: a STOP that ends the game
        totals, target = view.totals, view.target
        my_total = totals[me] + mine
        if my_total >= target:
            rivals = [totals[s.seat] + e for s, e in zip(others, est)]
            if all(r < my_total - 1 for r in rivals):
                return last if (last is not None and p_win > 0.85 and ev_last > ev_stop) else stop
        else:
            for s, e in zip(others, est):
                if totals[s.seat] + e >= target and totals[s.seat] + e > my_total:
                    ev_stop -= 6.0          # a STOP would hand someone the game
        # waiting: a few more points, but the deck may run out or someone may call first
        deck = view.deck_size
        n = len(view.seats)
        turns = deck / (1.5 * n)                      # own turns left, roughly
        ev_wait = (ev_stop + self.wait_edge * min(turns, 6.0)
                   - (self.wait_risk * max(0.0, best_other - self.risk_from))
                   - (4.0 if deck <= 2 * n else 0.0))
        if last is not None and ev_last >= max(ev_stop, ev_wait):
            return last
        if ev_stop >= ev_wait:
            return stop
        return end


class PatientBot(PlannerBot):
    """Plays for a big round: takes pile tops (which leaves the deck, so the round, long)
    and mermaids (four win the game), calls STOP only when that wins the game, and LAST
    CHANCE only late with a clear lead; when it is not ahead as the deck runs out it lets
    the round end in a deck-out (nobody scores) rather than hand the others their points.

    Weaker than the planner, but its long rounds reach what quick calls never do: the last
    card of the deck, deck-outs, final turns on an empty deck, four-mermaid wins.
    """

    name = "patient"

    @staticmethod
    def _potential(h: Holding) -> float:
        """The planner's promise of unfinished pairs, plus a lot for every mermaid."""
        return PlannerBot._potential(h) + 3.0 * h.kinds[MERMAID]

    #: how much value (points and promise) a pile top may cost and still be taken
    pile_bias = 0.75
    #: estimated lead in card points for LAST CHANCE when the deck is low / just emptied
    lead_when_low = 5.0
    lead_at_deck_out = 2.0

    def _take(self, view, options, h: Holding) -> Decision:
        """The best pile top unless it costs promise (a pile take keeps the deck, so the
        round, long), else the deck."""
        w = 1.0
        base = my_points(view) + self._potential(h)
        best, key = None, -self.pile_bias
        for d in options:
            if d.kind == dc.TAKE:
                pts, promise = self._value_with(h, d.card, w)
                gain = pts + promise - base
                if gain > key:
                    best, key = d, gain
        return best or _first_kind(options, dc.DRAW) or options[0]

    def _end(self, view, options) -> Decision:
        stop, end, last = _calls(options)
        if stop is None:
            return end
        me = view.viewer
        mine = my_points(view)
        others, est = others_estimated(view)
        lead = mine - max(est)
        if view.totals[me] + mine >= view.target and all(
                view.totals[s.seat] + e < view.totals[me] + mine for s, e in zip(others, est)):
            return stop
        deck = view.deck_size
        if last is not None:
            if deck == 0:                  # this turn emptied the deck: call or deck-out
                if lead >= self.lead_at_deck_out:
                    return last
            elif deck <= 2 * len(view.seats) and lead >= self.lead_when_low:
                return last
        return end


class TimidBot(GreedyBot):
    """The greedy bot that never calls STOP or LAST CHANCE: its rounds end in a deck-out
    or a mermaid win, so its games run long enough to go through the whole event deck
    (R-EV-RESHUFFLE) and reach the rare end-of-round situations."""

    name = "timid"

    def choose(self, view, options, rng):
        d = super().choose(view, options, rng)
        if d.kind in (dc.STOP, dc.LAST_CHANCE):
            return _first_kind(options, dc.END) or d
        return d


def others_estimated(view: TableView) -> tuple[list, list[float]]:
    """The other seats, and each one's card points: shown when its hand is revealed, else
    guessed from its laid pairs and hand size (what this player may see, R-VIEW)."""
    others = [s for s in view.seats if s.seat != view.viewer]
    return others, [s.card_points if s.card_points is not None
                    else len(s.laid) + hidden_points(s.hand_size) for s in others]


BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "planner": PlannerBot,
    "patient": PatientBot,
    "timid": TimidBot,
}


def make_bots(names: Sequence[str]) -> list[Bot]:
    """One bot per name (see :data:`BOTS`); raises KeyError for an unknown name."""
    return [BOTS[n]() for n in names]
