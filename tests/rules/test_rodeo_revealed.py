"""The Water Rodeo against revealed hands (RULES.md §14.3 and §17): R-EV-WATER-RODEO-SHARKS
(Ruling, BGA tightened: a revealed hand is never a victim) and R-LAST-3 for two swimmers."""

from __future__ import annotations

from ..scenario import draw, end, fish, last_chance
from .test_pepper import SHB, SHG, SWB, SWY, pepper, sharks, swimmers


def final_turn_of_ben():
    """Ann lays a fish pair (drawing the grey octopus) and calls LAST CHANCE with sailors 5
    + laid pair 1 + penguin 1 + single shell 0 + single octopus 0 = 7; Ben, in his final
    turn, has drawn and holds two swimmers and two sharks."""
    g = pepper("water-rodeo",
               hands={0: ["sailor:pink", "sailor:orange", "fish:black", "fish:yellow",
                          "penguin:purple"],
                      1: [SWB, SWY, SHB, SHG, "penguin:pink"]},
               then=["shell:grey", "boat:black", "octopus:grey", "boat:yellow", "crab:grey"])
    g.play(draw(0, "shell:grey", "boat:black"), fish(0, "fish:black", "fish:yellow", "octopus:grey"),
           last_chance(0), draw(1, "boat:yellow", "crab:grey"))
    assert g.laid(0) == (("fish:black", "fish:yellow"),)
    return g


def test_r_ev_water_rodeo_sharks_never_take_from_a_revealed_player():
    """R-EV-WATER-RODEO-SHARKS: Ann's hand is revealed (R-LAST-3): her laid fish pair cannot
    be taken; with nobody else to choose, the pair is laid with no victim (R-X-NOEFFECT)."""
    g = final_turn_of_ben()
    err = g.refuse(sharks(1, 0, ("fish:black", "fish:yellow")))
    assert err.rule == "R-EV-WATER-RODEO-SHARKS"
    g.play(sharks(1, None, None), end(1))
    assert g.laid(0) == (("fish:black", "fish:yellow"),)


def test_r_ev_water_rodeo_swimmers_a_revealed_hand_is_r_last_3():
    """R-EV-WATER-RODEO-SWIMMERS / §17: two swimmers choosing the revealed caller: R-LAST-3;
    with nobody to choose, the pair is laid with no victim."""
    g = final_turn_of_ben()
    assert g.refuse(swimmers(1, 0, "penguin:pink", "sailor:pink")).rule == "R-LAST-3"
    assert g.refuse(swimmers(1, 0)).rule == "R-LAST-3"
    g.play(swimmers(1, None), end(1))
