"""A round's end is scored once (``engine.core.round_breakdowns``): the engine's check of
``round_scored`` scores every seat's breakdown and the read models (``round_results``,
``round_extra``, ``event_outcomes``) take the same breakdowns. These tests check that the
breakdowns handed over are those of the right state and the right seat: every
``round_results`` and ``round_extra`` row against the Counter scorer of
tests/extra_scoring_oracle.py (which shares no scoring code with the engine) on simulated
games of both rulesets, and hand-made rounds worked from the rules: a LAST CHANCE whose
caller fails, a round ended by a mermaid win, a Tornado."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log.engine import core
from seasalt_log.engine.core import round_breakdowns
from seasalt_log.errors import IllegalMoveError
from seasalt_log.importers.jsonl import check_game, raw_game
from seasalt_log.sim import simulate
from seasalt_log.store.projections import project

from . import extra_scoring_oracle as oracle
from .scenario import Game, draw, end, last_chance, states_after, stop, take

M = "mermaid:white"


def oracle_breakdown(s, seat: int) -> dict:
    """The seat's breakdown in ``s`` by the Counter scorer (base cards score there as by
    RULES.md §4-6: R-X-SCORE extends R-SCORE), with the events in effect for the seat."""
    t = s.table
    face_down = int(s.table_event is not None and t.face_down[seat] is not None)
    return oracle.extra_breakdown(t.hands[seat], t.laid[seat], s.effects(seat), face_down,
                                  s.ruleset.starfish_in_hand_scores)


def scored_parts(e: ev.RoundScored, seat: int) -> tuple[bool, bool]:
    """Whether the seat's card points / colour bonus count in its points: R-STOP (card
    points), R-DECKOUT (nothing), R-LAST-4 (the caller's bonus always; its card points if
    it won, the others' if it lost; the others' bonus if it won)."""
    if e.ending == "stop":
        return True, False
    if e.ending == "deck_out":
        return False, False
    caller = seat == e.caller
    return caller == bool(e.caller_won), caller or bool(e.caller_won)


def expected_rows(game_id: str, events, states) -> tuple[list[tuple], list[tuple]]:
    """The ``round_results`` and ``round_extra`` rows of a checked game, each seat scored by
    the oracle in the state before its round's ``round_scored``."""
    results, extra = [], []
    for i, e in enumerate(events):
        if type(e) is not ev.RoundScored:
            continue
        s = states[i - 1]
        for p in range(s.n):
            b = oracle_breakdown(s, p)
            assert (e.card_points[p], e.color_bonus[p]) == (b["card_points"], b["color_bonus"])
            results.append((game_id, e.round, p, b["pairs"] + b["starfish"], b["collectors"],
                            b["multipliers"], b["mermaids"], b["card_points"], b["color_bonus"],
                            e.points[p], e.totals[p], *scored_parts(e, p)))
            if s.ruleset.extra_scoring:
                extra.append((game_id, e.round, p, b["trios"], b["starfish"], b["seahorse"],
                              b["seahorse_points"], b["cast"], b["rodeo_pairs"], b["face_down"],
                              list(b["tables"]), b["card_points"]))
    return results, extra


@pytest.fixture
def scorings(monkeypatch) -> list[tuple]:
    """Every seat the engine scores from scratch (``core._breakdown``), as (state id, seat)."""
    calls: list[tuple] = []
    scored = core._breakdown

    def counted(s, seat):
        calls.append((id(s), seat))
        return scored(s, seat)

    monkeypatch.setattr(core, "_breakdown", counted)
    return calls


def check_and_project(events, scorings: list[tuple]):
    """The game checked as the importer checks it, then projected: (checked game, rows,
    the seats scored by the projection)."""
    core._round_ends.clear()
    game = check_game(raw_game(events))
    before = len(scorings)
    rows = project(game.game_id, game.events, game.states)
    return game, rows, scorings[before:]


def assert_rows_by_the_oracle(events, scorings) -> tuple:
    game, rows, again = check_and_project(events, scorings)
    results, extra = expected_rows(game.game_id, game.events, game.states)
    assert rows["round_results"] == results, game.game_id
    assert rows["round_extra"] == extra, game.game_id
    assert again == [], game.game_id           # the projection took the engine's breakdowns
    return game, rows


@pytest.fixture(scope="module")
def base_games() -> list[list[ev.Event]]:
    return [g for players in (2, 3, 4) for g in simulate(40, players, 70 + players)]


