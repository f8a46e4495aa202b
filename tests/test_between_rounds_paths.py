"""A stored game's fast replay (:func:`replay_stored`, :meth:`Store.replay`: the state
between two rounds rebuilt from ``game_started`` and the earlier ``round_scored``) against
the slow fold of every event: at every state between rounds (after ``round_scored``,
``event_awarded``, ``event_kept``, ``game_ended``) both give the same state and every
reader the same view. The card points shown are those the round was scored with
(``Game.last_card_points``, R-EV-APPLY, R-EV-AWARD), or after a four-mermaid win, which is
not scored (R-MERMAID-WIN), the hands' points.

The games: the simulated Extra Salt + Pepper fixtures, and twelve simulated three-player
Extra Salt + Pepper games of seed 3, which hold two four-mermaid wins (games 1 and 6) and
two deck-outs. The same check over the 1,000 games of the benchmark's Extra Salt + Pepper
log (8,341 states between rounds) and its base-game log (4,943) found no difference
(bench/RESULTS.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from seasalt_log import events as ev
from seasalt_log.engine import State, apply
from seasalt_log.engine.core import player_points
from seasalt_log.replay import replay, replay_stored, turns
from seasalt_log.service import import_games
from seasalt_log.sim import simulate
from seasalt_log.store import Store
from seasalt_log.view import SPECTATOR, TABLE, seat_viewer, table_view

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sim"


def _fixture_games() -> list[list[ev.Event]]:
    return [[ev.decode(t) for t in (FIXTURES / f"simulated-extra-salt-pepper-{n}p.jsonl")
             .read_text().splitlines()] for n in (2, 3, 4)]


SIMULATED = list(simulate(12, 3, 3, None, "extra-salt", "pepper"))
GAMES = _fixture_games() + SIMULATED


def between_rounds(game: list[ev.Event]):
    """``(seq, slow state, card points the views should show)`` at every state between
    rounds: the last ``round_scored``'s, or the hands' points after a four-mermaid win."""
    s, scored = State(), None
    for seq, e in enumerate(game, 1):
        s = apply(s, e)
        if type(e) is ev.RoundStarted:
            scored = None
        elif type(e) is ev.RoundScored:
            scored = tuple(e.card_points)
        if s.phase == "round" or seq == 1:
            continue
        if s.flow.mermaid_winner is not None:
            scored = tuple(player_points(s, p) for p in range(s.n))
        yield seq, s, scored


def _viewers(n: int):
    return (TABLE, SPECTATOR, *map(seat_viewer, range(n)))


def test_the_games_hold_the_edge_cases():
    ends = [g[-1] for g in GAMES]
    assert sum(e.reason == "mermaids" for e in ends) == 2
    assert sum(type(e) is ev.RoundScored and e.ending == "deck_out" for g in GAMES for e in g) >= 2
    assert sum(type(e) is ev.EventAwarded for g in GAMES for e in g) >= 20


@pytest.mark.parametrize("k", range(len(GAMES)))
def test_fast_replay_agrees_with_the_fold_between_rounds(k):
    game = GAMES[k]
    texts = [ev.encode(e).decode() for e in game]
    compared = 0
    for seq, slow, shown in between_rounds(game):
        fast = replay_stored(texts, seq=seq)
        assert fast == slow, seq
        for viewer in _viewers(slow.n):
            assert table_view(fast, viewer) == table_view(slow, viewer), (seq, viewer)
        assert tuple(seat.card_points for seat in table_view(slow).seats) == shown, seq
        compared += 1
    assert compared >= 1
    rounds = sum(type(e) is ev.RoundStarted for e in game)
    for r in range(1, rounds + 1):      # after each round's last turn, its result included
        last = turns(game, r)[-1].turn
        assert replay_stored(texts, round=r, turn=last) == replay(game, round=r, turn=last), r


def test_store_replay_agrees_with_the_fold(tmp_path):
    """:meth:`Store.replay` of a read-only store (the games' texts kept in memory); the
    simulated games only (the fixtures share a game id)."""
    with Store.open(tmp_path / "s.duckdb") as store:
        assert import_games(store, SIMULATED).new == len(SIMULATED)
    with Store.open(tmp_path / "s.duckdb", read_only=True) as store:
        for game in SIMULATED:
            gid = game[0].game_id
            for seq, slow, _ in between_rounds(game):
                assert store.replay(gid, seq=seq) == slow, (gid, seq)
