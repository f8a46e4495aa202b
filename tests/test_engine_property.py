"""Property tests over thousands of seeded random games (2, 3 and 4 players).

Each game is played by :func:`tests.randomplay.play_random_game` (random choices among the
engine's legal moves) and checked event by event. ``SEASALT_PROPERTY_GAMES`` sets the number
of games (default 1500, shared evenly between the player counts).
"""

from __future__ import annotations

import os
from collections import Counter
from itertools import combinations

import pytest

from seasalt_log import events as ev
from seasalt_log.cards import FULL_DECK, KIND
from seasalt_log.engine import ENDED, ROUND, State, apply, check, fold, legal_moves, with_derived
from seasalt_log.errors import IllegalMoveError

from .randomplay import play_random_game, without_deck_order

GAMES = int(os.environ.get("SEASALT_PROPERTY_GAMES", "1500"))
PLAYER_COUNTS = (2, 3, 4)
#: every game whose seed is a multiple of this has legal_moves compared, in every state, with
#: every candidate event the engine accepts
FULL_MOVE_CHECK_EVERY = 25


def seeds(players: int) -> range:
    per = max(1, GAMES // len(PLAYER_COUNTS))
    return range(players * 1_000_000, players * 1_000_000 + per)


FULL_SORTED = sorted(FULL_DECK.elements())


def cards_on_table(s: State) -> list[str]:
    """Every card in the deck, the piles, the hands and the laid-down pairs, sorted."""
    t = s.table
    cards = [*t.deck, *t.piles[0], *t.piles[1]]
    for hand in t.hands:
        cards += hand
    for laid in t.laid:
        for pair in laid:
            assert len(pair) == 2, pair
            cards += pair
    cards.sort()
    return cards


def where_cards_differ(cards: list[str]) -> str:
    got = Counter(cards)
    return f"missing {sorted((FULL_DECK - got).elements())}, extra {sorted((got - FULL_DECK).elements())}"


def accepts(s: State, e: ev.Event) -> bool:
    try:
        check(s, e)
    except IllegalMoveError:
        return False
    return True


def candidate_moves(s: State) -> set[ev.Event]:
    """A superset of the input events the player to act could send (deck order recorded),
    in legal_moves' canonical form: pairs of one kind sorted, shark before swimmer."""
    t, p, n = s.table, s.flow.player, s.n
    hand, deck = t.hands[p], t.deck
    out: set[ev.Event] = {ev.TurnEnded(player=p), ev.StopCalled(player=p),
                          ev.LastChanceCalled(player=p)}
    for k in (1, 2):
        if len(deck) >= k:
            for kept in set(deck[:k]):
                for pile in (None, 0, 1):
                    out.add(ev.DeckDrawn(player=p, cards=deck[:k], kept=kept, discard_pile=pile))
    for i in (0, 1):
        if t.piles[i]:
            out.add(ev.DiscardTaken(player=p, pile=i, card=t.piles[i][-1]))

    def pairs(kind):
        return set(combinations(sorted(c for c in hand if KIND[c] == kind), 2))

    for cards in pairs("crab"):
        out.add(ev.CrabsPlayed(player=p, cards=cards, pile=None, took=None))
        out.update(ev.CrabsPlayed(player=p, cards=cards, pile=i, took=c)
                   for i in (0, 1) for c in set(t.piles[i]))
    out.update(ev.BoatsPlayed(player=p, cards=cards) for cards in pairs("boat"))
    for cards in pairs("fish"):
        out.update(ev.FishPlayed(player=p, cards=cards, drew=d) for d in {None, *deck[:1]})
    steals = {(None, None)} | {(v, c) for v in range(n) if v != p for c in t.hands[v]}
    for a in {c for c in hand if KIND[c] == "shark"}:
        for b in {c for c in hand if KIND[c] == "swimmer"}:
            out.update(ev.SharkPlayed(player=p, cards=(a, b), victim=v, stole=c) for v, c in steals)
    return out


class Checker:
    """The per-event checks, as an ``on_event`` callback of the random player."""

    def __init__(self, seed: int, players: int, check_all_moves: bool):
        self.seed, self.players, self.check_all_moves = seed, players, check_all_moves
        self.where = ""

    def __call__(self, before: State, e: ev.Event, after: State) -> None:
        self.where = f"seed {self.seed}, {self.players} players, event {after.seq} ({ev.TAGS[type(e)]})"
        assert after.seq == before.seq + 1, self.where
        if after.phase == ROUND:
            # R-CARDS / R-SETUP-3: all 58 cards, each in exactly one place
            cards = cards_on_table(after)
            assert cards == FULL_SORTED, f"{self.where}: {where_cards_differ(cards)}"
            assert len(after.table.hands) == self.players, self.where
            if not after.flow.due:
                assert 0 <= after.flow.player < self.players, self.where
                moves = legal_moves(after)
                assert moves, f"{self.where}: no legal move while the round is in play"
                if self.check_all_moves:
                    # legal_moves lists exactly the candidates the engine accepts
                    accepted = {m for m in candidate_moves(after) if accepts(after, m)}
                    assert set(moves) == accepted, (
                        f"{self.where}: listed but refused {set(moves) - accepted}, "
                        f"accepted but not listed {accepted - set(moves)}")
                    assert len(set(moves)) == len(moves), f"{self.where}: a move listed twice"
                elif after.flow.step == "play":
                    # the calls are listed exactly when the engine accepts them (R-END-2)
                    call = ev.StopCalled(player=after.flow.player)
                    assert (call in moves) == accepts(after, call), self.where
        assert all(b >= a for a, b in zip(before.totals, after.totals)), self.where
        # decode(encode(x)) == x, and the game-dependent format checks pass
        assert ev.decode(ev.encode(e)) == e, self.where
        ev.validate(e, self.players)


def play_and_check(seed: int, players: int) -> list[ev.Event]:
    checker = Checker(seed, players, seed % FULL_MOVE_CHECK_EVERY == 0)
    events = play_random_game(seed, players, on_event=checker)
    where = f"seed {seed}, {players} players"
    # every game ends, with game_ended as its last event
    assert type(events[-1]) is ev.GameEnded, where
    assert sum(type(e) is ev.GameEnded for e in events) == 1, where
    end = events[-1]
    final = fold(events)
    assert final.phase == ENDED and final.winners == end.winners, where
    if end.reason == "target":
        assert max(end.totals) >= final.target, where
        assert all(end.totals[w] == max(end.totals) for w in end.winners), where
    else:
        assert len(end.winners) == 1, where

    # the derived events, fed back in the stream, are accepted and nothing is added
    replayed = [e for e, _ in with_derived(events)]
    assert replayed == events, where
    # the input events alone re-check to exactly the same events
    inputs = [e for e in events if type(e) not in ev.DERIVED_TYPES]
    assert [e for e, _ in with_derived(inputs)] == events, where
    # the same game with unrecorded shuffles is accepted too, with the same outcome
    unordered = without_deck_order(inputs)
    assert [e for e, _ in with_derived(unordered)] == without_deck_order(events), where
    return events


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games(players: int) -> None:
    endings: Counter = Counter()
    for seed in seeds(players):
        events = play_and_check(seed, players)
        endings.update(e.ending for e in events if type(e) is ev.RoundScored)
        endings.update(e.reason for e in events if type(e) is ev.GameEnded)
    if GAMES >= 300:
        # the games reach every way a round and a game can end
        for how in ("stop", "last_chance", "deck_out", "target"):
            assert endings[how] > 0, (how, endings)


def test_random_player_is_deterministic() -> None:
    assert play_random_game(7, 3) == play_random_game(7, 3)
    assert play_random_game(7, 3) != play_random_game(8, 3)


def test_random_games_reach_a_mermaid_win() -> None:
    """R-MERMAID-WIN happens in random play (a few seeds in a hundred)."""
    wins = []
    for seed in range(300):
        end = play_random_game(seed, 2)[-1]
        if end.reason == "mermaids":
            wins.append(seed)
            break
    assert wins, "no four-mermaid win in 300 random games"


def test_fold_refuses_a_corrupted_random_game() -> None:
    """The property harness can fail: a game with one take changed is refused."""
    events = play_random_game(11, 2)
    i = next(i for i, e in enumerate(events) if type(e) is ev.DiscardTaken)
    bad = list(events)
    bad[i] = ev.DiscardTaken(player=events[i].player, pile=events[i].pile,
                             card="mermaid:white" if events[i].card != "mermaid:white"
                             else "crab:black")
    from seasalt_log.errors import IllegalMoveError
    with pytest.raises(IllegalMoveError) as exc:
        fold(bad)
    assert exc.value.rule == "R-TAKE-2"
