"""``importers.jsonl.check_game``: the events it returns (the derived events the log left out
put back in their places) and the line an error is located at, against a plain event-by-event
fold of the same log, over simulated games of every setting and broken copies of them."""

from __future__ import annotations

import random

import pytest
from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log.engine import State, apply, next_derived
from seasalt_log.errors import SeasaltError
from seasalt_log.importers.jsonl import check_game, raw_game
from seasalt_log.sim import simulate

SETTINGS = ((None, None), ("extra-salt", None), (None, "pepper"), ("extra-salt", "pepper"))


def _fold(events: list[ev.Event]) -> tuple[list[ev.Event], int | None, SeasaltError | None]:
    """(the events with every derived one owed before an input event or at the end, the
    index of the input event the first error was found at (its own or a derived event's
    before it), that error): the engine one event at a time."""
    out: list[ev.Event] = []
    s, i = State(), 0
    try:
        for i, e in enumerate(events):
            if type(e) not in ev.DERIVED_TYPES:
                while (d := next_derived(s)) is not None:
                    s = apply(s, d)
                    out.append(d)
            s = apply(s, e)
            out.append(e)
        i = len(events) - 1
        while (d := next_derived(s)) is not None:
            s = apply(s, d)
            out.append(d)
    except SeasaltError as exc:
        return out, i, exc
    return out, None, None


def _games() -> list[list[ev.Event]]:
    out = []
    for k, (ruleset, events) in enumerate(SETTINGS):
        for players in (2, 4):
            out.extend(simulate(2, players, 700 + 10 * k + players, None, ruleset, events))
    return out


@pytest.fixture(scope="module")
def games() -> list[list[ev.Event]]:
    return _games()


def _inputs(game: list[ev.Event], rng: random.Random) -> list[ev.Event]:
    """The game with its derived events all kept, all left out, or some left out (those
    after one left out with it)."""
    how = rng.randrange(3)
    out: list[ev.Event] = []
    dropped = False         # a derived event after a left-out one is left out too
    for e in game:
        derived = type(e) in ev.DERIVED_TYPES
        dropped = derived and (how == 1 or dropped or (how == 2 and rng.random() < 0.5))
        if not dropped:
            out.append(e)
    return out


def _broken(events: list[ev.Event], rng: random.Random) -> list[ev.Event]:
    """A copy with one event wrong: another seat, dropped, repeated, or moved."""
    events = list(events)
    i = rng.randrange(1, len(events))
    how = rng.randrange(4)
    e = events[i]
    if how == 0 and hasattr(e, "player"):
        n = len(events[0].players)     # type: ignore[attr-defined]  # a game_started
        events[i] = replace(e, player=(e.player + 1) % n)
    elif how <= 1:
        del events[i]
    elif how == 2:
        events.insert(i, e)
    else:
        events.insert(rng.randrange(1, len(events)), events.pop(i))
    return events


def test_check_game_returns_the_folds_events_and_states(games):
    rng = random.Random(18)
    for game in games:
        inputs = _inputs(game, rng)
        checked = check_game(raw_game(inputs, first_line=5))
        want, at, err = _fold(inputs)
        assert err is None
        assert checked.events == want == game
        s = State()
        for e, got in zip(checked.events, checked.states):
            s = apply(s, e)
            assert got == s


def test_an_error_is_located_at_the_event_the_fold_refuses(games):
    rng = random.Random(2)
    refused = 0
    for game in games:
        for _ in range(25):
            inputs = _broken(_inputs(game, rng), rng)
            raw = raw_game(inputs, first_line=3)
            want, at, err = _fold(inputs)
            if raw.error is not None or err is None:
                continue
            with pytest.raises(SeasaltError) as got:
                check_game(raw)
            refused += 1
            assert type(got.value) is type(err)
            assert got.value.line == 3 + at, (type(err), str(err))
            assert str(got.value.reason if hasattr(got.value, "reason") else got.value) == \
                str(err.reason if hasattr(err, "reason") else err)
            assert getattr(got.value, "rule", None) == getattr(err, "rule", None)
    assert refused > 100


def test_a_game_cut_short_and_an_error_at_its_second_line():
    """A game cut before its end (the derived events owed after its last event added), and
    a ``round_started`` of round 2 first: refused at its own line."""
    game = next(iter(simulate(1, 2, 3, None, None, None)))
    inputs = [e for e in game if type(e) not in ev.DERIVED_TYPES]
    cut = inputs[:-1]
    checked = check_game(raw_game(cut, first_line=10))
    assert checked.events == _fold(cut)[0]
    assert type(inputs[1]) is ev.RoundStarted
    with pytest.raises(SeasaltError) as got:
        check_game(raw_game([inputs[0], replace(inputs[1], round=2)], first_line=10))
    assert got.value.line == 11 and got.value.rule == "R-FLOW-ROUND"
