"""Player views against an independent oracle of RULES.md §7 (tests/view_oracle.py).

At every point of many games (simulated and random, every ending: STOP, LAST CHANCE won
and lost, deck-out, four mermaids) and of every fixture, from every seat: the hands a
player's view shows are exactly those the oracle allows (their own, and the revealed
ones), the cards shown are the true ones, the deck and the piles below their tops are
never shown, and the line describing the event names only cards the oracle lets that seat
learn from it. The last tests make sure each check fails when a view leaks one card.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import msgspec
import pytest
from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log import narration, render
from seasalt_log import view as view_mod
from seasalt_log.cards import CODES, EXTRA_CODES
from seasalt_log.engine import State, apply
from seasalt_log.golden import FIXTURES, fixture_logs, valid_games
from seasalt_log.sim import simulate

try:
    from . import view_oracle as oracle
    from .randomplay import play_random_game
except ImportError:      # tests/ run as a plain directory
    import view_oracle as oracle  # type: ignore[no-redef]
    from randomplay import play_random_game  # type: ignore[no-redef]

CODE_RE = re.compile(r"\b[a-z]+:[a-z]+(?:-[a-z]+)?\b")
ALL_CODES = frozenset(CODES) | frozenset(EXTRA_CODES)


def codes_in(text: str) -> set[str]:
    return {c for c in CODE_RE.findall(text) if c in ALL_CODES}


def endings(events: list[ev.Event]) -> set[str]:
    """How the game's rounds ended, and "mermaids" for a four-mermaid win."""
    out = {e.ending for e in events if type(e) is ev.RoundScored}
    out |= {"mermaids" for e in events if type(e) is ev.GameEnded and e.reason == "mermaids"}
    out |= {"last_chance_lost" for e in events
            if type(e) is ev.RoundScored and e.ending == "last_chance" and not e.caller_won}
    return out


def check_views(events: list[ev.Event], name: str) -> int:
    """Every state and event line of a game from every seat against the oracle; returns
    the number of (point, seat) checks made. Fails on the first disagreement."""
    checks = 0
    s = State()
    for i, (e, shown, face_down) in enumerate(zip(events, oracle.shown_hands(events),
                                                  oracle.face_down_shells(events)), start=1):
        before, s = s, apply(s, e)
        for viewer in range(s.n):
            where = f"{name} seq {i} ({ev.TAGS[type(e)]}), seat {viewer}"
            view = view_mod.table_view(s, viewer)
            # an empty hand shows nothing its public size does not (before the first deal)
            held = {p for p in range(s.n) if s.table.hands and s.table.hands[p]}
            allowed = oracle.hands_visible_to(shown, viewer) & held
            visible = {seat.seat for seat in view.seats if seat.hand is not None} & held
            assert visible == allowed, f"{where}: sees the hands of {sorted(visible)}, " \
                                       f"RULES.md §7 allows {sorted(allowed)}"
            public = set()
            for seat in view.seats:
                hand = s.table.hands[seat.seat] if s.table.hands else ()
                assert seat.hand_size == len(hand), where           # sizes are public
                if seat.hand is not None:
                    assert sorted(seat.hand) == sorted(hand), where
                    public |= set(hand)
                else:
                    assert seat.card_points is None, f"{where}: card points of a hidden hand"
                public |= {c for pair in seat.laid for c in pair}
            assert view.deck is None, f"{where}: the deck is shown"
            assert all(p.cards is None for p in view.piles), f"{where}: a pile is shown"
            public |= {p[-1] for p in s.table.piles if p}
            public |= {face_down[viewer]} if viewer in face_down else set()   # R-X-VIEW
            for text in (msgspec.json.encode(view).decode(),
                         render.render_state(view)):
                leaked = codes_in(text) - public
                assert not leaked, f"{where}: the view names {sorted(leaked)}"
            line = narration.describe(e, before, viewer)
            leaked = (codes_in(line) - oracle.event_cards(e, viewer)
                      - oracle.extra_private_cards(e, viewer) - set(glimpse(e, before, viewer)))
            assert not leaked, f"{where}: the line {line!r} names {sorted(leaked)}"
            check_redacted(e, before, s, viewer, shown, where)
            checks += 1
    return checks


def glimpse(e: ev.Event, before: State, viewer: int) -> list[str]:
    """The hand ``viewer`` looks at during ``e`` (the oracle's seat, its true cards before
    the event, sorted), or nothing."""
    looked = oracle.looks_at(e, viewer)
    return sorted(before.table.hands[looked]) if looked is not None else []


