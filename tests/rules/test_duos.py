"""Step 2 of a turn, the duos: R-DUO-CRAB, R-DUO-BOAT, R-DUO-FISH, R-DUO-SHARK, R-DUO-PAIR,
R-DUO-NOEFFECT."""

from __future__ import annotations

from seasalt_log import events as ev
from seasalt_log.engine import legal_moves

from ..scenario import (Game, boats, crabs, draw, end, fish, last_chance, shark, stop, take)

CB, CY, CG, CGR = "crab:black", "crab:yellow", "crab:green", "crab:grey"
BB, BDB, BY, BLB = "boat:black", "boat:dark-blue", "boat:yellow", "boat:light-blue"
FB, FDB = "fish:black", "fish:dark-blue"
SHB, SWY = "shark:black", "swimmer:yellow"
PENGUINS_COLONY = ["penguin:purple", "penguin:light-orange", "penguin:pink", "colony:green"]


def crab_pile() -> Game:
    """Seat 0 holds two crabs at its second turn; pile 0 is, bottom to top:
    shell:grey, boat:black, fish:green, boat:black."""
    g = Game(2).start_round(discards=["shell:grey", "octopus:grey"],
                            then=[CB, BB, "shell:black", "fish:green", CY, BB])
    g.play(draw(0, CB, BB, pile=0), end(0),
           draw(1, "shell:black", "fish:green", pile=0), end(1),
           draw(0, CY, BB, pile=0))
    assert g.pile(0) == ("shell:grey", BB, "fish:green", BB)
    return g


# ---------------------------------------------------------------- R-DUO-CRAB

def test_r_duo_crab_takes_any_card_of_a_pile():
    """R-DUO-CRAB: look through a pile, take any card; the rest keep their order."""
    g = crab_pile()
    g.play(crabs(0, CB, CY, 0, "shell:grey"))
    assert g.pile(0) == (BB, "fish:green", BB)
    assert g.hand(0) == ("shell:grey",)
    assert g.laid(0) == ((CB, CY),)


def test_r_duo_crab_duplicate_nearest_the_top_by_default():
    """R-DUO-CRAB / LOG_FORMAT: without index, the copy nearest the top is taken."""
    g = crab_pile()
    g.play(crabs(0, CB, CY, 0, BB))
    assert g.pile(0) == ("shell:grey", BB, "fish:green")


def test_r_duo_crab_index_picks_the_copy():
    """R-DUO-CRAB: index 2 (0 = top) names the deeper boat:black."""
    g = crab_pile()
    g.play(crabs(0, CB, CY, 0, BB, index=2))
    assert g.pile(0) == ("shell:grey", "fish:green", BB)
    assert g.hand(0) == (BB,)


def test_r_duo_crab_card_must_be_in_the_pile():
    g = crab_pile()
    assert g.refuse(crabs(0, CB, CY, 0, "crab:green")).rule == "R-DUO-CRAB"
    assert g.refuse(crabs(0, CB, CY, 1, BB)).rule == "R-DUO-CRAB"   # pile 1 holds octopus:grey


def test_r_duo_crab_index_must_match():
    g = crab_pile()
    assert g.refuse(crabs(0, CB, CY, 0, BB, index=1)).rule == "R-DUO-CRAB"   # fish:green there
    assert g.refuse(crabs(0, CB, CY, 0, BB, index=4)).rule == "R-DUO-CRAB"   # beyond the bottom


def test_r_duo_crab_chosen_empty_pile_is_refused():
    """R-DUO-CRAB: with pile 1 empty and pile 0 not, choosing pile 1 is refused."""
    g = Game(2).start_round(hands={0: [CB, CY], 1: ["shell:black", "shell:green"]},
                            discards=["shell:grey", "octopus:grey"])
    g.play(take(0, 1, "octopus:grey"))
    assert g.pile(1) == () and g.pile(0)
    assert g.refuse(crabs(0, CB, CY, 1, "octopus:grey")).rule == "R-DUO-CRAB"
    g.play(crabs(0, CB, CY, 0, "shell:grey"))


