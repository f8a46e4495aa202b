"""Simulated games of the expansions (RULES_EXTRA): the realism of the bots' games and
property tests over many of them (``SEASALT_SIM_EXPANSION_GAMES`` changes the number, 900
by default, split over Extra Salt without and with events and the base cards with events).

- every event is accepted by the engine, and every card of the ruleset is in exactly one
  place (deck, piles, hands, laid units, face-down shells) after every event of a round;
- decode(encode(log)) is identical;
- the same game with its derived events stripped replays to the same events.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

from seasalt_log import events as ev
from seasalt_log.cards import EXTRA_CODES
from seasalt_log.engine import ROUND, State, apply
from seasalt_log.importers.jsonl import check_game, raw_game
from seasalt_log.sim import SimulationError, simulate

from .expansion_situations import situations

GAMES = int(os.environ.get("SEASALT_SIM_EXPANSION_GAMES", "900"))
SETTINGS = (("extra-salt", None), ("extra-salt", "pepper"), (None, "pepper"))


def cards_in_play(s: State) -> list[str]:
    """Every card of the table, sorted: deck, piles, hands, laid units, face-down shells."""
    t = s.table
    cards = [*t.deck, *t.piles[0], *t.piles[1]]
    for hand in t.hands:
        cards.extend(hand)
    for units in t.laid:
        for unit in units:
            cards.extend(unit)
    cards.extend(c for c in t.face_down if c is not None)
    cards.sort()
    return cards


@pytest.fixture(scope="module")
def games() -> list[list[ev.Event]]:
    out = []
    per = GAMES // (3 * len(SETTINGS))
    for k, (ruleset, events) in enumerate(SETTINGS):
        for players in (2, 3, 4):
            out.extend(simulate(per, players, 500 + 10 * k + players, None, ruleset, events))
    return out


def test_every_event_is_legal_and_every_card_in_one_place(games):
    assert len(games) >= GAMES - 9
    for game in games:
        s = State()
        for e in game:
            s = apply(s, e)
            if s.phase == ROUND:
                assert cards_in_play(s) == list(s.ruleset.cards), (game[0].game_id, s.seq)
        assert s.phase == "ended", game[0].game_id
        if s.ruleset.trios:
            assert len(s.ruleset.cards) == 66                 # R-X-CARDS


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


#: the situations a few hundred games of the default bots (and long games of the bot that
#: never calls) must go through, counted from the events by tests/expansion_situations.py
EXPECTED = (
    [f"event:{code}" for code in ev.EVENT_CODES]
    + [f"card:{code}" for code in EXTRA_CODES]
    + ["lobster_played", "jellyfish_played", "starfish_played", "forced_drawn",
       "angelfish_taken", "shell_face_down", "swimmers_played", "sharks_played",
       "event_kept", "jellyfish during LAST CHANCE", "angelfish take after a boat's take",
       "water rodeo pair steal", "water rodeo swap", "coral reef protection refuses an attack",
       "three-mermaid win (Dance of the Mermaids)", "event deck reshuffle",
       "hermit crab takes", "dolphins draw", "sunfish draw"])


def test_simulated_games_reach_every_expansion_situation():
    seen: Counter = Counter()
    for players, n in ((2, 80), (3, 60), (4, 60)):
        for game in simulate(n, players, 1, None, "extra-salt", "pepper"):
            situations(game, seen)
    for game in simulate(20, 4, 3, ["timid"], "extra-salt", "pepper"):
        situations(game, seen)
    missing = [k for k in EXPECTED if not seen[k]]
    assert not missing, missing
    assert len(EXPECTED) == 12 + 8 + 19


def test_expansion_settings_are_checked():
    with pytest.raises(SimulationError, match="R-X-RULESET-1"):
        next(simulate(1, 2, 1, None, "extra-pepper"))
    with pytest.raises(SimulationError, match="R-X-RULESET-2"):
        next(simulate(1, 2, 1, None, "extra-salt", "salt"))


def test_cli_simulate_and_tournament_take_the_expansion_settings(tmp_path):
    from typer.testing import CliRunner
    from seasalt_cli.main import app
    runner = CliRunner()
    out = tmp_path / "x.jsonl"
    r = runner.invoke(app, ["simulate", "-n", "2", "-p", "3", "-s", "4", "--ruleset",
                            "extra-salt", "--events", "pepper", "--out", str(out)])
    assert r.exit_code == 0, r.output
    lines = out.read_bytes().splitlines()
    starts = [ev.decode(x) for x in lines if b'"game_started"' in x]
    assert [(g.ruleset, g.events) for g in starts] == [("extra-salt", "pepper")] * 2
    assert out.read_bytes() == b"".join(
        ev.encode_lines(g) for g in simulate(2, 3, 4, None, "extra-salt", "pepper"))
    r = runner.invoke(app, ["simulate", "-n", "1", "-p", "2", "-s", "1", "--ruleset", "extra"])
    assert r.exit_code == 2
    r = runner.invoke(app, ["tournament", "-n", "12", "-p", "2", "-s", "1", "--json",
                            "--ruleset", "extra-salt", "--events", "pepper"])
    assert r.exit_code == 0, r.output
    assert '"games"' in r.output
