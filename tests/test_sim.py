"""The simulator, its bots and the tournament: determinism, realism (every rule and edge case
comes up in a seeded batch), bots that see only their own view, and the CLI commands."""

from __future__ import annotations

import io
import json
import random
from collections import Counter

import pytest
from msgspec.structs import replace
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.cards import EXTRA_CODES
from seasalt_log.engine import (State, apply, chance_outcomes, legal_decisions, legal_moves,
                                with_derived)
from seasalt_log.scoring import card_points
from seasalt_log.engine.state import ROUND
from seasalt_log.importers.jsonl import check_game, read_games
from seasalt_log.scoring import breakdown
from seasalt_log.sim import BOTS, DEFAULT_BOTS, SimulationError, lineup, play_game, simulate
from seasalt_log.sim import decisions as dc
from seasalt_log.sim.evaluate import Holding
from seasalt_log.sim.stats import CASES, tally
from seasalt_log.sim.tournament import lineups, tournament
from seasalt_log.view import table_view

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def states_of(game):
    """(state before, event) for every event of ``game``."""
    s = State()
    for e in game:
        yield s, e
        s = apply(s, e)


# ---------------------------------------------------------------- the games themselves

def test_same_arguments_same_bytes_and_seeds_differ():
    a = b"".join(ev.encode_lines(g) for g in simulate(12, 3, 7))
    b = b"".join(ev.encode_lines(g) for g in simulate(12, 3, 7))
    c = b"".join(ev.encode_lines(g) for g in simulate(12, 3, 8))
    assert a == b
    assert a != c
    games = list(simulate(12, 3, 7))
    assert len({ev.encode_lines(g) for g in games}) == 12     # games of one run differ too


def test_one_game_replays_alone():
    games = list(simulate(5, 2, 3, ["planner", "greedy"]))
    assert play_game(3, 4, lineup(["planner", "greedy"], 2, 4)) == games[4]


def test_game_shape_and_engine_acceptance():
    for players in (2, 3, 4):
        for i, game in enumerate(simulate(6, players, 11)):
            start = game[0]
            assert type(start) is ev.GameStarted
            assert start.game_id == f"sim-11-{i}"
            assert json.loads(bytes(start.meta)) == {"seed": 11, "game": i, "bots": lineup(DEFAULT_BOTS, players, i)}
            assert len(start.players) == players
            rounds = [e for e in game if type(e) is ev.RoundStarted]
            assert rounds and all(len(r.deck) == 56 for r in rounds)
            assert type(game[-1]) is ev.GameEnded
            # the derived events are exactly where the engine puts them
            inputs = [e for e in game if type(e) not in ev.DERIVED_TYPES]
            assert [e for e, _ in with_derived(inputs)] == game
            # and the log reads back through the importer unchanged
            raw = next(read_games(io.BytesIO(ev.encode_lines(game))))
            assert check_game(raw).events == game


def test_first_player_is_random_then_follows_the_ender():
    firsts = Counter()
    for game in simulate(40, 4, 5, ["greedy"]):
        rounds = [e for e in game if type(e) is ev.RoundStarted]
        firsts[rounds[0].first_player] += 1
        s = State()
        for e in game:
            if type(e) is ev.RoundStarted and e.round > 1:
                assert e.first_player == (s.flow.ender + 1) % 4      # R-SETUP-4
            s = apply(s, e)
    assert set(firsts) == {0, 1, 2, 3}


def test_bad_arguments():
    with pytest.raises(SimulationError, match="players must be 2, 3 or 4"):
        next(simulate(1, 5, 1))
    with pytest.raises(SimulationError, match="unknown bot 'chess'"):
        next(simulate(1, 2, 1, ["random", "chess"]))
    with pytest.raises(SimulationError, match="at least 0"):
        next(simulate(-1, 2, 1))
    assert list(simulate(0, 2, 1)) == []