def three_players_piles_empty() -> Game:
    """Three players; seat 0 takes both crabs from the piles, leaving both piles empty."""
    g = Game(3).start_round(discards=[CB, "shell:grey"], then=[BB, CY])
    g.play(take(0, 0, CB), end(0), take(1, 1, "shell:grey"), end(1),
           draw(2, BB, CY, pile=0), end(2), take(0, 0, CY))
    assert g.pile(0) == g.pile(1) == () and sorted(g.hand(0)) == [CB, CY]
    return g


def test_r_duo_crab_with_both_piles_empty_takes_nothing():
    """R-DUO-CRAB / R-DUO-NOEFFECT: both piles empty: the pair is laid, pile and took null."""
    g = three_players_piles_empty()
    g.play(crabs(0, CB, CY, None, None))
    assert g.hand(0) == () and g.laid(0) == ((CB, CY),)
    assert legal_moves(g.state) == [ev.TurnEnded(player=0)]


def test_r_duo_crab_with_both_piles_empty_names_no_pile():
    g = three_players_piles_empty()
    assert g.refuse(crabs(0, CB, CY, 0, "shell:grey")).rule == "R-DUO-CRAB"
    assert g.refuse(crabs(0, CB, CY, 0, None)).rule == "R-DUO-CRAB"


def test_r_duo_crab_card_gained_forms_a_new_pair():
    """R-DUO (cards gained by an effect may form new pairs played in the same turn), and
    taking back a card discarded earlier in the same turn."""
    g = Game(2).start_round(hands={0: [CB, CY, CGR], 1: ["shell:black", "shell:green", "shell:yellow"]},
                            then=[CG, "fish:green"])
    g.play(draw(0, CG, "fish:green", keep="fish:green", pile=1))
    g.play(crabs(0, CB, CY, 1, CG))             # takes back the crab just discarded
    assert sorted(g.hand(0)) == sorted([CGR, "fish:green", CG])
    top = g.pile_top(0)
    g.play(crabs(0, CGR, CG, 0, top))
    assert g.laid(0) == ((CB, CY), (CGR, CG))
    assert sorted(g.hand(0)) == sorted(["fish:green", top])


# ---------------------------------------------------------------- R-DUO-BOAT

def test_r_duo_boat_gives_another_take_then_duos_go_on():
    """R-DUO-BOAT: take another card at once (either way), then carry on with step 2."""
    g = Game(2).start_round(hands={0: [BB, BDB, "crab:grey"], 1: ["shell:black", "shell:green", "shell:yellow"]},
                            then=[FB, CG, CB, CY])
    g.play(draw(0, FB, CG, keep=FB, pile=1), boats(0, BB, BDB))
    assert g.state.flow.step == "boat_take"
    g.play(take(0, 1, CG))                      # takes back its own discard
    assert g.state.flow.step == "play"
    g.play(crabs(0, "crab:grey", CG, 0, g.pile_top(0)), end(0))
    assert g.laid(0) == ((BB, BDB), ("crab:grey", CG))
    assert g.player == 1


def test_r_duo_boat_take_from_the_deck():
    g = Game(2).start_round(hands={0: [BB, BDB], 1: ["shell:black", "shell:green"]},
                            then=[FB, CG, CB, CY])
    g.play(draw(0, FB, CG, pile=0), boats(0, BB, BDB), draw(0, CB, CY, keep=CY, pile=1), end(0))
    assert sorted(g.hand(0)) == sorted([FB, CY]) and g.pile_top(1) == CB


def test_r_duo_boat_each_pair_gives_one_take():
    """R-DUO-BOAT: two boat pairs, two extra takes."""
    g = Game(2).start_round(hands={0: [BB, BB, BDB, BDB], 1: ["shell:black", "shell:green",
                                                              "shell:yellow", "octopus:green"]},
                            then=[FB, CG, CB, CY, "fish:green", "octopus:purple"])
    g.play(draw(0, FB, CG, pile=0), boats(0, BB, BB), draw(0, CB, CY, pile=0),
           boats(0, BDB, BDB), draw(0, "fish:green", "octopus:purple", pile=0))
    assert g.state.flow.step == "play"
    assert sorted(g.hand(0)) == sorted([FB, CB, "fish:green"])
    assert g.refuse(take(0, 0, g.pile_top(0))).rule == "R-FLOW-TAKE"