def check_redacted(e: ev.Event, before: State, after: State, viewer: int,
                   shown: frozenset[int], where: str) -> None:
    """The event as the HTTP service sends it to ``viewer`` names only the cards the oracle
    lets that seat learn from it, and the hands it sees once the event is over; the
    swimmers' player alone gets the hand looked at, the true one before the swap
    (R-X-VIEW). ``shown``: the seats revealed after the event."""
    got = view_mod.redact(e, view_mod.seat_viewer(viewer), before, after)
    looked = oracle.looks_at(e, viewer)
    seen = glimpse(e, before, viewer)
    hands = after.table.hands
    open_hands = {c for p in oracle.hands_visible_to(shown, viewer) if hands for c in hands[p]}
    leaked = (codes_in(msgspec.json.encode(got).decode()) - oracle.event_cards(e, viewer)
              - oracle.extra_private_cards(e, viewer) - open_hands - set(seen))
    assert not leaked, f"{where}: the redacted event names {sorted(leaked)}"
    want = None if looked is None else {"seat": looked, "hand": seen}
    assert got.get("looked_at") == want, \
        f"{where}: looked_at {got.get('looked_at')!r}, R-X-VIEW gives {want!r}"


# ---------------------------------------------------------------- the games

def simulated_games() -> list[tuple[str, list[ev.Event]]]:
    """The default bot mix (its patient bot reaches deck-outs and four-mermaid wins) for
    2, 3 and 4 players, and random play calling rarely or often."""
    games = []
    for players in (2, 3, 4):
        games += [(f"sim-{players}p-{i}", g)
                  for i, g in enumerate(simulate(30, players, seed=players))]
    for seed in range(24):
        g = play_random_game(seed, 2 + seed % 3, call_rate=(0.02, 0.3, 1.0)[seed % 3])
        games.append((f"random-{seed}", g))
    return games


@pytest.fixture(scope="module")
def sim_games():
    return simulated_games()


def test_the_simulated_games_reach_every_ending(sim_games):
    seen = Counter(x for _, g in sim_games for x in endings(g))
    assert {"stop", "last_chance", "last_chance_lost", "deck_out", "mermaids"} <= set(seen), seen


def test_views_of_simulated_games_agree_with_the_oracle(sim_games):
    assert sum(check_views(g, name) for name, g in sim_games) > 10_000


def _fixture_games():
    return [(f"{p.relative_to(FIXTURES)}:{g.game_id}", list(g.events))
            for p in fixture_logs() for g in valid_games(p)]


@pytest.mark.parametrize("name, events", _fixture_games(), ids=lambda x: x if isinstance(x, str) else "")
def test_views_of_fixture_games_agree_with_the_oracle(name, events):
    assert check_views(events, name) > 0


def test_the_fixtures_reach_every_ending():
    seen = set().union(*(endings(g) for _, g in _fixture_games()))
    assert {"stop", "last_chance", "last_chance_lost", "deck_out", "mermaids"} <= seen, seen


# ---------------------------------------------------------------- the oracle by hand

def _fixture(name: str) -> list[ev.Event]:
    (game,) = valid_games(FIXTURES / "rules" / name)
    return list(game.events)


def test_oracle_after_a_deck_out_nobody_reveals():
    events = _fixture("deck-out.jsonl")
    shown = list(oracle.shown_hands(events))
    scored = [i for i, e in enumerate(events) if type(e) is ev.RoundScored]
    assert events[scored[0]].ending == "deck_out"
    assert shown[scored[0]] == frozenset()


def test_oracle_after_stop_every_hand_is_shown():
    events = [ev.GameStarted(players=("A", "B", "C")),
              ev.RoundStarted(round=1, first_player=0, discards=("shell:blue", "fish:blue")),
              ev.StopCalled(player=0),
              ev.RoundScored(round=1, ending="stop", caller=0, caller_won=None,
                             card_points=(7, 0, 0), color_bonus=(0, 0, 0), points=(7, 0, 0),
                             totals=(7, 0, 0))]
    assert list(oracle.shown_hands(events)) == [frozenset(), frozenset(), {0}, {0, 1, 2}]