# ---------------------------------------------------------------- realism

#: the situations every large batch must contain (RULES.md ids in stats.CASES)
REQUIRED = ("crab", "crab_no_effect", "fish", "fish_no_effect", "boat", "boat_no_effect",
            "shark", "shark_no_effect", "boat_extra_take", "deck_drawn_one", "deck_out",
            "stop", "last_chance_won", "last_chance_tied", "last_chance_lost",
            "final_turn_empty_deck", "call_on_empty_deck", "mermaid_win", "target_win",
            "target_tie_break")


@pytest.fixture(scope="module")
def batch_counts() -> Counter:
    total: Counter = Counter()
    for players, games in ((2, 300), (3, 300), (4, 800)):   # deep rounds are likelier with 4
        total += tally(simulate(games, players, 2024))
    return total


def test_every_case_happens_in_a_default_batch(batch_counts):
    missing = [c for c in REQUIRED if not batch_counts[c]]
    assert not missing, f"never happened: {missing}; counts: {dict(batch_counts)}"
    assert set(REQUIRED) <= set(CASES)


def test_case_counts_agree_with_the_events():
    games = list(simulate(60, 4, 3))
    c = tally(games)
    flat = [e for g in games for e in g]
    assert c["deck_drawn_one"] == sum(type(e) is ev.DeckDrawn and len(e.cards) == 1 for e in flat)
    assert c["crab_no_effect"] == sum(type(e) is ev.CrabsPlayed and e.pile is None for e in flat)
    assert c["shark"] == sum(type(e) is ev.SharkPlayed and e.victim is not None for e in flat)
    assert c["deck_out"] == sum(type(e) is ev.RoundScored and e.ending == "deck_out" for e in flat)
    assert c["stop"] == sum(type(e) is ev.StopCalled for e in flat)
    assert c["mermaid_win"] + c["target_win"] == 60
    scored = sum(type(e) is ev.RoundScored and e.ending == "last_chance" for e in flat)
    assert c["last_chance_won"] + c["last_chance_tied"] + c["last_chance_lost"] == scored > 0


# ---------------------------------------------------------------- bots see only their view

def _hidden_variant(s: State, viewer: int, rng: random.Random) -> State:
    """``s`` with everything ``viewer`` cannot see changed: the deck order, and the cards of
    every hidden hand swapped with cards of the deck (hand sizes kept)."""
    t, f = s.table, s.flow
    deck = list(t.deck)
    hands = list(t.hands)
    for seat in range(s.n):
        revealed = f.revealed & (1 << seat) or (f.call == "stop" and f.caller == seat)
        if seat == viewer or revealed or not hands[seat] or not deck:
            continue
        hand = list(hands[seat])
        for k in range(len(hand)):
            j = rng.randrange(len(deck))
            hand[k], deck[j] = deck[j], hand[k]
        hands[seat] = tuple(hand)
    rng.shuffle(deck)
    return replace(s, table=replace(t.with_deck(tuple(deck)), hands=tuple(hands)))


def test_bots_choose_the_same_whatever_is_hidden():
    rng = random.Random(99)
    bots = {name: cls() for name, cls in BOTS.items()}
    checked = changed = 0
    for game in simulate(30, 3, 31):
        for s, e in states_of(game):
            if s.phase != ROUND or s.flow.due or type(e) not in ev.TURN_TYPES:
                continue
            seat = s.flow.player
            options = legal_decisions(s)
            other = _hidden_variant(s, seat, rng)
            other_options = legal_decisions(other)
            view = table_view(s, seat)
            assert table_view(other, seat) == view
            assert other_options == options
            changed += other.table != s.table
            for name, bot in bots.items():
                a = bot.choose(view, options, random.Random(checked))
                b = bot.choose(table_view(other, seat), other_options, random.Random(checked))
                assert a == b, (name, a, b)
            checked += 1
    assert checked > 1000 and changed > checked // 2


