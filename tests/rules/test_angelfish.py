"""R-EV-ANGELFISH: once per take step, the new tops not examined again; the legal take and
the refusals around it."""

from __future__ import annotations

from seasalt_log import events as ev

from ..scenario import Game, draw, end, fish
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
    # RULES.md §17: while the Angelfish take is due, any other event of hers is refused,
    # an ordinary take of a pile's top as well
    assert g.refuse(ev.DiscardTaken(player=0, pile=1, card="crab:grey")).rule == "R-EV-ANGELFISH"
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


# the last nine cards of the deck: kept cards and the discards that build the piles
D1, D2, D3, D4 = "octopus:yellow", "shell:black", "octopus:green", "boat:yellow"
D5, D6, D7, D8, D9 = "penguin:pink", "shark:black", "sailor:orange", "swimmer:black", "captain:light-orange"


def nine_left(event: str) -> Game:
    """Ann lays a fish pair on her first turn (the deck's size turns odd); filler turns
    empty both piles and leave the nine cards D1..D9 in the deck."""
    g = pepper(event, hands={0: ["fish:black", "fish:dark-blue"]},
               discards=("shell:green", "octopus:purple"),
               then=["crab:black", "crab:yellow", "boat:black"],
               bottom=[D1, D2, D3, D4, D5, D6, D7, D8, D9])
    g.play(draw(0, "crab:black", "crab:yellow", pile=0),
           fish(0, "fish:black", "fish:dark-blue", "boat:black"), end(0))
    g.drain(9, piles_empty=True)
    assert g.deck == (D1, D2, D3, D4, D5, D6, D7, D8, D9) and g.pile(0) == g.pile(1) == ()
    return g


def down_to_one(g: Game) -> tuple[int, int]:
    """Four deck draws by hand: piles black / yellow, then black black / yellow, then the
    fourth draw puts a black card on pile 1: tops black / black, the Angelfish take of the
    drawer (who takes pile 0's top) leaves black / black again, unexamined. One card left."""
    p = g.player
    q = 1 - p
    g.play(draw(p, D1, D2, pile=0), end(p))
    g.play(draw(q, D3, D4, pile=1), end(q))
    g.play(draw(p, D5, D6, pile=0), end(p))
    assert g.pile(0) == (D2, D6) and g.pile(1) == (D4,)
    g.play(draw(q, D7, D8, pile=1))
    if g.state.table_event == "angelfish":
        g.play(ev.AngelfishTaken(player=q, pile=0, card=D6))
    g.play(end(q))
    assert g.deck == (D9,)
    return p, q


def test_r_ev_angelfish_after_a_one_card_draw():
    """R-EV-ANGELFISH (Ruling: also after a one-card deck draw, which BoardGameArena skips),
    R-TAKE-3: the deck holds one card and both pile tops are black (shell:black on pile 0,
    swimmer:black on pile 1). Ann draws the last card, discarding nothing: the Angelfish
    take is due, so ending the turn is refused; she takes the black shell. Her
    turn then ends with an empty deck and no call: a deck-out (R-END-3)."""
    g = nine_left("angelfish")
    p, _ = down_to_one(g)
    assert (g.pile_top(0), g.pile_top(1)) == (D2, D8)
    g.play(draw(p, D9))
    assert g.deck == () and g.pile(0) == (D2,)
    assert g.refuse(end(p)).rule == "R-EV-ANGELFISH"
    assert g.refuse(ev.AngelfishTaken(player=p, pile=1, card=D4)).rule == "R-EV-ANGELFISH"
    g.play(ev.AngelfishTaken(player=p, pile=0, card=D2))
    assert g.hand(p)[-2:] == (D9, D2) and g.pile(0) == ()
    g.play(end(p))
    (scored, *_) = g.derived()
    assert scored.ending == "deck_out" and scored.points == (0, 0)


def test_r_ev_angelfish_one_card_draw_owes_nothing_under_another_event():
    """R-EV-ANGELFISH, R-EV-APPLY: the same one-card draw under the Kraken (the Angelfish in
    effect for nobody) owes no take: the turn may end at once, and a take is refused."""
    g = nine_left("kraken")
    p, _ = down_to_one(g)
    g.play(draw(p, D9))
    assert g.refuse(ev.AngelfishTaken(player=p, pile=0, card=g.pile_top(0))).rule == "R-EV-ANGELFISH"
    g.play(end(p))