def test_round_results_by_the_oracle_base_games(base_games, scorings):
    """R-SCORE, R-STOP, R-LAST-4, R-DECKOUT: every round's rows of 120 simulated base games
    (2, 3 and 4 players) are the oracle's breakdown of each seat at its round's end; the
    projection scores no seat again."""
    rounds = 0
    for game in base_games:
        _, rows = assert_rows_by_the_oracle(game, scorings)
        rounds += len(rows["round_results"])
    assert rounds > 800


def test_round_results_and_extra_by_the_oracle_expansion_games(expansion_games, scorings):
    """R-X-SCORE, R-EV-APPLY: the same for 270 simulated expansion games (Extra Salt with and
    without events, the base cards with events; 2, 3 and 4 players), and their
    ``round_extra`` rows field by field."""
    per = len(expansion_games) // 9
    games = [g for k in range(9) for g in expansion_games[k * per:k * per + 30]]
    endings = set()
    for game in games:
        checked, rows = assert_rows_by_the_oracle(game, scorings)
        endings.update(e.ending for e in checked.events if type(e) is ev.RoundScored)
    assert endings == {"stop", "last_chance", "deck_out"}


def test_a_game_without_an_id_finds_the_checked_breakdowns(base_games, scorings):
    """A log whose game_started has no game_id: the importer's states are copies with the
    id derived from the content, and they still find the breakdowns the check scored."""
    game = [replace(base_games[0][0], game_id=None), *base_games[0][1:]]
    checked, rows = assert_rows_by_the_oracle(game, scorings)
    assert checked.game_id != base_games[0][0].game_id and rows["round_results"]


def test_a_full_memo_is_cleared_and_the_rows_stay_right(base_games, scorings, monkeypatch):
    """With room for one round end, a game's earlier round ends are scored again by the
    projection (cleared from the memo), with the same rows."""
    monkeypatch.setattr(core, "ROUND_ENDS_KEPT", 1)
    for game in base_games[:10]:
        checked, rows, again = check_and_project(game, scorings)
        results, _ = expected_rows(checked.game_id, checked.events, checked.states)
        assert rows["round_results"] == results
        assert len(core._round_ends) <= 1
        ends = sum(type(e) is ev.RoundScored for e in checked.events)
        assert (len(again) > 0) == (ends > 1)


def test_the_memo_tells_round_ends_apart():
    """Two states with the same table and the same seats (a round's end, and it with another
    table event or other events held) are scored each for itself (R-EV-APPLY)."""
    g = tornado_round()
    s = g.state
    b = round_breakdowns(s)
    assert [x.mermaids for x in b] == [0, 0]                    # R-EV-TORNADO
    assert round_breakdowns(s.changed(game_id="x")) is b       # found, not scored again
    for other in (s.changed(table_event="kraken"), s.changed(held=(("kraken",), ()))):
        got = round_breakdowns(other)
        assert got is not b
        assert [x.card_points for x in got] == [oracle_breakdown(other, p)["card_points"]
                                                for p in range(2)]
    plain = s.changed(table_event=None, held=((), ()))
    mermaids = [oracle_breakdown(plain, p)["mermaids"] for p in range(2)]
    assert [x.mermaids for x in round_breakdowns(plain)] == mermaids and min(mermaids) > 0
    assert round_breakdowns(s) == b


# ---------------------------------------------------------------- hand-made round ends

def rows_of(g: Game) -> dict[str, list[tuple]]:
    g.derived()
    return project("scenario", g.events, states_after(g.events))


def last_chance_lost() -> Game:
    """test_end's R-LAST-4 worked case: seat 0 calls with 7 and loses to seat 1's 9."""
    g = Game(2).start_round(
        hands={0: ["sailor:pink", "sailor:orange", "crab:dark-blue", "crab:light-blue"],
               1: ["octopus:light-blue", "octopus:yellow", "octopus:green", "octopus:purple"]},
        discards=["octopus:grey", "shell:grey"], then=["penguin:pink", "boat:yellow"])
    return g.play(draw(0, "penguin:pink", "boat:yellow", pile=0), last_chance(0),
                  take(1, 1, "shell:grey"), end(1))


def test_a_last_chance_caller_who_fails():
    """R-LAST-4, worked by hand: seat 0 holds sailors 5, a crab pair 1 and a penguin 1 (7,
    pink 2); seat 1 four octopuses 9 and a single shell 0 (bonus 1). The caller lost: it
    scores its bonus only, seat 1 its card points only."""
    rows = rows_of(last_chance_lost())
    assert rows["round_results"] == [
        ("scenario", 1, 0, 1, 6, 0, 0, 7, 2, 2, 2, False, True),
        ("scenario", 1, 1, 0, 9, 0, 0, 9, 1, 9, 9, True, False)]
    assert rows["rounds"][0][4:9] == ("last_chance", 0, False, "lost", 7)