def test_decisions_name_no_hidden_card():
    """A deck draw, a fish pair and a shark pair are decided before the card is known."""
    seen_kinds = set()
    for game in simulate(20, 2, 8):
        for s, e in states_of(game):
            if s.phase != ROUND or s.flow.due or type(e) not in ev.TURN_TYPES:
                continue
            for d in legal_decisions(s):
                seen_kinds.add(d.kind)
                if d.kind in (dc.DRAW, dc.FISH, dc.SHARK):
                    assert d.card is None
                if d.kind == dc.DRAW:
                    assert d.cards == ()
    assert {dc.DRAW, dc.TAKE, dc.FISH, dc.SHARK, dc.CRAB, dc.BOAT, dc.END, dc.STOP,
            dc.LAST_CHANCE} <= seen_kinds


def test_the_simulator_picks_the_stolen_card_uniformly():
    """The bot picks the victim; the card is drawn by the simulator's RNG, uniformly over
    the victim's cards (a card held twice is twice as likely), as the engine's chance
    weights say."""
    from seasalt_log.sim.runner import _chance
    for game in simulate(40, 3, 4, ["planner"]):
        for s, e in states_of(game):
            if type(e) is not ev.SharkPlayed or e.victim is None:
                continue
            hand = s.table.hands[e.victim]
            if len(hand) < 3 or len(set(hand)) == len(hand):
                continue
            d = next(d for d in legal_decisions(s)
                     if d.kind == dc.SHARK and d.victim == e.victim and d.cards == e.cards)
            weights = dict(chance_outcomes(s, d))
            assert weights == {(c,): n for c, n in Counter(hand).items()}
            picks = Counter()
            for k in range(3000):
                (stolen,) = _chance(s, d, random.Random(k))
                picks[stolen] += 1
            for code, n in Counter(hand).items():
                assert abs(picks[code] / 3000 - n / len(hand)) < 0.04, (hand, picks)
            return
    pytest.fail("no shark pair against a hand holding a card twice")


# ---------------------------------------------------------------- fast paths equal the reference

def round_seats(games):
    """(state, seat) for every seat of every state of ``games`` while a round is in play."""
    for game in games:
        for s, _ in states_of(game):
            if s.phase == ROUND:
                for seat in range(s.n):
                    yield s, seat


def test_memoised_and_count_points_equal_the_breakdown():
    n = 0
    for players in (2, 3, 4):
        for s, seat in round_seats(simulate(4, players, 21)):
            hand, laid = s.table.hands[seat], s.table.laid[seat]
            b = breakdown(hand, laid)
            h = Holding(hand, laid)
            assert card_points(hand, laid) == h.points() == b.card_points
            assert h.bonus() == b.color_bonus or not (hand or laid)
            n += 1
    assert n > 1000


def test_count_points_equal_the_extra_breakdown():
    """Extra Salt holdings, and a card tried and taken back, score as RULES.md §12 scores
    them without events (scoring.extra_breakdown)."""
    from seasalt_log.scoring import extra_breakdown
    n = 0
    for s, seat in round_seats(simulate(4, 3, 22, None, "extra-salt")):
        hand, laid = s.table.hands[seat], s.table.laid[seat]
        x = extra_breakdown(hand, laid)
        h = Holding(hand, laid)
        assert (h.points(), h.bonus()) == (x.card_points, x.color_bonus)
        for card in ("starfish:yellow", "seahorse:white", "crab:black"):
            assert h.points_with(card) == extra_breakdown(hand + (card,), laid).card_points
        assert h.points() == x.card_points
        n += 1
    assert n > 1000


def test_memoised_player_points_equal_the_breakdown():
    """engine.player_points (memoised) is the card points of engine.player_breakdown in
    every ruleset, events in effect included."""
    from seasalt_log.engine.core import player_breakdown, player_points
    n = 0
    for ruleset, events in ((None, "pepper"), ("extra-salt", None), ("extra-salt", "pepper")):
        for s, seat in round_seats(simulate(3, 3, 23, None, ruleset, events)):
            assert player_points(s, seat) == player_breakdown(s, seat).card_points
            n += 1
    assert n > 3000


