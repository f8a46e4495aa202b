"""``seasalt replay`` reads a point of a stored game by folding only the round that holds it
(replay_stored on the stored texts); what it prints must be what a replay of every event,
each checked by the engine, gives: the table view (JSON) and the text with the last event's
sentence, at many points of base, expansion and random games, for every seat and for one
player's view (RULES.md §7)."""

from __future__ import annotations

import json

import msgspec
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import narration
from seasalt_log.engine import State
from seasalt_log.render import render_state
from seasalt_log.replay import replay, steps
from seasalt_log.service import import_games
from seasalt_log.sim import simulate
from seasalt_log.store import Store
from seasalt_log.view import table_view

from .randomplay import play_random_game

runner = CliRunner()

GAMES = {
    "base": lambda: [g for p in (2, 4) for g in simulate(1, p, seed=60 + p)],
    "extra-salt": lambda: list(simulate(2, 3, seed=61, ruleset="extra-salt")),
    "pepper": lambda: list(simulate(2, 3, seed=62, ruleset="extra-salt", events="pepper")),
    "random": lambda: [play_random_game(seed, 2 + seed % 3) for seed in range(3)],
}


@pytest.fixture(scope="module", params=sorted(GAMES))
def stored(request, tmp_path_factory):
    games = GAMES[request.param]()
    path = tmp_path_factory.mktemp("paths") / "s.duckdb"
    with Store.open(path) as store:
        import_games(store, games)
    return path, games


def _points(game):
    """Seqs spread over the game (its first and last included) and turns of its second round
    (the first when it has one round): its start, first turns and last."""
    n = len(game)
    seqs = sorted({1, 2, n} | {1 + k * (n - 1) // 5 for k in range(6)})
    rnd = min(2, max(st.round for st in steps(game)))
    turns = sorted({st.turn for st in steps(game) if st.round == rnd})
    return [("--seq", s) for s in seqs] + [("--round", rnd, "--turn", t)
                                           for t in sorted({*turns[:3], turns[-1]})]


def _oracle(game, point, viewer):
    """The view and text of a replay of every event (the path the command took before)."""
    if point[0] == "--seq":
        state = replay(game, seq=point[1])
    else:
        state = replay(game, round=point[1], turn=point[3])
    before = replay(game, seq=state.seq - 1) if state.seq > 1 else State()
    view = table_view(state, viewer)
    line = narration.describe(game[state.seq - 1], before, viewer)
    return json.loads(msgspec.json.encode(view)), render_state(view) + f"\nLast event: {line}\n"


def test_the_command_prints_what_a_replay_of_every_event_gives(stored):
    path, games = stored
    checked = 0
    for game in games:
        gid, seats = game[0].game_id, len(replay(game, seq=1).players)
        for k, point in enumerate(_points(game)):
            viewer = None if k % 2 else k // 2 % seats    # every seat, or one player's view
            who = [] if viewer is None else ["--as", str(viewer)]
            want_view, want_text = _oracle(game, point, viewer)
            args = ["replay", gid, *map(str, point), *who, "--db", str(path)]
            got = runner.invoke(app, [*args, "--json"])
            assert got.exit_code == 0, got.output
            assert json.loads(got.stdout) == want_view, (gid, point, viewer)
            got = runner.invoke(app, args)
            assert got.exit_code == 0, got.output
            assert got.stdout == want_text, (gid, point, viewer)
            checked += 1
    assert checked >= 8 * len(games)
