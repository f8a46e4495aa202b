"""Decisions apart from chance (engine/decisions.py) against the engine's own legal moves.

In positions of simulated games of every ruleset, with the round's deck order as recorded and
with it forgotten (the live case: the deck is then only the multiset of unseen cards):

- every path decision -> outcome [-> next decision -> outcome] gives an event the engine
  accepts (``apply``);
- every event of ``legal_moves`` (enumerated independently, engine/moves.py) is reached by
  exactly one path, and no path gives an event ``legal_moves`` leaves out, except the
  lobster's without a deck order (legal_moves lists one ``seen`` per card kept; the
  decisions every set of cards the lobster may see);
- the chance weights count the ways: they sum to the number of ordered draws from the deck
  (n, n(n-1): R-TAKE-1, R-TAKE-3), the cards of the victim's hand (R-DUO-SHARK), the
  5-card subsets the lobster may see (R-X-LOBSTER).
"""

from __future__ import annotations

from collections import Counter
from math import comb

import pytest
from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log.engine import (ENDED, ROUND, State, apply, chance_outcomes, decision_event,
                                legal_decisions, legal_moves, next_decisions, next_derived)
from seasalt_log.engine import decisions as dc
from seasalt_log.engine.state import BETWEEN
from seasalt_log.sim import simulate

SETTINGS = [(None, None), (None, "pepper"), ("extra-salt", None), ("extra-salt", "pepper")]

#: the unordered lobster is enumerated only on decks this small (C(n, 5) outcomes)
LOBSTER_DECK = 14


def paths(s: State):
    """Every (decision path, event) open to the player to act in ``s``."""
    for d in legal_decisions(s):
        for o, _ in chance_outcomes(s, d):
            then = next_decisions(s, d, o)
            assert d.kind in dc.FIRST_PHASE or not then      # what the simulator relies on
            if not then:
                yield (d, o), decision_event(s, d, o)
                continue
            for d2 in then:
                for o2, _ in chance_outcomes(s, d2):
                    assert not next_decisions(s, d2, o2)
                    yield (d, o, d2, o2), decision_event(s, d2, o2)


def unordered(s: State) -> State:
    """``s`` with the round's deck order forgotten (as a live game without it)."""
    t = s.table
    return replace(s, table=t.with_deck(tuple(sorted(t.deck)), ordered=False))


def positions(games):
    """Every state of ``games`` where an input is due (a decision is open)."""
    for game in games:
        s = State()
        for e in game:
            if (s.phase == ROUND and not s.flow.due) or (s.phase == BETWEEN and
                                                         s.keep_due is not None):
                yield s
            s = apply(s, e)


def check_position(s: State, kinds: Counter) -> None:
    lobster_ok = s.table.deck_ordered or len(s.table.deck) <= LOBSTER_DECK
    if not lobster_ok and any(d.kind == dc.LOBSTER for d in legal_decisions(s)):
        return
    reached = Counter()
    for path, e in paths(s):
        apply(s, e)                                   # the engine accepts it
        reached[ev.encode(e)] += 1
        for d, o in zip(path[::2], path[1::2]):
            kinds[d.kind] += 1
            if o:
                kinds[d.kind + " with chance"] += 1
    moves = Counter(ev.encode(m) for m in legal_moves(s))
    assert moves, "a decision is open, so legal_moves lists something"
    for m in moves:
        assert reached[m] == 1, (m, reached[m])       # each legal move by exactly one path
    extra = [m for m in reached if m not in moves]
    assert all(b'"lobster_played"' in m and not s.table.deck_ordered for m in extra), extra[:3]
    if extra:
        kinds["lobster, deck order unknown"] += 1


@pytest.mark.parametrize("ruleset,events", SETTINGS)
def test_every_legal_move_is_one_decision_and_outcome(ruleset, events):
    kinds = Counter()
    n = 0
    for i, s in enumerate(positions(simulate(2, 2, 11, None, ruleset, events))):
        check_position(s, kinds)
        if i % 8 == 0:
            check_position(unordered(s), kinds)
        n += 1
    assert n > 100
    # the decisions that involve chance or a second decision were all met
    assert {dc.DRAW, dc.KEEP, dc.TAKE, dc.END, "draw with chance"} <= set(kinds)
    if ruleset:
        assert {dc.STARFISH} & set(kinds) or {dc.LOBSTER, dc.JELLYFISH} & set(kinds)


def test_rare_decisions_are_covered():
    """More games of the expansions, every state checked with its deck order: the second
    decisions and every chance the expansions add come up."""
    kinds = Counter()
    for s in positions(simulate(40, 3, 5, ["timid", "planner", "random"], "extra-salt",
                                "pepper")):
        check_position(s, kinds)
    want = {dc.CRAB_TAKE, dc.LOBSTER_KEEP, dc.SWAP, dc.SHARKS, dc.ANGELFISH, dc.SHELL,
            dc.FORCED, dc.KEEP_EVENT, dc.JELLYFISH, dc.STARFISH, dc.FISH, dc.SHARK,
            "keep with chance", "fish with chance", "shark with chance", "forced with chance"}
    assert want <= set(kinds), want - set(kinds)