def test_table_view_shows_exactly_the_hands_sees_hand_allows():
    """table_view decides once for the whole table who sees which hand; the answer must be
    view.sees_hand's for every seat and viewer (R-VIEW, R-LAST-3, a scored round shows every
    hand after a call), in every phase, and a shown hand comes sorted with its card points."""
    from seasalt_log.engine.core import player_points
    from seasalt_log.view import SPECTATOR, TABLE, sees_hand, seat_viewer
    shown = hidden = 0
    for ruleset, events in ((None, None), ("extra-salt", "pepper")):
        for game in simulate(3, 3, 24, None, ruleset, events):
            s = State()
            states = []
            for e in game:
                s = apply(s, e)
                states.append(s)
            for s in states:
                for viewer in (TABLE, SPECTATOR, *(seat_viewer(p) for p in range(s.n))):
                    view = table_view(s, viewer)
                    for p, seat in enumerate(view.seats):
                        hand = s.table.hands[p] if s.table.hands else ()
                        if sees_hand(s, viewer, p):
                            assert seat.hand == tuple(sorted(hand)), (s.seq, viewer, p)
                            assert seat.card_points == (player_points(s, p) if s.table.hands
                                                        else 0)
                            shown += 1
                        else:
                            assert seat.hand is None and seat.card_points is None
                            hidden += 1
                        assert seat.hand_size == len(hand)
                    assert all((pv.cards is not None) == viewer.is_table for pv in view.piles)
    assert shown > 1000 and hidden > 1000


def test_bot_holdings_are_the_views_hand_and_fresh_each_time():
    """bots.holding_of reuses the counts of a hand seen before: each call must give the
    counts of the view's own hand and laid units, unchanged by what a bot did to an earlier
    one."""
    from seasalt_log.sim.bots import holding_of
    n = 0
    for s, seat in round_seats(simulate(3, 2, 25, None, "extra-salt", "pepper")):
        view = table_view(s, seat, extra=False)
        want = Holding(s.table.hands[seat], s.table.laid[seat])
        # scored by RULES.md §12 exactly when an Extra Salt card is held or laid, or a trio laid
        extra_held = sum(c in EXTRA_CODES for c in s.table.hands[seat])
        extra_laid = any(len(u) == 3 or set(u) & set(EXTRA_CODES) for u in s.table.laid[seat])
        assert want.extra == extra_held + extra_laid
        for _ in range(2):
            h = holding_of(view)
            assert (h.hand, h.kinds, h.colors, h.laid, h.trios, h.extra) == (
                want.hand, want.kinds, want.colors, want.laid, want.trios, want.extra)
            assert h.points() == want.points()
            h.add("mermaid:white")          # a bot trying a card without taking it back
        n += 1
    assert n > 500


# ---------------------------------------------------------------- the bots

def test_each_bot_plays_whole_games_alone():
    for name in BOTS:
        for game in simulate(3, 2, 1, [name]):
            assert json.loads(bytes(game[0].meta))["bots"] == [name, name]
            assert type(game[-1]) is ev.GameEnded


def test_greedy_calls_stop_as_soon_as_it_may():
    for game in simulate(10, 2, 6, ["greedy"]):
        for s, e in states_of(game):
            if s.phase == ROUND and not s.flow.due and type(e) in (ev.TurnEnded,):
                assert not any(type(m) is ev.StopCalled for m in legal_moves(s))


def test_random_bot_is_uniform():
    bot = BOTS["random"]()
    options = [dc.Decision(dc.END), dc.Decision(dc.STOP), dc.Decision(dc.LAST_CHANCE)]
    rng = random.Random(1)
    picks = Counter(bot.choose(None, options, rng).kind for _ in range(3000))
    assert all(900 < v < 1100 for v in picks.values())


