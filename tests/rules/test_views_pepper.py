"""What each player can see with the events (RULES.md §16, R-X-VIEW, and §7, R-VIEW): the
face-down shell, the Hermit Crab's, Sunfish's and Dolphins' cards, the swimmers' swap
with three players. Each case is played, then the event or the table is looked at from
the seat that acts, the seat concerned and a third seat, against the rule text."""

from __future__ import annotations

import json

from seasalt_log import events as ev
from seasalt_log.view import SPECTATOR, TABLE, redact, table_view

from seasalt_log.narration import describe

from ..scenario import Game, draw, shark, states_after, stop
from .test_pepper import hermit, pepper
from .test_views_extra import seen_by

ANCHOR = ["sailor:pink", "sailor:orange", "captain:light-orange"]


def test_r_x_view_the_face_down_shell_stays_hidden_all_round():
    """R-X-VIEW ("that it was placed is public; its colour is seen by its owner only, and it
    stays hidden for the whole round"), R-EV-CORAL-REEF: Ben sees that Ann placed a shell,
    not which; not even after her STOP shows her hand and the round is scored."""
    g = pepper("coral-reef", hands={0: ANCHOR + ["shell:black"]},
               then=["boat:black", "boat:yellow"])
    g.play(draw(0, "boat:black", "boat:yellow", pile=0),
           ev.ShellFaceDown(player=0, card="shell:black"))
    assert seen_by(g, 0)["card"] == "shell:black"
    other = seen_by(g, 1)
    assert other["type"] == "shell_face_down" and other["player"] == 0 and other["card"] is None
    assert table_view(g.state, 1).extra.face_down == (True, False)
    g.play(stop(0))
    g.derived()
    for state_seen in (seen_by(g, 1, -2), seen_by(g, 1, -1)):        # the call, the scores
        for shown in state_seen.get("shown", ()):
            assert "shell:black" not in shown["hand"]
    view = table_view(g.state, 1)
    assert view.extra.face_down_cards == (None, None)
    assert "shell:black" not in (view.seats[0].hand or ())
    assert table_view(g.state, 0).extra.face_down_cards == ("shell:black", None)


def test_r_x_view_hermit_crab_piles_public_cards_private():
    """R-X-VIEW ("Hermit Crab takes: the piles are public, the cards private")."""
    g = pepper("hermit-crab", hands={0: ["crab:black", "crab:yellow"]},
               discards=("shell:grey", "shell:black"), then=["boat:black", "octopus:green"])
    g.play(draw(0, "boat:black", "octopus:green", pile=1))
    p0 = g.pile(0)
    g.play(hermit(0, "crab:black", "crab:yellow", (0, p0[0]), (1, "shell:black")))
    own, other = seen_by(g, 0), seen_by(g, 1)
    assert [(t["pile"], t["card"]) for t in own["takes"]] == [(0, p0[0]), (1, "shell:black")]
    assert [(t["pile"], t["card"]) for t in other["takes"]] == [(0, None), (1, None)]
    assert list(other["cards"]) == ["crab:black", "crab:yellow"]


def test_r_x_view_sunfish_and_dolphins_draws_are_private():
    """R-X-VIEW ("Sunfish and Dolphins draws: private; that the Dolphins triggered is
    public, because the discarded card is")."""
    g = pepper("sunfish", hands={0: ["fish:black", "fish:yellow"]},
               then=["boat:black", "boat:yellow", "crab:black", "crab:yellow"])
    g.play(draw(0, "boat:black", "boat:yellow", pile=0),
           ev.FishPlayed(player=0, cards=("fish:black", "fish:yellow"), drew="crab:black",
                         also_drew="crab:yellow"))
    assert (seen_by(g, 0)["drew"], seen_by(g, 0)["also_drew"]) == ("crab:black", "crab:yellow")
    assert (seen_by(g, 1)["drew"], seen_by(g, 1)["also_drew"]) == (None, None)
    d = pepper("dolphins", then=["boat:black", "octopus:green", "crab:black"])
    d.play(ev.DeckDrawn(player=0, cards=("boat:black", "octopus:green"), kept="boat:black",
                        discard_pile=0, dolphins_drew="crab:black"))
    assert seen_by(d, 0)["dolphins_drew"] == "crab:black"
    other = seen_by(d, 1)
    assert "dolphins_drew" in other and other["dolphins_drew"] is None
    assert other["cards"] == [None, "octopus:green"] and other["kept"] is None


