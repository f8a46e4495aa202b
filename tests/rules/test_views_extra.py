"""What each player can see with the expansions (RULES.md §16, R-X-VIEW): the redacted
events and the table view of another seat, against the rule text.

Each case plays a short Extra Salt scenario, then asks :func:`seasalt_log.view.redact` for
the event as the acting seat and as another seat sees it. What R-X-VIEW calls private must
be hidden from the other seat (and shown to the actor); what it calls public must stay.
"""

from __future__ import annotations

import pytest

from seasalt_log import events as ev
from seasalt_log.view import redact, seat_viewer, table_view

from ..scenario import Game, draw, end, states_after

CB, LOB = "crab:black", "lobster:black"
SWB, JP = "swimmer:black", "jellyfish:purple"
BB, BY, STY = "boat:black", "boat:yellow", "starfish:yellow"
M, O1 = "mermaid:white", "octopus:green"


def seen_by(g: Game, seat: int, index: int = -1):
    """The event ``g.events[index]`` as ``seat`` sees it."""
    states = states_after(g.events)
    i = index % len(g.events)
    return redact(g.events[i], seat_viewer(seat), states[i - 1], states[i])


def test_r_x_view_lobster_cards_seen_by_the_player_only():
    """R-X-VIEW: the lobster's n cards and the card kept are seen by its player only;
    everyone sees that 5 cards were taken and one kept (lists keep their length); nobody
    else sees the new deck order."""
    g = Game(ruleset="extra-salt").start_round(
        hands={0: [CB, LOB]}, then=[BB, BY, M, STY, "seahorse:white", "crab:grey", O1])
    g.play(draw(0, BB, BY))
    top5, rest = g.deck[:5], g.deck[5:]
    new = rest + top5[1:]
    g.play(ev.LobsterPlayed(player=0, cards=(CB, LOB), seen=top5, kept=top5[0], deck=new))
    own = seen_by(g, 0)
    assert list(own["seen"]) == list(top5) and own["kept"] == top5[0]
    other = seen_by(g, 1)
    assert other["seen"] == [None] * 5 and other["kept"] is None
    assert other["deck"] is None or set(other["deck"]) == {None}
    assert len(other["deck"] or ()) in (0, len(new))


def test_r_x_view_a_forced_take_is_seen_by_its_taker_only():
    """R-X-VIEW: the card of a forced take is seen by the player who takes it only."""
    g = Game(ruleset="extra-salt").start_round(hands={0: [SWB, JP]},
                                               then=[BB, BY, M, O1, "octopus:yellow"])
    g.play(draw(0, BB, BY), ev.JellyfishPlayed(player=0, cards=(SWB, JP)), end(0),
           ev.ForcedDrawn(player=1, card=M))
    assert seen_by(g, 0)["card"] is None
    assert seen_by(g, 1)["card"] == M


def test_r_x_view_a_lock_and_a_trio_are_public_in_the_table_view():
    """R-X-VIEW: jellyfish and trios are public: another seat's table view shows the laid
    jellyfish pair and the trio with their cards."""
    g = Game(ruleset="extra-salt").start_round(hands={0: [SWB, JP, BB, STY]}, then=[BY, O1])
    g.play(draw(0, BY, O1), ev.JellyfishPlayed(player=0, cards=(SWB, JP)),
           ev.StarfishPlayed(player=0, cards=(BB, BY), starfish=STY))
    laid = table_view(g.state, viewer=1).seats[0].laid
    assert sorted(map(sorted, laid)) == sorted([sorted([SWB, JP]), sorted([BB, BY, STY])])


def test_r_x_view_jellyfish_and_trio_events_are_public():
    """R-X-VIEW: the cards of a laid jellyfish pair and of a trio are public in their events,
    as the laid pairs of base events are (``cards`` of crabs_played stays public)."""
    g = Game(ruleset="extra-salt").start_round(hands={0: [SWB, JP, BB, STY]}, then=[BY, O1])
    g.play(draw(0, BY, O1), ev.JellyfishPlayed(player=0, cards=(SWB, JP)),
           ev.StarfishPlayed(player=0, cards=(BB, BY), starfish=STY))
    jelly, trio = seen_by(g, 1, -2), seen_by(g, 1, -1)
    assert list(jelly["cards"]) == [SWB, JP]
    assert list(trio["cards"]) == [BB, BY] and trio["starfish"] == STY


def test_r_x_view_the_lobster_player_does_not_see_the_new_deck_order():
    """R-X-VIEW: "Nobody sees the returned cards' places or the new deck order; the
    lobster's player knows *which* cards went back, not where." (Seeing ``deck`` would tell
    that player the order of the whole deck, which no player ever knows, R-VIEW.)"""
    g = Game(ruleset="extra-salt").start_round(
        hands={0: [CB, LOB]}, then=[BB, BY, M, STY, "seahorse:white", "crab:grey", O1])
    g.play(draw(0, BB, BY))
    top5, rest = g.deck[:5], g.deck[5:]
    g.play(ev.LobsterPlayed(player=0, cards=(CB, LOB), seen=top5, kept=top5[0],
                            deck=rest + top5[1:]))
    own = seen_by(g, 0)
    assert own["deck"] is None or set(own["deck"]) == {None}


def test_r_x_view_the_angelfish_take_is_public():
    """R-X-VIEW: "Angelfish take: public (the card was a visible pile top)"."""
    from .test_pepper import pepper
    g = pepper("angelfish", discards=("shell:grey", O1),
               then=[BB, "crab:grey", "octopus:yellow", "fish:black"])
    g.play(draw(0, BB, "crab:grey", pile=1),
           ev.AngelfishTaken(player=0, pile=0, card="shell:grey"))
    assert seen_by(g, 1)["card"] == "shell:grey"


def test_r_x_view_two_sharks_are_public():
    """R-X-VIEW: "Two sharks: public": the two sharks laid and the laid pair they take."""
    from .test_pepper import BY, rodeo_game, sharks
    from ..scenario import take
    g = rodeo_game()
    g.play(take(0, 0, g.pile_top(0)), sharks(0, 1, (BY, BB)))
    other = seen_by(g, 1)
    assert list(other["cards"]) == ["shark:black", "shark:green"]
    assert list(other["pair"]) == [BY, BB]
