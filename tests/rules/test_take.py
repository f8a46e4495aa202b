"""Step 1 of a turn, the take: R-TAKE-1..4, R-DRAW, R-FLOW-TAKE."""

from __future__ import annotations

from seasalt_log import events as ev
from seasalt_log.engine import legal_moves

from ..scenario import (Game, boats, crabs, draw, end, fish, last_chance, stop, take)

FB, BY = "fish:black", "boat:yellow"


def fresh(players: int = 2, **kw) -> Game:
    """A round whose deck starts fish:black, boat:yellow; discards shell:grey / octopus:grey."""
    kw.setdefault("then", [FB, BY])
    kw.setdefault("discards", ["shell:grey", "octopus:grey"])
    return Game(players).start_round(**kw)


# ---------------------------------------------------------------- R-TAKE-1

def test_r_take_1_deck_draw_keeps_one_and_discards_the_other():
    """R-TAKE-1: draw the top two, keep one, the other goes face up on the chosen pile."""
    g = fresh()
    g.play(draw(0, FB, BY, keep=BY, pile=0))
    assert g.hand(0) == (BY,)
    assert g.pile(0) == ("shell:grey", FB) and g.pile(1) == ("octopus:grey",)
    assert len(g.deck) == 54 and FB not in g.deck[:2]
    assert g.state.flow.step == "play" and g.player == 0


def test_r_take_1_either_pile_may_be_chosen():
    g = fresh()
    g.play(draw(0, FB, BY, keep=FB, pile=1))
    assert g.hand(0) == (FB,) and g.pile(1) == ("octopus:grey", BY) and g.pile(0) == ("shell:grey",)


def test_r_take_1_kept_card_must_be_drawn():
    """R-TAKE-1: kept must be one of the two drawn cards."""
    g = fresh()
    assert g.refuse(draw(0, FB, BY, keep="shell:grey")).rule == "R-TAKE-1"


def test_r_take_1_a_draw_takes_two_cards():
    """R-TAKE-1: with two or more cards in the deck, a draw takes two (not one)."""
    g = fresh()
    assert g.refuse(draw(0, FB)).rule == "R-TAKE-1"


def test_r_take_1_two_card_draw_names_a_pile():
    g = fresh()
    assert g.refuse(draw(0, FB, BY, pile=None)).rule == "R-TAKE-1"


def test_r_take_1_empty_pile_must_receive_the_discard():
    """R-TAKE-1: if a pile is empty, the discarded card must go there."""
    g = fresh(then=["crab:black", FB, BY])
    g.play(take(0, 0, "shell:grey"), end(0))          # pile 0 is now empty
    assert g.pile(0) == ()
    err = g.refuse(draw(1, "crab:black", FB, pile=1))
    assert err.rule == "R-TAKE-1"
    g.play(draw(1, "crab:black", FB, pile=0))
    assert g.pile(0) == (FB,)


def test_r_take_1_empty_pile_1_must_receive_the_discard():
    """R-TAKE-1, the other pile: with pile 1 empty and pile 0 not, the discard goes on pile 1."""
    g = fresh(then=["crab:black", FB, BY])
    g.play(take(0, 1, "octopus:grey"), end(0))        # pile 1 is now empty
    assert g.pile(1) == () and g.pile(0) == ("shell:grey",)
    assert g.refuse(draw(1, "crab:black", FB, pile=0)).rule == "R-TAKE-1"
    g.play(draw(1, "crab:black", FB, pile=1))
    assert g.pile(1) == (FB,)


def test_r_take_1_both_piles_empty_either_pile():
    """R-TAKE-1: with both piles empty, the discard may go on either."""
    g = fresh(players=3, then=["crab:black", FB, BY])
    g.play(take(0, 0, "shell:grey"), end(0), take(1, 1, "octopus:grey"), end(1))
    assert g.pile(0) == g.pile(1) == ()
    g.play(draw(2, "crab:black", FB, pile=1))
    assert g.pile(1) == (FB,) and g.pile(0) == ()


# ---------------------------------------------------------------- R-TAKE-2

def test_r_take_2_take_the_top_of_a_pile():
    """R-TAKE-2: the top card of either pile goes into the hand; the card under is the new top."""
    g = fresh()
    g.play(draw(0, FB, BY, keep=FB, pile=1), end(0))
    assert g.pile(1) == ("octopus:grey", BY)
    g.play(take(1, 1, BY))
    assert g.hand(1) == (BY,) and g.pile(1) == ("octopus:grey",)
    assert g.state.flow.step == "play"