def swimmers_game() -> Game:
    """Three players under the Water Rodeo: Ann (seat 0) holds two swimmers and an octopus,
    Ben a penguin, a crab and a boat, Cid two shells and a fish; Ann draws and keeps a boat,
    then is to lay her swimmers."""
    g = Game(3, events="pepper").start_round(
        event="water-rodeo",
        hands={0: ["swimmer:black", "swimmer:yellow", "octopus:green"],
               1: ["penguin:purple", "crab:grey", "boat:dark-blue"],
               2: ["shell:grey", "shell:black", "fish:green"]},
        then=["boat:black", "boat:yellow"])
    assert g.player == 0
    return g.play(draw(0, "boat:black", "boat:yellow", pile=0))


def seen_by_spectator(g: Game) -> dict:
    states = states_after(g.events)
    return redact(g.events[-1], SPECTATOR, states[-2], states[-1])


def test_r_x_view_two_swimmers_with_three_players():
    """R-X-VIEW ("the two cards swapped are seen by both; the others see who was chosen and
    whether a swap took place, but not the cards"), R-EV-WATER-RODEO-SWIMMERS: Ann swaps her
    octopus for Ben's penguin; Cid sees Ben chosen and a swap, no card."""
    g = swimmers_game()
    g.play(ev.SwimmersPlayed(player=0, cards=("swimmer:black", "swimmer:yellow"), victim=1,
                             gave="octopus:green", got="penguin:purple"))
    for seat in (0, 1):
        seen = seen_by(g, seat)
        assert (seen["gave"], seen["got"]) == ("octopus:green", "penguin:purple")
    cid = seen_by(g, 2)
    assert cid["victim"] == 1 and cid["swapped"] is True
    assert (cid["gave"], cid["got"]) == (None, None)
    assert list(cid["cards"]) == ["swimmer:black", "swimmer:yellow"]
    assert table_view(g.state, 2).seats[1].hand is None


def test_r_x_view_two_swimmers_the_player_sees_the_chosen_hand():
    """R-X-VIEW ("the player sees the chosen player's whole hand"), R-EV-WATER-RODEO-SWIMMERS
    step 2 (the look comes before the swap): Ann's copy of the event names Ben's whole hand
    as it was when she chose him, the penguin she then takes included and the octopus she
    gives not. Ben (his own hand), Cid and a spectator get no such member; the table gets
    the event itself. A look is not a reveal (R-LAST-3): Ann's table view still hides Ben's
    hand, and nothing is ``shown``."""
    g = swimmers_game()
    g.play(ev.SwimmersPlayed(player=0, cards=("swimmer:black", "swimmer:yellow"), victim=1,
                             gave="octopus:green", got="penguin:purple"))
    ann = seen_by(g, 0)
    assert ann["looked_at"] == {"seat": 1,
                                "hand": ["boat:dark-blue", "crab:grey", "penguin:purple"]}
    assert "shown" not in ann
    for other in (seen_by(g, 1), seen_by(g, 2), seen_by_spectator(g)):
        assert "looked_at" not in other and "shown" not in other
    for other in (seen_by(g, 2), seen_by_spectator(g)):     # no card of Ben's hand at all
        text = json.dumps(other)
        assert not [c for c in ("boat:dark-blue", "crab:grey", "penguin:purple") if c in text]
    states = states_after(g.events)
    assert redact(g.events[-1], TABLE, states[-2], states[-1]) is g.events[-1]
    view = table_view(g.state, 0)
    assert view.seats[1].hand is None and view.seats[1].hand_size == 3
    assert view.seats[2].hand is None


