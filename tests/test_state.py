"""A state's fields: its own (those every event changes) and its game's, read through
(``state.totals`` is ``state.game.totals``), changed together by ``State.changed``; a
game's states renamed by ``named`` share one game as before."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from seasalt_log.engine import Game, State, apply
from seasalt_log.engine.state import named
from seasalt_log.sim import simulate


def _states() -> list[State]:
    """Every state of a simulated game, from the new game's on."""
    states = [State()]
    for e in next(simulate(1, 3, seed=4)):
        states.append(apply(states[-1], e))
    return states


def test_a_states_game_fields_read_through_and_change_with_its_own():
    s = _states()[40]
    assert (s.players, s.totals, s.target, s.ruleset) == (
        s.game.players, s.game.totals, s.game.target, s.game.ruleset)
    c = s.changed(totals=(1, 2, 3), phase="ended", seq=7)
    assert (c.totals, c.phase, c.seq) == ((1, 2, 3), "ended", 7)
    assert (c.players, c.table) == (s.players, s.table)
    assert c.flow == replace(s.flow, phase="ended")             # the phase is the flow's
    assert s.totals != (1, 2, 3) and s.seq != 7                 # the original is unchanged
    assert s.changed(seq=8).game is s.game                      # no game field: shared
    with pytest.raises(TypeError, match="not both"):
        s.changed(game=Game(players=("A", "B")), totals=(0, 0))
    assert s.changed(game=Game(players=("A", "B"))).players == ("A", "B")


def test_a_games_states_renamed_share_one_game_per_game_they_shared():
    states = _states()
    renamed = named(states, "other")
    assert [r.game_id for r in renamed] == ["other"] * len(states)
    assert [(r.seq, r.flow, r.table, r.phase) for r in renamed] == [
        (s.seq, s.flow, s.table, s.phase) for s in states]
    for a, b, ra, rb in zip(states, states[1:], renamed, renamed[1:]):
        assert (a.game is b.game) == (ra.game is rb.game)
    assert State().game_id is None
