"""The simulated fixture games (fixtures/sim/) are exactly what the simulator plays today:
a change in the bots, the engine or the encoding shows up here and in their golden
transcripts. Regenerate with:

    for p in 2 3 4; do seasalt simulate -n 1 -p $p -s 7 --out fixtures/sim/simulated-${p}p.jsonl; done
    for p in 2 3 4; do seasalt simulate -n 1 -p $p -s 7 --ruleset extra-salt --events pepper \
        --out fixtures/sim/simulated-extra-salt-pepper-${p}p.jsonl; done
"""

from __future__ import annotations

from pathlib import Path

import pytest

from seasalt_log import events as ev
from seasalt_log.sim import simulate

SIM = Path(__file__).resolve().parents[1] / "fixtures" / "sim"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_simulated_fixture_is_reproduced(players):
    path = SIM / f"simulated-{players}p.jsonl"
    fresh = b"".join(ev.encode_lines(g) for g in simulate(1, players, 7))
    assert path.read_bytes() == fresh, f"{path.name} is stale: see this module's docstring"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_simulated_expansion_fixture_is_reproduced(players):
    path = SIM / f"simulated-extra-salt-pepper-{players}p.jsonl"
    fresh = b"".join(ev.encode_lines(g) for g in simulate(1, players, 7, None, "extra-salt",
                                                          "pepper"))
    assert path.read_bytes() == fresh, f"{path.name} is stale: see this module's docstring"