def test_r_x_view_the_log_in_words_names_the_looked_at_hand_to_the_player_alone():
    """R-X-VIEW: the player's words of the swap (``seasalt log --as``, ``replay --as``, the
    web frames) name the chosen hand as she saw it; the chosen player's and a third
    player's do not (Cid learns neither the hand nor the cards swapped)."""
    g = swimmers_game()
    g.play(ev.SwimmersPlayed(player=0, cards=("swimmer:black", "swimmer:yellow"), victim=1,
                             gave="octopus:green", got="penguin:purple"))
    before = states_after(g.events)[-2]
    ann = describe(g.events[-1], before, 0)
    assert "(boat:dark-blue, crab:grey, penguin:purple)" in ann
    assert "swapped octopus:green for penguin:purple" in ann
    for seat in (1, 2):
        assert "boat:dark-blue" not in describe(g.events[-1], before, seat)
    assert "penguin:purple" not in describe(g.events[-1], before, 2)


def test_r_x_view_two_swimmers_a_pass_still_shows_the_hand_to_the_player():
    """R-X-VIEW, R-EV-WATER-RODEO-SWIMMERS ("the player looks at that player's whole hand",
    then "swaps ... or passes"): Ann looks at Cid's hand and passes; her copy names Cid's
    three cards; Cid's copy, Ben's and a spectator's do not, and Ben sees that no swap took
    place."""
    g = swimmers_game()
    g.play(ev.SwimmersPlayed(player=0, cards=("swimmer:black", "swimmer:yellow"), victim=2,
                             gave=None, got=None))
    assert seen_by(g, 0)["looked_at"] == {"seat": 2,
                                          "hand": ["fish:green", "shell:black", "shell:grey"]}
    for other in (seen_by(g, 1), seen_by(g, 2), seen_by_spectator(g)):
        assert "looked_at" not in other and other["victim"] == 2
    assert seen_by(g, 1)["swapped"] is False
    assert table_view(g.state, 0).seats[2].hand is None


def test_r_view_a_stolen_card_is_seen_by_thief_and_victim_only():
    """R-VIEW ("a stolen card is seen by the thief and by the player robbed"), three
    players: Cid does not see the card Ann steals from Ben."""
    g = Game(3).start_round(hands={0: ["shark:black", "swimmer:black"],
                                   1: ["octopus:green", "crab:grey"],
                                   2: ["shell:grey", "fish:green"]},
                            then=["boat:black", "boat:yellow"])
    g.play(draw(0, "boat:black", "boat:yellow", pile=0),
           shark(0, "shark:black", "swimmer:black", 1, "octopus:green"))
    assert seen_by(g, 0)["stole"] == seen_by(g, 1)["stole"] == "octopus:green"
    assert seen_by(g, 2)["stole"] is None and seen_by(g, 2)["victim"] == 1


def test_r_x_view_hermit_crab_indexes_are_private():
    """R-X-VIEW ("Hermit Crab takes: the piles are public, the cards private, as with
    R-DUO-CRAB"): the positions of the cards taken, given by ``index``, are hidden from
    the other seats as the base crab pair's ``index`` is; the player keeps them."""
    g = pepper("hermit-crab", hands={0: ["crab:black", "crab:yellow"]},
               discards=("shell:grey", "shell:black"), then=["boat:black", "octopus:green"])
    g.play(draw(0, "boat:black", "octopus:green", pile=1))
    p0 = g.pile(0)
    assert g.pile(1) == ("shell:black", "octopus:green")
    g.play(ev.CrabsPlayed(player=0, cards=("crab:black", "crab:yellow"), pile=None, took=None,
                          takes=(ev.HermitTake(pile=0, card=p0[0], index=len(p0) - 1),
                                 ev.HermitTake(pile=1, card="shell:black", index=1))))
    assert [t["index"] for t in seen_by(g, 0)["takes"]] == [len(p0) - 1, 1]
    other = seen_by(g, 1)
    assert [(t["pile"], t["card"], t.get("index")) for t in other["takes"]] == [
        (0, None, None), (1, None, None)]
