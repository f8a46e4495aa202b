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
from seasalt_log.cards import CODES, COUNT, FULL_DECK, KIND
from seasalt_log.engine import State, apply, next_derived
from seasalt_log.errors import IllegalMoveError

MERMAID = "mermaid:white"

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


def catalog_order() -> list[str]:
    """All 58 cards in catalog order, the four mermaids moved to the very end."""
    cards = [c for c in CODES for _ in range(COUNT[c]) if c != MERMAID]
    return cards + [MERMAID] * COUNT[MERMAID]


def take_out(pool: list[str], cards: Iterable[str], what: str) -> None:
    """Remove ``cards`` from ``pool`` (one copy each), or fail naming ``what``."""
    for card in cards:
        if card not in COUNT:
            raise ValueError(f"{what}: {card!r} is not a card code")
        try:
            pool.remove(card)
        except ValueError:
            raise ValueError(f"{what}: no copy of {card} left (the deck holds {COUNT[card]})") from None


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

    def __init__(self, players: int = 2, target: int | None = None, game_id: str = "scenario"):
        self.names = ("Ann", "Ben", "Cid", "Dee")[:players]
        self.events: list[ev.Event] = []
        self.state = State()
        self.play(ev.GameStarted(players=self.names, game_id=game_id, target=target))

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
                    first: int | None = None, ordered: bool = True) -> "Game":
        """Start the next round with a chosen deck order and play the deal of ``hands``.

        The deal: from ``first`` on, in seat order, each player whose wanted cards are not all
        dealt draws ``[wanted, filler]``, keeps the wanted card, discards the filler onto pile
        0 and ends the turn; the deal stops once every wanted card is dealt, so hand sizes
        may differ by one in seat order from ``first`` (more would need extra turns and the
        helper refuses). Then the deck continues with ``then``.
        """
        hands = {p: list(c) for p, c in (hands or {}).items()}
        s = self.state
        if first is None:
            first = 0 if s.flow.ender is None else (s.flow.ender + 1) % self.n
        order = [(first + i) % self.n for i in range(self.n)]
        turns = max((len(c) for c in hands.values()), default=0)
        # seats needing k turns must come before seats needing fewer, at most one fewer
        need = [len(hands.get(p, ())) for p in order]
        if need and (any(a < b for a, b in zip(need, need[1:])) or need[0] - need[-1] > 1):
            raise ValueError(f"hands {need} (seat order from {first}) cannot be dealt in whole "
                             "turns; give earlier seats as many cards as later ones, or one more")
        pool = catalog_order()
        wanted = [c for p in order for c in hands.get(p, ())]
        take_out(pool, wanted, "hands")
        take_out(pool, then, "then")
        take_out(pool, bottom, "bottom")
        if discards is None:
            discards = _quiet_pair(pool)
        else:
            take_out(pool, discards, "discards")
        deal: list[str] = []
        fillers = [c for c in pool if c != MERMAID] + [c for c in pool if c == MERMAID]
        plan: list[tuple[int, str, str]] = []
        for k in range(turns):
            for p in order:
                if k < len(hands.get(p, ())):
                    filler = fillers.pop(0)
                    pool.remove(filler)
                    plan.append((p, hands[p][k], filler))
                    deal += [hands[p][k], filler]
        deck = tuple(deal) + tuple(then) + tuple(pool) + tuple(bottom)
        assert len(deck) == 56 and Counter(deck) + Counter(discards) == FULL_DECK
        self.play(ev.RoundStarted(round=s.flow.round + 1, first_player=first,
                                  discards=(discards[0], discards[1]),
                                  deck=deck if ordered else None))
        for p, want, filler in plan:
            self.play(draw(p, want, filler, keep=want, pile=0), end(p))
        return self

    def drain(self, leave: int) -> "Game":
        """Play whole filler turns (draw two, keep one, discard onto pile 0, end) until the
        deck holds ``leave`` cards. Each turn takes two cards, so the difference must be
        even (a fish pair changes the parity). ``leave`` 0 ends in a deck-out (R-END-3)."""
        t = self.state.table
        if (len(t.deck) - leave) % 2 or len(t.deck) < leave:
            raise ValueError(f"cannot drain {len(t.deck)} cards to {leave} two at a time")
        while len(self.state.table.deck) > leave:
            s = self.state
            p, t = s.flow.player, s.table
            a, b = t.deck[0], t.deck[1]
            mermaids = t.hands[p].count(MERMAID)
            keep = b if (a == MERMAID and b != MERMAID) else a
            if keep == MERMAID and mermaids >= 3:
                keep = b if a == MERMAID else a
            pile = 1 if (t.piles[0] and not t.piles[1]) else 0   # an empty pile first
            self.play(draw(p, a, b, keep=keep, pile=pile), end(p))
        return self

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
