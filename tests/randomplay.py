"""A random game player for tests: every choice is a seeded ``random.Random`` draw among the
engine's own ``legal_moves``. It is test equipment, not the simulator (``seasalt_log/sim/``):
it plays badly on purpose, to reach many different states.
"""

from __future__ import annotations

import random
from typing import Callable

from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log.cards import CODES, COUNT
from seasalt_log.engine import BETWEEN, ENDED, State, apply, legal_moves, next_derived

#: a safety net: no game of the base rules comes near this many events
MAX_EVENTS = 50_000

FULL_LIST: tuple[str, ...] = tuple(c for c in CODES for _ in range(COUNT[c]))
NAMES = ("Ann", "Ben", "Cid", "Dee")


def shuffled_round(rng: random.Random, round_no: int, first_player: int,
                   full: tuple[str, ...] = FULL_LIST) -> ev.RoundStarted:
    """A ``round_started`` for a fresh shuffle of ``full`` (R-SETUP-3), deck order recorded."""
    cards = list(full)
    rng.shuffle(cards)
    return ev.RoundStarted(round=round_no, first_player=first_player,
                           discards=(cards[0], cards[1]), deck=tuple(cards[2:]))


def without_deck_order(events: list[ev.Event]) -> list[ev.Event]:
    """The same game as a table that did not record its shuffles: every ``round_started``
    loses its ``deck``, so each draw is checked as "a card not yet seen" (R-DRAW)."""
    return [replace(e, deck=None) if type(e) is ev.RoundStarted else e for e in events]


def play_random_game(seed: int, players: int, *, target: int | None = None, call_rate: float | None = None,
                     on_event: Callable[[State, ev.Event, State], None] | None = None,
                     max_events: int = MAX_EVENTS, ruleset: str | None = None,
                     events: str | None = None) -> list[ev.Event]:
    """Play one whole game and return its events, derived events included.

    Every shuffle is recorded in its ``round_started`` (so a deck draw has one outcome and
    the choice is among the player's options, not among the deck's);
    :func:`without_deck_order` gives the same game as an unrecorded shuffle.

    ``call_rate`` is the chance of calling when a call is allowed (drawn from the seed when
    None, so some games call at once and others play on to a deck-out). ``on_event`` sees
    ``(before, event, after)`` for every event. Raises ``RuntimeError`` if the game does not
    end within ``max_events`` events. ``ruleset`` and ``events`` are the game's settings
    (RULES.md §9); each round's event is drawn from the engine's event deck.
    """
    rng = random.Random(seed)
    if call_rate is None:
        call_rate = rng.choice((0.03, 0.1, 0.4, 1.0))
    pass_rate = rng.choice((0.0, 0.3, 0.7))   # chance of ending a turn with a duo in hand
    s = State()
    out: list[ev.Event] = []

    def step(e: ev.Event) -> None:
        nonlocal s
        after = apply(s, e)
        if on_event is not None:
            on_event(s, e, after)
        out.append(e)
        s = after

    step(ev.GameStarted(players=NAMES[:players], game_id=f"random-{players}-{seed}",
                        target=target, ruleset=ruleset, events=events))
    full = FULL_LIST if ruleset is None else s.ruleset.cards
    while s.phase != ENDED:
        if len(out) >= max_events:
            raise RuntimeError(f"seed {seed}: no end after {max_events} events")
        d = next_derived(s)
        if d is not None:
            step(d)
        elif s.phase == BETWEEN:
            f = s.flow
            first = rng.randrange(players) if f.ender is None else (f.ender + 1) % players
            r = shuffled_round(rng, f.round + 1, first, full)
            if events is not None:
                r = replace(r, event=rng.choice(s.event_deck))
            step(r)
        else:
            step(_choose(rng, legal_moves(s), call_rate, pass_rate))
        if s.phase == BETWEEN and s.keep_due is not None and next_derived(s) is None:
            step(rng.choice(legal_moves(s)))
    return out


_CALLS = (ev.StopCalled, ev.LastChanceCalled)


def _choose(rng: random.Random, moves: list[ev.Event], call_rate: float,
            pass_rate: float) -> ev.Event:
    if not moves:
        raise AssertionError("legal_moves is empty while a round is in play")
    calls = [m for m in moves if type(m) in _CALLS]
    if calls and rng.random() < call_rate:
        return rng.choice(calls)
    rest = [m for m in moves if type(m) not in _CALLS]
    if len(rest) > 1 and type(rest[-1]) is ev.TurnEnded and rng.random() >= pass_rate:
        rest = rest[:-1]     # prefer laying a duo down over ending the turn
    return rng.choice(rest)