def test_r_take_2_only_the_top_card():
    """R-TAKE-2: a card under the top cannot be taken."""
    g = fresh()
    g.play(draw(0, FB, BY, keep=FB, pile=1), end(0))
    err = g.refuse(take(1, 1, "octopus:grey"))
    assert err.rule == "R-TAKE-2" and BY in err.reason


def test_r_take_2_not_from_an_empty_pile():
    g = fresh()
    g.play(take(0, 0, "shell:grey"), end(0))
    assert g.refuse(take(1, 0, "shell:grey")).rule == "R-TAKE-2"


# ---------------------------------------------------------------- R-TAKE-3

def one_card_left() -> Game:
    """Seat 0 plays a fish pair to make the deck odd, then filler turns leave one card."""
    g = Game(2).start_round(hands={0: [FB, "fish:dark-blue"], 1: ["shell:black", "shell:green"]},
                            then=["crab:black", "crab:yellow", "boat:black"])
    g.play(draw(0, "crab:black", "crab:yellow", pile=0), fish(0, FB, "fish:dark-blue", "boat:black"),
           end(0))
    assert len(g.deck) == 56 - 8 - 2 - 1    # the deal (4 draws), a draw, the fish
    g.drain(1)
    assert len(g.deck) == 1
    return g


def test_r_take_3_one_card_draw():
    """R-TAKE-3 (Ruling): with one card left, a deck draw takes it and discards nothing."""
    g = one_card_left()
    p, last = g.player, g.deck[0]
    piles = g.state.table.piles
    g.play(draw(p, last))
    assert g.hand(p)[-1] == last and g.deck == ()
    assert g.state.table.piles == piles


def test_r_take_3_no_two_card_draw_from_one_card():
    g = one_card_left()
    p, last = g.player, g.deck[0]
    assert g.refuse(draw(p, last, "crab:grey")).rule == "R-TAKE-3"


def test_r_take_3_one_card_draw_discards_nothing():
    g = one_card_left()
    p, last = g.player, g.deck[0]
    bad = ev.DeckDrawn(player=p, cards=(last,), kept=last, discard_pile=0)
    assert g.refuse(bad).rule == "R-TAKE-3"


# ---------------------------------------------------------------- R-TAKE-4

RICH = {0: ["penguin:purple", "penguin:light-orange", "penguin:pink", "colony:green"],
        1: ["sailor:pink", "sailor:orange", "captain:light-orange", "shell:black"],
        2: ["octopus:light-blue", "octopus:yellow", "octopus:green", "octopus:purple"]}


def nothing_to_take() -> tuple[Game, int, int, int]:
    """Three players, each with at least 7 card points; filler turns keep the piles empty
    until two cards are left; the player to act draws them and calls LAST CHANCE; the next
    takes the only pile card. Returns (game, caller, second, third)."""
    g = Game(3).start_round(hands=RICH)
    g.drain(2, piles_empty=True)
    c = g.player
    a, b = g.deck
    g.play(draw(c, a, b, keep=a, pile=0), last_chance(c))
    second, third = (c + 1) % 3, (c + 2) % 3
    g.play(take(second, 0, b), end(second))
    assert g.deck == () and g.pile(0) == g.pile(1) == ()
    return g, c, second, third


def test_r_take_4_take_is_skipped_when_nothing_can_be_taken():
    """R-TAKE-4 (Ruling): deck and both piles empty: the take is skipped, the turn may end."""
    g, c, second, third = nothing_to_take()
    assert g.player == third and g.state.flow.step == "play"
    assert not [m for m in legal_moves(g.state) if type(m) in (ev.DeckDrawn, ev.DiscardTaken)]
    hand = g.hand(third)
    g.play(end(third))
    assert g.hand(third) == hand
    scored = g.derived()[0]
    assert scored.ending == "last_chance" and scored.caller == c


def test_r_take_4_no_take_out_of_nothing():
    """R-TAKE-4 / R-FLOW-TAKE: a turn begins with its take only while anything can be taken."""
    g, c, second, third = nothing_to_take()
    for e in (draw(third, "crab:black"), take(third, 0, "crab:black")):
        err = g.refuse(e)
        assert err.rule == "R-FLOW-TAKE" and "nothing can be taken" in err.reason


# ---------------------------------------------------------------- R-DRAW

def test_r_draw_recorded_order_gives_the_top_cards():
    """R-DRAW: with the deck order recorded, a draw is the deck's top two, in order."""
    g = fresh()
    assert g.refuse(draw(0, BY, FB)).rule == "R-DRAW"
    assert g.refuse(draw(0, FB, "crab:black")).rule == "R-DRAW"
    g.play(draw(0, FB, BY))


