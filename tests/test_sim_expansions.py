"""Simulated games of the expansions (RULES.md §9-§18): the realism of the bots' games and
property tests over the shared set of simulated games (tests/conftest.py: 2,000 by default,
``SEASALT_SIM_EXPANSION_GAMES`` changes the number, split over Extra Salt without and with
events and the base cards with events, 2, 3 and 4 players).

- every event is accepted by the engine, and every card of the ruleset is in exactly one
  place (deck, piles, hands, laid units, face-down shells) after every event of a round;
- the same game with its derived events stripped replays to the same events;
- decode(encode(log)) is identical;
- the ``event_outcomes`` read model rescores like the Counter oracle (on 300 games).

Each game goes through the engine once: the importer's check of its input events gives
the derived events to compare and the states whose cards are counted.
"""

from __future__ import annotations

from collections import Counter

import pytest

from seasalt_log import events as ev
from seasalt_log.cards import EXTRA_CODES
from seasalt_log.engine import ROUND, State, apply
from seasalt_log.importers.jsonl import check_game, raw_game
from seasalt_log.sim import SimulationError, simulate

from .conftest import EXPANSION_GAMES, EXPANSION_SETTINGS
from .expansion_situations import situations
from .scenario import cards_in_play




def test_the_games_cover_every_setting(expansion_games):
    assert len(expansion_games) >= EXPANSION_GAMES
    settings = Counter((g[0].ruleset, g[0].events, len(g[0].players)) for g in expansion_games)
    assert set(settings) == {(r, e, n) for r, e in EXPANSION_SETTINGS for n in (2, 3, 4)}
    assert len(set(settings.values())) == 1


def test_every_event_is_legal_cards_are_conserved_and_derived_events_recomputed(expansion_games):
    """R-X-CARDS, R-DERIVED: the game's input events, derived events stripped, pass the
    importer's checks and give back the same events; after every event of a round each of
    the ruleset's cards (66 with Extra Salt) is in exactly one place."""
    checked_states = 0
    for game in expansion_games:
        inputs = [e for e in game if type(e) not in ev.DERIVED_TYPES]
        assert len(inputs) < len(game)
        checked = check_game(raw_game(inputs))
        assert checked.events == game, game[0].game_id
        states = checked.states
        assert states[-1].phase == "ended", game[0].game_id
        rules = states[-1].ruleset
        assert len(rules.cards) == (66 if rules.trios else 58)        # R-X-CARDS-1, R-CARDS
        want = list(rules.cards)
        table = None
        for s in states:
            # an event that leaves the table as it was (the same object) moves no card
            if s.phase == ROUND and s.table is not table:
                assert cards_in_play(s) == want, (game[0].game_id, s.seq)
                checked_states += 1
            table = s.table
    assert checked_states > 100 * len(expansion_games)


def test_encoding_round_trips(expansion_games):
    for game in expansion_games:
        data = ev.encode_lines(game)
        lines = data.splitlines()
        assert [ev.decode(line) for line in lines] == game
        assert ev.encode_lines(ev.decode(line) for line in lines) == data