def test_r_duo_boat_take_comes_next():
    """R-DUO-BOAT: after boats_played nothing but the take: no end, no duo, no call (seat 0
    holds 11 card points, so the calls would be allowed otherwise). The error names
    R-FLOW-TAKE, the rule of what comes after a boat pair (RULES.md)."""
    g = Game(2).start_round(hands={0: [BB, BDB, BY, BLB] + PENGUINS_COLONY,
                                   1: ["shell:black", "shell:green", "shell:yellow", "octopus:green",
                                       "octopus:yellow", "octopus:purple", "octopus:grey", "sailor:pink"]},
                            then=[FB, CG])
    g.play(draw(0, FB, CG, pile=0))
    assert ev.StopCalled(player=0) in legal_moves(g.state)
    g.play(boats(0, BB, BDB))
    assert g.refuse(end(0)).rule == "R-FLOW-TAKE"
    assert g.refuse(boats(0, BY, BLB)).rule == "R-FLOW-TAKE"
    assert g.refuse(stop(0)).rule == "R-FLOW-TAKE"
    assert g.refuse(last_chance(0)).rule == "R-FLOW-TAKE"


# ---------------------------------------------------------------- R-DUO-FISH

def test_r_duo_fish_takes_the_top_card_of_the_deck():
    """R-DUO-FISH: the deck's top card goes into the hand."""
    g = Game(2).start_round(hands={0: [FB, FDB], 1: ["shell:black", "shell:green"]},
                            then=[CB, CY, BB, BY])
    g.play(draw(0, CB, CY, pile=0), fish(0, FB, FDB, BB))
    assert sorted(g.hand(0)) == sorted([CB, BB])
    assert g.laid(0) == ((FB, FDB),)
    assert g.deck[0] == BY and len(g.deck) == 56 - 8 - 2 - 1


def test_r_duo_fish_card_drawn_forms_a_new_pair():
    g = Game(2).start_round(hands={0: [FB, FB, FDB], 1: ["shell:black", "shell:green", "shell:yellow"]},
                            then=[CB, CY, FDB, BB])
    g.play(draw(0, CB, CY, pile=0), fish(0, FB, FB, FDB), fish(0, FDB, FDB, BB), end(0))
    assert g.laid(0) == ((FB, FB), (FDB, FDB))
    assert sorted(g.hand(0)) == sorted([CB, BB])


def fish_and_empty_deck() -> Game:
    """Seat 0 holds a fish pair and draws the last two cards of the deck."""
    g = Game(2).start_round(hands={0: [FB, FDB], 1: ["shell:black", "shell:green"]})
    g.drain(2, player=0)
    a, b = g.deck
    g.play(draw(0, a, b, pile=0))
    assert g.deck == ()
    return g


def test_r_duo_fish_with_an_empty_deck_draws_nothing():
    """R-DUO-FISH / R-DUO-NOEFFECT: with the deck empty the pair is laid and drew is null."""
    g = fish_and_empty_deck()
    hand = g.hand(0)
    g.play(fish(0, FB, FDB, None))
    assert (FB, FDB) in g.laid(0) and len(g.hand(0)) == len(hand) - 2


def test_r_duo_fish_cannot_draw_from_an_empty_deck():
    g = fish_and_empty_deck()
    assert g.refuse(fish(0, FB, FDB, "crab:black")).rule == "R-DUO-FISH"


# ---------------------------------------------------------------- R-DUO-SHARK

def shark_game() -> Game:
    return Game(2).start_round(hands={0: [SHB, SWY], 1: ["shell:black", "octopus:green"]},
                               discards=["shell:grey", "octopus:grey"])


def test_r_duo_shark_steals_a_card():
    """R-DUO-SHARK: take a card from another player's hand; shark and swimmer in either order."""
    g = shark_game()
    g.play(take(0, 1, "octopus:grey"), shark(0, SWY, SHB, 1, "octopus:green"))
    assert g.hand(1) == ("shell:black",)
    assert sorted(g.hand(0)) == sorted(["octopus:grey", "octopus:green"])
    assert g.laid(0) == ((SWY, SHB),)


def test_r_duo_shark_not_from_oneself():
    g = shark_game()
    g.play(take(0, 1, "octopus:grey"))
    assert g.refuse(shark(0, SHB, SWY, 0, "octopus:grey")).rule == "R-DUO-SHARK"


