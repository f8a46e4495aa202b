"""Scoring outside the engine in games with events (RULES.md §12, R-EV-APPLY): ``rescore``
and the ``round_results`` read model score each player with the events in effect for them,
so they agree with the engine's ``round_scored`` and with tables worked by hand."""

from __future__ import annotations

import pytest

from seasalt_log import events as ev
from seasalt_log.render import render_report
from seasalt_log.rescore import rescore
from seasalt_log.store.projections import project

from .randomplay import play_random_game
from .scenario import Game, draw, states_after as _states, stop

BB, BY = "boat:black", "boat:yellow"
O1, O2, O3 = "octopus:green", "octopus:yellow", "octopus:grey"
P1, P2, P3 = "penguin:purple", "penguin:pink", "penguin:light-orange"
SG, SB, SY = "shell:grey", "shell:black", "shell:yellow"
M = "mermaid:white"




@pytest.mark.parametrize("ruleset", [None, "extra-salt"])
@pytest.mark.parametrize("seed", range(6))
def test_rescore_and_round_results_equal_the_engine_in_random_event_games(seed, ruleset):
    """R-X-SCORE with R-EV-APPLY: for every scored round of a random ``events: pepper``
    game, rescore's card points, colour bonus and points and the round_results rows equal
    what the engine put in round_scored."""
    events = play_random_game(seed, 2 + seed % 3, ruleset=ruleset, events="pepper")
    scored = [e for e in events if type(e) is ev.RoundScored]
    assert scored, "the game scored no round"
    rows = project("g", events, _states(events))["round_results"]
    by_round = {}
    for r in rows:   # game_id round seat pairs collectors multipliers mermaids card_points bonus
        by_round.setdefault(r[1], []).append(r)
    for e in scored:
        report = rescore(events, e.round, game_id="g")
        assert report.matches is True, render_report(report)
        assert tuple(p.breakdown.card_points for p in report.players) == e.card_points
        assert tuple(p.breakdown.color_bonus for p in report.players) == e.color_bonus
        got = sorted(by_round[e.round], key=lambda r: r[2])
        assert tuple(r[7] for r in got) == e.card_points
        assert tuple(r[8] for r in got) == e.color_bonus
        for r in got:                       # the sources still add up to the card points
            assert r[3] + r[4] + r[5] + r[6] == r[7]


def _stop_game(event: str, hand: list[str]) -> Game:
    g = Game(2, events="pepper").start_round(event=event, hands={0: hand}, then=[BB, BY])
    g.play(draw(0, BB, BY), stop(0))
    g.derived()
    return g


@pytest.mark.parametrize("event, hand, card_points, note", [
    # R-EV-KRAKEN: octopuses 1/2/3/4/5 instead of 0/3/6/9/12; penguins 1/3/5 (R-SCORE-COLLECT)
    ("kraken", [O1, O2, O3, P1, P2, P3], 3 + 5,
     "kraken: octopus table 1/2/3/4/5, -3 card points"),
    # R-EV-DANCE-OF-THE-SHELLS: 3 shells 6 instead of 4
    ("dance-of-the-shells", [SG, SB, SY, P1], 6 + 1,
     "dance-of-the-shells: shell table 2/4/6/8/10/12, +2 card points"),
    # R-EV-TORNADO: two mermaids score 0 instead of the two largest colour groups
    # (R-SCORE-MERMAID: white, the mermaids themselves, 2; then any single colour, 1)
    ("tornado", [M, M, P1, P2, P3, O1, O2], 5 + 3,
     "tornado: mermaids score 0, -3 card points"),
])
def test_rescore_scores_and_explains_the_event_tables(event, hand, card_points, note):
    """R-EV-APPLY: rescore scores the table event's table, worked by hand, says which event
    changed which table, and agrees with the stored round_scored."""
    g = _stop_game(event, hand)
    report = rescore(g.events, 1)
    assert report.players[0].breakdown.card_points == card_points
    assert report.matches is True
    assert event in report.players[0].effects
    assert note in report.players[0].effect_notes
    text = render_report(report)
    assert f"events in effect: {', '.join(report.players[0].effects)}" in text
    assert note in text
    rows = project("g", g.events, _states(g.events))["round_results"]
    assert sorted(rows, key=lambda r: r[2])[0][7] == card_points