def test_the_unordered_lobster_and_hermit_crab():
    """Positions of expansion games with a lobster or crab pair open, the deck order
    forgotten and the deck cut to its last 9 cards (as later in the round), so that every
    view the lobster may get (C(9, 5)) is enumerated."""
    kinds = Counter()
    for s in positions(simulate(30, 2, 3, ["timid", "random"], "extra-salt", "pepper")):
        if any(d.kind in (dc.LOBSTER, dc.CRAB) for d in legal_decisions(s)):
            late = replace(s, table=s.table.with_deck(s.table.deck[-9:]))
            check_position(unordered(late), kinds)
    assert kinds["lobster, deck order unknown"] > 0 and kinds[dc.CRAB_TAKE] > 0


def test_chance_weights_count_the_ways():
    checked = Counter()
    for s in positions(simulate(3, 3, 2, None, "extra-salt", "pepper")):
        u = unordered(s)
        n = len(u.table.deck)
        for d in legal_decisions(u):
            if d.kind == dc.LOBSTER and n > LOBSTER_DECK:
                continue
            total = sum(w for _, w in chance_outcomes(u, d))
            if d.kind == dc.DRAW:                         # R-TAKE-1 (two cards), R-TAKE-3
                assert total == (n if n == 1 else n * (n - 1))
            elif d.kind == dc.SHARK and d.victim is not None:   # R-DUO-SHARK: a random card
                assert total == len(u.table.hands[d.victim])
            elif d.kind == dc.LOBSTER and n <= LOBSTER_DECK:    # R-X-LOBSTER: the top 5
                assert total == comb(n, min(5, n))
            elif d.kind in (dc.FORCED, dc.FISH) and n and "sunfish" not in u.effects(
                    u.flow.player):                       # R-X-JELLYFISH-TURN, R-DUO-FISH
                assert total == n
            else:
                continue
            checked[d.kind] += 1
    assert checked[dc.DRAW] > 50 and checked[dc.SHARK] > 0


def test_decisions_play_whole_games_through_the_engine():
    """Without the simulator: the first decision and the first outcome every time, the
    derived events from the engine; the game ends and every event is legal."""
    for ruleset, events in SETTINGS:
        s = apply(State(), ev.GameStarted(game_id="g", players=("A", "B"), ruleset=ruleset,
                                          events=events))
        for _ in range(20000):
            if s.phase == ENDED:
                break
            if s.flow.due:
                s = apply(s, next_derived(s))
                continue
            if s.phase == BETWEEN and s.keep_due is None:
                cards = sorted(s.ruleset.cards)
                s = apply(s, ev.RoundStarted(
                    round=s.flow.round + 1, first_player=(s.flow.ender + 1) % 2
                    if s.flow.ender is not None else 0, discards=(cards[0], cards[1]),
                    event=s.event_deck[0] if s.event_deck else None))
                continue
            d = legal_decisions(s)[-1]                    # calls when it may: short rounds
            o = chance_outcomes(s, d)[0][0]
            then = next_decisions(s, d, o)
            if then:
                d = then[0]
                o = chance_outcomes(s, d)[0][0]
            s = apply(s, decision_event(s, d, o))
        assert s.phase == ENDED, (ruleset, events)


def test_a_decision_that_needs_a_second_one_has_no_event():
    s = next(p for p in positions(simulate(1, 2, 1)) if p.flow.step == "take"
             and len(p.table.deck) > 2)
    draw = next(d for d in legal_decisions(s) if d.kind == dc.DRAW)
    (o, w), = chance_outcomes(s, draw)
    assert w == 1 and o == s.table.deck[:2]
    with pytest.raises(ValueError):
        decision_event(s, draw, o)
    keeps = next_decisions(s, draw, o)
    assert {k.card for k in keeps} == set(o)


@pytest.mark.parametrize("ruleset,events", [("extra-salt", None), ("extra-salt", "pepper"),
                                            (None, "pepper")])
def test_the_quick_no_play_test_never_hides_a_pair(monkeypatch, ruleset, events):
    """legal_decisions tells most hands without a pair from their counts (``_may_play``);
    with that test off (every hand grouped), every play step gives the same decisions."""
    states = [s for s in positions(simulate(12, 2, 5, None, ruleset, events))
              if s.phase == ROUND and s.flow.step == "play"]
    quick = [legal_decisions(s) for s in states]
    monkeypatch.setattr(dc, "_may_play", lambda in_hand, effects: True)
    grouped = [legal_decisions(s) for s in states]
    assert quick == grouped
    plays = sum(1 for g in grouped if any(d.kind not in (dc.END, dc.STOP, dc.LAST_CHANCE)
                                          for d in g))
    assert len(states) > 300 and plays > 30
