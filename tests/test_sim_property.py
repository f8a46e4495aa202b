"""Property tests over simulated games (5,000 by default, mixed player counts;
``SEASALT_SIM_PROPERTY_GAMES`` changes the number):

- every game is accepted by the engine, event by event;
- every card is in exactly one place (deck, piles, hands, laid pairs) after every event of
  a round in play;
- decode(encode(log)) is identical;
- replay from the store equals replay in memory;
- the same game with its derived events stripped replays to the same events and results.
"""

from __future__ import annotations

import os
import pytest

from seasalt_log import events as ev
from seasalt_log.cards import FULL_DECK
from seasalt_log.engine import ROUND, State, apply, fold
from seasalt_log.importers.jsonl import check_game, raw_game
from seasalt_log.service import import_games
from seasalt_log.sim import simulate
from seasalt_log.store import Store

from .scenario import cards_in_play

GAMES = int(os.environ.get("SEASALT_SIM_PROPERTY_GAMES", "5000"))
SPLIT = {2: GAMES // 3 + GAMES % 3, 3: GAMES // 3, 4: GAMES // 3}


FULL_SORTED = sorted(FULL_DECK.elements())




@pytest.fixture(scope="module")
def games() -> list[list[ev.Event]]:
    out = []
    for players, n in SPLIT.items():
        out.extend(simulate(n, players, seed=1000 + players))
    return out


def test_every_event_is_legal_and_every_card_in_one_place(games):
    assert len(games) == GAMES
    for game in games:
        s = State()
        for e in game:
            s = apply(s, e)
            if s.phase == ROUND:
                assert cards_in_play(s) == FULL_SORTED, (game[0].game_id, s.seq)
        assert s.phase == "ended", game[0].game_id


def test_encoding_round_trips(games):
    for game in games:
        data = ev.encode_lines(game)
        assert [ev.decode(line) for line in data.splitlines()] == game
        assert ev.encode_lines(ev.decode(line) for line in data.splitlines()) == data


def test_stripped_derived_events_replay_to_the_same_game(games):
    for game in games:
        inputs = [e for e in game if type(e) not in ev.DERIVED_TYPES]
        assert len(inputs) < len(game)
        assert check_game(raw_game(inputs)).events == game


def test_replay_from_the_store_equals_replay_in_memory(games, tmp_path):
    with Store.open(tmp_path / "sim.duckdb") as store:
        summary = import_games(store, games, source="simulate")
        assert (summary.new, summary.failed) == (GAMES, 0)
        for game in games:
            stored = store.read_events(game[0].game_id)
            assert stored == game
            assert fold(stored) == fold(game)