def test_a_round_ended_by_a_mermaid_win_after_a_scored_round():
    """R-MERMAID-WIN, R-GAME-2: round 1 (STOP: seat 0 penguins 5 + colony 6 = 11, seat 1
    shells 2) has its rows; round 2, won by four mermaids, has none, and its ending is
    the mermaids'."""
    g = Game(2).start_round(
        hands={0: ["penguin:purple", "penguin:light-orange", "penguin:pink", "colony:green"],
               1: ["shell:black", "shell:green", "octopus:yellow", "fish:green"]},
        then=["crab:grey", "boat:yellow"])
    g.play(draw(0, "crab:grey", "boat:yellow", pile=0), stop(0))
    g.derived()
    g.start_round(hands={1: [M, M, M, "shell:yellow"],
                         0: ["shell:black", "shell:green", "octopus:yellow", "fish:green"]},
                  then=[M, "crab:black"])
    g.play(draw(1, M, "crab:black", pile=0), end(1))
    rows = rows_of(g)
    assert g.events[-1] == ev.GameEnded(reason="mermaids", winners=(1,), totals=(11, 2))
    assert rows["round_results"] == [
        ("scenario", 1, 0, 0, 5, 6, 0, 11, 1, 11, 11, True, False),
        ("scenario", 1, 1, 0, 2, 0, 0, 2, 2, 2, 2, True, False)]
    assert [r[4] for r in rows["rounds"]] == ["stop", "mermaids"]


def tornado_round() -> Game:
    """A pepper game's first round under the Tornado, stopped by seat 0."""
    g = Game(2, events="pepper").start_round(
        event="tornado",
        hands={0: [M, M, "penguin:purple", "penguin:pink", "penguin:light-orange",
                   "octopus:green", "octopus:yellow"],
               1: [M, M, "shell:grey", "shell:black", "shell:yellow", "fish:black",
                   "fish:green"]},
        then=["boat:black", "boat:yellow"])
    return g.play(draw(0, "boat:black", "boat:yellow"), stop(0))


def test_a_tornado_round():
    """R-EV-TORNADO: the mermaids score nothing; seat 0 penguins 5 + octopuses 3 = 8, seat 1
    shells 4 + a fish pair 1 = 5, both ``round_extra`` rows naming the Tornado."""
    g = tornado_round()
    end_state = g.state
    rows = rows_of(g)
    assert [r[3:8] for r in rows["round_results"]] == [(0, 8, 0, 0, 8), (1, 4, 0, 0, 5)]
    assert [r[8] for r in rows["round_results"]] == [
        oracle_breakdown(end_state, p)["color_bonus"] for p in range(2)]
    assert [r[3:] for r in rows["round_extra"]] == [
        (0, 0, None, 0, 0, 0, 0, ["tornado"], 8), (0, 0, None, 0, 0, 0, 0, ["tornado"], 5)]


@pytest.mark.parametrize("field,value,message", [
    ("card_points", (7, 8), "round_scored.card_points is [7, 8], but the engine computes [7, 9]"),
    ("color_bonus", (1, 1), "round_scored.color_bonus is [1, 1], but the engine computes [2, 1]"),
    ("points", (7, 0), "round_scored.points is [7, 0], but the engine computes [2, 9]"),
    ("totals", (2, 8), "round_scored.totals is [2, 8], but the engine computes [2, 9]"),
    ("caller_won", True, "round_scored.caller_won is True, but the engine computes False"),
    ("ending", "stop", "round_scored.ending is 'stop', but the engine computes 'last_chance'"),
])
def test_a_wrong_round_scored_is_named_field_by_field(field, value, message):
    """R-DERIVED: a logged round_scored that differs from the engine's names its first
    differing field with the engine's value, whether or not its breakdowns were scored."""
    g = last_chance_lost()
    right = ev.RoundScored(round=1, ending="last_chance", caller=0, caller_won=False,
                           card_points=(7, 9), color_bonus=(2, 1), points=(2, 9), totals=(2, 9))
    wrong = replace(right, **{field: value})
    for memo in (False, True):
        if not memo:
            core._round_ends.clear()
        with pytest.raises(IllegalMoveError) as info:
            core.apply(g.state, wrong)
        assert (info.value.rule, str(info.value).count(message)) == ("R-DERIVED", 1)
    assert core.apply(g.state, right).totals == (2, 9)