def test_planner_beats_greedy_and_random():
    r = tournament(48, 2, 5, ["planner", "greedy", "random"])
    rate = {x.strategy: x.win_rate for x in r.results}
    assert rate["planner"] > rate["greedy"] > rate["random"]


# ---------------------------------------------------------------- tournaments

def test_lineups_are_balanced():
    for strategies, players in ((["a", "b", "c"], 2), (["a", "b", "c"], 4), (["a", "b"], 3),
                                (["a"], 2), (["a", "b", "c", "d"], 4)):
        seatings = lineups(strategies, players)
        assert len(set(seatings)) == len(seatings)
        for seat in range(players):
            counts = Counter(t[seat] for t in seatings)
            assert set(counts) == set(strategies) and len(set(counts.values())) == 1


def test_tournament_counts():
    r = tournament(10, 3, 2, ["random", "greedy", "planner"])
    assert r.games == 12 and r.lineups == 6          # rounded up to whole cycles
    assert sum(x.wins for x in r.results) == pytest.approx(12)
    assert all(x.seats == 12 for x in r.results)
    assert tournament(10, 3, 2, ["random", "greedy", "planner"]) == r
    with pytest.raises(SimulationError):
        tournament(0, 3, 2)


# ---------------------------------------------------------------- the CLI

def test_cli_simulate_stdout_and_file(tmp_path):
    r = run("simulate", "--games", 3, "--players", 2, "--seed", 4)
    assert r.exit_code == 0, r.output
    assert r.stderr == ""                    # no progress bar when stderr is not a terminal
    lines = r.stdout.splitlines()
    events = [ev.decode(x) for x in lines]
    assert sum(type(e) is ev.GameStarted for e in events) == 3
    assert r.stdout.encode() == b"".join(ev.encode_lines(g) for g in simulate(3, 2, 4))
    out = tmp_path / "g.jsonl"
    r = run("simulate", "-n", 3, "-p", 2, "-s", 4, "--out", out)
    assert r.exit_code == 0 and out.read_bytes() == lines_bytes(lines)
    r = run("simulate", "-n", 2, "-p", 4, "-s", 4, "--bots", "random, planner")
    assert r.exit_code == 0
    first = json.loads(r.stdout.splitlines()[0])
    assert first["meta"]["bots"] == ["random", "planner", "random", "planner"]


def lines_bytes(lines):
    return "".join(x + "\n" for x in lines).encode()


@pytest.mark.parametrize("args, message, code", [
    # usage errors (a value out of its range, not one of the choices): exit code 2
    (["simulate", "-n", 1, "-p", 5, "-s", 1], "'--players' / '-p': Input should be less than or equal to 4", 2),
    (["simulate", "-n", 1, "-p", 2, "-s", 1, "--bots", "random,bogus"], "no bot 'bogus'", 2),
    (["simulate", "-n", -3, "-p", 2, "-s", 1], "'--games' / '-n': Input should be greater than or equal to 0", 2),
    (["tournament", "-n", 5, "-p", 1, "-s", 1], "'--players' / '-p': Input should be greater than or equal to 2", 2),
    (["tournament", "-n", 5, "-p", 2, "-s", 1, "--bots", "nope"], "no bot 'nope'", 2),
    (["tournament", "-n", 0, "-p", 2, "-s", 1], "'--games' / '-n': Input should be greater than or equal to 1", 2),
    # options that do not go together: a usage error too (--json without --db was dropped:
    # the log written as if it had not been given)
    (["simulate", "-n", 1, "-p", 2, "-s", 1, "--json"], "--json is the summary of an import "
     "into --db: give --db with it (the log is JSON Lines already)", 2),
])
def test_cli_errors_are_one_line(args, message, code):
    r = run(*args)
    assert r.exit_code == code
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert "Traceback" not in r.output


