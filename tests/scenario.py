"""Scenario helper for rule tests: start a game, start a round with a chosen deck order,
feed events, and reach the states the rules talk about.

    g = Game(players=2)
    g.start_round(hands={0: ["crab:black", "crab:yellow"]}, then=["fish:black", "boat:black"])
    g.play(take(0, 1, g.pile_top(1)), ...)
    exc = g.refuse(end(1))
    assert exc.rule == "R-FLOW-PLAYER"

``start_round`` builds a full 56-card deck: the cards dealt by ``hands`` (each player draws
``[wanted, filler]``, keeps the wanted card and discards the filler onto pile 0), then the
cards of ``then`` in order, then the rest of the catalog (mermaids last), then ``bottom``.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

import pytest

from seasalt_log import events as ev
from seasalt_log.cards import ALL_CODES, COUNT, FULL_DECK, KIND
from seasalt_log.engine import State, apply, next_derived
from seasalt_log.engine.rulings import rules_for
from seasalt_log.engine.state import ANGEL
from seasalt_log.errors import IllegalMoveError

MERMAID = "mermaid:white"
#: the kinds whose discard in a deck draw makes the Dolphins draw (R-EV-DOLPHINS)
DOLPHIN_KINDS = frozenset({"shell", "octopus", "penguin", "sailor", "seahorse"})
#: the kinds that pad a deal, in this order (see Game.start_round)
PAD_ORDER = ("shell", "octopus", "lighthouse", "shoal", "penguin", "sailor", "colony",
             "captain", "shark", "swimmer", "crab", "boat", "fish", "mermaid")

# ------------------------------------------------------------------ event shorthands


def draw(player: int, a: str, b: str | None = None, *, keep: str | None = None,
         pile: int | None = 0) -> ev.DeckDrawn:
    """R-TAKE-1: draw ``a`` and ``b`` (keep ``keep``, default ``a``; the other onto ``pile``);
    with ``b`` None, the one-card draw of R-TAKE-3."""
    if b is None:
        return ev.DeckDrawn(player=player, cards=(a,), kept=keep or a)
    return ev.DeckDrawn(player=player, cards=(a, b), kept=keep or a, discard_pile=pile)


def take(player: int, pile: int, card: str) -> ev.DiscardTaken:
    return ev.DiscardTaken(player=player, pile=pile, card=card)


def crabs(player: int, a: str, b: str, pile: int | None, took: str | None,
          index: int | None = None) -> ev.CrabsPlayed:
    return ev.CrabsPlayed(player=player, cards=(a, b), pile=pile, took=took, index=index)


def boats(player: int, a: str, b: str) -> ev.BoatsPlayed:
    return ev.BoatsPlayed(player=player, cards=(a, b))


def fish(player: int, a: str, b: str, drew: str | None) -> ev.FishPlayed:
    return ev.FishPlayed(player=player, cards=(a, b), drew=drew)


def shark(player: int, a: str, b: str, victim: int | None, stole: str | None) -> ev.SharkPlayed:
    return ev.SharkPlayed(player=player, cards=(a, b), victim=victim, stole=stole)


def end(player: int) -> ev.TurnEnded:
    return ev.TurnEnded(player=player)


def stop(player: int) -> ev.StopCalled:
    return ev.StopCalled(player=player)


def last_chance(player: int) -> ev.LastChanceCalled:
    return ev.LastChanceCalled(player=player)


# ------------------------------------------------------------------ decks


def catalog_order(full: Counter = FULL_DECK) -> list[str]:
    """All cards of ``full`` (58, or 66 with Extra Salt) in catalog order, the four mermaids
    moved to the very end."""
    cards = [c for c in ALL_CODES for _ in range(full[c]) if c != MERMAID]
    return cards + [MERMAID] * COUNT[MERMAID]


def take_out(pool: list[str], cards: Iterable[str], what: str) -> None:
    """Remove ``cards`` from ``pool`` (one copy each), or fail naming ``what``."""
    for card in cards:
        if card not in KIND:
            raise ValueError(f"{what}: {card!r} is not a card code")
        try:
            pool.remove(card)
        except ValueError:
            raise ValueError(f"{what}: no copy of {card} left (the deck holds "
                             f"{COUNT.get(card, 1)})") from None


def build_deck(top: Sequence[str] = (), discards: Sequence[str] | None = None,
               bottom: Sequence[str] = ()) -> tuple[tuple[str, str], tuple[str, ...]]:
    """``(discards, deck)``: a full 56-card deck that starts with ``top`` and ends with
    ``bottom``, the rest filled from the remaining catalog (mermaids last)."""
    pool = catalog_order()
    take_out(pool, top, "top")
    take_out(pool, bottom, "bottom")
    if discards is None:
        discards = _quiet_pair(pool)
    else:
        take_out(pool, discards, "discards")
    deck = tuple(top) + tuple(pool) + tuple(bottom)
    assert len(deck) == 56 and Counter(deck) + Counter(discards) == FULL_DECK
    return (discards[0], discards[1]), deck


def _quiet_pair(pool: list[str]) -> tuple[str, str]:
    """Two discards nobody cares about by default: a shell and an octopus if available."""
    picked = []
    for kind in ("shell", "octopus", "penguin", "sailor"):
        for card in pool:
            if KIND[card] == kind:
                picked.append(card)
                pool.remove(card)
                break
        if len(picked) == 2:
            return picked[0], picked[1]
    while len(picked) < 2:
        picked.append(pool.pop(0))
    return picked[0], picked[1]


# ------------------------------------------------------------------ the game


class Game:
    """A game under test: its events so far and the engine's state after them."""

    def __init__(self, players: int = 2, target: int | None = None, game_id: str = "scenario",
                 ruleset: str | None = None, events: str | None = None):
        self.names = ("Ann", "Ben", "Cid", "Dee")[:players]
        self.events: list[ev.Event] = []
        self.state = State()
        self.rules = rules_for(ruleset, events)
        self.full = Counter(self.rules.cards)
        self.play(ev.GameStarted(players=self.names, game_id=game_id, target=target,
                                 ruleset=ruleset, events=events))

    @property
    def n(self) -> int:
        return len(self.names)

    # -- feeding events

    def play(self, *events: ev.Event) -> "Game":
        """Apply each event (the engine checks it); an illegal one fails the test."""
        for e in events:
            self.state = apply(self.state, e)
            self.events.append(e)
        return self

    def refuse(self, event: ev.Event) -> IllegalMoveError:
        """Assert that the engine refuses ``event`` here and return the error; the game
        stays as it was."""
        before = self.state
        with pytest.raises(IllegalMoveError) as info:
            apply(before, event)
        assert self.state is before
        return info.value

    def derived(self) -> list[ev.Event]:
        """Apply every derived event now due (``round_scored`` / ``game_ended``)."""
        out = []
        while (d := next_derived(self.state)) is not None:
            self.play(d)
            out.append(d)
        return out

    # -- rounds

    def start_round(self, hands: dict[int, Sequence[str]] | None = None, then: Sequence[str] = (),
                    discards: Sequence[str] | None = None, bottom: Sequence[str] = (),
                    first: int | None = None, ordered: bool = True,
                    event: str | None = None) -> "Game":
        """Start the next round with a chosen deck order and play the deal of ``hands``.

        ``first`` defaults to seat 0 in round 1 and to the seat R-SETUP-4 names later. The
        deal: in turns from ``first`` on, each player with a card still to be dealt draws
        ``[wanted, filler]``, keeps the wanted card, discards the filler onto pile 0 and ends
        the turn. Hand sizes may fall by at most one along the seat order from ``first``
        (e.g. ``[2, 2, 1]``), and then the next seat in that order is to act; any other shape
        is padded: every seat is filled up to the largest hand with cards from
        :data:`PAD_ORDER`, and ``first`` is to act. Then the deck continues with ``then``.
        A deal turn after which the Angelfish take is due (R-EV-ANGELFISH) takes it, as
        :meth:`drain` does.
        """
        hands = {p: list(c) for p, c in (hands or {}).items()}
        s = self.state
        if first is None:
            first = 0 if s.flow.ender is None else (s.flow.ender + 1) % self.n
        order = [(first + i) % self.n for i in range(self.n)]
        pool = catalog_order(self.full)
        take_out(pool, [c for p in order for c in hands.get(p, ())], "hands")
        take_out(pool, then, "then")
        take_out(pool, bottom, "bottom")
        if discards is None:
            discards = _quiet_pair(pool)
        else:
            take_out(pool, discards, "discards")
        need = [len(hands.get(p, ())) for p in order]
        if any(a < b for a, b in zip(need, need[1:])) or need[0] - need[-1] > 1:
            pads = [c for kind in PAD_ORDER for c in pool if KIND[c] == kind]
            for p in order:
                while len(hands.setdefault(p, [])) < max(need):
                    card = pads.pop(0)
                    pool.remove(card)
                    hands[p].append(card)
        fillers = [c for c in pool if c != MERMAID] + [c for c in pool if c == MERMAID]
        deal: list[str] = []
        plan: list[tuple[int, str, str]] = []
        for k in range(max(need)):
            for p in order:
                if k < len(hands.get(p, ())):
                    filler = fillers.pop(0)
                    pool.remove(filler)
                    plan.append((p, hands[p][k], filler))
                    deal += [hands[p][k], filler]
        deck = tuple(deal) + tuple(then) + tuple(pool) + tuple(bottom)
        assert Counter(deck) + Counter(discards) == self.full
        self.play(ev.RoundStarted(round=s.flow.round + 1, first_player=first,
                                  discards=(discards[0], discards[1]),
                                  deck=deck if ordered else None, event=event))
        for p, want, filler in plan:
            self.play(draw(p, want, filler, keep=want, pile=0))
            self._angelfish_if_due()
            self.play(end(p))
        return self

    def drain(self, leave: int, player: int | None = None, piles_empty: bool = False) -> "Game":
        """Play whole filler turns until the deck holds ``leave`` cards (at least 1: the turn
        that empties the deck ends the round, R-END-3), it is ``player``'s turn (if given)
        and, with ``piles_empty``, both discard piles are empty.

        A filler turn is either a deck draw (keep one card, discard the other) or the take of
        a pile's top; a search over (deck size, cards on the piles, seat to act) picks the
        shortest mix of the two, planned again after every turn. When the Angelfish take is
        due (R-EV-ANGELFISH) the turn takes it (the top of the longer pile); under the
        Dolphins (R-EV-DOLPHINS) a draw keeps a collector rather than discard it, and when it
        must discard one it draws the Dolphins' card. A deck draw removes two cards, so a
        difference of odd size needs a fish pair first; with ``piles_empty`` every turn is
        forced (the draws empty the deck, the takes the piles), so ``player`` then depends on
        the deal."""
        if leave < 1:
            raise ValueError("drain leaves at least one card; play the last draw yourself")
        while plan := self._plan(leave, player, piles_empty):
            # planned again after every turn: an Angelfish take (below) changes the piles
            s = self.state
            p, t = s.flow.player, s.table
            mermaids = t.hands[p].count(MERMAID)
            if plan[0] == "draw":
                a, b = t.deck[0], t.deck[1]
                keep = b if (a == MERMAID and b != MERMAID) else a
                dolphins = "dolphins" in s.effects(p)
                if dolphins and KIND[b if keep == a else a] in DOLPHIN_KINDS:
                    keep = b if keep == a else a        # keep the collector if one goes
                if keep == MERMAID and mermaids >= 3:
                    raise AssertionError("drain would deal a fourth mermaid")
                empty = [i for i in (0, 1) if not t.piles[i]]
                pile = empty[0] if len(empty) == 1 else 0
                gone = b if keep == a else a
                self.play(ev.DeckDrawn(player=p, cards=(a, b), kept=keep, discard_pile=pile,
                                       dolphins_drew=t.deck[2] if dolphins and len(t.deck) > 2
                                       and KIND[gone] in DOLPHIN_KINDS else None))
            else:
                options = [i for i in (0, 1) if t.piles[i]
                           and (t.piles[i][-1] != MERMAID or mermaids < 3)]
                i = max(options, key=lambda i: len(t.piles[i]))
                self.play(take(p, i, t.piles[i][-1]))
            self._angelfish_if_due()
            self.play(end(p))
        return self

    def _angelfish_if_due(self) -> None:
        """Take the Angelfish's card when it is due (R-EV-ANGELFISH): the top of the longer
        pile, never a fourth mermaid."""
        s = self.state
        if s.flow.step != ANGEL:
            return
        p, piles = s.flow.player, s.table.piles
        mermaids = s.table.hands[p].count(MERMAID)
        options = [i for i in (0, 1) if piles[i][-1] != MERMAID or mermaids < 3]
        if not options:
            raise AssertionError("the Angelfish take would deal a fourth mermaid")
        i = max(options, key=lambda i: len(piles[i]))
        self.play(ev.AngelfishTaken(player=p, pile=i, card=piles[i][-1]))

    def _plan(self, leave: int, player: int | None, piles_empty: bool) -> list[str]:
        t, n = self.state.table, self.n
        start = (len(t.deck), len(t.piles[0]) + len(t.piles[1]), self.state.flow.player)

        def done(node) -> bool:
            deck, piles, seat = node
            return (deck == leave and (player is None or seat == player)
                    and (not piles_empty or piles == 0))

        paths: dict[tuple[int, int, int], list[str]] = {start: []}
        frontier = [start]
        while frontier:
            nxt = []
            for node in frontier:
                if done(node):
                    return paths[node]
                deck, piles, seat = node
                moves = []
                if deck - 2 >= leave:
                    moves.append(("draw", (deck - 2, piles + 1, (seat + 1) % n)))
                if piles:
                    moves.append(("take", (deck, piles - 1, (seat + 1) % n)))
                for kind, child in moves:
                    if child not in paths:
                        paths[child] = paths[node] + [kind]
                        nxt.append(child)
            frontier = nxt
        why = (" (an odd difference needs a fish pair first)" if (start[0] - leave) % 2 else
               " (with piles_empty the number of turns is fixed: change the first player or "
               "the size of the deal)" if piles_empty and player is not None else "")
        raise ValueError(f"cannot drain the deck from {start[0]} to {leave} cards"
                         f" with seat {player} to act{why}")

    # -- looking at the state

    @property
    def player(self) -> int:
        return self.state.flow.player

    def hand(self, seat: int) -> tuple[str, ...]:
        return self.state.table.hands[seat]

    def hand_counter(self, seat: int) -> Counter:
        return Counter(self.state.table.hands[seat])

    def laid(self, seat: int) -> tuple[tuple[str, str], ...]:
        return self.state.table.laid[seat]

    def pile(self, i: int) -> tuple[str, ...]:
        return self.state.table.piles[i]

    def pile_top(self, i: int) -> str:
        return self.state.table.piles[i][-1]

    @property
    def deck(self) -> tuple[str, ...]:
        return self.state.table.deck


def states_after(events: Iterable[ev.Event]) -> list[State]:
    """The state after each event of ``events``, folded from the empty state."""
    s, out = State(), []
    for e in events:
        s = apply(s, e)
        out.append(s)
    return out


def cards_in_play(s: State) -> list[str]:
    """Every card of the table, sorted: deck, piles, hands, laid units, face-down shells
    (R-CARDS: a game's cards are conserved; R-X-CARDS-1 for Extra Salt)."""
    t = s.table
    cards = [*t.deck, *t.piles[0], *t.piles[1]]
    for hand in t.hands:
        cards.extend(hand)
    for units in t.laid:
        for unit in units:
            cards.extend(unit)
    cards.extend(c for c in t.face_down if c is not None)
    cards.sort()
    return cards
