"""replay_stored to an event (seq) and to the end folds only the round that holds the point;
the oracle is replay of every event through the engine, each one checked."""

from __future__ import annotations

import re

import pytest
from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log.errors import UsageError
from seasalt_log.replay import game_id_of, replay, replay_stored
from seasalt_log.sim import simulate

from .randomplay import play_random_game


def _games(kind: str) -> list[list[ev.Event]]:
    if kind == "base":
        return [g for p in (2, 3, 4) for g in simulate(2, p, seed=70 + p)]
    if kind == "extra-salt":
        return [g for p in (2, 4) for g in simulate(2, p, seed=80 + p, ruleset="extra-salt")]
    if kind == "pepper":          # event cards pass between rounds: replay of every event
        return list(simulate(2, 3, seed=91, ruleset="extra-salt", events="pepper"))
    if kind == "base-pepper":     # the events with the base cards, 2 and 4 players
        return [g for p in (2, 4) for g in simulate(2, p, seed=60 + p, events="pepper")]
    if kind == "random":          # random legal play: deck-outs, mermaid wins, unfinished
        return [play_random_game(seed, 2 + seed % 3) for seed in range(4)]
    game = play_random_game(5, 2)                                       # anonymous
    return [[replace(game[0], game_id=None)] + game[1:]]


@pytest.mark.parametrize("kind", ["base", "extra-salt", "pepper", "base-pepper", "random",
                                  "anonymous"])
def test_every_event_and_the_end_give_the_states_of_a_full_replay(kind):
    for events in _games(kind):
        texts = [ev.encode(e).decode() for e in events]
        gid = game_id_of(events)
        assert replay_stored(texts, game_id=gid) == replay(events, game_id=gid)
        assert replay_stored(texts) == replay(events)
        for seq in range(1, len(events) + 1):
            assert replay_stored(texts, seq=seq, game_id=gid) == \
                replay(events, seq=seq, game_id=gid), seq


@pytest.mark.parametrize("seq", [0, -1, 10_000])
def test_a_seq_the_game_lacks_is_the_error_of_replay(seq):
    events = play_random_game(2, 3)
    texts = [ev.encode(e).decode() for e in events]
    with pytest.raises(UsageError) as want:
        replay(events, seq=seq)
    with pytest.raises(UsageError, match=re.escape(str(want.value))):
        replay_stored(texts, seq=seq)


@pytest.mark.parametrize("settings", [{}, {"ruleset": "extra-salt", "events": "pepper"}])
def test_only_the_last_round_is_decoded_for_the_end_and_its_events(settings):
    """The turns of the rounds before the point are not decoded (R-FLOW-ROUND: each round
    starts from what the engine carries between rounds; with the events, R-EV-AWARD, the
    rounds' starts and awards are): an unreadable turn event in round 1 does not disturb
    the end of the game or an event of its last round."""
    events = next(g for g in simulate(6, 2, seed=3, **settings) if sum(
        type(e) is ev.RoundStarted for e in g) >= 3)
    texts = [ev.encode(e).decode() for e in events]
    last = max(i for i, e in enumerate(events) if type(e) is ev.RoundStarted)
    rounds = sum(type(e) is ev.RoundStarted for e in events)
    want_end, want_mid = replay(events), replay(events, seq=last + 3)
    want_turn = replay(events, round=rounds, turn=1)
    texts[3] = "not an event"
    assert replay_stored(texts) == want_end
    assert replay_stored(texts, seq=last + 3) == want_mid
    assert replay_stored(texts, round=rounds, turn=1) == want_turn


@pytest.mark.parametrize("kind", ["extra-salt", "pepper", "base-pepper"])
def test_every_turn_of_the_expansions_gives_the_state_of_a_full_replay(kind):
    """The turn path shares the rebuilt state between rounds (R-EV-AWARD with the events)."""
    from seasalt_log.replay import steps
    for events in _games(kind):
        texts = [ev.encode(e).decode() for e in events]
        points = {(st.round, st.turn) for st in steps(events) if st.round}
        for rnd, turn in sorted(points):
            assert replay_stored(texts, round=rnd, turn=turn) == \
                replay(events, round=rnd, turn=turn), (rnd, turn)