def test_event_outcomes_agree_with_the_oracle(expansion_games):
    """R-EV-APPLY, the ``event_outcomes`` read model: the winners of each round had an
    event been in effect for nobody, as the store computes them (rescoring only the seats
    the event can change), equal those of every seat rescored by the Counter scorer of
    tests/extra_scoring_oracle.py without the event (R-STOP, R-LAST-4, R-DECKOUT)."""
    from seasalt_log.engine import apply
    from seasalt_log.scoring import round_points, seat_extra_points_and_bonus, seat_records
    from seasalt_log.store.expansions import event_outcomes
    from . import extra_scoring_oracle as oracle

    def top(points):
        return [p for p, x in enumerate(points) if x == max(points)]

    def score(t, p, effects, rules):
        b = oracle.extra_breakdown(t.hands[p], t.laid[p], effects,
                                   hand_starfish=rules.starfish_in_hand_scores)
        return b["card_points"], b["color_bonus"]

    games = [g for g in expansion_games if g[0].events is not None][:300]
    changed = rows = 0
    # the rows of each case: the event changes no seat's score / some seat's score but not
    # the winners / the winners
    cases = Counter()
    for game in games:
        s = State()
        for e in game:
            if type(e) is ev.RoundScored:
                t = s.table
                got = event_outcomes("g", s, e)
                # the seats' scores given (as the read models give them) or scored there
                assert got == event_outcomes("g", s, e, [score(t, p, s.effects(p), s.ruleset)
                                                         for p in range(s.n)])
                # the holdings rescored from the closed turns' records of them (as the read
                # models keep them), twice: the records are left scored without an event
                counted = seat_records(s.n)
                for p in range(s.n):
                    seat_extra_points_and_bonus(counted, p, t.hands[p], t.laid[p], s.effects(p),
                                                s.ruleset.starfish_in_hand_scores)
                assert got == event_outcomes("g", s, e, None, counted)
                assert got == event_outcomes("g", s, e, None, counted)
                for (_, rnd, code, seats, winners, other, changes) in got:
                    scores = [score(t, p, s.effects(p) - {code}, s.ruleset) for p in range(s.n)]
                    points, _ = round_points(e.ending, e.caller, [c for c, _ in scores],
                                             [b for _, b in scores])
                    assert (winners, other) == (top(e.points), top(points)), (game[0].game_id, rnd, code)
                    assert seats == [p for p in range(s.n) if code in s.effects(p)]
                    assert changes == (other != winners)
                    same = scores == [score(t, p, s.effects(p), s.ruleset) for p in range(s.n)]
                    cases["same scores" if same else "winners" if changes else "same winners"] += 1
                    changed += changes
                    rows += 1
            s = apply(s, e)
    assert rows >= len(games) and changed > 0, (rows, changed)
    assert min(cases.values()) > 10 and len(cases) == 3, cases


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


def test_the_lobster_shuffles_the_cards_back_into_the_deck(expansion_games):
    """R-X-LOBSTER: when cards go back, the whole deck is shuffled. The simulator draws the
    new order from chance: it holds exactly the rest of the deck and the returned cards, and
    it is not simply the rest then the returned cards (the order a bot could work out)."""
    shuffled = unshuffled = 0
    for game in expansion_games:
        if not any(isinstance(e, ev.LobsterPlayed) and e.deck for e in game):
            continue
        s = State()
        for e in game:
            if isinstance(e, ev.LobsterPlayed) and e.deck:
                n = len(e.seen)
                assert s.table.deck[:n] == e.seen, game[0].game_id     # the top n cards
                back = list(e.seen)
                back.remove(e.kept)
                plain = s.table.deck[n:] + tuple(back)
                assert sorted(e.deck) == sorted(plain), game[0].game_id
                if e.deck == plain:
                    unshuffled += 1
                else:
                    shuffled += 1
            s = apply(s, e)
    assert shuffled + unshuffled > 50
    # a deck of k >= 2 cards keeps its order by chance only, 1/2 at worst (k = 2)
    assert shuffled > 0.8 * (shuffled + unshuffled), (shuffled, unshuffled)


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
    # the ids the help promises: the settings named before the seed, then the game's index
    assert [g.game_id for g in starts] == ["sim-extra-salt-pepper-4-0", "sim-extra-salt-pepper-4-1"]
    assert '"sim-extra-salt-pepper-SEED-i"' in " ".join(
        runner.invoke(app, ["simulate", "--help"], env={"COLUMNS": "200"}).output.split())
    assert out.read_bytes() == b"".join(
        ev.encode_lines(g) for g in simulate(2, 3, 4, None, "extra-salt", "pepper"))
    r = runner.invoke(app, ["simulate", "-n", "1", "-p", "2", "-s", "1", "--ruleset", "extra"])
    assert r.exit_code == 2
    r = runner.invoke(app, ["tournament", "-n", "12", "-p", "2", "-s", "1", "--json",
                            "--ruleset", "extra-salt", "--events", "pepper"])
    assert r.exit_code == 0, r.output
    assert '"games"' in r.output