def test_cli_tournament_table_and_json():
    r = run("tournament", "-n", 6, "-p", 2, "-s", 3, "--bots", "greedy,random", "--format", "table")
    assert r.exit_code == 0, r.output
    assert "greedy" in r.stdout and "random" in r.stdout and "win_rate" in r.stdout
    r = run("tournament", "-n", 6, "-p", 2, "-s", 3, "--bots", "greedy,random", "--json")
    data = json.loads(r.stdout)
    assert data["players"] == 2 and data["games"] == 6
    assert {x["strategy"] for x in data["results"]} == {"greedy", "random"}
    assert sum(x["wins"] for x in data["results"]) == pytest.approx(6)
    # the head counts the games the mermaids won (three may do with Dance of the Mermaids)
    n = data["mermaid_wins"]
    table = run("tournament", "-n", 6, "-p", 2, "-s", 3, "--bots", "greedy,random",
                "--format", "table")
    head = table.stdout.splitlines()[0]
    assert head.startswith("6 games, 2 players, seed 3 (fair share 50.0%); ")
    assert head.endswith(f"; {n} game{'s' if n != 1 else ''} won by the mermaids"), head


def test_cli_tournament_says_when_it_plays_more_games_than_asked():
    """Two strategies at two seats: 2 lineups (A-B, B-A), so 5 games asked are 6 played;
    CSV has no head line, so stderr says it. A whole number of cycles says nothing."""
    r = run("tournament", "-n", 5, "-p", 2, "-s", 1, "--bots", "greedy,random")
    assert r.exit_code == 0, r.output
    assert r.stderr == ("seasalt: 5 games asked, 6 played: whole cycles of the 2 lineups, so "
                        "every strategy sits in every seat equally often\n")
    assert [line.split(",")[1] for line in r.stdout.splitlines()[1:]] == ["6", "6"]
    r = run("tournament", "-n", 6, "-p", 2, "-s", 1, "--bots", "greedy,random")
    assert r.exit_code == 0 and r.stderr == ""


def test_bot_holdings_turn_by_turn_equal_fresh_counts():
    """A seat's holding is made from its last one and the card kept when the hand is that
    hand and one card more (bots._added): seen seat by seat as the game runs, every holding
    equals the counts made afresh."""
    from seasalt_log.sim import bots
    assert bots._added(("a", "c"), ("a", "b", "c")) == "b"
    assert bots._added(("a", "c"), ("a", "c", "d")) == "d"
    assert bots._added(("a", "c"), ("0", "a", "c")) == "0"
    assert bots._added(("a", "c"), ("a", "b", "d")) is None
    assert bots._added((), ("a",)) == "a"
    n = 0
    for game in simulate(4, 2, 26, None, "extra-salt", "pepper"):
        for s, _ in states_of(game):
            if s.phase != ROUND or s.flow.due:
                continue
            seat = s.flow.player
            view = table_view(s, seat, extra=False)
            want = Holding(s.table.hands[seat], s.table.laid[seat])
            h = bots.holding_of(view)
            assert (h.hand, h.kinds, h.colors, h.laid, h.trios, h.extra) == (
                want.hand, want.kinds, want.colors, want.laid, want.trios, want.extra)
            n += 1
    assert n > 500


def test_the_round_shuffle_is_pythons():
    """The simulator's own shuffle gives random.shuffle's order and leaves the generator
    where random.shuffle leaves it (the seeded games depend on both)."""
    from seasalt_log.sim.runner import DECK, shuffle
    for seed in range(300):
        cards = list(DECK)[: 1 + seed % len(DECK)] + ["x"] * (seed % 5)
        ours, pythons = list(cards), list(cards)
        a, b = random.Random(f"s{seed}"), random.Random(f"s{seed}")
        shuffle(ours, a)
        b.shuffle(pythons)
        assert ours == pythons
        assert a.getrandbits(64) == b.getrandbits(64)
    empty: list[str] = []
    shuffle(empty, random.Random(1))
    assert empty == []