def test_r_duo_shark_card_must_be_in_the_victims_hand():
    g = shark_game()
    g.play(take(0, 1, "octopus:grey"))
    assert g.refuse(shark(0, SHB, SWY, 1, "crab:black")).rule == "R-DUO-SHARK"


def test_r_duo_shark_not_from_an_empty_hand():
    """R-DUO-SHARK: a player whose hand is empty cannot be chosen."""
    g = Game(4).start_round(first=2, hands={2: [SHB, "swimmer:black"], 3: ["shark:green", SWY],
                                            0: ["shark:purple", "swimmer:dark-blue"], 1: [CB]})
    assert g.player == 1
    g.play(take(1, 0, g.pile_top(0)), end(1))
    other = [c for c in g.hand(1) if c != CB][0]
    g.play(take(2, 0, g.pile_top(0)), shark(2, SHB, "swimmer:black", 1, CB), end(2))
    g.play(take(3, 0, g.pile_top(0)), shark(3, "shark:green", SWY, 1, other), end(3))
    assert g.hand(1) == ()
    g.play(take(0, 0, g.pile_top(0)))
    err = g.refuse(shark(0, "shark:purple", "swimmer:dark-blue", 1, CB))
    assert err.rule == "R-DUO-SHARK" and "empty" in err.reason
    g.play(shark(0, "shark:purple", "swimmer:dark-blue", 2, g.hand(2)[0]))


def last_chance_shark() -> Game:
    """Seat 0 calls LAST CHANCE; seat 1 (final turn) holds a shark and a swimmer."""
    g = Game(2).start_round(hands={0: PENGUINS_COLONY, 1: [SHB, SWY, "shell:black", "octopus:green"]},
                            then=[CGR, BY])
    g.play(draw(0, CGR, BY, pile=0), last_chance(0), take(1, 0, BY))
    return g


def test_r_duo_shark_no_hand_to_steal_from():
    """R-DUO-SHARK / R-DUO-NOEFFECT: the only other hand is revealed: victim and stole null.
    With nobody to steal from, a stolen card or oneself as victim is refused (R-DUO-SHARK)."""
    g = last_chance_shark()
    assert g.refuse(shark(1, SHB, SWY, None, "penguin:pink")).rule == "R-DUO-SHARK"
    assert g.refuse(shark(1, SHB, SWY, 1, "shell:black")).rule == "R-DUO-SHARK"
    g.play(shark(1, SHB, SWY, None, None))
    assert g.laid(1) == ((SHB, SWY),) and len(g.hand(0)) == 5


def test_r_duo_shark_revealed_hand_cannot_be_chosen():
    """R-LAST-3 names revealed hands: a shark stealing from one is refused under it."""
    g = last_chance_shark()
    err = g.refuse(shark(1, SHB, SWY, 0, "colony:green"))
    assert err.rule == "R-LAST-3" and "revealed" in err.reason


# ---------------------------------------------------------------- R-DUO-PAIR

def pair_game() -> Game:
    g = Game(2).start_round(hands={0: [CB, CY, BB, SHB, "shark:green", SWY, "swimmer:black",
                                       FB],
                                   1: ["shell:black", "shell:green", "shell:yellow", "octopus:green",
                                       "octopus:yellow", "octopus:purple", "octopus:grey", "sailor:pink"]},
                            then=[BY, "fish:green"], discards=["shell:grey", "octopus:light-blue"])
    g.play(draw(0, BY, "fish:green", pile=0))
    return g


def test_r_duo_pair_moves_from_hand_to_laid():
    """R-DUO-PAIR: a pair in the hand is laid down in front of the player."""
    g = pair_game()
    g.play(shark(0, "swimmer:black", SHB, 1, "sailor:pink"))
    assert g.laid(0) == (("swimmer:black", SHB),)
    assert "swimmer:black" not in g.hand(0) and SHB not in g.hand(0)


def test_r_duo_pair_two_sharks_are_no_pair():
    g = pair_game()
    assert g.refuse(shark(0, SHB, "shark:green", 1, "sailor:pink")).rule == "R-DUO-PAIR"