def test_r_draw_fish_takes_the_top_card():
    """R-DRAW: the fish pair's card is the deck's top card."""
    g = Game(2).start_round(hands={0: [FB, "fish:dark-blue"], 1: ["shell:black", "shell:green"]},
                            then=["crab:black", "crab:yellow", "boat:black", "boat:yellow"])
    g.play(draw(0, "crab:black", "crab:yellow", pile=0))
    assert g.refuse(fish(0, FB, "fish:dark-blue", "boat:yellow")).rule == "R-DRAW"
    g.play(fish(0, FB, "fish:dark-blue", "boat:black"))
    assert "boat:black" in g.hand(0) and g.deck[0] == "boat:yellow"


def test_r_draw_unrecorded_order_any_unseen_card():
    """R-DRAW: without the deck order, a draw may be any card not yet seen this round."""
    g = Game(2).start_round(discards=["captain:light-orange", "mermaid:white"], ordered=False)
    g.play(draw(0, "lighthouse:purple", "mermaid:white", keep="mermaid:white", pile=0), end(0))
    assert g.hand(0) == ("mermaid:white",) and len(g.deck) == 54
    # the only captain is on pile 0's bottom: it cannot come from the deck
    err = g.refuse(draw(1, "captain:light-orange", "crab:black"))
    assert err.rule == "R-DRAW"
    # the only lighthouse was seen in seat 0's draw
    assert g.refuse(draw(1, "crab:black", "lighthouse:purple")).rule == "R-DRAW"
    # mermaids: 4 copies, 2 seen (a discard and seat 0's) -> 2 unseen, a third is too many
    g.play(draw(1, "mermaid:white", "mermaid:white", pile=1), end(1))
    assert g.refuse(draw(0, "mermaid:white", "crab:black")).rule == "R-DRAW"


def test_r_draw_unrecorded_fish():
    g = Game(2).start_round(hands={0: [FB, "fish:dark-blue"], 1: ["shell:black", "shell:green"]},
                            ordered=False, discards=["shoal:grey", "colony:green"])
    g.play(take(0, 1, "colony:green"))
    assert g.refuse(fish(0, FB, "fish:dark-blue", "shoal:grey")).rule == "R-DRAW"
    g.play(fish(0, FB, "fish:dark-blue", "fish:yellow"))
    assert "fish:yellow" not in g.deck


# ---------------------------------------------------------------- R-FLOW-TAKE

def test_r_flow_take_turn_begins_with_its_take():
    """R-FLOW-TAKE: no duo, end or call before the turn's take."""
    g = Game(2).start_round(hands={0: ["crab:black", "crab:yellow"], 1: ["shell:black", "shell:green"]})
    assert g.player == 0
    assert g.refuse(end(0)).rule == "R-FLOW-TAKE"
    assert g.refuse(crabs(0, "crab:black", "crab:yellow", 0, g.pile_top(0))).rule == "R-FLOW-TAKE"
    assert g.refuse(stop(0)).rule == "R-FLOW-TAKE"
    assert g.refuse(last_chance(0)).rule == "R-FLOW-TAKE"
    g.play(take(0, 1, g.pile_top(1)), crabs(0, "crab:black", "crab:yellow", 0, g.pile_top(0)), end(0))


def test_r_flow_take_one_take_per_turn_without_boats():
    """R-FLOW-TAKE: a second take in a turn needs a boat pair."""
    g = fresh(then=[FB, BY, "crab:black", "crab:yellow"])
    g.play(draw(0, FB, BY, pile=0))
    assert g.refuse(draw(0, "crab:black", "crab:yellow")).rule == "R-FLOW-TAKE"
    assert g.refuse(take(0, 1, "octopus:grey")).rule == "R-FLOW-TAKE"


def test_r_flow_take_boats_give_the_second_take():
    """R-FLOW-TAKE: after boats_played the next event is that take."""
    g = Game(2).start_round(hands={0: ["boat:black", "boat:dark-blue"], 1: ["shell:black", "shell:green"]},
                            then=[FB, BY, "crab:black", "crab:yellow"])
    g.play(draw(0, FB, BY, pile=0), boats(0, "boat:black", "boat:dark-blue"))
    assert g.state.flow.step == "boat_take"
    g.play(draw(0, "crab:black", "crab:yellow", pile=1))
    assert g.state.flow.step == "play"
    assert g.refuse(take(0, 1, "crab:yellow")).rule == "R-FLOW-TAKE"
