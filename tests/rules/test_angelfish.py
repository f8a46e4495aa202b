"""R-EV-ANGELFISH: once per take step, the new tops not examined again; the legal take and
the refusals around it."""

from __future__ import annotations

from seasalt_log import events as ev

from ..scenario import draw, end
from .test_pepper import pepper


def test_r_ev_angelfish_once_per_take_step():
    """R-EV-ANGELFISH: Ann draws a black boat and a grey shell and puts the shell on pile 0
    (over the grey octopus): tops grey shell / grey crab: she must take one. She takes the
    shell; the new tops (grey octopus / grey crab) share a colour again but are not
    examined again: she may end her turn, and a second Angelfish take is refused."""
    g = pepper("angelfish", discards=("octopus:grey", "crab:grey"),
               then=["boat:black", "shell:grey", "fish:black", "fish:yellow"])
    g.play(draw(0, "boat:black", "shell:grey", pile=0))
    assert g.pile(0) == ("octopus:grey", "shell:grey") and g.pile(1) == ("crab:grey",)
    assert g.refuse(end(0)).rule == "R-EV-ANGELFISH"
    g.play(ev.AngelfishTaken(player=0, pile=0, card="shell:grey"))
    assert g.pile_top(0) == "octopus:grey"
    assert g.refuse(ev.AngelfishTaken(player=0, pile=1, card="crab:grey")).rule == "R-EV-ANGELFISH"
    g.play(end(0))
    assert g.player == 1


def test_r_ev_angelfish_tops_of_different_colours_ask_nothing():
    """R-EV-ANGELFISH: tops black boat / grey crab differ in colour: no take is due."""
    g = pepper("angelfish", discards=("octopus:grey", "crab:grey"),
               then=["shell:grey", "boat:black", "fish:black", "fish:yellow"])
    g.play(draw(0, "shell:grey", "boat:black", pile=0))
    assert g.refuse(ev.AngelfishTaken(player=0, pile=1, card="crab:grey")).rule == "R-EV-ANGELFISH"
    g.play(end(0))
