"""R-EV-HOLD, R-EV-PLACE, R-EV-AWARD, R-EV-DECK over whole random games with events: what
holds between rounds, checked from the game totals and the rule text (the places of the
twelve events are copied from RULES.md §14.1 here, not read from the engine)."""

from __future__ import annotations

import pytest

from seasalt_log import events as ev
from seasalt_log.engine import State

from ..randomplay import play_random_game

#: RULES.md §14.1: the place of each event
PLACE = {"hermit-crab": "last", "sunfish": "last", "water-rodeo": "last",
         "dance-of-the-shells": "last", "kraken": "first", "tornado": "first",
         "dance-of-the-mermaids": "last", "treasure-chest": "first", "diodon-fish": "first",
         "angelfish": "last", "dolphins": "last", "coral-reef": "last"}


def places(totals) -> dict[str, int | None]:
    """R-EV-PLACE: the only highest and the only lowest total, or nobody."""
    hi, lo = max(totals), min(totals)
    return {"first": totals.index(hi) if list(totals).count(hi) == 1 else None,
            "last": totals.index(lo) if list(totals).count(lo) == 1 else None}


def check(before: State, e: ev.Event, after: State) -> None:
    if type(e) is ev.EventAwarded:
        seat = places(after.totals)
        assert e.to == seat[PLACE[e.event]], "R-EV-AWARD step 2"
        for held in before.held:
            for code in held:
                gone = ev.EventDiscard(player=before.held.index(held), event=code)
                assert (gone in e.discarded) == (seat[PLACE[code]] != gone.player), \
                    "R-EV-AWARD step 1"
    if type(e) is ev.RoundStarted and before.phase != "new" and before.held:
        seat = places(before.totals)
        held = [(p, c) for p, h in enumerate(before.held) for c in h]
        assert all(len(h) <= 1 for h in before.held), "R-EV-HOLD: one event a player"
        assert len(held) <= 2, "R-EV-HOLD: two events at most"
        for p, code in held:
            assert seat[PLACE[code]] == p, "R-EV-HOLD: a holder has its event's place"
    if type(e) is ev.EventKept:
        assert len({PLACE[c] for c in before.held[e.player]}) == 1, "R-EV-HOLD: same place"
    if after.held:
        every = (list(after.event_deck) + list(after.event_discards)
                 + [c for h in after.held for c in h]
                 + ([after.table_event] if after.table_event else []))
        assert sorted(every) == sorted(PLACE), "R-EV-DECK: the twelve events, once each"


@pytest.mark.parametrize("ruleset", [None, "extra-salt"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_r_ev_hold_and_r_ev_award_over_random_games(ruleset, players):
    """R-EV-HOLD, R-EV-PLACE, R-EV-AWARD, R-EV-DECK, R-EV-RESHUFFLE: twelve random games of
    each kind, long ones included (a high target brings the event deck round again)."""
    rounds = 0
    for seed in range(12):
        events = play_random_game(seed, players, target=None if seed % 3 else 120,
                                  ruleset=ruleset, events="pepper", on_event=check)
        rounds += sum(type(e) is ev.RoundStarted for e in events)
    assert rounds > 12 * 2