def test_r_duo_pair_two_swimmers_are_no_pair():
    g = pair_game()
    assert g.refuse(shark(0, SWY, "swimmer:black", 1, "sailor:pink")).rule == "R-DUO-PAIR"


def test_r_duo_pair_kinds_must_match_the_event():
    g = pair_game()
    assert g.refuse(crabs(0, CB, BB, 0, "shell:grey")).rule == "R-DUO-PAIR"
    assert g.refuse(boats(0, BB, CB)).rule == "R-DUO-PAIR"
    assert g.refuse(fish(0, FB, BB, g.deck[0])).rule == "R-DUO-PAIR"
    assert g.refuse(crabs(0, "lighthouse:purple", CB, 0, "shell:grey")).rule == "R-DUO-PAIR"


def test_r_duo_pair_both_cards_in_hand():
    g = pair_game()
    assert g.refuse(crabs(0, CB, "crab:grey", 0, "shell:grey")).rule == "R-DUO-PAIR"
    # one black crab in hand does not make two
    assert g.refuse(crabs(0, CB, CB, 0, "shell:grey")).rule == "R-DUO-PAIR"
    # a fish and one from the pile are not a hand pair
    assert g.refuse(fish(0, FB, "fish:green", g.deck[0])).rule == "R-DUO-PAIR"


def test_r_duo_pair_laid_pair_is_never_used_again():
    g = pair_game()
    g.play(boats(0, BB, BY), take(0, 0, "fish:green"))
    assert g.refuse(boats(0, BB, BY)).rule == "R-DUO-PAIR"
    g.play(fish(0, FB, "fish:green", g.deck[0]))
    assert g.refuse(fish(0, FB, "fish:green", g.deck[0])).rule == "R-DUO-PAIR"


# ---------------------------------------------------------------- R-DUO-NOEFFECT

def test_r_duo_noeffect_crab_must_take_when_it_can():
    """R-DUO-NOEFFECT: an effect that can happen must happen."""
    g = crab_pile()
    assert g.refuse(crabs(0, CB, CY, None, None)).rule == "R-DUO-NOEFFECT"
    assert g.refuse(crabs(0, CB, CY, 0, None)).rule == "R-DUO-NOEFFECT"


def test_r_duo_noeffect_fish_must_draw_when_it_can():
    g = Game(2).start_round(hands={0: [FB, FDB], 1: ["shell:black", "shell:green"]},
                            then=[CB, CY, BB])
    g.play(draw(0, CB, CY, pile=0))
    assert g.refuse(fish(0, FB, FDB, None)).rule == "R-DUO-NOEFFECT"


def test_r_duo_noeffect_shark_must_steal_when_it_can():
    g = shark_game()
    g.play(take(0, 1, "octopus:grey"))
    assert g.refuse(shark(0, SHB, SWY, None, None)).rule == "R-DUO-NOEFFECT"


def test_r_duo_noeffect_boat_with_nothing_to_take():
    """R-DUO-NOEFFECT: deck and both piles empty: the boat pair is laid, no extra take."""
    hands = {0: [CB, CY, BB, BDB], 1: [CGR, CG, BY, BLB]}
    g = Game(2).start_round(hands=hands, discards=["shell:grey", "octopus:grey"])
    g.drain(2, piles_empty=True)
    p = g.player
    (c1, c2, b1, b2) = hands[p]
    a, b = g.deck
    g.play(draw(p, a, b, keep=a, pile=0), crabs(p, c1, c2, 0, b))
    assert g.deck == () and g.pile(0) == g.pile(1) == ()
    g.play(boats(p, b1, b2))
    assert g.state.flow.step == "play"
    assert not [m for m in legal_moves(g.state) if type(m) in (ev.DeckDrawn, ev.DiscardTaken)]
    assert g.refuse(take(p, 0, b)).rule == "R-FLOW-TAKE"
    g.play(end(p))
    assert g.derived()[0].ending == "deck_out"


def test_r_duo_crab_no_index_when_nothing_is_taken():
    """R-DUO-CRAB: with both piles empty the crab pair takes nothing: pile, took and index
    are all null (an index would name a position in no pile)."""
    g = three_players_piles_empty()
    assert g.refuse(crabs(0, CB, CY, None, None, index=0)).rule == "R-DUO-CRAB"
