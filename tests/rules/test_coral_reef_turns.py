"""R-EV-CORAL-REEF: the face-down shell may be placed in a final turn after LAST CHANCE,
never in a forced turn (there R-X-JELLYFISH-TURN names the breach, RULES.md §17)."""

from __future__ import annotations

from seasalt_log import events as ev

from ..scenario import draw, end, last_chance
from .test_pepper import pepper

SG = "shell:grey"


def test_r_ev_coral_reef_never_in_a_forced_turn():
    """R-EV-CORAL-REEF, R-X-JELLYFISH-TURN: Ben's turn is forced by Ann's jellyfish: after
    the forced take, placing his shell face down is refused; only turn_ended follows."""
    g = pepper("coral-reef", ruleset="extra-salt",
               hands={0: ["swimmer:black", "jellyfish:pink", "octopus:green"],
                      1: [SG, "penguin:purple", "penguin:pink"]},
               then=["boat:black", "boat:yellow", "fish:black"])
    g.play(draw(0, "boat:black", "boat:yellow"),
           ev.JellyfishPlayed(player=0, cards=("swimmer:black", "jellyfish:pink")), end(0))
    assert g.refuse(ev.ShellFaceDown(player=1, card=SG)).rule == "R-X-JELLYFISH-TURN"
    g.play(ev.ForcedDrawn(player=1, card="fish:black"))
    assert g.refuse(ev.ShellFaceDown(player=1, card=SG)).rule == "R-X-JELLYFISH-TURN"
    g.play(end(1))


def test_r_ev_coral_reef_in_a_final_turn():
    """R-EV-CORAL-REEF: Ann calls LAST CHANCE (sailors 5 + 2 penguins 3 = 8); Ben may place
    his shell face down in his final turn."""
    g = pepper("coral-reef",
               hands={0: ["sailor:pink", "sailor:orange", "penguin:purple"],
                      1: [SG, "octopus:green", "crab:black"]},
               then=["penguin:pink", "boat:black", "boat:yellow", "fish:black"])
    g.play(draw(0, "penguin:pink", "boat:black"), last_chance(0),
           draw(1, "boat:yellow", "fish:black"), ev.ShellFaceDown(player=1, card=SG), end(1))
    assert SG not in g.hand(1)