def test_oracle_last_chance_reveals_turn_by_turn():
    events = [ev.GameStarted(players=("A", "B", "C")),
              ev.RoundStarted(round=1, first_player=0, discards=("shell:blue", "fish:blue")),
              ev.LastChanceCalled(player=0),
              ev.DiscardTaken(player=1, pile=0, card="shell:blue"),
              ev.TurnEnded(player=1),
              ev.DiscardTaken(player=2, pile=1, card="fish:blue"),
              ev.TurnEnded(player=2)]
    assert list(oracle.shown_hands(events))[2:] == [{0}, {0}, {0, 1}, {0, 1}, {0, 1, 2}]
    assert oracle.hands_visible_to(frozenset({0}), 2) == {0, 2}


def test_oracle_event_cards():
    draw = ev.DeckDrawn(player=0, cards=("crab:black", "shell:blue"), kept="crab:black",
                        discard_pile=1)
    assert oracle.event_cards(draw, 0) == {"crab:black", "shell:blue"}
    assert oracle.event_cards(draw, 1) == {"shell:blue"}
    last = ev.DeckDrawn(player=0, cards=("crab:black",), kept="crab:black")
    assert oracle.event_cards(last, 1) == set()
    shark = ev.SharkPlayed(player=0, cards=("shark:blue", "swimmer:light-blue"), victim=1,
                           stole="mermaid:white")
    assert oracle.event_cards(shark, 1) == {"shark:blue", "swimmer:light-blue", "mermaid:white"}
    assert oracle.event_cards(shark, 2) == {"shark:blue", "swimmer:light-blue"}
    fish = ev.FishPlayed(player=2, cards=("fish:blue", "fish:black"), drew="octopus:green")
    assert oracle.event_cards(fish, 0) == {"fish:blue", "fish:black"}
    crab = ev.CrabsPlayed(player=2, cards=("crab:blue", "crab:black"), pile=0, took="octopus:green")
    assert oracle.event_cards(crab, 1) == {"crab:blue", "crab:black"}
    assert "octopus:green" in oracle.event_cards(crab, 2)


# ---------------------------------------------------------------- the checks can fail

def _leaky(condition):
    """A table_view that shows every hand to a viewer when ``condition(state)`` holds."""
    real = view_mod.table_view

    def table_view(state, viewer=None):
        view = real(state, viewer)
        if viewer is None or not condition(state):
            return view
        whole = real(state)
        return replace(view, seats=whole.seats)
    return table_view


def test_a_leak_after_a_deck_out_is_caught(monkeypatch):
    """The bug the suite used to miss: every hand shown once a round has ended, deck-outs
    included."""
    events = _fixture("deck-out.jsonl")
    monkeypatch.setattr(view_mod, "table_view", _leaky(lambda s: s.phase != "round"))
    with pytest.raises(AssertionError, match="RULES.md §7 allows"):
        check_views(events, "deck-out")


def test_a_leak_after_four_mermaids_is_caught(monkeypatch):
    events = _fixture("four-mermaids.jsonl")
    monkeypatch.setattr(view_mod, "table_view", _leaky(lambda s: s.phase == "ended"))
    with pytest.raises(AssertionError, match="RULES.md §7 allows"):
        check_views(events, "four-mermaids")


def test_one_leaked_card_is_caught(monkeypatch):
    """A view that adds one hidden card (the next seat's first) to the viewer's own hand."""
    real = view_mod.table_view

    def table_view(state, viewer=None):
        view = real(state, viewer)
        if viewer is None or state.phase != "round":
            return view
        other = state.table.hands[(viewer + 1) % state.n]
        if not other:
            return view
        seats = list(view.seats)
        mine = seats[viewer]
        seats[viewer] = replace(mine, hand=tuple(sorted(mine.hand + (other[0],))))
        return replace(view, seats=tuple(seats))

    monkeypatch.setattr(view_mod, "table_view", table_view)
    with pytest.raises(AssertionError):
        check_views(_fixture("deck-out.jsonl"), "one card")


def test_a_leaked_draw_in_the_log_is_caught(monkeypatch):
    """A log line that tells everyone the cards of a deck draw."""
    real = narration.describe
    monkeypatch.setattr(narration, "describe",
                        lambda e, before, viewer=None: real(e, before, None)
                        if type(e) is ev.DeckDrawn else real(e, before, viewer))
    with pytest.raises(AssertionError, match="the line"):
        check_views(_fixture("deck-out.jsonl"), "draws")