def test_a_bots_generator_seeded_at_its_first_draw_draws_as_its_stream():
    """BotRandom, the bot's generator seeded only when first drawn from, gives the draws of
    the stream's own generator (random.Random of its seed string), method after method."""
    from seasalt_log.sim.runner import BotRandom
    lazy = BotRandom(7, 3, "bot1")
    plain = random.Random("seasalt-sim:7:3:bot1")
    for i in range(200):
        assert lazy.randrange(1 + i % 9) == plain.randrange(1 + i % 9)
        assert lazy.random() == plain.random()
    assert lazy.choice("abcdef") == plain.choice("abcdef")
    assert BotRandom(7, 3, "bot0").random() != BotRandom(7, 3, "bot1").random()


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SimulationError("a bot is stuck")])
def test_a_failed_first_simulate_into_a_new_store_leaves_no_store(tmp_path, monkeypatch, stop):
    """simulate --db NEW: a run stopped before any game was committed (Ctrl-C, a bot that
    fails) removes the store it made, as a failed first import does; a store there before
    is left as it was."""
    import seasalt_cli.sim_cmd as sim_cmd
    real = sim_cmd.simulate_games

    def stopped_after(n):
        def games(*args, **kwargs):
            for i, game in enumerate(real(*args, **kwargs)):
                if i == n:
                    raise stop
                yield game
        return games
    db = tmp_path / "new.duckdb"
    for n in (0, 2):
        monkeypatch.setattr(sim_cmd, "simulate_games", stopped_after(n))
        r = run("simulate", "--games", "3", "--players", "2", "--seed", "5", "--db", db)
        assert r.exit_code in (1, 130) and r.stderr.count("\n") == 1, r.output
        assert not db.exists() and not (tmp_path / "new.duckdb.wal").exists(), n
    monkeypatch.undo()
    assert run("simulate", "--games", "3", "--players", "2", "--seed", "5", "--db", db).exit_code == 0
    before = db.read_bytes()
    monkeypatch.setattr(sim_cmd, "simulate_games", stopped_after(1))
    assert run("simulate", "--games", "3", "--players", "2", "--seed", "6", "--db", db).exit_code
    assert db.read_bytes() == before and not (tmp_path / "new.duckdb.wal").exists()


@pytest.mark.parametrize("ruleset, events, prefix", [
    (None, None, "sim-9-"), ("base", None, "sim-9-"), ("extra-salt", None, "sim-extra-salt-9-"),
    (None, "pepper", "sim-pepper-9-"), ("extra-salt", "pepper", "sim-extra-salt-pepper-9-")])
def test_simulated_ids_name_the_settings_other_than_the_base_games(ruleset, events, prefix,
                                                                    tmp_path):
    """A simulated game's id names its ruleset and events (none for the base game), so runs
    of one seed under each setting go into one store side by side."""
    games = list(simulate(2, 2, 9, None, ruleset, events))
    assert [g[0].game_id for g in games] == [prefix + "0", prefix + "1"]
    if ruleset == "extra-salt" and events:      # once: every setting's run into one store
        from seasalt_log.service import import_logs
        from seasalt_log.store import Store
        logs = []
        for k, (r, e) in enumerate([(None, None), ("extra-salt", None), (None, "pepper"),
                                    ("extra-salt", "pepper")]):
            logs.append(tmp_path / f"{k}.jsonl")
            run = simulate(2, 2, 9, None, r, e)
            logs[-1].write_bytes(b"".join(ev.encode_lines(g) for g in run))
        with Store.open(tmp_path / "s.duckdb") as store:
            summary = import_logs(store, [str(p) for p in logs])
        assert (summary.failed, len(summary.games)) == (0, 8), summary
